//===- CostReport.h - Per-rank cost of one training step --------*- C++ -*-===//
//
// The cost report reads a (partitioned) module and tells what one rank holds
// and does in one training step: parameters and their optimizer state,
// activation memory with and without per-layer recompute, FLOPs, and the
// all-reduces over the tensor- and data-parallel groups. Every figure comes
// from the IR (shapes, layouts, collectives), never from a model formula, so
// the report is right for any model the dialect expresses.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_COSTREPORT_H
#define TPC_COMPILER_COSTREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace tpc {

/// The compute dtype of a training run. fp32 keeps everything in fp32; bf16
/// and fp16 compute (weights, gradients, activations) in 16 bits and keep an
/// fp32 master copy of the weights and fp32 Adam states (tpc-mixed-precision).
enum class Precision { fp32, bf16, fp16 };

llvm::StringRef stringifyPrecision(Precision precision);
std::optional<Precision> parsePrecision(llvm::StringRef name);

/// What the report takes besides the module: the data-parallel size (the
/// module's tpc.dp once tpc-compile has run; tpc-compile passes its --dp).
/// Byte counts follow the element types of the module itself: its
/// parameters' compute, gradient and master types and its values' types.
struct CostReportConfig {
  int64_t dp = 1;
  /// The module's train_step was compiled with full recompute, so its
  /// planned arena is the recompute figure.
  bool fullRecompute = false;
};

/// The tensor-parallel collectives of one kind and size, and which direction
/// of the step issues them.
enum class CollectiveKind { AllReduce, ReduceScatter, AllGather };

struct AllReduceGroup {
  CollectiveKind kind = CollectiveKind::AllReduce;
  int64_t values = 0;   ///< elements per collective (the whole tensor's)
  int64_t count = 0;    ///< collectives per step
  int64_t forward = 0;  ///< of which in the forward pass (g, all_reduce)
  int64_t backward = 0; ///< of which in the backward pass (f)
};

/// What the ranks of one stack hold under stack-parallel decoding
/// (tpc-stack-parallel): the parameters its entry points read (the last
/// stack's include decode_head's) and its KV caches.
struct StackMemory {
  int64_t weightBytes = 0;    ///< every parameter the stack's ranks read
  int64_t embeddingBytes = 0; ///< of which token and position tables
  int64_t sharedBytes = 0;    ///< of which other stacks' ranks hold too
  int64_t kvCacheBytes = 0;   ///< keys and values, whole context
  int64_t arenaBytes = 0;     ///< planned arenas of its entry points
};

/// One stage of a pipelined module (tpc-compile --pp): what its ranks hold
/// and do per step.
struct StageCost {
  llvm::SmallVector<int64_t> chunks;
  int64_t layers = 0;
  int64_t params = 0; ///< this rank's elements, padding included
  int64_t weightBytes = 0, gradientBytes = 0, masterBytes = 0, adamBytes = 0;
  /// The arenas the runtime allocates: each chunk's planned arena once per
  /// micro-batch it keeps in flight (the schedule's slots), and the shared
  /// arena of apply_step and evaluation.
  int64_t activationBytes = 0;
  int64_t inFlight = 0;        ///< most micro-batches between F and W
  int64_t p2pBytesPerStep = 0; ///< activations and gradients it sends
  /// Matmul FLOPs of one micro-batch through its chunks.
  double forwardFlops = 0, backwardInputFlops = 0, backwardWeightFlops = 0;

  int64_t modelStateBytes() const {
    return weightBytes + gradientBytes + masterBytes + adamBytes;
  }
  int64_t totalBytes() const { return modelStateBytes() + activationBytes; }
};

struct PipelineCost {
  int64_t stages = 1, virtualStages = 1, microBatches = 1;
  std::string schedule;
  llvm::SmallVector<StageCost> perStage;
  /// 1 - busy / (stages x makespan) of the schedule's own action lists,
  /// each F, B and W taking its chunk's FLOPs, messages free.
  double bubbleFraction = 0;
  /// Megatron-LM's (P - 1) / (V M), for comparison.
  double closedFormBubble = 0;
};

struct CostReport;
/// The per-stage cost of `module`, compiled with --pp; `whole` is the
/// report of the same model without stages (tp, dp, the distributed
/// optimizer).
mlir::FailureOr<PipelineCost> computePipelineCost(mlir::ModuleOp module,
                                                  const CostReport &whole);

struct CostReport {
  // Configuration, as found in the IR and the config.
  int64_t tp = 1;
  int64_t dp = 1;
  int64_t microBatch = 0;
  int64_t seq = 0;
  Precision precision = Precision::fp32; ///< the parameters' compute type
  Precision gradient = Precision::fp32;  ///< their gradient buffers' type

