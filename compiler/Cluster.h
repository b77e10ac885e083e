//===- Cluster.h - The devices and links a layout runs on --------*- C++
//-*-===//
//
// A cluster is a small JSON file (compiler/clusters/*.json): devices per
// node, memory per device, peak FLOP/s per dtype, HBM bandwidth, the
// fraction of the peak a GEMM reaches (one figure, or per dtype a curve of
// it against the GEMM's FLOPs, as `tpc-plan calibrate` measures it), and
// the bandwidth and latency of the links inside a node and between nodes.
// The step-time model and the planner read it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_CLUSTER_H
#define TPC_COMPILER_CLUSTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

struct Link {
  double bytesPerS = 0;
  double latencyS = 0;
};

/// The fraction of the peak a GEMM reaches against its FLOPs: points in
/// increasing FLOPs, interpolated linearly in log FLOPs and clamped at the
/// ends (a small GEMM runs far below the peak, a large one near it).
using GemmCurve = std::vector<std::pair<double, double>>;

struct Cluster {
  std::string name;
  int64_t devicesPerNode = 1;
  int64_t memoryBytes = 0;
  /// Peak FLOP/s per compute dtype: "fp32", "bf16", "fp16".
  std::map<std::string, double> peakFlops;
  double hbmBytesPerS = 0;
  /// The fraction of the peak a large GEMM reaches, for a dtype without a
  /// curve.
  double gemmEfficiency = 1;
  /// Per dtype, the efficiency by the FLOPs of one GEMM.
  std::map<std::string, GemmCurve> gemmCurve;
  Link intraNode, interNode;

  /// The fraction of `dtype`'s peak a GEMM of `flops` reaches.
  double gemmEfficiencyAt(llvm::StringRef dtype, double flops) const;
  /// Seconds of `gemms` GEMMs of `dtype` that do `flops` in all, at the
  /// efficiency of one of them.
  double gemmSeconds(llvm::StringRef dtype, double flops,
                     double gemms = 1) const;
};

/// The efficiency of a GEMM of `flops` on `curve` (non-empty, increasing
/// FLOPs): linear in log FLOPs between its points, its end values beyond.
double interpolateGemmCurve(const GemmCurve &curve, double flops);

/// Reads a cluster file; the error names the file, the field and the fix.
llvm::Expected<Cluster> readCluster(llvm::StringRef path);

} // namespace tpc

#endif // TPC_COMPILER_CLUSTER_H
