//===- Decode.cpp - Build decode_step from the partitioned forward --------===//
//
// The generator runs a model one token at a time. This pass derives that
// entry point from the partitioned `forward`, so that decoding uses exactly
// the per-rank graph training uses (f and g collectives, head-parallel
// attention, vocabulary-parallel logits): the ops that compute the logits
// are cloned for one position, attention ops become their KV-cached decode
// forms, dropout and the loss are left out, and the logit slices are
// gathered over the tp group so that every rank holds the whole row. A
// sequence-parallel forward decodes whole positions: its sequence
// collectives become f and g again.
//
//===----------------------------------------------------------------------===//

#include "passes/MegatronRule.h"
#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace tpc {
#define GEN_PASS_DEF_DECODE
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
constexpr StringLiteral kDecodeStep = abi::kDecodeStep;

/// The ops of `func` that `root` depends on.
llvm::SmallPtrSet<Operation *, 32> opsFeeding(Value root) {
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Value> work{root};
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !needed.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      work.push_back(operand);
  }
  return needed;
}

struct DecodePass : public tpc::impl::DecodeBase<DecodePass> {
  using DecodeBase::DecodeBase;

  void runOnOperation() override;
  /// The number of positions the caches hold: the rows of the shortest
  /// position table, else the module's context length (kContextAttrName,
  /// for models with rotary positions), else the sequence length `forward`
  /// was specialized to.
  FailureOr<int64_t> capacityOf(func::FuncOp forward,
                                const llvm::SmallPtrSet<Operation *, 32> &ops);
};

FailureOr<int64_t>
DecodePass::capacityOf(func::FuncOp forward,
                       const llvm::SmallPtrSet<Operation *, 32> &ops) {
  int64_t capacity = 0;
  for (Operation *op : ops)
    if (auto positions = dyn_cast<PositionEmbeddingOp>(op)) {
      int64_t rows = positions.getTable().getType().getDimSize(0);
      if (!ShapedType::isDynamic(rows) && (capacity == 0 || rows < capacity))
        capacity = rows;
    }
  if (capacity > 0)
    return capacity;
  if (auto context = forward->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
          kContextAttrName)) {
    if (context.getInt() < 1)
      return forward.emitOpError("module attribute ")
             << kContextAttrName << " = " << context.getInt()
             << " must be >= 1; it is the longest sequence the model reads";
    return context.getInt();
  }
  auto tokens = cast<RankedTensorType>(forward.getArgumentTypes()[0]);
  int64_t seq = tokens.getRank() == 2 ? tokens.getDimSize(1) : 0;
  if (ShapedType::isDynamic(seq) || seq < 1)
    return forward.emitOpError("has neither a position table nor a static "
                               "sequence length to size the KV caches; run "
                               "tpc-specialize first");
  return seq;
}

void DecodePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (!module->hasAttr(kTpAttrName)) {
    module.emitError("tpc-decode needs a partitioned module (")
        << kTpAttrName << " absent); run tpc-partition first";
    return signalPassFailure();
  }
  if (batch < 1) {
    module.emitError("tpc-decode batch must be >= 1, got ") << batch;
    return signalPassFailure();
  }
  if (module.lookupSymbol(kDecodeStep)) {
    module.emitError("module already has @")
        << kDecodeStep << "; run tpc-decode once";
    return signalPassFailure();
  }
  FailureOr<func::FuncOp> forward = getForward(module);
  if (failed(forward))
    return signalPassFailure();
  SmallVector<VocabParallelCrossEntropyOp> losses;
  forward->walk([&](VocabParallelCrossEntropyOp op) { losses.push_back(op); });
  if (losses.size() != 1) {
    forward->emitOpError("computes ")
        << losses.size()
        << " vocab_parallel_cross_entropy ops; decode_step takes the logits "
           "of exactly one";
    return signalPassFailure();
  }
  Value logits = losses.front().getLogits();
  llvm::SmallPtrSet<Operation *, 32> ops = opsFeeding(logits);
  Value tokens = forward->getArgument(0);
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (isa<BlockArgument>(operand) && operand != tokens) {
        op->emitOpError("computes the logits from argument ")
            << cast<BlockArgument>(operand).getArgNumber()
            << " of @forward; decode_step feeds only the tokens (argument 0)";
        return signalPassFailure();
      }
    // Bidirectional attention sees later positions, which decoding does not
    // have yet: such a model gets no decode_step.
    bool bidirectional = false;
    if (auto self = dyn_cast<SelfAttentionOp>(op))
      bidirectional = !self.getCausal();
    else if (auto grouped = dyn_cast<GroupedAttentionOp>(op))
      bidirectional = !grouped.getCausal();
    if (bidirectional) {
      op->emitWarning("bidirectional self-attention cannot be decoded one "
                      "position at a time; the program gets no @")
          << kDecodeStep;
      return;
    }
  }
  // Only attention keeps a cache; a model without it needs no capacity.
  bool attends = llvm::any_of(ops, [](Operation *op) {
    return isa<SelfAttentionOp, GroupedAttentionOp, CrossAttentionOp>(op);
  });
  FailureOr<int64_t> capacity = attends ? capacityOf(*forward, ops) : 0;
  if (failed(capacity))
    return signalPassFailure();

  MLIRContext *ctx = module.getContext();
  int64_t tp = getModuleTp(module);
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(module.getBody());
  Location loc = forward->getLoc();
  Type i32 = IntegerType::get(ctx, 32);
  auto tokenType = RankedTensorType::get({batch, 1}, i32);
  auto posType = RankedTensorType::get({}, i32);
  auto decode =
      func::FuncOp::create(builder, loc, kDecodeStep,
                           builder.getFunctionType({tokenType, posType}, {}));
  Block *body = decode.addEntryBlock();
  Value pos = body->getArgument(1);
  IRMapping map;
  map.map(tokens, body->getArgument(0));
  builder.setInsertionPointToStart(body);
  IntegerAttr capacityAttr = builder.getI64IntegerAttr(*capacity);
  for (Operation &op : forward->getBody().front()) {
    if (!ops.contains(&op))
      continue;
    if (auto dropout = dyn_cast<DropoutOp>(op)) {
      map.map(dropout.getResult(), map.lookup(dropout.getInput()));
    } else if (isa<SeqScatterOp, SeqGatherOp>(op)) {
      // One position cannot be split along the sequence: the regions
      // between blocks are whole again, the collectives Megatron's f and g.
      Value input = map.lookup(op.getOperand(0));
      Value step = input;
      if (auto scatter = dyn_cast<SeqScatterOp>(op); scatter && scatter.getReduce())
        step = GOp::create(builder, op.getLoc(), input, Group::tp);
      else if (auto gather = dyn_cast<SeqGatherOp>(op); gather && gather.getReduceGrad())
        step = FOp::create(builder, op.getLoc(), input, Group::tp);
      map.map(op.getResult(0), step);
    } else if (auto self = dyn_cast<SelfAttentionOp>(op)) {
      auto step = DecodeAttentionOp::create(
          builder, self.getLoc(), map.lookup(self.getQkv()), pos,
          self.getHeadsAttr(), capacityAttr, self.getWindowAttr(),
          self.getRopeThetaAttr(), self.getRopeDimsAttr(),
          self.getHeadParallelAttr());
      map.map(self.getResult(), step.getResult());
    } else if (auto grouped = dyn_cast<GroupedAttentionOp>(op)) {
      auto step = DecodeGroupedAttentionOp::create(
          builder, grouped.getLoc(), map.lookup(grouped.getQ()),
          map.lookup(grouped.getK()), map.lookup(grouped.getV()), pos,
          grouped.getHeadsAttr(), grouped.getKvHeadsAttr(), capacityAttr,
          grouped.getWindowAttr(), grouped.getRopeThetaAttr(),
          grouped.getRopeDimsAttr(), grouped.getHeadParallelAttr(),
          grouped.getKvReplicatedAttr());
      map.map(grouped.getResult(), step.getResult());
    } else if (auto cross = dyn_cast<CrossAttentionOp>(op)) {
      auto step = DecodeCrossAttentionOp::create(
          builder, cross.getLoc(), map.lookup(cross.getQuery()),
          map.lookup(cross.getKv()), pos, cross.getHeadsAttr(), capacityAttr,
          cross.getWindowAttr(), cross.getRopeThetaAttr(),
          cross.getRopeDimsAttr(), cross.getHeadParallelAttr());
      map.map(cross.getResult(), step.getResult());
    } else {
      // Clones see one position: their result types follow from the
      // operands' before the next op is built on them.
      Operation *step = builder.clone(op, map);
      if (auto positions = dyn_cast<PositionEmbeddingOp>(step))
        positions.getOffsetMutable().assign(pos);
      if (failed(refreshOpResultTypes(step, tp)))
        return signalPassFailure();
    }
  }
  Value local = map.lookup(logits);
  auto gather = AllGatherOp::create(builder, loc, local.getType(), local,
                                    /*dim=*/2, Group::tp);
  if (failed(refreshOpResultTypes(gather, tp)))
    return signalPassFailure();
  // The generator samples from f32 logits whatever the compute type.
  Value row = gather.getResult();
  auto rowType = cast<RankedTensorType>(row.getType());
  if (!rowType.getElementType().isF32())
    row = CastOp::create(builder, loc, rowType.clone(builder.getF32Type()), row);
  func::ReturnOp::create(builder, loc, row);
  decode.setType(
      builder.getFunctionType({tokenType, posType}, {row.getType()}));
}
} // namespace
