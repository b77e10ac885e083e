//===- Utils.cpp - Helpers shared by the tpc passes -------------*- C++ -*-===//

#include "passes/Utils.h"
#include "dialects/tpc/TpcOps.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;
using namespace tpc;

LogicalResult tpc::refreshOpResultTypes(Operation *op, int64_t tp) {
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return failure();
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
  } else if (op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    op->getResult(0).setType(op->getOperand(0).getType());
  } else if (auto gather = dyn_cast<AllGatherOp>(op)) {
    // Keep the gather factor the op had; a tp gather whose old shapes were
    // dynamic gathers over the module's tp ranks.
    RankedTensorType in = gather.getInput().getType();
    RankedTensorType old = gather.getResult().getType();
    int64_t dim = gather.getDim();
    int64_t factor = gather.getGroup() == Group::tp ? tp : 1;
    SmallVector<int64_t> shape(in.getShape());
    if (!ShapedType::isDynamic(old.getDimSize(dim)) &&
        !ShapedType::isDynamic(shape[dim]) && shape[dim] != 0 &&
        old.getDimSize(dim) % shape[dim] == 0 && gather.getGroup() == Group::dp)
      factor = old.getDimSize(dim) / shape[dim];
    if (!ShapedType::isDynamic(shape[dim]))
      shape[dim] *= factor;
    gather.getResult().setType(
        RankedTensorType::get(shape, in.getElementType()));
  }
  return success();
}

LogicalResult tpc::refreshResultTypes(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  int64_t tp = module ? getModuleTp(module) : 1;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (failed(refreshOpResultTypes(op, tp)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  Operation *ret = func.getBody().back().getTerminator();
  func.setType(FunctionType::get(func.getContext(),
                                 func.getBody().getArgumentTypes(),
                                 ret->getOperandTypes()));
  return success();
}
