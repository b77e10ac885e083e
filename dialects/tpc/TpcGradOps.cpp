//===- TpcGradOps.cpp - tpc backward operations -----------------*- C++ -*-===//
//
// Type inference and verifiers of the grad ops (TpcGradOps.td). A grad op
// checks that its adjoint operand has the type its forward op's result would
// have, so that a mismatched backward graph fails where it is built.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpc/ShapeDiagnostics.h"
#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <cmath>

using namespace mlir;
using namespace tpc;
using namespace tpc::detail;

namespace {
bool sameShape(RankedTensorType a, RankedTensorType b) {
  if (a.getRank() != b.getRank())
    return false;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    if (!sameExtent(x, y))
      return false;
  return true;
}

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The adjoint `dout` of a forward result must have that result's shape
/// and element type.
LogicalResult expectAdjoint(const OpDiag &loc, RankedTensorType dout,
                            RankedTensorType result, StringRef forward) {
  if (sameShape(dout, result) &&
      dout.getElementType() == result.getElementType())
    return success();
  return fail(loc, "dout " + str(dout) + " is not an adjoint of the " +
                       forward + " result " + str(result) +
                       "; pass the gradient of that result");
}

/// The gradient of a table read at every position: dout [B, T, H] and a
/// result [`rows`, H] of dout's element type, a `what` table.
LogicalResult expectTableGrad(Operation *op, const OpDiag &loc,
                              RankedTensorType dout, RankedTensorType table,
                              StringRef what, StringRef rows) {
  if (failed(expectRank(loc, "dout", dout, 3)) ||
      failed(expectRank(loc, "result", table, 2)))
    return failure();
  if (!sameExtent(dout.getDimSize(2), table.getDimSize(1)) ||
      dout.getElementType() != table.getElementType())
    return op->emitOpError("result ")
           << table << " is not a " << what << " table for dout " << dout
           << "; it must be [" << rows << ", " << dout.getDimSize(2) << "] of "
           << dout.getElementType();
  return success();
}

/// `dout` must be the adjoint of a linear's result: `input` [..., I] with
/// `out` features in place of I.
LogicalResult expectLinearAdjoint(const OpDiag &loc, RankedTensorType dout,
                                  RankedTensorType input, int64_t out) {
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = out;
  return expectAdjoint(loc, dout,
                       RankedTensorType::get(shape, input.getElementType()),
                       "linear");
}

/// The logits' adjoint of both cross-entropy grad ops.
LogicalResult inferLossGradType(const OpDiag &loc, Value logits, Value targets,
                                SmallVectorImpl<Type> &types) {
  if (failed(checkLossOperands(loc, logits, targets)))
    return failure();
  types.push_back(tensorType(logits));
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Seed and gradient sink
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  double value = getValue().convertToDouble();
  if (!std::isfinite(value))
    return emitOpError("value must be finite, got ") << value;
  if (!getResult().getType().hasStaticShape())
    return emitOpError("result ")
           << getResult().getType()
           << " must have a static shape; a fill has no operand to size it";
  return success();
}

LogicalResult
AccumulateGradOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<ParamOp> param = ParamOp::lookup(*this, getNameAttr(), symbolTable);
  if (failed(param))
    return failure();
  FailureOr<RankedTensorType> expected =
      localParamType(*this, *param, param->getComputeElementType());
  if (failed(expected))
    return failure();
  if (getGradient().getType() != *expected)
    return emitOpError("gradient ")
           << getGradient().getType() << " does not match parameter "
           << getNameAttr() << ", which functions read as " << *expected
           << " on each rank (tp = " << getModuleTp(*this) << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

namespace {
/// The ids [B, T] of a table gradient's dout [B, T, H] (rank checked).
LogicalResult expectIdsOfDout(Operation *op, const OpDiag &loc,
                              RankedTensorType dout, RankedTensorType ids) {
  if (failed(expectRank(loc, "ids", ids, 2)))
    return failure();
  if (!sameExtent(dout.getDimSize(0), ids.getDimSize(0)) ||
      !sameExtent(dout.getDimSize(1), ids.getDimSize(1)))
    return op->emitOpError("dout ") << dout << " and ids " << ids
                                    << " disagree on the batch or sequence "
                                       "dimension";
  return success();
}
} // namespace

LogicalResult EmbeddingGradOp::verify() {
  OpDiag loc{getLoc(), getOperationName()};
  RankedTensorType dout = getDout().getType(), ids = getIds().getType(),
                   table = getDtable().getType();
  if (failed(expectRank(loc, "dout", dout, 3)) ||
      failed(expectRank(loc, "result", table, 2)) ||
      failed(expectIdsOfDout(*this, loc, dout, ids)))
    return failure();
  if (!sameExtent(dout.getDimSize(2), table.getDimSize(1)) ||
      dout.getElementType() != table.getElementType())
    return emitOpError("result ")
           << table << " is not a table for rows of dout " << dout
           << "; it must be [V, " << dout.getDimSize(2) << "] of "
           << dout.getElementType();
  if (!table.hasStaticShape())
    return emitOpError("result ")
           << table << " must have a static shape (the table's on this rank)";
  return success();
}

LogicalResult PositionEmbeddingGradOp::verify() {
  OpDiag loc{getLoc(), getOperationName()};
  RankedTensorType dout = getDout().getType(), table = getDtable().getType();
  if (failed(expectTableGrad(*this, loc, dout, table, "position", "P")))
    return failure();
  int64_t seq = dout.getDimSize(1), positions = table.getDimSize(0);
  if (!ShapedType::isDynamic(seq) && !ShapedType::isDynamic(positions) &&
      seq > positions)
    return emitOpError("sequence length ")
           << seq << " of dout exceeds the " << positions
           << " positions of the table";
  if (!table.hasStaticShape())
    return emitOpError("result ")
           << table << " must have a static shape (the table's on this rank)";
  return success();
}

LogicalResult TokenTypeEmbeddingGradOp::verify() {
  OpDiag loc{getLoc(), getOperationName()};
  RankedTensorType dout = getDout().getType(), table = getDtable().getType();
  if (failed(expectTableGrad(*this, loc, dout, table, "token-type", "S")) ||
      failed(expectIdsOfDout(*this, loc, dout, getIds().getType())))
    return failure();
  if (!table.hasStaticShape() || table.getDimSize(0) < 1)
    return emitOpError("result ")
           << table
           << " must have a static shape with at least one row (the table's)";
  return success();
}

LogicalResult LayerNormGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType input = tensorType(adaptor.getInput());
  RankedTensorType gamma = tensorType(adaptor.getGamma());
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  if (failed(expectAdjoint(loc, tensorType(adaptor.getDout()), input,
                           "layernorm")))
    return failure();
  if (failed(checkNormScale(loc, "scale", input, gamma)))
    return failure();
  types.append({input, gamma, gamma});
  return success();
}

