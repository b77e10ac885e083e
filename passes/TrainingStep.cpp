//===- TrainingStep.cpp - Parameters and apply_step for training -*- C++ -*-=//

#include "passes/TrainingStep.h"
#include "passes/MegatronRule.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace tpc;

FailureOr<SmallVector<LocalParam>> tpc::collectLocalParams(ModuleOp module,
                                                           StringRef pass) {
  if (module->hasAttr(kShardTpAttrName))
    return module.emitError(pass)
           << " needs a partitioned module, but this one is sharded ('"
           << kShardTpAttrName << "') and not partitioned; run tpc-partition "
           << "first";
  bool partitioned = module->hasAttr(kTpAttrName);
  int64_t tp = getModuleTp(module);
  SmallVector<LocalParam> params;
  for (ParamOp param : module.getOps<ParamOp>()) {
    LayoutAttr layout = param.getLayoutAttr();
    if (layout && layout.getKind() == LayoutKind::partial)
      return param.emitError(pass)
             << ": parameter @" << param.getSymName()
             << " has layout <partial>; a parameter must be replicated or "
                "split to be updated";
    bool split = layout && layout.isSplit();
    if (split && !partitioned)
      return param.emitError(pass)
             << ": parameter @" << param.getSymName()
             << " is split but the module has no '" << kTpAttrName
             << "'; run tpc-partition first, the optimizer step works on "
                "local types";
    FailureOr<RankedTensorType> local = param.getLocalGradType(tp);
    if (failed(local))
      return param.emitError(pass) << ": parameter @" << param.getSymName()
                                   << " cannot be split by tp = " << tp;
    int64_t bits = local->getElementTypeBitWidth();
    params.push_back(
        {param, *local, split, local->getNumElements() * (bits / 8)});
  }
  if (params.empty())
    return module.emitError(pass)
           << " found no tpc.param: the optimizer step is built from the "
              "module's parameters";
  return params;
}

FailureOr<int64_t> tpc::getModuleDp(ModuleOp module, StringRef pass) {
  Attribute attr = module->getAttr(kDpAttrName);
  if (!attr)
    return 1;
  auto value = dyn_cast<IntegerAttr>(attr);
  if (!value || !value.getType().isInteger() || value.getInt() < 1)
    return module.emitError(pass)
           << ": '" << kDpAttrName
           << "' must be an integer >= 1 (the data-parallel size), got "
           << attr;
  return value.getInt();
}

FailureOr<func::FuncOp> tpc::getOrCreateApplyStep(ModuleOp module,
                                                  StringRef pass) {
  MLIRContext *ctx = module.getContext();
  Type scalar = RankedTensorType::get({}, Float32Type::get(ctx));
  Operation *symbol = SymbolTable::lookupSymbolIn(module, kApplyStepName);
  if (symbol) {
    auto func = dyn_cast<func::FuncOp>(symbol);
    Type expected[] = {scalar, scalar};
    if (!func || func.isExternal() ||
        func.getArgumentTypes() != ArrayRef<Type>(expected))
      return symbol->emitError(pass)
             << ": '@" << kApplyStepName
             << "' must be a function of (%lr: tensor<f32>, %inv_count: "
                "tensor<f32>); rename this symbol";
    return func;
  }
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto func =
      func::FuncOp::create(builder, module.getLoc(), kApplyStepName,
                           builder.getFunctionType({scalar, scalar}, {}));
  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  func::ReturnOp::create(builder, module.getLoc());
  return func;
}
