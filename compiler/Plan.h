//===- Plan.h - Compute budgeting and memory fitting ------------*- C++ -*-===//
//
// The arithmetic practitioners do before a run: the FLOPs of training a
// model of N parameters on D tokens (C = 6ND), the compute-optimal split of
// a budget (D = 20N, so N = sqrt(C / 120)), the wall time on G devices at a
// peak and an MFU, and for a model file the per-rank memory at each
// tensor-parallel size, from the compiler's own cost report.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_PLAN_H
#define TPC_COMPILER_PLAN_H

#include "compiler/CostReport.h"
#include "compiler/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include <vector>

#include <optional>
#include <string>

namespace tpc {

/// Training FLOPs of N parameters on D tokens: 6 N D.
double trainingFlops(double params, double tokens);

/// The compute-optimal model for a budget of C FLOPs with D = 20 N tokens
/// per parameter: N = sqrt(C / 120), D = 20 N.
struct ComputeOptimal {
  double params = 0;
  double tokens = 0;
};
ComputeOptimal computeOptimal(double flops);

/// Seconds to spend C FLOPs on `devices` devices of `peakFlops` each at a
/// model FLOPs utilization of `mfu` (0 < mfu <= 1).
double wallSeconds(double flops, int64_t devices, double peakFlops, double mfu);

/// "3.2 days", "5.0 h", "42 min", "12 s".
std::string humanDuration(double seconds);

/// One row of the memory table: the report at one tp, or why that tp does
/// not apply to the model.
struct MemoryFit {
  int64_t tp = 0;
  int64_t pp = 1;
  std::optional<CostReport> report; ///< unset: the model cannot take this tp
  std::string reason;               ///< why, when unset
  /// What the rank that holds the most holds: its parameters, model states
  /// and totals without and with full recompute (a pipeline's fullest
  /// stage, else the report's rank).
  int64_t params = 0, modelStates = 0, total = 0, totalRecompute = 0;
};

/// Compiles `module` (cloned, so it is left as it is) at tp = 1, 2, 4, ...
/// up to `maxTp` and, for each, pp = 1, 2, 4, ... up to `maxPp` (with
/// base.microBatches micro-batches, or pp when unset), with the other
/// options of `base`, and reports each.
std::vector<MemoryFit> fitMemory(mlir::ModuleOp module,
                                 const CompileOptions &base, int64_t maxTp,
                                 int64_t maxPp = 1);

} // namespace tpc

#endif // TPC_COMPILER_PLAN_H
