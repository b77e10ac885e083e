//===- ShapeDiagnostics.cpp - Helpers of the tpc verifiers ----------------===//

#include "dialects/tpc/ShapeDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace tpc::detail {

/// Checks that the operands of an op share one element type.
LogicalResult expectSameElementType(const OpDiag &loc,
                                    ArrayRef<std::pair<StringRef, Value>> vs) {
  Type first =
      cast<RankedTensorType>(vs.front().second.getType()).getElementType();
  for (auto [name, value] : vs.drop_front()) {
    Type element = cast<RankedTensorType>(value.getType()).getElementType();
    if (element != first)
      return fail(loc, name + " has element type " + str(element) + " but " +
                           vs.front().first + " has " + str(first) +
                           "; cast them to one element type");
  }
  return success();
}

/// Shared by the two attention ops: `hidden` must split into whole heads.
LogicalResult checkHeads(const OpDiag &loc, int64_t hidden, int64_t heads) {
  if (heads < 1)
    return fail(loc, "heads must be >= 1, got " + Twine(heads));
  if (!ShapedType::isDynamic(hidden) && hidden % heads != 0)
    return fail(loc, "hidden size " + Twine(hidden) +
                         " is not a multiple of heads " + Twine(heads) +
                         "; choose a head count that divides it");
  return success();
}

LogicalResult checkWindowAndDropout(Operation *op,
                                    std::optional<int64_t> window,
                                    double dropout, int64_t key) {
  if (window && *window < 1)
    return op->emitOpError("window must be >= 1, got ")
           << *window << "; omit the window to attend to every position";
  if (!(dropout >= 0.0 && dropout < 1.0))
    return op->emitOpError("dropout probability must be in [0, 1), got ")
           << dropout;
  if (dropout == 0.0 && key != 0)
    return op->emitOpError("has dropout key ")
           << key << " but no dropout; give a probability > 0 or drop the key";
  return success();
}

/// The features of a self attention's fused [q | k | v] (rank already
/// checked): three equal blocks of whole heads. Returns C of [.., 3C].
FailureOr<int64_t> selfAttentionFeatures(const OpDiag &loc,
                                         RankedTensorType qkv, int64_t heads) {
  int64_t fused = qkv.getDimSize(2);
  if (!ShapedType::isDynamic(fused) && fused % 3 != 0)
    return fail(loc, "qkv " + str(qkv) +
                         " must hold three equal blocks [q | k | v]; its last "
                         "dimension is not a multiple of 3");
  int64_t hidden = ShapedType::isDynamic(fused) ? fused : fused / 3;
  if (failed(checkHeads(loc, hidden, heads)))
    return failure();
  return hidden;
}

/// The features of a cross attention's queries and of its fused [k | v]
/// (ranks already checked): kv holds twice the query's features, of the same
/// element type, in whole heads. Returns the query's features.
FailureOr<int64_t> crossAttentionFeatures(const OpDiag &loc, Value queryValue,
                                          Value kvValue, int64_t heads) {
  auto query = cast<RankedTensorType>(queryValue.getType());
  auto kv = cast<RankedTensorType>(kvValue.getType());
  int64_t hidden = query.getDimSize(2), fused = kv.getDimSize(2);
  if (!ShapedType::isDynamic(fused) && fused % 2 != 0)
    return fail(loc, "kv " + str(kv) +
                         " must hold two equal blocks [k | v]; its last "
                         "dimension is not a multiple of 2");
  if (!ShapedType::isDynamic(hidden) && !ShapedType::isDynamic(fused) &&
      fused != 2 * hidden)
    return fail(loc, "kv " + str(kv) +
                         " must hold [k | v], twice the query's " +
                         str(hidden) + " features");
  if (failed(
          expectSameElementType(loc, {{"query", queryValue}, {"kv", kvValue}})))
    return failure();
  if (ShapedType::isDynamic(hidden) && !ShapedType::isDynamic(fused))
    hidden = fused / 2;
  if (failed(checkHeads(loc, hidden, heads)))
    return failure();
  return hidden;
}

