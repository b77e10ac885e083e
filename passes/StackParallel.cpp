//===- StackParallel.cpp - One decode entry point per StagFormer stack ----===//
//
// At decode time the stacks of a StagFormer are independent within one
// position: stack s reads the token's embedding and, through its
// cross-attentions, stack s-1's final activations of earlier positions
// only. This pass splits `decode_step` along the stacks, so that the ranks
// of each stack (a tp group of its own) run their stack alone and all
// stacks process a token at the same time:
//
//   decode_stack_<s>(tokens, pos[, memory]) -> final
//   decode_head(finals...) -> logits
//
// `memory` is stack s-1's final activation of position pos - 1, which the
// generator receives from the previous stack's ranks; each cross-attention
// of stack s becomes `lagged`, writing that memory's keys and values at
// pos - 1 before attending to [0, pos), which is what decode_step's
// cross-attention attends to. The head is the output layer: final norm and
// logits over the last stack's final activation, or over every stack's
// under the alpha combination.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <string>

namespace tpc {
#define GEN_PASS_DEF_STACKPARALLEL
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {

struct StackParallelPass
    : public tpc::impl::StackParallelBase<StackParallelPass> {
  using StackParallelBase::StackParallelBase;

  void runOnOperation() override;

  /// The stacks' final activations in stack order, and whether the head
  /// reads all of them (alpha) or the last alone. Fails with a diagnostic
  /// naming what does not look like a StagFormer.
  LogicalResult findStacks(func::FuncOp decode, Value local,
                           SmallVectorImpl<Value> &finals, bool &alpha);
  /// Clones the ops of `decode` that `roots` need, in order, into a new
  /// function `name` whose arguments are `inputs` (values of decode_step
  /// standing for them), after decode_step's tokens and position when
  /// `positional`.
  func::FuncOp outline(func::FuncOp decode, StringRef name, bool positional,
                       ValueRange inputs, ValueRange roots);
};

LogicalResult StackParallelPass::findStacks(func::FuncOp decode, Value local,
                                            SmallVectorImpl<Value> &finals,
                                            bool &alpha) {
  Block &body = decode.getBody().front();
  auto notStagFormer = [&](const Twine &why) {
    return decode.emitOpError("cannot be split into stacks: ")
           << why
           << "; --stack-parallel decodes a StagFormer (tpc-model stagformer), "
              "whose stacks cross-attend to the previous stack";
  };
  if (body.getOps<DecodeCrossAttentionOp>().empty())
    return notStagFormer("it has no cross-attention between stacks");
  // The output layer: the final norm of the last stack's activation, or of
  // the alpha combination of every stack's.
  Value normed = throughProjections(local);
  Operation *norm = normed.getDefiningOp();
  if (!norm || !isa<LayerNormOp, RmsNormOp>(norm))
    return notStagFormer("the logits do not project a final norm");
  Value last = norm->getOperand(0);
  if (auto scale = last.getDefiningOp<ScaleOp>())
    if (auto sum = scale.getInput().getDefiningOp<WeightedSumOp>()) {
      alpha = true;
      llvm::append_range(finals, sum.getInputs());
    }
  if (!alpha) {
    // Without alpha, the chain of memories from the last stack back.
    finals.push_back(last);
    for (;;) {
      Value memory;
      for (Operation *op : stackOps(finals.back()))
        if (auto cross = dyn_cast<DecodeCrossAttentionOp>(op)) {
          Value read = throughProjections(cross.getKv());
          if (memory && read != memory)
            return notStagFormer("the cross-attentions of one stack read "
                                 "different activations");
          memory = read;
        }
      if (!memory)
        break;
      // The memory of this stack's cross-attentions is the previous
      // stack's final activation, itself without the memory's memory.
      finals.push_back(memory);
      if (finals.size() > 64)
        return notStagFormer("its stacks do not end");
    }
    std::reverse(finals.begin(), finals.end());
  }
  // Stack s reads stack s-1's final activation through its cross-attentions'
  // memory, and no other stack's.
  for (auto [s, final] : llvm::enumerate(finals)) {
    llvm::DenseSet<Value> stop;
    if (s > 0)
      stop.insert(finals[s - 1]);
    llvm::SmallPtrSet<Operation *, 32> ops = opsFeeding(final, stop);
    for (auto [t, other] : llvm::enumerate(finals))
      if (t != s && ops.contains(other.getDefiningOp()))
        return notStagFormer("stack " + Twine(s) + " reads stack " + Twine(t) +
                             " other than through its cross-attentions");
    bool crosses = llvm::any_of(
        ops, [](Operation *op) { return isa<DecodeCrossAttentionOp>(op); });
    if (crosses != (s > 0))
      return notStagFormer(s == 0 ? Twine("its first stack cross-attends")
                                  : "stack " + Twine(s) +
                                        " does not cross-attend to stack " +
                                        Twine(s - 1));
    if (final.getType() != finals.front().getType())
      return notStagFormer("the stacks' final activations differ in type");
  }
  if (finals.size() < 2)
    return notStagFormer("it has one stack");
  return success();
}

func::FuncOp StackParallelPass::outline(func::FuncOp decode, StringRef name,
                                        bool positional, ValueRange inputs,
                                        ValueRange roots) {
  Block &body = decode.getBody().front();
  MLIRContext *ctx = decode.getContext();
  OpBuilder builder(ctx);
  builder.setInsertionPointToEnd(decode->getParentOfType<ModuleOp>().getBody());
  SmallVector<Type> argTypes;
  if (positional)
    argTypes = {body.getArgument(0).getType(), body.getArgument(1).getType()};
  llvm::append_range(argTypes, inputs.getTypes());
  Location loc = decode.getLoc();
  auto func = func::FuncOp::create(builder, loc, name,
                                   builder.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  IRMapping map;
  unsigned first = positional ? 2 : 0;
  if (positional) {
    map.map(body.getArgument(0), entry->getArgument(0));
    map.map(body.getArgument(1), entry->getArgument(1));
  }
  llvm::DenseSet<Value> stop;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    map.map(input, entry->getArgument(first + i));
    stop.insert(input);
  }
  llvm::SmallPtrSet<Operation *, 32> ops = opsFeeding(roots, stop);
  builder.setInsertionPointToStart(entry);
  for (Operation &op : body) {
    if (!ops.contains(&op))
      continue;
    auto cross = dyn_cast<DecodeCrossAttentionOp>(op);
    if (!cross) {
      Operation *clone = builder.clone(op, map);
      // Caches shared with decode_recurrent stay decode_step's.
      clone->removeAttr("cache");
      continue;
    }
    // The memory is the previous position's: write it at pos - 1, then
    // attend to [0, pos) as decode_step does.
    cloneLagged(builder, cross, map, entry->getArgument(1));
  }
  SmallVector<Value> results;
  for (Value root : roots)
    results.push_back(map.lookup(root));
  func::ReturnOp::create(builder, loc, results);
  func.setType(builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  return func;
}

void StackParallelPass::runOnOperation() {
  ModuleOp module = getOperation();
  auto decode = module.lookupSymbol<func::FuncOp>(abi::kDecodeStep);
  if (!decode) {
    module.emitError("tpc-stack-parallel needs @")
        << abi::kDecodeStep << "; run tpc-decode first";
    return signalPassFailure();
  }
  if (module.lookupSymbol(abi::kDecodeHead)) {
    module.emitError("module already has @")
        << abi::kDecodeHead << "; run tpc-stack-parallel once";
    return signalPassFailure();
  }
  if (auto dp = module->getAttrOfType<IntegerAttr>(kDpAttrName);
      dp && dp.getInt() > 1) {
    module.emitError("--stack-parallel places the stacks where data "
                     "parallelism would go, but the module is data-parallel "
                     "over dp = ")
        << dp.getInt() << "; compile it with --dp=1";
    return signalPassFailure();
  }
  // decode_step's logits: the gathered row (cast to f32) of the local
  // vocabulary slice.
  Block &body = decode.getBody().front();
  Value row = body.getTerminator()->getOperand(0);
  Value local = row;
  if (auto cast = local.getDefiningOp<CastOp>())
    local = cast.getInput();
  auto gather = local.getDefiningOp<AllGatherOp>();
  if (!gather) {
    decode.emitOpError("does not return gathered logits; run tpc-decode to "
                       "build it");
    return signalPassFailure();
  }
  local = gather.getInput();

  SmallVector<Value> finals;
  bool alpha = false;
  if (failed(findStacks(decode, local, finals, alpha)))
    return signalPassFailure();
  SmallVector<Value> headInputs;
  if (alpha)
    headInputs.assign(finals.begin(), finals.end());
  else
    headInputs.push_back(finals.back());
  // The output layer reads the stacks' final activations alone: an op of
  // it that read the tokens or the position would belong to a stack.
  llvm::DenseSet<Value> headStop(headInputs.begin(), headInputs.end());
  for (Operation *op : opsFeeding(row, headStop))
    for (Value operand : op->getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        op->emitOpError("of the output layer reads decode_step's argument ")
            << arg.getArgNumber()
            << " other than through a stack; --stack-parallel needs logits "
               "computed from the stacks' final activations alone";
        return signalPassFailure();
      }
  int64_t stacks = int64_t(finals.size());
  for (int64_t s = 0; s < stacks; ++s) {
    SmallVector<Value> inputs;
    if (s > 0)
      inputs.push_back(finals[size_t(s - 1)]);
    outline(decode, (abi::kDecodeStackPrefix + Twine(s)).str(),
            /*positional=*/true, inputs, finals[size_t(s)]);
  }
  outline(decode, abi::kDecodeHead, /*positional=*/false, headInputs, row);
  module->setAttr(abi::kStacksAttr,
                  IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                   stacks));
}

} // namespace
