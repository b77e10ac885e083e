//===- Cluster.h - The devices and links a layout runs on --------*- C++
//-*-===//
//
// A cluster is a small JSON file (compiler/clusters/*.json): devices per
// node, memory per device, peak FLOP/s per dtype, HBM bandwidth, the
// fraction of the peak a GEMM reaches (one figure, or per dtype a curve of
// it against the GEMM's FLOPs, as `tpc-plan calibrate` measures it), and
// the bandwidth and latency of the links inside a node and between nodes
// (with, where measured, fits of their reduce-scatters and all-gathers of
// their own).
// The step-time model and the planner read it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_CLUSTER_H
#define TPC_COMPILER_CLUSTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

/// One collective's time by the alpha-beta model: `latencyS` per ring step
/// and the bytes a ring sends over `bytesPerS`.
struct RingFit {
  double bytesPerS = 0;
  double latencyS = 0;
};

/// A link's all-reduce ring (and message) fit, and where they were measured
/// apart, the fits of its reduce-scatters and all-gathers: an MPI library
/// runs each collective by an algorithm of its own, which need not move a
/// byte at an all-reduce's rate. Without them, both are half the
/// all-reduce's ring.
struct Link {
  double bytesPerS = 0;
  double latencyS = 0;
  std::optional<RingFit> reduceScatter, allGather;

  RingFit allReduceFit() const { return {bytesPerS, latencyS}; }
  RingFit reduceScatterFit() const {
    return reduceScatter.value_or(allReduceFit());
  }
  RingFit allGatherFit() const { return allGather.value_or(allReduceFit()); }
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
