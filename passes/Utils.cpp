//===- Utils.cpp - Helpers shared by the tpc passes -------------*- C++ -*-===//

#include "passes/Utils.h"
#include "dialects/tpc/TpcOps.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace mlir;
using namespace tpc;

LogicalResult tpc::expectGlobalModule(ModuleOp module, StringRef fix) {
  if (!module->hasAttr(kTpAttrName))
    return success();
  return module.emitError("module is already partitioned (")
         << kTpAttrName << " = " << getModuleTp(module) << "); " << fix;
}

LogicalResult tpc::expectPartitionedModule(ModuleOp module, StringRef pass) {
  if (module->hasAttr(kTpAttrName))
    return success();
  return module.emitError(pass)
         << " needs a partitioned module (" << kTpAttrName
         << " absent); run tpc-partition first";
}

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
  } else if (isa<SeqScatterOp, SeqGatherOp>(op)) {
    // Along the sequence over tp: the result keeps its extent there, takes
    // the others (and the element type) from the operand.
    auto in = cast<RankedTensorType>(op->getOperand(0).getType());
    auto old = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> shape(in.getShape());
    if (shape.size() >= 2 && old.getRank() == in.getRank())
      shape[1] = old.getDimSize(1);
    op->getResult(0).setType(RankedTensorType::get(shape, in.getElementType()));
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
  int64_t tp = getModuleTp(func);
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

namespace {
/// Whether `later` is computed from `earlier` within `ops`. The walk stops
/// at ops placed before `earlier`'s definition, so it stays within one
/// sublayer.
bool dependsOn(Value later, Value earlier,
               const DenseMap<Operation *, int64_t> &position) {
  int64_t floor = -1;
  if (Operation *def = earlier.getDefiningOp())
    floor = position.lookup(def);
  SmallVector<Value> stack{later};
  DenseSet<Value> seen;
  while (!stack.empty()) {
    Value value = stack.pop_back_val();
    if (value == earlier)
      return true;
    Operation *def = value.getDefiningOp();
    if (!def || !seen.insert(value).second)
      continue;
    auto it = position.find(def);
    if (it == position.end() || it->second <= floor)
      continue;
    // Operands in reverse so that the first (the data path) is walked first.
    for (Value operand : llvm::reverse(def->getOperands()))
      stack.push_back(operand);
  }
  return false;
}
} // namespace

SmallVector<int64_t> tpc::findLayers(ArrayRef<Operation *> ops,
                                     int64_t &layers) {
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(ops))
    position[op] = static_cast<int64_t>(i);
  SmallVector<int64_t> layerOf(ops.size(), -1);
  SmallVector<int64_t> attentionsBefore(ops.size() + 1, 0);
  for (auto [i, op] : llvm::enumerate(ops))
    attentionsBefore[i + 1] =
        attentionsBefore[i] +
        (isa<SelfAttentionOp, GroupedAttentionOp>(op) ? 1 : 0);

  int64_t layerEnd = -1;
  SmallVector<std::pair<int64_t, int64_t>> spans;
  for (auto [i, op] : llvm::enumerate(ops)) {
    auto add = dyn_cast<AddOp>(op);
    if (!add)
      continue;
    Value residual;
    if (dependsOn(add.getRhs(), add.getLhs(), position))
      residual = add.getLhs();
    else if (dependsOn(add.getLhs(), add.getRhs(), position))
      residual = add.getRhs();
    else
      continue;
    int64_t start = 0;
    if (Operation *def = residual.getDefiningOp())
      start = position.lookup(def) + 1;
    start = std::max(start, layerEnd + 1);
    int64_t end = static_cast<int64_t>(i);
    bool hasAttention = attentionsBefore[end + 1] > attentionsBefore[start];
    if (hasAttention || spans.empty())
      spans.push_back({start, end});
    else
      spans.back().second = end;
    layerEnd = end;
  }
  for (auto [k, span] : llvm::enumerate(spans))
    for (int64_t i = span.first; i <= span.second; ++i)
      layerOf[i] = static_cast<int64_t>(k);
  layers = static_cast<int64_t>(spans.size());
  return layerOf;
}

llvm::SmallPtrSet<Operation *, 32>
tpc::opsFeeding(ValueRange roots, const llvm::DenseSet<Value> &stop) {
  llvm::SmallPtrSet<Operation *, 32> ops;
  SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (stop.contains(value))
      continue;
    Operation *op = value.getDefiningOp();
    if (!op || !ops.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      work.push_back(operand);
  }
  return ops;
}

llvm::SmallPtrSet<Operation *, 32> tpc::stackOps(Value final) {
  llvm::SmallPtrSet<Operation *, 32> ops;
  SmallVector<Value> work{final};
  while (!work.empty()) {
    Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || !ops.insert(op).second)
      continue;
    if (auto cross = dyn_cast<DecodeCrossAttentionOp>(op)) {
      work.push_back(cross.getQuery());
      continue;
    }
    for (Value operand : op->getOperands())
      work.push_back(operand);
  }
  return ops;
}

Value tpc::throughProjections(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto linear = dyn_cast<LinearOp>(def))
      value = linear.getInput();
    else if (isa<FOp, GOp, CastOp>(def))
      value = def->getOperand(0);
    else
      break;
  }
  return value;
}

void tpc::cloneLagged(OpBuilder &builder, Operation *op, IRMapping &map,
                      Value pos) {
  auto cross = cast<DecodeCrossAttentionOp>(op);
  auto step = DecodeCrossAttentionOp::create(
      builder, cross.getLoc(), map.lookup(cross.getQuery()),
      map.lookup(cross.getKv()), pos, cross.getHeadsAttr(),
      cross.getCapacityAttr(), cross.getWindowAttr(), cross.getRopeThetaAttr(),
      cross.getRopeDimsAttr(), cross.getHeadParallelAttr(),
      builder.getUnitAttr(), StringAttr());
  map.map(cross.getResult(), step.getResult());
}

std::optional<int> tpc::returnedLossLogits(func::FuncOp func, Operation *ret,
                                           bool classifier) {
  Value logits;
  func.walk([&](Operation *op) {
    if (auto ce = dyn_cast<CrossEntropyOp>(op);
        ce && ce.getClassifier() == classifier)
      logits = ce.getLogits();
    else if (auto ce = dyn_cast<VocabParallelCrossEntropyOp>(op);
             ce && !classifier)
      logits = ce.getLogits();
  });
  if (!logits)
    return std::nullopt;
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    auto cast = v.getDefiningOp<CastOp>();
    if (v == logits || (cast && cast.getInput() == logits))
      return int(i);
  }
  return std::nullopt;
}
