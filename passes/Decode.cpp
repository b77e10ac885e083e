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
// collectives become f and g again. A shared-weights StagFormer also gets
// decode_recurrent, one pass of its last stack per token.
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

/// The logits row every rank samples from: `local`, this rank's vocabulary
/// slice, gathered over tp and cast to f32. Null after a diagnostic.
Value gatheredRow(OpBuilder &builder, Location loc, Value local, int64_t tp) {
  auto gather = AllGatherOp::create(builder, loc, local.getType(), local,
                                    /*dim=*/2, Group::tp);
  if (failed(refreshOpResultTypes(gather, tp)))
    return {};
  Value row = gather.getResult();
  auto rowType = cast<RankedTensorType>(row.getType());
  if (!rowType.getElementType().isF32())
    row =
        CastOp::create(builder, loc, rowType.clone(builder.getF32Type()), row);
  return row;
}

/// The parameter a projection weight reads, through casts and f.
StringAttr weightParam(Value weight) {
  while (Operation *def = weight.getDefiningOp()) {
    if (auto read = dyn_cast<GetParamOp>(def))
      return read.getNameAttr().getAttr();
    if (!isa<FOp, CastOp>(def))
      break;
    weight = def->getOperand(0);
  }
  return {};
}

/// The weight parameters of the linears that produce `op`'s q, k and v.
SmallVector<StringAttr> selfAttentionWeights(Operation *op) {
  SmallVector<StringAttr> names;
  unsigned inputs = isa<DecodeGroupedAttentionOp>(op) ? 3 : 1;
  for (unsigned i = 0; i < inputs; ++i)
    if (auto linear = op->getOperand(i).getDefiningOp<LinearOp>())
      if (StringAttr name = weightParam(linear.getWeight()))
        names.push_back(name);
  return names;
}

struct DecodePass : public tpc::impl::DecodeBase<DecodePass> {
  using DecodeBase::DecodeBase;

