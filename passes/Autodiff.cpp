//===- Autodiff.cpp - Build train_step by reverse-mode differentiation ----===//
//
// train_step = forward's ops, then their vector-Jacobian products in reverse
// order, then one accumulate_grad per parameter. The ops themselves say how
// they are differentiated (VjpOpInterface); this pass only orders the
// products, sums the adjoints of values used several times and routes the
// adjoints of parameter reads into the gradient buffers.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"

namespace tpc {
#define GEN_PASS_DEF_AUTODIFF
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
constexpr StringLiteral kForward = abi::kForward;
constexpr StringLiteral kTrainStep = abi::kTrainStep;

/// Sums the gradient contributions of one parameter over all its reads and
/// emits its accumulate_grad once the last read has been differentiated.
struct ParamGradient {
  unsigned pendingReads = 0;
  Value sum;
};

/// Reverse mode over the single block of `train`, whose terminator returns
/// the loss sum first.
class ReverseMode {
public:
  /// `seed`: the loss adjoint; null seeds it with 1.0.
  ReverseMode(func::FuncOp train, Value seed) : train(train), seed(seed) {}

  LogicalResult run() {
    Block &body = train.front();
    Operation *ret = body.getTerminator();
    Value loss = ret->getOperand(0);
    markActive(body);
    if (!active.contains(loss))
      return success();

    OpBuilder builder(ret);
    if (!seed) {
      seed = FillOp::create(builder, loss.getLoc(), loss.getType(),
                            builder.getF64FloatAttr(1.0));
      if (Operation *def = loss.getDefiningOp())
        copyChunk(def, seed.getDefiningOp());
    }
    adjoints[loss] = seed;
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops)) {
      if (auto read = dyn_cast<GetParamOp>(op)) {
        addParamContribution(builder, read);
        continue;
      }
      if (failed(differentiate(builder, op)))
        return failure();
    }
    return success();
  }

private:
  /// Pipeline chunks (tpc-pipeline-cut): an op built for `from` belongs to
  /// its chunk.
  static void copyChunk(Operation *from, Operation *to) {
    if (Attribute chunk = from->getAttr(abi::kChunkAttr))
      to->setAttr(abi::kChunkAttr, chunk);
  }

  /// The chunk of a parameter read: each chunk sums and accumulates the
  /// gradient of its own reads (a tied table's two copies), -1 without a
  /// pipeline.
  static int64_t chunkOf(Operation *op) {
    auto chunk = op->getAttrOfType<IntegerAttr>(abi::kChunkAttr);
    return chunk ? chunk.getInt() : -1;
  }

  /// A value is active when it depends on a parameter: only those carry
  /// adjoints (token ids, targets and counts never do).
  void markActive(Block &body) {
    for (Operation &op : body.without_terminator()) {
      bool fromParam =
          isa<GetParamOp>(op) || llvm::any_of(op.getOperands(), [&](Value v) {
            return active.contains(v);
          });
      if (auto read = dyn_cast<GetParamOp>(op))
        ++params[{read.getNameAttr(), chunkOf(read)}].pendingReads;
      if (!fromParam)
        continue;
      for (Value result : op.getResults())
        if (isa<FloatType>(getElementTypeOrSelf(result.getType())))
          active.insert(result);
    }
  }

  /// Adds `adjoint` to the running sum in `slot` (null: no contribution yet).
  static void accumulate(OpBuilder &builder, Value &slot, Value adjoint) {
    slot = slot ? AddOp::create(builder, adjoint.getLoc(), slot, adjoint)
                      .getResult()
                : adjoint;
  }

  void addParamContribution(OpBuilder &builder, GetParamOp read) {
    ParamGradient &param = params[{read.getNameAttr(), chunkOf(read)}];
    --param.pendingReads;
    Operation *before = builder.getInsertionPoint()->getPrevNode();
    if (Value adjoint = adjoints.lookup(read.getResult()))
      accumulate(builder, param.sum, adjoint);
    if (param.pendingReads == 0 && param.sum)
      AccumulateGradOp::create(builder, read.getLoc(), read.getNameAttr(),
                               param.sum);
    tagSince(builder, before, read);
  }

  /// Gives the ops built after `before` (null: from the block's start) the
  /// chunk of `of`.
  static void tagSince(OpBuilder &builder, Operation *before, Operation *of) {
    if (!of->hasAttr(abi::kChunkAttr))
      return;
    Block *block = builder.getInsertionBlock();
    Block::iterator it =
        before ? std::next(before->getIterator()) : block->begin();
    for (; it != builder.getInsertionPoint(); ++it)
      copyChunk(of, &*it);
  }

  LogicalResult differentiate(OpBuilder &builder, Operation *op) {
    SmallVector<Value> resultAdjoints;
    bool reachesLoss = false;
    for (Value result : op->getResults()) {
      Value adjoint =
          active.contains(result) ? adjoints.lookup(result) : Value();
      reachesLoss |= static_cast<bool>(adjoint);
      resultAdjoints.push_back(adjoint);
    }
    if (!reachesLoss)
      return success();
    auto vjp = dyn_cast<VjpOpInterface>(op);
    if (!vjp)
      return op->emitOpError(
                 "is on the path from the parameters to the loss but has no "
                 "vector-Jacobian product; implement tpc::VjpOpInterface "
                 "(dialects/tpc/TpcInterfaces.td) for '")
             << op->getName() << "' to make it trainable";
    SmallVector<Value> operandAdjoints;
    Operation *before = builder.getInsertionPoint()->getPrevNode();
    llvm::scope_exit tag([&] { tagSince(builder, before, op); });
    if (failed(vjp.buildVjp(builder, resultAdjoints, operandAdjoints)))
      return failure();
    if (operandAdjoints.size() != op->getNumOperands())
      return op->emitOpError("VJP built ")
             << operandAdjoints.size() << " operand adjoints for "
             << op->getNumOperands() << " operands";
    for (auto [operand, adjoint] :
         llvm::zip(op->getOpOperands(), operandAdjoints)) {
      if (!adjoint || !active.contains(operand.get()))
        continue;
      if (adjoint.getType() != operand.get().getType())
        return op->emitOpError("VJP gives operand #")
               << operand.getOperandNumber() << " an adjoint of type "
               << adjoint.getType() << " but the operand is "
               << operand.get().getType();
      accumulate(builder, adjoints[operand.get()], adjoint);
    }
    return success();
  }

  func::FuncOp train;
  Value seed;
  DenseSet<Value> active;
  DenseMap<Value, Value> adjoints;
  llvm::MapVector<std::pair<Attribute, int64_t>, ParamGradient> params;
};

