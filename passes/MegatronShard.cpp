//===- MegatronShard.cpp - Choose Megatron-LM parameter layouts -*- C++ -*-===//

#include "passes/MegatronRule.h"
#include "passes/Passes.h"
#include "passes/Utils.h"

#include "mlir/IR/Builders.h"

namespace tpc {
#define GEN_PASS_DEF_MEGATRONSHARD
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
struct MegatronShardPass
    : public tpc::impl::MegatronShardBase<MegatronShardPass> {
  using MegatronShardBase::MegatronShardBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (tp < 1) {
      module.emitError("tensor-parallel size must be >= 1, got tp = ")
          << static_cast<int64_t>(tp) << "; use tp=1 for a single rank";
      return signalPassFailure();
    }
    if (failed(expectGlobalModule(
            module, "run tpc-megatron-shard on the global model")))
      return signalPassFailure();
    FailureOr<func::FuncOp> forward = getForward(module);
    if (failed(forward))
      return signalPassFailure();
    FailureOr<MegatronModel> model = analyzeMegatron(*forward, tp);
    if (failed(model) || failed(checkExistingLayouts(*model)) ||
        failed(checkDivisibility(*model, tp)))
      return signalPassFailure();

    MLIRContext *ctx = module.getContext();
    for (ParamOp param : module.getOps<ParamOp>()) {
      if (param.getLayoutAttr())
        continue;
      auto it = model->params.find(param.getOperation());
      param.setLayoutAttr(it != model->params.end()
                              ? it->second.layout
                              : LayoutAttr::getReplicated(ctx));
    }
    module->setAttr(kShardTpAttrName,
                    IntegerAttr::get(IntegerType::get(ctx, 64), tp));
  }
};
} // namespace
