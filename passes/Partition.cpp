//===- Partition.cpp - Rewrite a sharded model to per-rank shapes -*- C++
//-*-===//
//
// Megatron-LM's SPMD partition: every rank runs the same function on its
// slice of the parameters. f goes before each column-parallel linear, g after
// each row-parallel one (whose bias then follows g, so that it is added once),
// the embedding and the output layer split the (padded) vocabulary and the
// loss becomes the vocabulary-parallel cross-entropy.
//
//===----------------------------------------------------------------------===//

#include "passes/MegatronRule.h"
#include "passes/Passes.h"
#include "passes/Utils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/MapVector.h"

namespace tpc {
#define GEN_PASS_DEF_PARTITION
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
/// Feeds the input of a column-parallel linear through f. Columns of one
/// block that read the same value (q, k and v; gate and up) share one f, so
/// a layer keeps Megatron's two f per forward.
void insertF(OpBuilder &builder, ArrayRef<LinearOp> columns) {
  llvm::MapVector<Value, LinearOp> first;
  for (LinearOp column : columns) {
    auto [it, inserted] = first.insert({column.getInput(), column});
    if (!inserted && column->isBeforeInBlock(it->second))
      it->second = column;
  }
  for (auto [input, earliest] : first) {
    builder.setInsertionPoint(earliest);
    Value f = FOp::create(builder, earliest.getLoc(), input, Group::tp);
    for (LinearOp column : columns)
      if (column.getInput() == input)
        column.getInputMutable().assign(f);
  }
}

/// linear(x, W, b) -> bias_add(g(linear(x, W)), b).
void splitRowParallel(OpBuilder &builder, LinearOp row) {
  builder.setInsertionPoint(row);
  Location loc = row.getLoc();
  Value out = LinearOp::create(builder, loc, row.getInput(), row.getWeight(),
                               /*bias=*/Value(), row.getTransposedAttr());
  out = GOp::create(builder, loc, out, Group::tp);
  if (Value bias = row.getBias())
    out = BiasAddOp::create(builder, loc, out, bias);
  row.getResult().replaceAllUsesWith(out);
  row.erase();
}

/// Attention on heads / tp whole heads per rank; with `replicatedKv` every
/// rank keeps all key/value heads.
void splitHeads(Operation *core, int64_t tp, bool replicatedKv) {
  if (auto self = dyn_cast<SelfAttentionOp>(core)) {
    self.setHeads(self.getHeads() / tp);
    self.setHeadParallel(true);
  } else if (auto cross = dyn_cast<CrossAttentionOp>(core)) {
    cross.setHeads(cross.getHeads() / tp);
    cross.setHeadParallel(true);
  } else if (auto grouped = dyn_cast<GroupedAttentionOp>(core)) {
    grouped.setHeads(grouped.getHeads() / tp);
    grouped.setHeadParallel(true);
    if (replicatedKv)
      grouped.setKvReplicated(true);
    else
      grouped.setKvHeads(grouped.getKvHeads() / tp);
  }
}

struct PartitionPass : public tpc::impl::PartitionBase<PartitionPass> {
  using PartitionBase::PartitionBase;

  void runOnOperation() override;
  LogicalResult checkLayoutsPresent(const MegatronModel &model);
  LogicalResult checkOtherFunctions(func::FuncOp forward);
};

LogicalResult PartitionPass::checkLayoutsPresent(const MegatronModel &model) {
  bool ok = true;
  for (auto &[op, assignment] : model.params) {
    auto param = cast<ParamOp>(op);
    if (param.getLayoutAttr() || assignment.layout.isReplicated())
      continue;
    param.emitOpError("parameter @")
        << param.getSymName() << " has no layout but is the " << assignment.role
        << "; run tpc-megatron-shard first";
    ok = false;
  }
  return success(ok);
}

LogicalResult PartitionPass::checkOtherFunctions(func::FuncOp forward) {
  bool ok = true;
  SymbolTableCollection symbols;
  for (auto func : getOperation().getOps<func::FuncOp>()) {
    if (func == forward)
      continue;
    func.walk([&](GetParamOp read) {
      ParamOp param = getReadParam(read.getResult(), symbols);
      if (!param || !param.getLayoutAttr() ||
          param.getLayoutAttr().isReplicated())
        return;
      read.emitOpError("reads the split parameter @")
          << param.getSymName() << " outside @forward, which alone is "
          << "partitioned; read it from @forward";
      ok = false;
    });
  }
  return success(ok);
}

void PartitionPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = module.getContext();
  auto tpAttr = module->getAttrOfType<IntegerAttr>(kShardTpAttrName);
  if (!tpAttr) {
    module.emitError("module has no ")
        << kShardTpAttrName
        << " attribute; run tpc-megatron-shard{tp=N} before tpc-partition";
    return signalPassFailure();
  }
  int64_t tp = tpAttr.getInt();
  if (tp < 1) {
    module.emitError("tensor-parallel size must be >= 1, got ")
        << kShardTpAttrName << " = " << tp;
    return signalPassFailure();
  }
  if (failed(expectGlobalModule(module, "partition the global model once")))
    return signalPassFailure();
  FailureOr<func::FuncOp> forward = getForward(module);
  if (failed(forward))
    return signalPassFailure();
  FailureOr<MegatronModel> model = analyzeMegatron(*forward, tp);
  if (failed(model) || failed(checkExistingLayouts(*model)) ||
      failed(checkLayoutsPresent(*model)) ||
      failed(checkDivisibility(*model, tp)) ||
      failed(checkOtherFunctions(*forward)))
    return signalPassFailure();

