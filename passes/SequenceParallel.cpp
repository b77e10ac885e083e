//===- SequenceParallel.cpp - Split the regions between TP blocks -*- C++
//-*-===//
//
// Sequence parallelism (Korthikanti et al. 2022) on a partitioned @forward.
// Between the tensor-parallel blocks every rank computes the same layer
// norms, dropouts and residual adds over the whole sequence; this pass makes
// each rank compute them for its T / tp positions instead:
//
//   g (all-reduce)          -> seq_scatter reduce (reduce-scatter along T)
//   f before a column block -> seq_gather reduce_grad (all-gather along T;
//                              its backward reduce-scatters)
//
// The ops that act position by position are rewritten to the split shapes
// as the split values reach them. A whole-sequence activation that meets a
// split one there (the position embedding) is sliced with a plain
// seq_scatter; a replicated operand that is not an activation (a layer
// norm's scale, a bias, StagFormer's alpha) is read through tpc.f, because
// each rank's gradient of it now comes from its own positions only and the
// ranks' parts must be summed. Any other consumer of a split value gets it
// gathered back (seq_gather, whose backward takes this rank's slice).
//
//===----------------------------------------------------------------------===//

#include "passes/MegatronRule.h"
#include "passes/Passes.h"
#include "passes/Utils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace tpc {
#define GEN_PASS_DEF_SEQUENCEPARALLEL
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
/// The ops whose every output position depends only on the same position
/// of their activation operands.
bool isPositionwise(Operation *op) {
  return isa<AddOp, BiasAddOp, DropoutOp, LayerNormOp, RmsNormOp, ScaleOp,
             CastOp, WeightedSumOp, GeluOp>(op);
}

struct SequenceParallelPass
    : public tpc::impl::SequenceParallelBase<SequenceParallelPass> {
  using SequenceParallelBase::SequenceParallelBase;

  void runOnOperation() override;

  int64_t tp = 1, seq = 0;
  /// Values held as this rank's positions, and what was built for others.
  DenseSet<Value> split;
  DenseMap<Value, Value> sliced, gathered, summed;

  /// [B, T, ...] at the full sequence length.
  bool isActivation(Value value) const {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getRank() >= 2 && type.getDimSize(1) == seq &&
           isa<FloatType>(type.getElementType());
  }
  RankedTensorType splitType(Type type) const {
    auto ranked = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(ranked.getShape());
    shape[1] /= tp;
    return ranked.clone(shape);
  }
  Value sliceOf(OpBuilder &builder, Value value);
  Value gatherOf(OpBuilder &builder, Value value);
  Value sumOf(OpBuilder &builder, Value value);
  LogicalResult rewrite(Operation *op, OpBuilder &builder);
};

Value SequenceParallelPass::sliceOf(OpBuilder &builder, Value value) {
  Value &slice = sliced[value];
  if (!slice)
    slice = SeqScatterOp::create(builder, value.getLoc(),
                                 splitType(value.getType()), value,
                                 /*reduce=*/false);
  return slice;
}

Value SequenceParallelPass::gatherOf(OpBuilder &builder, Value value) {
  Value &whole = gathered[value];
  if (!whole) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[1] *= tp;
    whole = SeqGatherOp::create(builder, value.getLoc(), type.clone(shape),
                                value, /*reduce_grad=*/false);
  }
  return whole;
}

Value SequenceParallelPass::sumOf(OpBuilder &builder, Value value) {
  Value &f = summed[value];
  if (!f)
    f = FOp::create(builder, value.getLoc(), value, Group::tp);
  return f;
}

LogicalResult SequenceParallelPass::rewrite(Operation *op, OpBuilder &builder) {
  builder.setInsertionPoint(op);
  if (auto g = dyn_cast<GOp>(op); g && isActivation(g.getInput())) {
    auto scatter = SeqScatterOp::create(builder, g.getLoc(),
                                        splitType(g.getType()), g.getInput(),
                                        /*reduce=*/true);
    g.getResult().replaceAllUsesWith(scatter.getResult());
    g.erase();
    split.insert(scatter.getResult());
    return success();
  }
  bool readsSplit = llvm::any_of(op->getOperands(), [&](Value operand) {
    return split.contains(operand);
  });
  if (!readsSplit)
    return success();
  if (auto f = dyn_cast<FOp>(op)) {
    auto gather = SeqGatherOp::create(builder, f.getLoc(), f.getType(),
                                      f.getInput(), /*reduce_grad=*/true);
    f.getResult().replaceAllUsesWith(gather.getResult());
    f.erase();
    return success();
  }
  if (!isPositionwise(op)) {
    for (OpOperand &operand : op->getOpOperands())
      if (split.contains(operand.get()))
        operand.set(gatherOf(builder, operand.get()));
    return success();
  }
  for (OpOperand &operand : op->getOpOperands()) {
    Value value = operand.get();
    if (split.contains(value) || !isa<FloatType>(getElementTypeOrSelf(value)))
      continue;
    operand.set(isActivation(value) ? sliceOf(builder, value)
                                    : sumOf(builder, value));
  }
  if (auto dropout = dyn_cast<DropoutOp>(op)) {
    if (dropout.getLayoutAttr())
      return dropout.emitOpError("already has layout ")
             << layoutText(dropout.getLayoutAttr())
             << " but drops out a sequence-parallel activation; only the "
                "duplicated dropouts between tensor-parallel blocks are split "
                "along the sequence";
    // Masks of this rank's positions of the global tensor: the same
    // elements drop as in the program without sequence parallelism.
    dropout.setStream(RngStream::per_rank);
    dropout.setLayoutAttr(LayoutAttr::getSplit(op->getContext(), 1));
  }
  for (Value result : op->getResults()) {
    if (!isActivation(result))
      continue;
    result.setType(splitType(result.getType()));
    split.insert(result);
  }
  return success();
}

void SequenceParallelPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(expectPartitionedModule(module, getArgument())))
    return signalPassFailure();
  bool already = false;
  module.walk(
      [&](Operation *op) { already |= isa<SeqScatterOp, SeqGatherOp>(op); });
  if (already) {
    module.emitError("module is already sequence-parallel; run "
                     "tpc-sequence-parallel once");
    return signalPassFailure();
  }
  FailureOr<func::FuncOp> forward = getForward(module);
  if (failed(forward))
    return signalPassFailure();
  tp = getModuleTp(module);
  auto tokens = dyn_cast<RankedTensorType>(forward->getArgumentTypes()[0]);
  seq = tokens && tokens.getRank() == 2 ? tokens.getDimSize(1)
                                        : ShapedType::kDynamic;
  if (ShapedType::isDynamic(seq)) {
    forward->emitOpError("has no static sequence length (argument 0 is ")
        << forward->getArgumentTypes()[0]
        << "); sequence parallelism splits it over tp, so run tpc-specialize "
           "first";
    return signalPassFailure();
  }
  if (seq % tp != 0) {
    forward->emitOpError("sequence length ")
        << seq << " does not divide by tp = " << tp
        << "; sequence parallelism gives each rank seq / tp positions, so "
           "choose a sequence length that is a multiple of "
        << tp;
    return signalPassFailure();
  }

  OpBuilder builder(module.getContext());
  SmallVector<Operation *> ops;
  for (Operation &op : forward->getBody().front())
    ops.push_back(&op);
  for (Operation *op : ops)
    if (failed(rewrite(op, builder)))
      return signalPassFailure();
  if (failed(refreshResultTypes(*forward)))
    return signalPassFailure();
}
} // namespace
