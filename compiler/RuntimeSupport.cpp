//===- RuntimeSupport.cpp - What tpc-run can execute today ------*- C++ -*-===//

#include "compiler/RuntimeSupport.h"

#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <optional>

using namespace mlir;

namespace tpc {
namespace {

/// The runtime's layer-norm kernels use GPT-2's epsilon.
constexpr double kRuntimeEpsilon = 1e-5;

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
  Operation *firstHalf = nullptr, *firstEpsilon = nullptr;
  Type half;
  double epsilon = 0;
  int halfOps = 0, epsilonOps = 0;
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
    std::optional<double> eps;
    if (auto norm = dyn_cast<LayerNormOp>(op))
      eps = norm.getEpsilon().convertToDouble();
    if (auto norm = dyn_cast<LayerNormGradOp>(op))
      eps = norm.getEpsilon().convertToDouble();
    if (eps && std::fabs(*eps - kRuntimeEpsilon) > 1e-12 && !epsilonOps++) {
      firstEpsilon = op;
      epsilon = *eps;
    }
  });
  if (firstHalf)
    firstHalf->emitOpError("uses element type ")
        << half << "; " << halfOps
        << (halfOps == 1 ? " op uses" : " ops use")
        << " f16 or bf16, but a model is written in f32: the compiler keeps "
           "an f32 master copy of every parameter and --precision chooses "
           "the compute type";
  if (firstEpsilon)
    firstEpsilon->emitOpError("epsilon ")
        << epsilon << " is not supported by tpc-run, whose layer-norm "
        << "kernels use GPT-2's 1e-5; " << epsilonOps
        << (epsilonOps == 1 ? " layer norm uses" : " layer norms use")
        << " another epsilon: write `eps 1.0e-05` in the model";
  return success(!firstHalf && !firstEpsilon);
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