LogicalResult LayerNormGradOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble(),
                       "; use the forward layernorm's");
}

LogicalResult RmsNormGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType input = tensorType(adaptor.getInput());
  RankedTensorType weight = tensorType(adaptor.getWeight());
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  if (failed(
          expectAdjoint(loc, tensorType(adaptor.getDout()), input, "rmsnorm")))
    return failure();
  if (failed(checkNormScale(loc, "weight", input, weight)))
    return failure();
  types.append({input, weight});
  return success();
}

LogicalResult RmsNormGradOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble(),
                       "; use the forward rmsnorm's");
}

LogicalResult LinearGradOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType dout = tensorType(adaptor.getDout());
  RankedTensorType input = tensorType(adaptor.getInput());
  RankedTensorType weight = tensorType(adaptor.getWeight());
  FailureOr<int64_t> features =
      linearOutFeatures(loc, input, weight, adaptor.getTransposed());
  if (failed(features))
    return failure();
  int64_t out = *features;
  if (input.getElementType() != weight.getElementType())
    return fail(loc, "input " + str(input) + " and weight " + str(weight) +
                         " have different element types");
  if (failed(expectLinearAdjoint(loc, dout, input, out)))
    return failure();
  types.append({input, weight});
  if (adaptor.getBias())
    types.push_back(RankedTensorType::get({out}, weight.getElementType()));
  return success();
}

LogicalResult LinearInputGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType dout = tensorType(adaptor.getDout());
  RankedTensorType weight = tensorType(adaptor.getWeight());
  bool transposed = adaptor.getTransposed();
  if (dout.getRank() < 1)
    return fail(loc, "dout must have rank >= 1, got " + str(dout));
  if (failed(expectRank(loc, "weight", weight, 2)))
    return failure();
  int64_t in = weight.getDimSize(transposed ? 1 : 0);
  int64_t out = weight.getDimSize(transposed ? 0 : 1);
  if (!sameExtent(dout.getShape().back(), out))
    return fail(loc,
                "dout " + str(dout) + " has " + str(dout.getShape().back()) +
                    " features but the weight " + str(weight) +
                    (transposed ? " (transposed, [out, in])" : " ([in, out])") +
                    " produces " + str(out) +
                    "; pass the gradient of this weight's linear");
  if (dout.getElementType() != weight.getElementType())
    return fail(loc, "dout " + str(dout) + " and weight " + str(weight) +
                         " have different element types; pass the "
                         "weight the forward linear read");
  SmallVector<int64_t> shape(dout.getShape());
  shape.back() = in;
  types.push_back(RankedTensorType::get(shape, dout.getElementType()));
  return success();
}