FailureOr<int64_t> groupedAttentionFeatures(const OpDiag &loc, Value qValue,
                                            Value kValue, Value vValue,
                                            int64_t heads, int64_t kvHeads,
                                            bool kvReplicated) {
  auto q = cast<RankedTensorType>(qValue.getType());
  auto k = cast<RankedTensorType>(kValue.getType());
  auto v = cast<RankedTensorType>(vValue.getType());
  for (auto [name, t] : {std::pair<StringRef, RankedTensorType>{"k", k},
                         std::pair<StringRef, RankedTensorType>{"v", v}})
    if (!sameExtent(q.getDimSize(0), t.getDimSize(0)) ||
        !sameExtent(q.getDimSize(1), t.getDimSize(1)))
      return fail(loc, "q " + str(q) + " and " + name + " " + str(t) +
                           " must have the same batch and sequence length");
  if (failed(expectSameElementType(
          loc, {{"q", qValue}, {"k", kValue}, {"v", vValue}})))
    return failure();
  if (kvHeads < 1 || heads < 1 || (!kvReplicated && heads % kvHeads != 0))
    return fail(loc, "heads " + Twine(heads) +
                         " must be a positive multiple of kv_heads " +
                         Twine(kvHeads) +
                         "; every key/value head serves a whole group of "
                         "query heads");
  int64_t hidden = q.getDimSize(2), kvFeatures = k.getDimSize(2);
  if (failed(checkHeads(loc, hidden, heads)))
    return failure();
  if (!ShapedType::isDynamic(hidden) && !ShapedType::isDynamic(kvFeatures) &&
      kvFeatures * heads != hidden * kvHeads)
    return fail(loc, "k " + str(k) + " must hold kv_heads " + Twine(kvHeads) +
                         " heads of the query's head dimension " +
                         Twine(hidden / heads) + ", i.e. " +
                         Twine(hidden / heads * kvHeads) + " features");
  if (ShapedType::isDynamic(hidden) && !ShapedType::isDynamic(kvFeatures))
    hidden = kvFeatures / kvHeads * heads;
  return hidden;
}

FailureOr<RankedTensorType> selfAttentionResultType(const OpDiag &loc,
                                                    RankedTensorType qkv,
                                                    int64_t heads) {
  if (failed(expectRank(loc, "qkv", qkv, 3)))
    return failure();
  FailureOr<int64_t> hidden = selfAttentionFeatures(loc, qkv, heads);
  if (failed(hidden))
    return failure();
  return RankedTensorType::get({qkv.getDimSize(0), qkv.getDimSize(1), *hidden},
                               qkv.getElementType());
}

FailureOr<RankedTensorType>
groupedAttentionResultType(const OpDiag &loc, Value qValue, Value kValue,
                           Value vValue, Value keyLengths, int64_t heads,
                           int64_t kvHeads, bool kvReplicated) {
  auto q = cast<RankedTensorType>(qValue.getType());
  if (failed(expectRank(loc, "q", q, 3)) ||
      failed(
          expectRank(loc, "k", cast<RankedTensorType>(kValue.getType()), 3)) ||
      failed(expectRank(loc, "v", cast<RankedTensorType>(vValue.getType()), 3)))
    return failure();
  if (keyLengths) {
    auto lengths = cast<RankedTensorType>(keyLengths.getType());
    if (failed(expectRank(loc, "key_lengths", lengths, 1)))
      return failure();
    if (!sameExtent(lengths.getDimSize(0), q.getDimSize(0)))
      return fail(loc, "key_lengths " + str(lengths) + " must hold one " +
                           "length per sequence of q " + str(q));
  }
  FailureOr<int64_t> hidden = groupedAttentionFeatures(
      loc, qValue, kValue, vValue, heads, kvHeads, kvReplicated);
  if (failed(hidden))
    return failure();
  return RankedTensorType::get({q.getDimSize(0), q.getDimSize(1), *hidden},
                               q.getElementType());
}