  // The graph: collectives, local heads, per-rank dropout streams.
  OpBuilder builder(ctx);
  for (TpBlock &block : model->blocks) {
    insertF(builder, block.columns);
    if (block.replicatedKv) {
      // k and v of every key/value head on every rank, from replicated
      // weights: each rank's gradient of them is the part its query heads
      // contribute, which f's backward all-reduce sums.
      for (LinearOp column : ArrayRef(block.columns).drop_front()) {
        builder.setInsertionPoint(column);
        auto f = FOp::create(builder, column.getLoc(), column.getWeight(),
                             Group::tp);
        column.getWeightMutable().assign(f);
      }
    }
    splitHeads(block.core, tp, block.replicatedKv);
    for (DropoutOp dropout : block.dropouts) {
      int64_t lastDim = dropout.getInput().getType().getRank() - 1;
      dropout.setStream(RngStream::per_rank);
      dropout.setLayoutAttr(LayoutAttr::getSplit(ctx, lastDim));
    }
    splitRowParallel(builder, block.row);
  }
  for (EmbeddingOp lookup : model->vocabEmbeddings) {
    lookup.setVocabParallel(true);
    builder.setInsertionPointAfter(lookup);
    auto g =
        GOp::create(builder, lookup.getLoc(), lookup.getResult(), Group::tp);
    lookup.getResult().replaceAllUsesExcept(g.getResult(), g);
  }
  for (VocabLoss &loss : model->losses) {
    if (auto linear = dyn_cast<LinearOp>(loss.producer))
      insertF(builder, {linear});
    CrossEntropyOp old = loss.loss;
    builder.setInsertionPoint(old);
    auto fused = VocabParallelCrossEntropyOp::create(
        builder, old.getLoc(), old.getLogits(), old.getTargets(),
        builder.getI64IntegerAttr(loss.vocab), old.getIgnoreIndexAttr());
    old.replaceAllUsesWith(fused.getResults());
    old.erase();
  }

  // The parameters: padded vocabulary, then per-rank types.
  for (auto &[op, assignment] : model->params) {
    if (assignment.vocabDim < 0)
      continue;
    auto param = cast<ParamOp>(op);
    RankedTensorType type = param.getTensorType();
    int64_t vocab = type.getDimSize(assignment.vocabDim);
    SmallVector<int64_t> shape(type.getShape());
    shape[assignment.vocabDim] = getPaddedVocab(vocab, tp);
    param.setType(RankedTensorType::get(shape, type.getElementType()));
    param->setAttr(kVocabSizeAttrName, builder.getI64IntegerAttr(vocab));
  }
  module->removeAttr(kShardTpAttrName);
  module->setAttr(kTpAttrName, builder.getI64IntegerAttr(tp));
  for (ParamOp param : module.getOps<ParamOp>()) {
    if (succeeded(param.getLocalType(tp)))
      continue;
    param.emitOpError("layout ")
        << layoutText(param.getLayoutAttr()) << " of @" << param.getSymName()
        << " cannot be split by tp = " << tp
        << "; give it a layout that divides or remove the layout";
    return signalPassFailure();
  }
  SymbolTableCollection symbols;
  for (auto func : module.getOps<func::FuncOp>()) {
    func.walk([&](GetParamOp read) {
      if (ParamOp param = getReadParam(read.getResult(), symbols))
        read.getResult().setType(*param.getLocalType(tp));
    });
    if (!func.isExternal() && failed(refreshResultTypes(func)))
      return signalPassFailure();
  }
}
} // namespace
