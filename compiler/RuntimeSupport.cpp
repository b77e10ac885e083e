//===- RuntimeSupport.cpp - What tpc-run can execute today ------*- C++ -*-===//

#include "compiler/RuntimeSupport.h"

#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;

namespace tpc {
namespace {

/// The first f16 or bf16 element type among `types`, or null.
Type unsupportedElement(TypeRange types) {
  for (Type type : types)
    if (auto shaped = dyn_cast<ShapedType>(type))
      if (isa<Float16Type, BFloat16Type>(shaped.getElementType()))
        return shaped.getElementType();
  return nullptr;
}

} // namespace

LogicalResult checkRuntimeSupport(ModuleOp module) {
  // One diagnostic per problem, at its first op, with the count: a model
  // repeats the same construct in every layer.
  Operation *firstHalf = nullptr;
  Type half;
  int halfOps = 0;
  module.walk([&](Operation *op) {
    Type element = unsupportedElement(op->getResultTypes());
    if (!element)
      element = unsupportedElement(op->getOperandTypes());
    if (auto param = dyn_cast<ParamOp>(op); param && !element)
      element = unsupportedElement(TypeRange(param.getType()));
    if (element && !halfOps++) {
      firstHalf = op;
      half = element;
    }
  });
  if (firstHalf)
    firstHalf->emitOpError("uses element type ")
        << half << "; " << halfOps
        << (halfOps == 1 ? " op uses" : " ops use")
        << " f16 or bf16, but a model is written in f32: the compiler keeps "
           "an f32 master copy of every parameter and --precision chooses "
           "the compute type";
  return success(!firstHalf);
}

void warnAbsurdMemory(const CostReport &report, llvm::raw_ostream &os) {
  int64_t total = report.modelStateBytes() + report.activationBytes;
  if (total <= kAbsurdRankBytes)
    return;
  llvm::WithColor::warning(os, "tpc-compile")
      << "one rank needs " << humanBytes(total) << " (model state "
      << humanBytes(report.modelStateBytes()) << ", activations of one "
      << "micro-batch " << humanBytes(report.activationBytes)
      << "), more than any device holds; use a larger --tp or a smaller "
         "--micro-batch or --seq\n";
}

} // namespace tpc
