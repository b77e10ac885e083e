//===- Cluster.h - The devices and links a layout runs on --------*- C++
//-*-===//
//
// A cluster is a small JSON file (compiler/clusters/*.json): devices per
// node, memory per device, peak FLOP/s per dtype, HBM bandwidth, the
// fraction of the peak a large GEMM reaches, and the bandwidth and latency
// of the links inside a node and between nodes. The step-time model and
// the planner read it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_CLUSTER_H
#define TPC_COMPILER_CLUSTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace tpc {

struct Link {
  double bytesPerS = 0;
  double latencyS = 0;
};

struct Cluster {
  std::string name;
  int64_t devicesPerNode = 1;
  int64_t memoryBytes = 0;
  /// Peak FLOP/s per compute dtype: "fp32", "bf16", "fp16".
  std::map<std::string, double> peakFlops;
  double hbmBytesPerS = 0;
  /// The fraction of the peak a large GEMM reaches.
  double gemmEfficiency = 1;
  Link intraNode, interNode;
};

/// Reads a cluster file; the error names the file, the field and the fix.
llvm::Expected<Cluster> readCluster(llvm::StringRef path);

} // namespace tpc

#endif // TPC_COMPILER_CLUSTER_H
