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
// It runs in two steps so that the planner compiles a layout once and
// predicts its relatives from it: profileStep reads a compiled program into
// a StepProfile (each function's compute seconds and the bytes and count of
// its collectives per process group, each stage's memory), and
// predictStepTime clocks a profile for a layout that may differ from the
// compiled one in dp, the micro-batch size and count, the pipeline schedule
// and the distributed optimizer.
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

#include <array>
#include <string>
#include <vector>

namespace llvm::json {
class OStream;
} // namespace llvm::json

namespace tpc {

/// Where one training step's time goes on the busiest rank, in seconds.
struct StepTime {
  double seconds = 0;
  double compute = 0; ///< matrix products and memory-bound ops
  /// Of compute: the forward run again in the backward (full recompute).
  double recompute = 0;
  double tpComm = 0; ///< the tensor-parallel collectives, not overlapped
  /// The data-parallel reduction (and ZeRO's gathers) that the step does
  /// not hide behind the backward.
  double dpComm = 0;
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

/// What the model assumes of the runtime beyond the program.
struct StepModelOptions {
  /// tpc-run train --overlap-grad-reduce: the last micro-batch's backward
  /// starts each gradient bucket's data-parallel reduction as soon as the
  /// bucket is final, so all but the last bucket can hide behind it.
  bool overlapGradReduce = false;
  /// Self-attention as Megatron-LM ran it before fused attention kernels
  /// (2021): the batched QK^T and PV products, a fused scale-mask-softmax
  /// and the dropout as kernels of their own, each writing or reading the
  /// [batch, heads, seq, seq] scores and probabilities in memory, instead
  /// of one kernel that keeps them on chip.
  bool unfusedAttention = false;
};

/// The collectives of one process group in one function: ring all-reduces,
/// reduce-scatters and all-gathers, their bytes summed (a tensor's whole
/// bytes, before a scatter or after a gather).
struct RingTraffic {
  double allReduceBytes = 0, scatterBytes = 0, gatherBytes = 0;
  int64_t allReduces = 0, scatters = 0, gathers = 0;
  /// Seconds over `g` ranks of `link` by the alpha-beta model, each kind
  /// of collective by the link's fit of it.
  double seconds(int64_t g, const Link &link) const;
};

/// One function of a compiled program, once.
struct FunctionProfile {
  double compute = 0; ///< seconds on the roofline
  /// Of compute: the per-parameter optimizer updates over all the rank's
  /// parameters, of which the distributed optimizer runs 1/dp.
  double update = 0;
  std::array<RingTraffic, 4> groups; ///< by tpc::Group
  /// apply_step's bucketed gradient reduction over dp: the gradient and
  /// compute-type parameter bytes of its buckets (an all-reduce each, or a
  /// reduce-scatter and an all-gather under the distributed optimizer).
  double bucketGradientBytes = 0, bucketParameterBytes = 0;
  int64_t buckets = 0;
};

/// A compiled program as the step-time model reads it.
struct StepProfile {
  int64_t tp = 1, dp = 1, pp = 1, virtualStages = 1, microBatch = 1;
  bool distributedOptimizer = false;
  /// Per chunk; without a pipeline one entry, train_step, in `forward`.
  std::vector<FunctionProfile> forward, backwardInput, backwardWeight;
  /// Per stage: its apply_step (without a pipeline, the one apply_step).
  std::vector<FunctionProfile> apply;
  double p2pBytes = 0; ///< the largest message between stages
  /// Per stage: what does not depend on dp or the schedule (weights and
  /// gradients), the optimizer state that ZeRO shards over dp (masters and
  /// moments) and the activation arenas as compiled; per chunk the bytes of
  /// one slot and the slots the compiled schedule gave it.
  std::vector<int64_t> fixedBytes, shardableBytes, activationBytes;
  std::vector<int64_t> slotBytes, slots;
  int64_t modelFlopsPerToken = 0;
};

/// Reads `module`, compiled with `compiled`, on `cluster` (the roofline of
/// its devices); `whole` is the model's cost report (the model FLOPs and,
/// for a pipeline, its stages).
mlir::FailureOr<StepProfile> profileStep(mlir::ModuleOp module,
                                         const CompileOptions &compiled,
                                         const CostReport &whole,
                                         const Cluster &cluster,
                                         const StepModelOptions &model = {});

/// Seconds of a self-attention of `batch` x `heads` heads of `seq`
/// positions and `headDim` as unfused kernels (StepModelOptions::
/// unfusedAttention), the forward or the backward, on `cluster`'s
/// roofline, with `elementBytes` per element of the scores and a dropout
/// of the probabilities if `dropout`.
double unfusedAttentionSeconds(double batch, double heads, double seq,
                               double headDim, double elementBytes,
                               bool dropout, bool backward,
                               const Cluster &cluster, llvm::StringRef dtype);

/// Predicts a step of `layout` from the profile of a program compiled with
/// the same tp, pp, virtual stages, sequence parallelism and recompute:
/// dp, the micro-batch size (activations, compute and messages scale with
/// it), the micro-batches per step (layout.microBatches, or pp, or 1), the
/// schedule and the distributed optimizer may differ. An error names a
/// schedule the sizes do not allow.
llvm::Expected<StepTime> predictStepTime(const StepProfile &profile,
                                         const CompileOptions &layout,
                                         const Cluster &cluster,
                                         const StepModelOptions &model = {});

void printStepTimeText(const StepTime &t, const Cluster &cluster,
                       llvm::raw_ostream &os);
void printStepTimeJson(const StepTime &t, const Cluster &cluster,
                       llvm::raw_ostream &os);
/// The breakdown as members of an object being written to `j`.
void writeStepTimeJson(const StepTime &t, llvm::json::OStream &j);

} // namespace tpc

#endif // TPC_COMPILER_STEPTIME_H
