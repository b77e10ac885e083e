//===- StepTime.h - Predicted step time of a compiled layout ----*- C++ -*-===//
//
// The planner's step-time model. It reads the compiled program, not a
// formula of the model's shape: every op's matrix-product FLOPs and bytes
// (tpc::opCost) on a roofline of the device, every collective by the
// alpha-beta model of a ring over the links its group spans (inside a node
// or across nodes, by Megatron's rank order), and a pipelined program's own
// per-stage schedule simulated action by action with the chunks' F, B and W
// times, on a cluster described by compiler/Cluster.h.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_STEPTIME_H
#define TPC_COMPILER_STEPTIME_H

#include "compiler/Cluster.h"
#include "compiler/CostReport.h"
#include "compiler/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>

namespace tpc {

/// Where one training step's time goes on the busiest rank, in seconds.
struct StepTime {
  double seconds = 0;
  double compute = 0; ///< matrix products and memory-bound ops
  double tpComm = 0;  ///< the tensor-parallel collectives, not overlapped
  double dpComm = 0;  ///< the data-parallel reduction (and ZeRO's gathers)
  /// The busiest stage's idle time, waiting on other stages and on the
  /// messages between them.
  double bubble = 0;
  double optimizer = 0; ///< apply_step's own work
  double tokens = 0;    ///< per step, all ranks
  double tokensPerS = 0;
  double modelFlopsPerDevice = 0; ///< per second
  double mfu = 0;
  int64_t devices = 0;
  /// What the rank that holds the most holds (model states and arenas).
  int64_t memoryBytes = 0;
};

/// Predicts a step of `module`, compiled with `options` (micro-batches per
/// step: options.microBatches, or 1 without a pipeline when unset);
/// `whole` is the model's cost report (the model FLOPs and, for a
/// pipeline, its stages).
mlir::FailureOr<StepTime> predictStepTime(mlir::ModuleOp module,
                                          const CompileOptions &options,
                                          const CostReport &whole,
                                          const Cluster &cluster);

void printStepTimeText(const StepTime &t, const Cluster &cluster,
                       llvm::raw_ostream &os);
void printStepTimeJson(const StepTime &t, const Cluster &cluster,
                       llvm::raw_ostream &os);

} // namespace tpc

#endif // TPC_COMPILER_STEPTIME_H
