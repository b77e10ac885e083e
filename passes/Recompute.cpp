//===- Recompute.cpp - Per-layer activation recompute -----------*- C++ -*-===//
//
// The forward part of @train_step is what its returned loss is computed
// from; every other op belongs to the backward. For each layer of the
// forward, the values only the layer itself reads in the forward pass are
// "internal": the backward's reads of them are redirected to clones of the
// layer's ops, placed just before the first backward op that needs one. The
// originals then die in the forward pass and their buffers are reused.
// In every mode, a sequence-parallel gather that the backward reads is done
// again there.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace tpc {
#define GEN_PASS_DEF_RECOMPUTE
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
/// The ops `values` are computed from, within `body`.
DenseSet<Operation *> producersOf(ValueRange values) {
  DenseSet<Operation *> seen;
  SmallVector<Operation *> stack;
  for (Value value : values)
    if (Operation *def = value.getDefiningOp())
      stack.push_back(def);
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        stack.push_back(def);
  }
  return seen;
}

struct RecomputePass : public tpc::impl::RecomputeBase<RecomputePass> {
  using RecomputeBase::RecomputeBase;

  void runOnOperation() override;
  /// Recomputes layer `ops` (in program order) for the backward.
  void recomputeLayer(ArrayRef<Operation *> ops,
                      const DenseSet<Operation *> &forward);
};

void RecomputePass::recomputeLayer(ArrayRef<Operation *> ops,
                                   const DenseSet<Operation *> &forward) {
  DenseSet<Operation *> inLayer(ops.begin(), ops.end());
  // Values only this layer reads in the forward, which the backward reads.
  SmallVector<Value> internal;
  Operation *first = nullptr;
  for (Operation *op : ops) {
    if (isa<GetParamOp>(op))
      continue; // parameters have storage of their own
    for (Value result : op->getResults()) {
      bool boundary = llvm::any_of(result.getUsers(), [&](Operation *user) {
        return forward.contains(user) && !inLayer.contains(user);
      });
      if (boundary)
        continue;
      bool needed = false;
      for (Operation *user : result.getUsers()) {
        if (forward.contains(user))
          continue;
        needed = true;
        if (!first || user->isBeforeInBlock(first))
          first = user;
      }
      if (needed)
        internal.push_back(result);
    }
  }
  if (internal.empty())
    return;

  // Clone what the internal values are computed from within the layer.
  DenseSet<Operation *> producers = producersOf(internal);
  OpBuilder builder(first);
  IRMapping map;
  DenseSet<Operation *> clones;
  for (Operation *op : ops)
    if (producers.contains(op) && !isa<GetParamOp>(op))
      clones.insert(builder.clone(*op, map));
  for (Value value : internal)
    value.replaceUsesWithIf(map.lookup(value), [&](OpOperand &use) {
      return !forward.contains(use.getOwner()) &&
             !clones.contains(use.getOwner());
    });
}

/// Sequence parallelism keeps the regions between blocks split, but a
/// column-parallel linear's backward reads its whole input: as Megatron-LM
/// does, the backward gathers it again rather than keep the forward's
/// gathered copy alive until then.
void regatherForBackward(Block &body, const DenseSet<Operation *> &forward) {
  SmallVector<SeqGatherOp> gathers;
  for (Operation &op : body)
    if (auto gather = dyn_cast<SeqGatherOp>(op); gather && forward.contains(&op))
      gathers.push_back(gather);
  for (SeqGatherOp gather : gathers) {
    Operation *first = nullptr;
    for (Operation *user : gather.getResult().getUsers())
      if (!forward.contains(user) && (!first || user->isBeforeInBlock(first)))
        first = user;
    if (!first)
      continue;
    OpBuilder builder(first);
    Operation *again = builder.clone(*gather);
    gather.getResult().replaceUsesWithIf(
        again->getResult(0),
        [&](OpOperand &use) { return !forward.contains(use.getOwner()); });
  }
}

void RecomputePass::runOnOperation() {
  if (mode != "none" && mode != "selective" && mode != "full") {
    getOperation().emitError("tpc-recompute: mode must be none, selective or "
                             "full, got '")
        << mode << "'";
    return signalPassFailure();
  }
  auto step = getOperation().lookupSymbol<func::FuncOp>(abi::kTrainStep);
  if (mode != "full" && (!step || step.isExternal()))
    return;
  if (!step || step.isExternal()) {
    getOperation().emitError("tpc-recompute needs a @")
        << abi::kTrainStep << " with a body; run tpc-autodiff first";
    return signalPassFailure();
  }
  Block &body = step.getBody().front();
  DenseSet<Operation *> forward =
      producersOf(body.getTerminator()->getOperands());
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    if (forward.contains(&op))
      ops.push_back(&op);
  if (mode == "full") {
    int64_t layers = 0;
    SmallVector<int64_t> layerOf = findLayers(ops, layers);
    SmallVector<SmallVector<Operation *>> layerOps(layers);
    for (auto [i, op] : llvm::enumerate(ops))
      if (layerOf[i] >= 0)
        layerOps[layerOf[i]].push_back(op);
    for (ArrayRef<Operation *> layer : layerOps)
      recomputeLayer(layer, forward);
  }
  regatherForBackward(body, forward);
}
} // namespace