LogicalResult LinearWeightGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType dout = tensorType(adaptor.getDout());
  RankedTensorType input = tensorType(adaptor.getInput());
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  if (dout.getRank() < 1)
    return fail(loc, "dout must have rank >= 1, got " + str(dout));
  int64_t in = input.getShape().back(), out = dout.getShape().back();
  if (failed(expectLinearAdjoint(loc, dout, input, out)))
    return failure();
  Type element = input.getElementType();
  if (adaptor.getTransposed())
    types.push_back(RankedTensorType::get({out, in}, element));
  else
    types.push_back(RankedTensorType::get({in, out}, element));
  if (adaptor.getBias())
    types.push_back(RankedTensorType::get({out}, element));
  return success();
}

LogicalResult BiasAddGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType dout = tensorType(adaptor.getDout());
  if (dout.getRank() < 1)
    return fail(loc, "dout must have rank >= 1, got " + str(dout));
  types.push_back(
      RankedTensorType::get({dout.getShape().back()}, dout.getElementType()));
  return success();
}

LogicalResult SelfAttentionGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  RankedTensorType qkv = tensorType(adaptor.getQkv());
  FailureOr<RankedTensorType> result =
      selfAttentionResultType(loc, qkv, adaptor.getHeads());
  if (failed(result) || failed(expectAdjoint(loc, tensorType(adaptor.getDout()),
                                             *result, "self_attention")))
    return failure();
  types.push_back(qkv);
  return success();
}

LogicalResult SelfAttentionGradOp::verify() {
  return verifyAttentionAttributes(*this, featuresOf(getQkv(), 3), getHeads());
}

LogicalResult GroupedAttentionGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> result = groupedAttentionResultType(
      loc, adaptor.getQ(), adaptor.getK(), adaptor.getV(),
      adaptor.getKeyLengths(), adaptor.getHeads(), adaptor.getKvHeads(),
      adaptor.getKvReplicated());
  if (failed(result) || failed(expectAdjoint(loc, tensorType(adaptor.getDout()),
                                             *result, "grouped_attention")))
    return failure();
  types.append({adaptor.getQ().getType(), adaptor.getK().getType(),
                adaptor.getV().getType()});
  return success();
}

LogicalResult GroupedAttentionGradOp::verify() {
  return verifyAttentionAttributes(*this, featuresOf(getQ()), getHeads());
}

LogicalResult CrossAttentionGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> result = crossAttentionResultType(
      loc, adaptor.getQuery(), adaptor.getKv(), adaptor.getHeads());
  if (failed(result) || failed(expectAdjoint(loc, tensorType(adaptor.getDout()),
                                             *result, "cross_attention")))
    return failure();
  types.append({adaptor.getQuery().getType(), adaptor.getKv().getType()});
  return success();
}

LogicalResult CrossAttentionGradOp::verify() {
  return verifyAttentionAttributes(*this, featuresOf(getQuery()), getHeads());
}

LogicalResult WeightedSumGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> input =
      weightedSumInputType(loc, adaptor.getAlpha(), adaptor.getInputs());
  if (failed(input) || failed(expectAdjoint(loc, tensorType(adaptor.getDout()),
                                            *input, "weighted_sum")))
    return failure();
  types.push_back(adaptor.getAlpha().getType());
  types.append(adaptor.getInputs().size(), *input);
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult SelectPositionGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> selected =
      selectedPositionType(loc, adaptor.getInput(), adaptor.getPosition());
  if (failed(selected) ||
      failed(expectAdjoint(loc, tensorType(adaptor.getDout()), *selected,
                           "select_position")))
    return failure();
  types.push_back(tensorType(adaptor.getInput()));
  return success();
}

LogicalResult CrossEntropyGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLossGradType(loc, adaptor.getLogits(), adaptor.getTargets(),
                           types);
}

LogicalResult VocabParallelCrossEntropyGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLossGradType(loc, adaptor.getLogits(), adaptor.getTargets(),
                           types);
}

LogicalResult CrossEntropyGradOp::verify() {
  return verifyIgnoreIndex(*this, getIgnoreIndex());
}

LogicalResult VocabParallelCrossEntropyGradOp::verify() {
  return verifyVocabParallelLoss(*this, getIgnoreIndex(), getVocabSize(),
                                 getLogits().getType(), "");
}