  void runOnOperation() override;
  /// Adds decode_recurrent beside `decode` (decode_step) for a
  /// shared-weights StagFormer whose logits come from its last stack; makes
  /// decode_step return that stack's final activation too. Leaves other
  /// models alone.
  LogicalResult buildRecurrent(func::FuncOp decode, Value local, int64_t tp);
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
  if (auto context =
          forward->getParentOfType<ModuleOp>()->getAttrOfType<IntegerAttr>(
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
  if (failed(expectPartitionedModule(module, getArgument())))
    return signalPassFailure();
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
  // Bidirectional attention sees later positions, which decoding does not
  // have yet: such a model (an encoder, whose other inputs decode_step
  // would not have either) gets no decode_step.
  for (Operation &op : forward->getBody().front()) {
    bool bidirectional = false;
    if (auto self = dyn_cast<SelfAttentionOp>(op))
      bidirectional = !self.getCausal();
    else if (auto grouped = dyn_cast<GroupedAttentionOp>(op))
      bidirectional = !grouped.getCausal();
    if (bidirectional && ops.contains(&op)) {
      op.emitWarning("bidirectional self-attention cannot be decoded one "
                     "position at a time; the program gets no @")
          << kDecodeStep;
      return;
    }
  }
  // In program order, so that the first offending op is the one reported.
  for (Operation &op : forward->getBody().front()) {
    if (!ops.contains(&op))
      continue;
    for (Value operand : op.getOperands())
      if (isa<BlockArgument>(operand) && operand != tokens) {
        op.emitOpError("computes the logits from argument ")
            << cast<BlockArgument>(operand).getArgNumber()
            << " of @forward; decode_step feeds only the tokens (argument 0)";
        return signalPassFailure();
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
      if (auto scatter = dyn_cast<SeqScatterOp>(op);
          scatter && scatter.getReduce())
        step = GOp::create(builder, op.getLoc(), input, Group::tp);
      else if (auto gather = dyn_cast<SeqGatherOp>(op);
               gather && gather.getReduceGrad())
        step = FOp::create(builder, op.getLoc(), input, Group::tp);
      map.map(op.getResult(0), step);
    } else if (auto self = dyn_cast<SelfAttentionOp>(op)) {
      auto step = DecodeAttentionOp::create(
          builder, self.getLoc(), map.lookup(self.getQkv()), pos,
          self.getHeadsAttr(), capacityAttr, self.getWindowAttr(),
          self.getRopeThetaAttr(), self.getRopeDimsAttr(),
          self.getHeadParallelAttr(), /*cache=*/StringAttr());
      map.map(self.getResult(), step.getResult());
    } else if (auto grouped = dyn_cast<GroupedAttentionOp>(op)) {
      auto step = DecodeGroupedAttentionOp::create(
          builder, grouped.getLoc(), map.lookup(grouped.getQ()),
          map.lookup(grouped.getK()), map.lookup(grouped.getV()), pos,
          grouped.getHeadsAttr(), grouped.getKvHeadsAttr(), capacityAttr,
          grouped.getWindowAttr(), grouped.getRopeThetaAttr(),
          grouped.getRopeDimsAttr(), grouped.getHeadParallelAttr(),
          grouped.getKvReplicatedAttr(), /*cache=*/StringAttr());
      map.map(grouped.getResult(), step.getResult());
    } else if (auto cross = dyn_cast<CrossAttentionOp>(op)) {
      auto step = DecodeCrossAttentionOp::create(
          builder, cross.getLoc(), map.lookup(cross.getQuery()),
          map.lookup(cross.getKv()), pos, cross.getHeadsAttr(), capacityAttr,
          cross.getWindowAttr(), cross.getRopeThetaAttr(),
          cross.getRopeDimsAttr(), cross.getHeadParallelAttr(),
          /*lagged=*/UnitAttr(), /*cache=*/StringAttr());
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
  Value row = gatheredRow(builder, loc, local, tp);
  if (!row)
    return signalPassFailure();
  func::ReturnOp::create(builder, loc, row);
  decode.setType(
      builder.getFunctionType({tokenType, posType}, {row.getType()}));
  if (failed(buildRecurrent(decode, local, tp)))
    return signalPassFailure();
}

LogicalResult DecodePass::buildRecurrent(func::FuncOp decode, Value local,
                                         int64_t tp) {
  // The last stack: what the logits depend on, not following the
  // cross-attentions' memory (the earlier stacks).
  llvm::SmallPtrSet<Operation *, 32> last = stackOps(local);
  Block &body = decode.getBody().front();
  SmallVector<DecodeCrossAttentionOp> crosses;
  SmallVector<Operation *> selves;
  for (Operation &op : body) {
    if (!last.contains(&op))
      continue;
    if (isa<WeightedSumOp>(op))
      return success(); // the logits read every stack (alpha)
    if (auto cross = dyn_cast<DecodeCrossAttentionOp>(op))
      crosses.push_back(cross);
    else if (isa<DecodeAttentionOp, DecodeGroupedAttentionOp>(op))
      selves.push_back(&op);
  }
  if (crosses.empty() || selves.empty())
    return success(); // not a StagFormer
  // Shared weights: an earlier stack reads the last stack's self-attention
  // weights too.
  llvm::DenseSet<StringAttr> readElsewhere;
  for (auto linear : body.getOps<LinearOp>())
    if (!last.contains(linear))
      if (StringAttr name = weightParam(linear.getWeight()))
        readElsewhere.insert(name);
  for (Operation *self : selves) {
    SmallVector<StringAttr> weights = selfAttentionWeights(self);
    if (weights.empty() || !llvm::all_of(weights, [&](StringAttr w) {
          return readElsewhere.contains(w);
        }))
      return success();
  }
  // The last stack's final activation (what the final norm reads) and the
  // previous stack's, which the memory projections read.
  Value final = throughProjections(local);
  Operation *norm = final.getDefiningOp();
  if (!norm || !isa<LayerNormOp, RmsNormOp>(norm))
    return success();
  final = norm->getOperand(0);
  Value memory = throughProjections(crosses.front().getKv());
  for (DecodeCrossAttentionOp cross : crosses)
    if (throughProjections(cross.getKv()) != memory)
      return success();
  if (memory.getType() != final.getType() ||
      last.contains(memory.getDefiningOp()))
    return success();

  // decode_step reads and writes the last stack's self-attention caches
  // for the prompt; decode_recurrent then continues them.
  MLIRContext *ctx = decode.getContext();
  for (auto [i, self] : llvm::enumerate(selves))
    self->setAttr("cache", StringAttr::get(ctx, "stack." + std::to_string(i)));

  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(decode);
  Location loc = decode.getLoc();
  Type tokenType = body.getArgument(0).getType();
  Type posType = body.getArgument(1).getType();
  auto recurrent = func::FuncOp::create(
      builder, loc, abi::kDecodeRecurrent,
      builder.getFunctionType({tokenType, posType, final.getType()}, {}));
  Block *entry = recurrent.addEntryBlock();
  IRMapping map;
  map.map(body.getArgument(0), entry->getArgument(0));
  map.map(body.getArgument(1), entry->getArgument(1));
  map.map(memory, entry->getArgument(2));
  builder.setInsertionPointToStart(entry);
  llvm::SmallPtrSet<Operation *, 32> beforeMemory = opsFeeding(memory);
  for (Operation &op : body) {
    auto cross = dyn_cast<DecodeCrossAttentionOp>(op);
    if (!cross) {
      if (last.contains(&op))
        builder.clone(op, map);
      continue;
    }
    if (!last.contains(&op))
      continue;
    // The memory projection of the previous token's final activation,
    // cloned from the one of the previous stack's.
    llvm::SmallPtrSet<Operation *, 32> projection = opsFeeding(cross.getKv());
    for (Operation &p : body)
      if (projection.contains(&p) && !beforeMemory.contains(&p) &&
          !last.contains(&p) && !map.contains(p.getResult(0)))
        builder.clone(p, map);
    cloneLagged(builder, cross, map, entry->getArgument(1));
  }
  Value row = gatheredRow(builder, loc, map.lookup(local), tp);
  if (!row)
    return failure();
  Value mine = map.lookup(final);
  func::ReturnOp::create(builder, loc, ValueRange{row, mine});
  recurrent.setType(builder.getFunctionType(
      {tokenType, posType, final.getType()}, {row.getType(), mine.getType()}));

  // decode_step hands the prompt's final activations to decode_recurrent.
  Operation *ret = body.getTerminator();
  SmallVector<Value> results(ret->getOperands());
  results.push_back(final);
  ret->setOperands(results);
  decode.setType(FunctionType::get(ctx, body.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
  return success();
}
} // namespace
