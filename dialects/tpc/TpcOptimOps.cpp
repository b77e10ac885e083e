//===- TpcOptimOps.cpp - tpc optimizer-step operations ----------*- C++ -*-===//
//
// Verifiers of the ops of `apply_step`. The op classes themselves are
// generated into TpcOps.cpp.inc with the rest of the dialect.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpc/ShapeDiagnostics.h"
#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;
using namespace tpc;
using namespace tpc::detail;

namespace {
/// Checks that `grad` has the type of the gradient buffer of the parameter
/// `name` on one rank. `role` says what the value is to the op.
LogicalResult verifyGradType(Operation *op, FlatSymbolRefAttr name, Type grad,
                             StringRef role,
                             SymbolTableCollection &symbolTable) {
  FailureOr<ParamOp> param = ParamOp::lookup(op, name, symbolTable);
  if (failed(param))
    return failure();
  FailureOr<RankedTensorType> local =
      localParamType(op, *param, param->getGradElementType());
  if (failed(local))
    return failure();
  if (grad == *local)
    return success();
  return op->emitOpError() << role << " of parameter " << name << " is " << grad
                           << " but its gradient on each rank is " << *local
                           << " (tp = " << getModuleTp(op) << "); use "
                           << *local;
}

/// Checks that an optimizer hyper-parameter lies in [0, 1) or, with
/// `closed`, in [0, 1].
LogicalResult checkUnitRange(Operation *op, StringRef name, double value,
                             bool closed, StringRef advice) {
  if (std::isfinite(value) && value >= 0.0 &&
      (closed ? value <= 1.0 : value < 1.0))
    return success();
  return op->emitOpError() << name << " must be in [0, 1"
                           << (closed ? "]" : ")") << ", got " << value
                           << advice;
}
} // namespace

//===----------------------------------------------------------------------===//
// GetGradOp
//===----------------------------------------------------------------------===//

LogicalResult GetGradOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGradType(*this, getNameAttr(), getResult().getType(), "read",
                        symbolTable);
}

//===----------------------------------------------------------------------===//
// BucketAllReduceOp / BucketReduceScatterOp / BucketAllGatherOp
//===----------------------------------------------------------------------===//

namespace {
/// The checks of a bucket op that need no symbol table.
LogicalResult verifyBucket(Operation *op, ArrayAttr params, Group group,
                           StringRef what) {
  // A bucket_all_reduce also sums the two copies of a tied embedding table
  // over the pipeline's embedding group.
  bool embedding = isa<BucketAllReduceOp>(op) && group == Group::embedding;
  if (group != Group::dp && !embedding)
    return op->emitOpError()
           << what << " over group dp, not " << stringifyGroup(group)
           << ": tensor-parallel ranks hold slices of one gradient or, for "
              "replicated parameters, equal ones"
           << (isa<BucketAllReduceOp>(op)
                   ? " (or over embedding, a tied table's two pipeline "
                     "stages)"
                   : "");
  if (params.empty())
    return op->emitOpError("needs at least one parameter");
  llvm::DenseSet<Attribute> seen;
  for (Attribute name : params)
    if (!seen.insert(name).second)
      return op->emitOpError("lists parameter ")
             << name << " twice; each belongs to one bucket";
  return success();
}

/// Resolves a bucket's parameters and checks that they are consecutive
/// `tpc.param`s of one module whose `elementType` agree (`kind` names it).
LogicalResult verifyBucketParams(Operation *op, ArrayAttr names,
                                 SymbolTableCollection &symbolTable,
                                 function_ref<Type(ParamOp)> elementType,
                                 StringRef kind) {
  SmallVector<ParamOp> params;
  for (auto name : names.getAsRange<FlatSymbolRefAttr>()) {
    FailureOr<ParamOp> param = ParamOp::lookup(op, name, symbolTable);
    if (failed(param))
      return failure();
    params.push_back(*param);
  }
  Type element = elementType(params.front());
  for (ParamOp param : params)
    if (elementType(param) != element)
      return op->emitOpError("mixes ")
             << kind << " element types: @" << params.front().getSymName()
             << " is " << element << " but @" << param.getSymName() << " is "
             << elementType(param)
             << "; one collective moves one element type, so put them in "
                "separate buckets";

  // One contiguous range of the runtime's buffers: consecutive parameters.
  Operation *parent = params.front()->getParentOp();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t index = 0;
  for (Operation &other : parent->getRegion(0).front())
    if (isa<ParamOp>(other))
      position[&other] = index++;
  int64_t lo = index, hi = -1;
  for (ParamOp param : params) {
    auto it = position.find(param.getOperation());
    if (it == position.end())
      return op->emitOpError("parameters @")
             << params.front().getSymName() << " and @" << param.getSymName()
             << " belong to different modules";
    lo = std::min(lo, it->second);
    hi = std::max(hi, it->second);
  }
  if (hi - lo + 1 != static_cast<int64_t>(params.size()))
    return op->emitOpError("parameters of a bucket must be consecutive "
                           "tpc.params of the module, so that their "
                           "gradients are one contiguous buffer; ")
           << params.size() << " parameters span " << hi - lo + 1
           << " positions";
  return success();
}

Type gradElementType(ParamOp param) { return param.getGradElementType(); }
Type computeElementType(ParamOp param) { return param.getComputeElementType(); }
} // namespace