  // The whole job.
  int64_t globalParams = 0; ///< unpadded, global shapes
  int64_t vocab = 0;        ///< 0 when the model has no vocabulary output
  int64_t paddedVocab = 0;
  int64_t layers = 0;
  int64_t modelFlopsPerToken = 0;     ///< 6N + attention
  int64_t attentionFlopsPerToken = 0; ///< the attention part of it

  // One rank.
  int64_t rankParams = 0; ///< what the rank holds, padding included
  int64_t weightBytes = 0;
  int64_t gradientBytes = 0;
  int64_t masterBytes = 0; ///< fp32 master weights; 0 without a working copy
  int64_t adamMBytes = 0;
  int64_t adamVBytes = 0;
  int64_t activationBytes = 0;     ///< one micro-batch, no recompute
  int64_t recomputeKeptBytes = 0;  ///< kept across the step with recompute
  int64_t recomputeLayerBytes = 0; ///< the largest layer's activations
  int64_t forwardFlops = 0;        ///< one micro-batch, this rank
  int64_t layerForwardFlops = 0;   ///< the part inside layers
  int64_t tpRingBytesPerStep = 0;  ///< bytes a rank sends over tp (ring)
  /// Arena sizes that tpc-plan-memory placed, per function, in module order.
  llvm::SmallVector<std::pair<std::string, int64_t>> plannedArenas;
  /// True when activationBytes is the planned arena of train_step rather
  /// than the count of saved values.
  bool activationsPlanned = false;
  /// The planned arena of train_step with full recompute, where one was
  /// planned; it replaces the kept + largest-layer count.
  std::optional<int64_t> recomputePlannedBytes;

  // Communication of one step.
  llvm::SmallVector<AllReduceGroup> layerAllReduces;
  llvm::SmallVector<AllReduceGroup> otherAllReduces; ///< outside layers
  bool vocabParallelLoss = false;
  int64_t lossAllReduces = 0;
  int64_t lossValues = 0;           ///< per loss all-reduce (B*T)
  int64_t gatheredLogitsValues = 0; ///< B*T*Vpad
  int64_t dpGradientValues = 0;     ///< 0 when dp == 1
  /// The optimizer is partitioned over dp (tpc.bucket_reduce_scatter):
  /// masters and moments are a shard, gradients are reduce-scattered and
  /// parameters all-gathered.
  bool distributedOptimizer = false;
  /// The regions between tensor-parallel blocks are split along the
  /// sequence (tpc.seq_scatter in the forward).
  bool sequenceParallel = false;
  /// Stack-parallel decoding: per stack, what one of its ranks holds; the
  /// bytes of the final activation each stack sends the next per token.
  llvm::SmallVector<StackMemory> stacks;
  int64_t stackMessageBytes = 0;
  /// Pipeline parallelism: per stage, what one of its ranks holds; the
  /// figures above then describe the whole model on one rank.
  std::optional<PipelineCost> pipeline;

  int64_t modelStateBytes() const {
    return weightBytes + gradientBytes + masterBytes + adamMBytes + adamVBytes;
  }
  int64_t recomputeActivationBytes() const {
    return recomputePlannedBytes ? *recomputePlannedBytes
                                 : recomputeKeptBytes + recomputeLayerBytes;
  }
  int64_t stepFlops() const { return 3 * forwardFlops; }
  int64_t recomputeStepFlops() const { return stepFlops() + layerForwardFlops; }
  int64_t computeBytes() const;
  int64_t gradientElementBytes() const;
  int64_t dpBytesSent() const {
    // A reduce-scatter of the gradients and an all-gather of the parameters
    // send what the two halves of a ring all-reduce do.
    int64_t gather =
        distributedOptimizer ? computeBytes() : gradientElementBytes();
    return (dp - 1) * dpGradientValues * (gradientElementBytes() + gather) / dp;
  }
};

/// Computes the report of `module`'s `forward` function (or its only
/// function). Emits a diagnostic and fails when shapes are not static or
/// the module has no function to analyze.
mlir::FailureOr<CostReport> computeCostReport(mlir::ModuleOp module,
                                              const CostReportConfig &config);

/// Aligned columns, thousands separators, and a legend of the rules.
/// `bytes` in B, KiB, MiB, GiB or TiB with two decimals ("1.50 GiB").
std::string humanBytes(int64_t bytes);

void printCostReportText(const CostReport &report, llvm::raw_ostream &os);

/// The same figures as JSON with stable keys.
void printCostReportJson(const CostReport &report, llvm::raw_ostream &os);

} // namespace tpc

#endif // TPC_COMPILER_COSTREPORT_H
