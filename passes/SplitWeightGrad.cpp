//===- SplitWeightGrad.cpp - Split linear_grad into B and W -----*- C++ -*-===//
//
// Each tpc.linear_grad becomes a tpc.linear_input_grad (B: the input's
// gradient, which the rest of the backward waits for) and a
// tpc.linear_weight_grad (W: the weight's and bias's, which only the
// optimizer reads), in that order at the same place, so that the program
// computes what it computed before, bit for bit.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "runtime/program/Abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace tpc {
#define GEN_PASS_DEF_SPLITWEIGHTGRAD
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
/// Replaces `from` by `to`, which the split ops inferred from the operands;
/// they differ only where linear_grad's own result types were less or more
/// specific than its operands' (dynamic extents).
LogicalResult replace(LinearGradOp grad, Value from, Value to) {
  if (from.getType() != to.getType())
    return grad.emitOpError("result ")
           << from.getType() << " differs from " << to.getType()
           << ", which the split op infers from its operands; give dout, "
              "input and weight static shapes (run tpc-specialize first)";
  from.replaceAllUsesWith(to);
  return success();
}

LogicalResult split(LinearGradOp grad) {
  OpBuilder builder(grad);
  Location loc = grad.getLoc();
  bool transposed = grad.getTransposed(), bias = grad.getBias();
  if (!grad.getDinput().use_empty()) {
    auto b = LinearInputGradOp::create(builder, loc, grad.getDout(),
                                       grad.getWeight(), transposed);
    if (failed(replace(grad, grad.getDinput(), b.getDinput())))
      return failure();
  }
  bool weightUsed =
      !grad.getDweight().use_empty() || (bias && !grad.getDbias().use_empty());
  if (weightUsed) {
    auto w = LinearWeightGradOp::create(builder, loc, grad.getDout(),
                                        grad.getInput(), transposed, bias);
    if (failed(replace(grad, grad.getDweight(), w.getDweight())) ||
        (bias && failed(replace(grad, grad.getDbias(), w.getDbias()))))
      return failure();
  }
  // The halves stay in the pipeline chunk of the op they replace.
  if (Attribute chunk = grad->getAttr(abi::kChunkAttr))
    for (Operation *op = grad->getPrevNode();
         op && !op->hasAttr(abi::kChunkAttr); op = op->getPrevNode())
      op->setAttr(abi::kChunkAttr, chunk);
  grad.erase();
  return success();
}

struct SplitWeightGradPass
    : public tpc::impl::SplitWeightGradBase<SplitWeightGradPass> {
  void runOnOperation() override {
    SmallVector<LinearGradOp> grads;
    getOperation().walk([&](LinearGradOp grad) { grads.push_back(grad); });
    for (LinearGradOp grad : grads)
      if (failed(split(grad)))
        return signalPassFailure();
  }
};
} // namespace
