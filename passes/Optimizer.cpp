//===- Optimizer.cpp - The optimizer step: norm, clipping, update -*- C++ -*-=//
//
// Completes `apply_step`: reads every gradient, measures the global gradient
// norm across the tensor-parallel group (split parameters' partial sums of
// squares all-reduced over tp, replicated parameters counted once), derives
// the normalisation and clipping scale and updates every parameter with
// AdamW or SGD. After tpc-data-parallel's reduce-scatters (the distributed
// optimizer), the squares also add over dp and each bucket's parameters are
// gathered after the updates.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TrainingStep.h"

#include "mlir/IR/Builders.h"

#include <cmath>

namespace tpc {
#define GEN_PASS_DEF_OPTIMIZER
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
struct OptimizerPass : public tpc::impl::OptimizerBase<OptimizerPass> {
  using OptimizerBase::OptimizerBase;

  /// Reports an option outside [0, 1) (or [0, 1] when `closed`); true when
  /// it is one.
  bool badOption(StringRef name, double value, bool closed) {
    if (std::isfinite(value) && value >= 0.0 &&
        (closed ? value <= 1.0 : value < 1.0))
      return false;
    getOperation().emitError(getArgument())
        << ": " << name << " must be in [0, 1" << (closed ? "]" : ")")
        << ", got " << value;
    return true;
  }

  LogicalResult checkOptions() {
    ModuleOp module = getOperation();
    if (optimizer != "adamw" && optimizer != "sgd")
      return module.emitError(getArgument())
             << ": unknown optimizer '" << optimizer.getValue()
             << "'; choose adamw or sgd";
    if (badOption("weight-decay", weightDecay, /*closed=*/true))
      return failure();
    if (!(maxGradNorm >= 0.0 && std::isfinite(maxGradNorm)))
      return module.emitError(getArgument())
             << ": max-grad-norm must be a finite number >= 0 (0 disables "
                "clipping), got "
             << static_cast<double>(maxGradNorm);
    if (optimizer == "sgd")
      return failure(badOption("momentum", momentum, /*closed=*/false));
    if (momentum != 0.0)
      return module.emitError(getArgument())
             << ": momentum applies to sgd; adamw's are beta1 and beta2";
    if (badOption("beta1", beta1, /*closed=*/false) ||
        badOption("beta2", beta2, /*closed=*/false))
      return failure();
    if (!(eps > 0.0 && std::isfinite(eps)))
      return module.emitError(getArgument())
             << ": eps must be a finite number > 0, got "
             << static_cast<double>(eps);
    return success();
  }

  /// The body of an `apply_step` that tpc-data-parallel may have started
  /// must hold only its gradient reductions.
  LogicalResult checkFreshApplyStep(func::FuncOp func) {
    for (Operation &op : func.getBody().front()) {
      if (isa<BucketAllReduceOp, BucketReduceScatterOp>(op))
        continue;
      auto ret = dyn_cast<func::ReturnOp>(op);
      if (ret && ret.getNumOperands() == 0 && func.getNumResults() == 0)
        continue;
      return func.emitError(getArgument())
             << ": '@" << kApplyStepName << "' already has an optimizer step ('"
             << op.getName() << "'); run " << getArgument() << " once";
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkOptions()))
      return signalPassFailure();
    FailureOr<SmallVector<LocalParam>> params =
        collectLocalParams(module, getArgument());
    if (failed(params))
      return signalPassFailure();
    FailureOr<func::FuncOp> created =
        getOrCreateApplyStep(module, getArgument());
    if (failed(created) || failed(checkFreshApplyStep(*created)))
      return signalPassFailure();
    func::FuncOp func = *created;

    Block &body = func.getBody().front();
    Location loc = func.getLoc();
    body.getTerminator()->erase();
    auto builder = OpBuilder::atBlockEnd(&body);
    Value lr = body.getArgument(0), invCount = body.getArgument(1);
    Type scalar = lr.getType();

    SmallVector<Value> grads, split, replicated;
    for (LocalParam &p : *params) {
      Value g =
          GetGradOp::create(builder, loc, p.localType,
                            FlatSymbolRefAttr::get(p.param.getSymNameAttr()));
      grads.push_back(g);
      (p.split ? split : replicated).push_back(g);
    }

    // Every element once: the slices of a split parameter are disjoint, so
    // their partial sums add over tp; a replicated parameter's gradient is
    // equal on every rank and is counted as it is. The padding of a padded
    // vocabulary has zero gradient and adds nothing.
    Value sumSq;
    if (!split.empty()) {
      Value local = SumSquaresOp::create(builder, loc, scalar, split);
      sumSq = AllReduceOp::create(builder, loc, scalar, local, ReduceKind::sum,
                                  Group::tp);
    }
    if (!replicated.empty()) {
      Value local = SumSquaresOp::create(builder, loc, scalar, replicated);
      sumSq =
          sumSq ? AddOp::create(builder, loc, scalar, sumSq, local).getResult()
                : local;
    }
    // A partitioned optimizer (tpc-data-parallel's distributed-optimizer):
    // each data-parallel rank's gradients hold its shard and zeros, so the
    // squares add over dp too.
    SmallVector<BucketReduceScatterOp> shards =
        llvm::to_vector(func.getOps<BucketReduceScatterOp>());
    if (!shards.empty())
      sumSq = AllReduceOp::create(builder, loc, scalar, sumSq, ReduceKind::sum,
                                  Group::dp);
    FloatAttr maxNorm =
        maxGradNorm > 0.0 ? builder.getF64FloatAttr(maxGradNorm) : FloatAttr();
    auto norm = GradNormOp::create(builder, loc, scalar, scalar, sumSq,
                                   invCount, maxNorm);

    for (auto [p, g] : llvm::zip_equal(*params, grads)) {
      double decay =
          (p.localType.getRank() >= 2 || decay1d) ? weightDecay : 0.0;
      auto name = FlatSymbolRefAttr::get(p.param.getSymNameAttr());
      if (optimizer == "adamw")
        AdamWUpdateOp::create(
            builder, loc, name, g, lr, norm.getScale(),
            builder.getF64FloatAttr(beta1), builder.getF64FloatAttr(beta2),
            builder.getF64FloatAttr(eps), builder.getF64FloatAttr(decay));
      else
        SgdUpdateOp::create(builder, loc, name, g, lr, norm.getScale(),
                            builder.getF64FloatAttr(momentum),
                            builder.getF64FloatAttr(decay));
    }
    for (BucketReduceScatterOp bucket : shards)
      BucketAllGatherOp::create(builder, loc, bucket.getParams(),
                                bucket.getGroup());
    func::ReturnOp::create(builder, loc, norm.getNorm());
    func.setFunctionType(builder.getFunctionType(
        func.getArgumentTypes(), TypeRange{norm.getNorm().getType()}));
  }
};
} // namespace