LogicalResult BucketAllReduceOp::verify() {
  return verifyBucket(*this, getParams(), getGroup(), "reduces gradients");
}

LogicalResult
BucketAllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyBucketParams(*this, getParams(), symbolTable, gradElementType,
                            "gradient");
}

LogicalResult BucketReduceScatterOp::verify() {
  return verifyBucket(*this, getParams(), getGroup(), "reduces gradients");
}

LogicalResult
BucketReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyBucketParams(*this, getParams(), symbolTable, gradElementType,
                            "gradient");
}

LogicalResult BucketAllGatherOp::verify() {
  return verifyBucket(*this, getParams(), getGroup(),
                      "gathers the optimizer's shards");
}

LogicalResult
BucketAllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyBucketParams(*this, getParams(), symbolTable, computeElementType,
                            "compute");
}

//===----------------------------------------------------------------------===//
// SumSquaresOp / GradNormOp
//===----------------------------------------------------------------------===//

LogicalResult SumSquaresOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one input");
  return success();
}

LogicalResult GradNormOp::verify() {
  FloatAttr attr = getMaxNormAttr();
  if (!attr)
    return success();
  double maxNorm = attr.getValueAsDouble();
  if (!(maxNorm > 0.0 && std::isfinite(maxNorm)))
    return emitOpError("max_norm must be a finite number > 0, got ")
           << maxNorm << "; omit it to disable clipping";
  return success();
}

//===----------------------------------------------------------------------===//
// AdamWUpdateOp / SgdUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult AdamWUpdateOp::verify() {
  double eps = getEps().convertToDouble();
  if (failed(checkUnitRange(*this, "beta1", getBeta1().convertToDouble(),
                            /*closed=*/false, " (GPT-2 training uses 0.9)")) ||
      failed(checkUnitRange(*this, "beta2", getBeta2().convertToDouble(),
                            /*closed=*/false, " (GPT-2 training uses 0.95)")) ||
      failed(checkUnitRange(*this, "weight_decay",
                            getWeightDecay().convertToDouble(),
                            /*closed=*/true, "")))
    return failure();
  if (!(eps > 0.0 && std::isfinite(eps)))
    return emitOpError("eps must be a finite number > 0, got ")
           << eps << " (1.0e-08 is usual)";
  return success();
}

LogicalResult
AdamWUpdateOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGradType(*this, getNameAttr(), getGrad().getType(), "gradient",
                        symbolTable);
}

LogicalResult SgdUpdateOp::verify() {
  if (failed(checkUnitRange(*this, "momentum", getMomentum().convertToDouble(),
                            /*closed=*/false, " (0 is plain SGD)")) ||
      failed(checkUnitRange(*this, "weight_decay",
                            getWeightDecay().convertToDouble(),
                            /*closed=*/true, "")))
    return failure();
  return success();
}

LogicalResult
SgdUpdateOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyGradType(*this, getNameAttr(), getGrad().getType(), "gradient",
                        symbolTable);
}