FailureOr<RankedTensorType> crossAttentionResultType(const OpDiag &loc,
                                                     Value queryValue,
                                                     Value kvValue,
                                                     int64_t heads) {
  auto query = cast<RankedTensorType>(queryValue.getType());
  auto kv = cast<RankedTensorType>(kvValue.getType());
  if (failed(expectRank(loc, "query", query, 3)) ||
      failed(expectRank(loc, "kv", kv, 3)))
    return failure();
  if (!sameExtent(query.getDimSize(0), kv.getDimSize(0)) ||
      !sameExtent(query.getDimSize(1), kv.getDimSize(1)))
    return fail(loc, "query " + str(query) + " and kv " + str(kv) +
                         " must have the same batch and sequence length");
  FailureOr<int64_t> hidden =
      crossAttentionFeatures(loc, queryValue, kvValue, heads);
  if (failed(hidden))
    return failure();
  return RankedTensorType::get(
      {query.getDimSize(0), query.getDimSize(1), *hidden},
      query.getElementType());
}

LogicalResult checkNormScale(const OpDiag &loc, StringRef what,
                             RankedTensorType input, RankedTensorType scale) {
  if (failed(expectRank(loc, what, scale, 1)))
    return failure();
  if (!sameExtent(scale.getDimSize(0), input.getShape().back()))
    return fail(loc, what + " " + str(scale) +
                         " does not match the last dimension of " + str(input));
  if (scale.getElementType() != input.getElementType() &&
      !scale.getElementType().isF32())
    return fail(loc, what + " of element type " + str(scale.getElementType()) +
                         " cannot normalize an input of " +
                         str(input.getElementType()) +
                         "; use the input's element type or f32");
  return success();
}

LogicalResult checkLossOperands(const OpDiag &loc, Value logits,
                                Value targets) {
  auto logitsType = cast<RankedTensorType>(logits.getType());
  auto targetsType = cast<RankedTensorType>(targets.getType());
  if (failed(expectRank(loc, "logits", logitsType, 3)) ||
      failed(expectRank(loc, "targets", targetsType, 2)))
    return failure();
  for (int i = 0; i < 2; ++i)
    if (!sameExtent(logitsType.getDimSize(i), targetsType.getDimSize(i)))
      return fail(loc, "logits " + str(logitsType) + " and targets " +
                           str(targetsType) +
                           " disagree on the batch or sequence dimension");
  return success();
}

FailureOr<RankedTensorType> selectedPositionType(const OpDiag &loc, Value input,
                                                 int64_t position) {
  auto type = cast<RankedTensorType>(input.getType());
  if (failed(expectRank(loc, "input", type, 3)))
    return failure();
  int64_t length = type.getDimSize(1);
  if (position < 0 || (!ShapedType::isDynamic(length) && position >= length))
    return fail(loc, "position " + Twine(position) + " is not one of the " +
                         str(length) + " positions of " + str(type));
  return type.clone({type.getDimSize(0), 1, type.getDimSize(2)});
}

FailureOr<RankedTensorType> weightedSumInputType(const OpDiag &loc, Value alpha,
                                                 ValueRange inputs) {
  auto alphaType = cast<RankedTensorType>(alpha.getType());
  if (inputs.empty())
    return fail(loc, "needs at least one input");
  if (failed(expectRank(loc, "alpha", alphaType, 1)))
    return failure();
  if (!sameExtent(alphaType.getDimSize(0), inputs.size()))
    return fail(loc, "has " + Twine(inputs.size()) + " inputs but alpha " +
                         str(alphaType) +
                         " holds a different number of weights");
  Type first = inputs.front().getType();
  for (Value v : inputs)
    if (v.getType() != first)
      return fail(loc, "inputs must share one type; got " + str(first) +
                           " and " + str(v.getType()));
  return cast<RankedTensorType>(first);
}