struct AutodiffPass : public tpc::impl::AutodiffBase<AutodiffPass> {
  using AutodiffBase::AutodiffBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto forward = module.lookupSymbol<func::FuncOp>(kForward);
    if (!forward) {
      module.emitError("module has no func.func @")
          << kForward << " to differentiate";
      return signalPassFailure();
    }
    if (Operation *existing = module.lookupSymbol(kTrainStep)) {
      existing->emitError("module already has @")
          << kTrainStep << "; run tpc-autodiff once, on a module without it";
      return signalPassFailure();
    }
    FunctionType type = forward.getFunctionType();
    Builder b(&getContext());
    if (type.getNumResults() < 2 ||
        type.getResult(0) != RankedTensorType::get({}, b.getF32Type()) ||
        type.getResult(1) != RankedTensorType::get({}, b.getI32Type())) {
      forward.emitError("@")
          << kForward
          << " must return the loss sum (tensor<f32>) and the target count "
             "(tensor<i32>) first, got "
          << type;
      return signalPassFailure();
    }
    if (!forward.getBody().hasOneBlock()) {
      forward.emitError("@")
          << kForward << " must be a single block to differentiate";
      return signalPassFailure();
    }

    auto train = cast<func::FuncOp>(forward->clone());
    train.setSymName(kTrainStep);
    module.getBody()->getOperations().insertAfter(forward->getIterator(),
                                                  train);
    // train_step returns the loss sum and count, and a sequence
    // classifier's logits (BERT's sentence order), which the trainer logs.
    Operation *ret = train.front().getTerminator();
    SmallVector<Value> kept(ret->getOperands().take_front(2));
    if (std::optional<int> logits =
            returnedLossLogits(train, ret, /*classifier=*/true))
      kept.push_back(ret->getOperand(*logits));
    ret->setOperands(kept);
    train.setType(FunctionType::get(&getContext(), type.getInputs(),
                                    ValueRange(kept).getTypes()));
    Value seed;
    if (lossScale) {
      // After forward's arguments, keeping their attributes in place.
      unsigned last = train.getNumArguments();
      if (failed(train.insertArgument(last, type.getResult(0), DictionaryAttr(),
                                      train.getLoc())))
        return signalPassFailure();
      seed = train.getArgument(last);
    }
    if (failed(ReverseMode(train, seed).run()))
      return signalPassFailure();
    // Forward values only `forward` returned (the logits, unless the loss
    // reads them) are not computed by train_step.
    for (Operation &op : llvm::make_early_inc_range(
             llvm::reverse(train.front().getOperations())))
      if (isOpTriviallyDead(&op))
        op.erase();
  }
};
} // namespace
