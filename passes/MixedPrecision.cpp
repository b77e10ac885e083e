//===- MixedPrecision.cpp - bf16/f16 compute, f32 master weights -*- C++ -*-=//
//
// Gives every parameter a working copy of the compute type and retypes the
// functions that read them, before autodiff: the gradients then follow the
// activations' type without the VJPs knowing about precision, and the
// optimizer step, built later from the parameters, updates the f32 masters.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Utils.h"

#include "dialects/tpc/TpcOps.h"
#include "runtime/program/Abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSwitch.h"

namespace tpc {
#define GEN_PASS_DEF_MIXEDPRECISION
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

struct MixedPrecisionPass
    : public tpc::impl::MixedPrecisionBase<MixedPrecisionPass> {
  using MixedPrecisionBase::MixedPrecisionBase;

  /// The compute type, null for fp32; fails on an unknown name.
  FailureOr<Type> computeType(ModuleOp module) {
    MLIRContext *ctx = module.getContext();
    auto type = llvm::StringSwitch<std::optional<Type>>(precision)
                    .Case("fp32", Type())
                    .Case("bf16", BFloat16Type::get(ctx))
                    .Case("fp16", Float16Type::get(ctx))
                    .Default(std::nullopt);
    if (!type)
      return module.emitError(getArgument())
             << ": unknown precision '" << precision
             << "'; use fp32, bf16 or fp16";
    if (gradReduceDtype != "compute" && gradReduceDtype != "fp32")
      return module.emitError(getArgument())
             << ": unknown grad-reduce-dtype '" << gradReduceDtype
             << "'; use compute (the compute type) or fp32";
    return *type;
  }

  LogicalResult checkModule(ModuleOp module) {
    if (!module->hasAttr(kTpAttrName))
      return module.emitError(getArgument())
             << " needs a partitioned module (no '" << kTpAttrName
             << "'); run tpc-partition first";
    for (StringRef name : {abi::kTrainStep, abi::kApplyStep})
      if (module.lookupSymbol(name))
        return module.emitError(getArgument())
               << " runs before tpc-autodiff, but the module already has @"
               << name << "; run it between tpc-partition and tpc-autodiff";
    for (ParamOp param : module.getOps<ParamOp>()) {
      if (param.getComputeAttr() || param.getGradAttr())
        return param.emitError(getArgument())
               << ": parameter @" << param.getSymName()
               << " already has a working copy; run " << getArgument()
               << " once";
      if (!param.getTensorType().getElementType().isF32())
        return param.emitError(getArgument())
               << ": parameter @" << param.getSymName() << " is "
               << param.getTensorType()
               << ", but mixed precision keeps an f32 master copy of every "
                  "parameter; declare it f32";
    }
    return success();
  }

  /// Retypes `func` to compute in `compute`: parameter reads, then every
  /// result from its operands; float arguments are cast in and float
  /// results of rank >= 1 cast back to f32.
  LogicalResult retype(func::FuncOp func, Type compute, int64_t tp) {
    if (func.isExternal())
      return success();
    SymbolTableCollection symbols;
    Block &entry = func.getBody().front();
    auto builder = OpBuilder::atBlockBegin(&entry);
    for (BlockArgument arg : entry.getArguments()) {
      if (!isFloatTensor(arg.getType()) ||
          cast<RankedTensorType>(arg.getType()).getRank() == 0)
        continue;
      auto type = cast<RankedTensorType>(arg.getType());
      auto in = CastOp::create(builder, arg.getLoc(), type.clone(compute), arg);
      arg.replaceAllUsesExcept(in.getResult(), in);
    }
    WalkResult walk = func.walk([&](GetParamOp read) {
      FailureOr<ParamOp> param =
          ParamOp::lookup(read, read.getNameAttr(), symbols);
      if (failed(param))
        return WalkResult::interrupt();
      FailureOr<RankedTensorType> local = param->getLocalComputeType(tp);
      if (failed(local)) {
        read.emitError(getArgument())
            << ": parameter " << read.getNameAttr()
            << " cannot be split by tp = " << tp;
        return WalkResult::interrupt();
      }
      read.getResult().setType(*local);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted() || failed(refreshResultTypes(func)))
      return failure();
    // Ops that do not infer their results (a fill, a cast) keep their
    // declared types; any other float tensor computed here takes the
    // compute type only through its operands.
    Operation *ret = entry.getTerminator();
    builder.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      if (!type || type.getRank() == 0 || type.getElementType() != compute)
        continue;
      auto out = CastOp::create(builder, ret->getLoc(),
                                type.clone(builder.getF32Type()),
                                operand.get());
      operand.set(out.getResult());
    }
    func.setType(builder.getFunctionType(entry.getArgumentTypes(),
                                         ret->getOperandTypes()));
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<Type> compute = computeType(module);
    if (failed(compute))
      return signalPassFailure();
    if (!*compute)
      return;
    if (failed(checkModule(module)))
      return signalPassFailure();
    Builder builder(&getContext());
    for (ParamOp param : module.getOps<ParamOp>()) {
      param.setComputeAttr(TypeAttr::get(*compute));
      if (gradReduceDtype == "fp32")
        param.setGradAttr(TypeAttr::get(builder.getF32Type()));
    }
    int64_t tp = getModuleTp(module);
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(retype(func, *compute, tp)))
        return signalPassFailure();
  }
};
} // namespace