FailureOr<RankedTensorType> localParamType(Operation *op, ParamOp param,
                                           Type elementType) {
  int64_t tp = getModuleTp(op);
  FailureOr<RankedTensorType> local = param.getLocalType(tp);
  if (failed(local))
    return op->emitOpError("parameter @")
           << param.getSymName() << " has a layout that tp = " << tp
           << " cannot split";
  return local->clone(elementType);
}

LogicalResult verifyVocabParallelLoss(Operation *op, int64_t ignoreIndex,
                                      int64_t vocab, RankedTensorType logits,
                                      StringRef hint) {
  if (failed(verifyIgnoreIndex(op, ignoreIndex)))
    return failure();
  if (vocab < 1)
    return op->emitOpError("vocab_size must be >= 1, got ") << vocab;
  int64_t local = logits.getDimSize(2);
  if (ShapedType::isDynamic(local))
    return success();
  int64_t tp = getModuleTp(op);
  if (vocab > local * tp)
    return op->emitOpError("vocab_size ")
           << vocab << " exceeds the " << local * tp
           << " columns of the padded vocabulary (" << local
           << " per rank, tp = " << tp << ")" << hint;
  return success();
}

/// Rotary attributes against heads of `headDim` dimensions (dynamic when
/// the shapes do not say).
static LogicalResult checkRope(Operation *op, double theta, int64_t dims,
                               int64_t headDim) {
  if (!(theta >= 0.0) || !std::isfinite(theta))
    return op->emitOpError("rope theta must be a finite number >= 0, got ")
           << theta << "; Llama uses 1.0e+04 (Llama 3: 5.0e+05), 0 disables it";
  if (dims < 0 || dims % 2 != 0)
    return op->emitOpError("rope_dims must be even and >= 0, got ")
           << dims << "; it counts the rotated dimensions of each head";
  if (dims > 0 && theta == 0.0)
    return op->emitOpError("has rope_dims ")
           << dims << " but no rope theta; give `rope THETA` or drop rope_dims";
  if (ShapedType::isDynamic(headDim))
    return success();
  if (dims > headDim)
    return op->emitOpError("rope_dims ")
           << dims << " exceeds the head dimension " << headDim;
  if (theta > 0.0 && dims == 0 && headDim % 2 != 0)
    return op->emitOpError("rotates whole heads of odd dimension ")
           << headDim << "; give an even rope_dims";
  return success();
}

int64_t featuresOf(Value value, int64_t blocks) {
  int64_t features = cast<RankedTensorType>(value.getType()).getShape().back();
  if (ShapedType::isDynamic(features) || features % blocks != 0)
    return ShapedType::kDynamic;
  return features / blocks;
}

LogicalResult verifyAttentionAttributes(Operation *op, int64_t queryFeatures,
                                        int64_t heads) {
  auto integer = [&](StringRef name) -> std::optional<int64_t> {
    if (auto attr = op->getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
    return std::nullopt;
  };
  auto real = [&](StringRef name) {
    auto attr = op->getAttrOfType<FloatAttr>(name);
    return attr ? attr.getValueAsDouble() : 0.0;
  };
  if (op->hasAttr("kv_replicated") && !op->hasAttr("head_parallel"))
    return op->emitOpError("kv_replicated describes one rank's heads of a "
                           "split attention; it needs head_parallel");
  int64_t headDim = ShapedType::kDynamic;
  if (heads > 0 && !ShapedType::isDynamic(queryFeatures) &&
      queryFeatures % heads == 0)
    headDim = queryFeatures / heads;
  if (failed(checkRope(op, real("rope_theta"), integer("rope_dims").value_or(0),
                       headDim)))
    return failure();
  return checkWindowAndDropout(op, integer("window"), real("dropout"),
                               integer("key").value_or(0));
}

} // namespace tpc::detail
