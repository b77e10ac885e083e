//===- TpcOps.cpp - tpc operations ------------------------------*- C++ -*-===//
//
// Result types are inferred from operand types; the inference functions are
// also where shape errors are reported, because they run first when an op is
// parsed or built.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpc/TpcOps.h"
#include "dialects/tpc/ShapeDiagnostics.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace tpc;
using namespace tpc::detail;

int64_t tpc::getModuleTp(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  if (!module)
    return 1;
  // The dialect verifier rejects a `tpc.tp` that is not an integer >= 1;
  // reading 1 for one keeps unverified modules from dividing by zero.
  if (auto attr = module->getAttrOfType<IntegerAttr>(kTpAttrName))
    if (attr.getType().isInteger() && attr.getInt() >= 1)
      return attr.getInt();
  return 1;
}

namespace {
/// Result types of the two cross-entropy ops: a scalar loss sum and count.
LogicalResult inferLossTypes(MLIRContext *ctx, const OpDiag &loc, Value logits,
                             Value targets, SmallVectorImpl<Type> &types) {
  if (failed(checkLossOperands(loc, logits, targets)))
    return failure();
  types.push_back(RankedTensorType::get({}, Float32Type::get(ctx)));
  types.push_back(RankedTensorType::get({}, IntegerType::get(ctx, 32)));
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// ParamOp / GetParamOp
//===----------------------------------------------------------------------===//

FailureOr<RankedTensorType> ParamOp::getLocalType(int64_t tp) {
  RankedTensorType type = getTensorType();
  LayoutAttr layout = getLayoutAttr();
  if (!layout)
    return type;
  FailureOr<SmallVector<int64_t>> shape =
      layout.localShape(type.getShape(), tp);
  if (failed(shape))
    return failure();
  return RankedTensorType::get(*shape, type.getElementType());
}

FailureOr<RankedTensorType> ParamOp::getLocalComputeType(int64_t tp) {
  FailureOr<RankedTensorType> local = getLocalType(tp);
  if (failed(local))
    return failure();
  return local->clone(getComputeElementType());
}

FailureOr<RankedTensorType> ParamOp::getLocalGradType(int64_t tp) {
  FailureOr<RankedTensorType> local = getLocalType(tp);
  if (failed(local))
    return failure();
  return local->clone(getGradElementType());
}

FailureOr<ParamOp> ParamOp::lookup(Operation *user, FlatSymbolRefAttr name,
                                   SymbolTableCollection &symbolTable) {
  Operation *symbol = symbolTable.lookupNearestSymbolFrom(user, name);
  if (!symbol)
    return user->emitOpError("no parameter named ")
           << name << "; declare it with tpc.param";
  auto param = dyn_cast<ParamOp>(symbol);
  if (!param)
    return user->emitOpError("symbol ")
           << name << " is a '" << symbol->getName() << "', not a tpc.param";
  return param;
}

LogicalResult ParamOp::verify() {
  RankedTensorType type = getTensorType();
  if (!type.hasStaticShape())
    return emitOpError("parameter @")
           << getSymName() << " must have a static global shape, got " << type;
  if (!isa<Float32Type, BFloat16Type, Float16Type>(type.getElementType()))
    return emitOpError("parameter @")
           << getSymName() << " has element type " << type.getElementType()
           << "; parameters are f32, bf16 or f16 tensors";
  if (getComputeAttr()) {
    Type compute = getComputeElementType();
    if (!type.getElementType().isF32())
      return emitOpError("parameter @")
             << getSymName() << " has a compute type but is declared "
             << type.getElementType()
             << "; the declared type is the master copy, which is f32";
    if (!isa<BFloat16Type, Float16Type>(compute))
      return emitOpError("parameter @")
             << getSymName() << " computes in " << compute
             << "; a working copy is bf16 or f16 (drop `compute` for f32)";
  }
  if (getGradAttr()) {
    Type grad = getGradElementType();
    if (grad != getComputeElementType() && !grad.isF32())
      return emitOpError("parameter @")
             << getSymName() << " has " << grad << " gradients but computes in "
             << getComputeElementType()
             << "; gradients are of the compute type or f32";
  }
  LayoutAttr layout = getLayoutAttr();
  if (!layout || !layout.isSplit())
    return success();
  if (layout.getDim() >= type.getRank())
    return emitOpError("layout splits dimension ")
           << layout.getDim() << " but @" << getSymName() << " has rank "
           << type.getRank() << "; use a dimension below " << type.getRank();
  int64_t extent = type.getDimSize(layout.getDim());
  if (extent % layout.getBlocks() != 0)
    return emitOpError("dimension ")
           << layout.getDim() << " of @" << getSymName() << " (" << extent
           << ") is not made of " << layout.getBlocks() << " equal blocks";
  int64_t tp = getModuleTp(*this);
  if (extent % (layout.getBlocks() * tp) != 0)
    return emitOpError("split of dimension ")
           << layout.getDim() << " of @" << getSymName() << " (" << extent
           << (layout.getBlocks() > 1
                   ? " in " + std::to_string(layout.getBlocks()) + " blocks"
                   : std::string())
           << ") does not divide by tp = " << tp
           << "; pad the dimension or choose a tp that divides it";
  return success();
}

LogicalResult GetParamOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  FailureOr<ParamOp> param = ParamOp::lookup(*this, getNameAttr(), symbolTable);
  if (failed(param))
    return failure();
  FailureOr<RankedTensorType> expected =
      localParamType(*this, *param, param->getComputeElementType());
  if (failed(expected))
    return failure();
  if (getResult().getType() != *expected)
    return emitOpError("reads parameter ")
           << getNameAttr() << " as " << getResult().getType()
           << " but its type on each rank is " << *expected
           << " (tp = " << getModuleTp(*this) << "); read it as " << *expected;
  return success();
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

namespace {
/// A table [R, H] read at ids [B, T] gives [B, T, H] of the table's element
/// type; `check` sees the table once both ranks are right.
LogicalResult inferLookup(
    const OpDiag &loc, Value tableValue, Value idsValue,
    SmallVectorImpl<Type> &types,
    function_ref<LogicalResult(RankedTensorType, RankedTensorType)> check) {
  auto table = cast<RankedTensorType>(tableValue.getType());
  auto ids = cast<RankedTensorType>(idsValue.getType());
  if (failed(expectRank(loc, "table", table, 2)) ||
      failed(expectRank(loc, "ids", ids, 2)) || failed(check(table, ids)))
    return failure();
  types.push_back(RankedTensorType::get(
      {ids.getDimSize(0), ids.getDimSize(1), table.getDimSize(1)},
      table.getElementType()));
  return success();
}
} // namespace

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLookup(
      loc, adaptor.getTable(), adaptor.getIds(), types,
      [](RankedTensorType, RankedTensorType) { return success(); });
}

LogicalResult PositionEmbeddingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLookup(
      loc, adaptor.getTable(), adaptor.getIds(), types,
      [&](RankedTensorType table, RankedTensorType ids) {
        int64_t seq = ids.getDimSize(1), positions = table.getDimSize(0);
        if (!ShapedType::isDynamic(seq) && !ShapedType::isDynamic(positions) &&
            seq > positions)
          return fail(loc, "sequence length " + Twine(seq) + " exceeds the " +
                               Twine(positions) +
                               " positions of the table; use --seq <= " +
                               Twine(positions) + " or a longer table");
        return success();
      });
}

LogicalResult TokenTypeEmbeddingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLookup(loc, adaptor.getTable(), adaptor.getIds(), types,
                     [&](RankedTensorType table, RankedTensorType) {
                       if (table.getDimSize(0) == 0)
                         return fail(loc, "table " + str(table) +
                                              " has no rows; it needs one "
                                              "per token type");
                       return success();
                     });
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  for (Value v : {adaptor.getGamma(), adaptor.getBeta()}) {
    auto t = cast<RankedTensorType>(v.getType());
    if (failed(expectRank(loc, "scale and shift", t, 1)))
      return failure();
    if (!sameExtent(t.getDimSize(0), input.getShape().back()))
      return fail(loc, "scale and shift " + str(t) +
                           " do not match the last dimension of " + str(input));
  }
  Type gamma =
      cast<RankedTensorType>(adaptor.getGamma().getType()).getElementType();
  Type beta =
      cast<RankedTensorType>(adaptor.getBeta().getType()).getElementType();
  if (gamma != beta)
    return fail(loc, "scale has element type " + str(gamma) +
                         " but shift has " + str(beta) +
                         "; give them one element type");
  if (gamma != input.getElementType() && !gamma.isF32())
    return fail(loc, "scale and shift of element type " + str(gamma) +
                         " cannot normalize an input of " +
                         str(input.getElementType()) +
                         "; use the input's element type or f32");
  types.push_back(input);
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble(),
                       " (GPT-2 uses 1.0e-05)");
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  if (failed(checkNormScale(loc, "weight", input, weight)))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult RmsNormOp::verify() {
  return verifyEpsilon(*this, getEpsilon().convertToDouble(),
                       " (Llama uses 1.0e-05 or 1.0e-06)");
}

LogicalResult LinearOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto weight = cast<RankedTensorType>(adaptor.getWeight().getType());
  FailureOr<int64_t> features =
      linearOutFeatures(loc, input, weight, adaptor.getTransposed());
  if (failed(features))
    return failure();
  int64_t out = *features;
  if (Value bias = adaptor.getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || !sameExtent(biasType.getDimSize(0), out))
      return fail(loc, "bias " + str(biasType) + " must be [" + str(out) +
                           "] to match the weight " + str(weight));
    if (failed(expectSameElementType(loc, {{"input", adaptor.getInput()},
                                           {"weight", adaptor.getWeight()},
                                           {"bias", bias}})))
      return failure();
  } else if (failed(expectSameElementType(loc,
                                          {{"input", adaptor.getInput()},
                                           {"weight", adaptor.getWeight()}}))) {
    return failure();
  }
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = out;
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult BiasAddOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  auto bias = cast<RankedTensorType>(adaptor.getBias().getType());
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  if (bias.getRank() != 1 ||
      !sameExtent(bias.getDimSize(0), input.getShape().back()))
    return fail(loc, "bias " + str(bias) +
                         " must be a vector matching the last dimension of " +
                         str(input));
  if (failed(expectSameElementType(
          loc, {{"input", adaptor.getInput()}, {"bias", adaptor.getBias()}})))
    return failure();
  types.push_back(input);
  return success();
}

LogicalResult SelfAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> result = selfAttentionResultType(
      loc, cast<RankedTensorType>(adaptor.getQkv().getType()),
      adaptor.getHeads());
  if (failed(result))
    return failure();
  types.push_back(*result);
  return success();
}

LogicalResult SelfAttentionOp::verify() {
  return verifyAttentionAttributes(*this, featuresOf(getQkv(), 3), getHeads());
}

LogicalResult GroupedAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> result = groupedAttentionResultType(
      loc, adaptor.getQ(), adaptor.getK(), adaptor.getV(),
      adaptor.getKeyLengths(), adaptor.getHeads(), adaptor.getKvHeads(),
      adaptor.getKvReplicated());
  if (failed(result))
    return failure();
  types.push_back(*result);
  return success();
}

LogicalResult GroupedAttentionOp::verify() {
  return verifyAttentionAttributes(*this, featuresOf(getQ()), getHeads());
}

LogicalResult CrossAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> result = crossAttentionResultType(
      loc, adaptor.getQuery(), adaptor.getKv(), adaptor.getHeads());
  if (failed(result))
    return failure();
  types.push_back(*result);
  return success();
}

LogicalResult CrossAttentionOp::verify() {
  return verifyAttentionAttributes(*this, featuresOf(getQuery()), getHeads());
}

namespace {
/// The decode ops see one position: dimension 1 of `type` must be 1.
LogicalResult expectOnePosition(const OpDiag &loc, StringRef name,
                                RankedTensorType type) {
  if (failed(expectRank(loc, name, type, 3)))
    return failure();
  if (!sameExtent(type.getDimSize(1), 1))
    return fail(loc, name + " " + str(type) +
                         " must hold one position [B, 1, ...]; decode one "
                         "token at a time");
  return success();
}

LogicalResult verifyDecodeAttention(Operation *op, int64_t capacity,
                                    int64_t queryFeatures, int64_t heads) {
  if (capacity < 1)
    return op->emitOpError("capacity must be >= 1, got ")
           << capacity << "; give the number of positions the cache holds";
  return verifyAttentionAttributes(op, queryFeatures, heads);
}
} // namespace

LogicalResult DecodeAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto qkv = cast<RankedTensorType>(adaptor.getQkv().getType());
  if (failed(expectOnePosition(loc, "qkv", qkv)))
    return failure();
  FailureOr<int64_t> hidden =
      selfAttentionFeatures(loc, qkv, adaptor.getHeads());
  if (failed(hidden))
    return failure();
  types.push_back(RankedTensorType::get({qkv.getDimSize(0), 1, *hidden},
                                        qkv.getElementType()));
  return success();
}

LogicalResult DecodeAttentionOp::verify() {
  return verifyDecodeAttention(*this, getCapacity(), featuresOf(getQkv(), 3),
                               getHeads());
}

LogicalResult DecodeGroupedAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto q = cast<RankedTensorType>(adaptor.getQ().getType());
  if (failed(expectOnePosition(loc, "q", q)) ||
      failed(expectOnePosition(
          loc, "k", cast<RankedTensorType>(adaptor.getK().getType()))) ||
      failed(expectOnePosition(
          loc, "v", cast<RankedTensorType>(adaptor.getV().getType()))))
    return failure();
  FailureOr<int64_t> hidden = groupedAttentionFeatures(
      loc, adaptor.getQ(), adaptor.getK(), adaptor.getV(), adaptor.getHeads(),
      adaptor.getKvHeads(), adaptor.getKvReplicated());
  if (failed(hidden))
    return failure();
  types.push_back(
      RankedTensorType::get({q.getDimSize(0), 1, *hidden}, q.getElementType()));
  return success();
}

LogicalResult DecodeGroupedAttentionOp::verify() {
  return verifyDecodeAttention(*this, getCapacity(), featuresOf(getQ()),
                               getHeads());
}

LogicalResult DecodeCrossAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  auto query = cast<RankedTensorType>(adaptor.getQuery().getType());
  auto kv = cast<RankedTensorType>(adaptor.getKv().getType());
  if (failed(expectOnePosition(loc, "query", query)) ||
      failed(expectOnePosition(loc, "kv", kv)))
    return failure();
  if (!sameExtent(query.getDimSize(0), kv.getDimSize(0)))
    return fail(loc, "query " + str(query) + " and kv " + str(kv) +
                         " must have the same batch");
  FailureOr<int64_t> hidden = crossAttentionFeatures(
      loc, adaptor.getQuery(), adaptor.getKv(), adaptor.getHeads());
  if (failed(hidden))
    return failure();
  types.push_back(RankedTensorType::get({query.getDimSize(0), 1, *hidden},
                                        query.getElementType()));
  return success();
}

LogicalResult DecodeCrossAttentionOp::verify() {
  return verifyDecodeAttention(*this, getCapacity(), featuresOf(getQuery()),
                               getHeads());
}

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("dropout probability must be in [0, 1), got ") << p;
  LayoutAttr layout = getLayoutAttr();
  if (!layout)
    return success();
  if (getStream() != RngStream::per_rank)
    return emitOpError("a layout is only meaningful for a per_rank stream; "
                       "drop the layout or use per_rank");
  if (layout.getKind() == LayoutKind::partial)
    return emitOpError("cannot drop out a partial sum: the masks of the "
                       "summands would not be one mask of the sum; apply it "
                       "after tpc.g");
  if (!layout.isSplit())
    return success();
  RankedTensorType type = getInput().getType();
  if (layout.getDim() >= type.getRank())
    return emitOpError("layout splits dimension ")
           << layout.getDim() << " of a rank-" << type.getRank()
           << " tensor; use a dimension below " << type.getRank();
  int64_t extent = type.getDimSize(layout.getDim());
  if (!ShapedType::isDynamic(extent) && extent % layout.getBlocks() != 0)
    return emitOpError("dimension ")
           << layout.getDim() << " of " << type << " (" << extent
           << ") is not made of " << layout.getBlocks() << " equal blocks";
  return success();
}

LogicalResult ScaleOp::verify() {
  double factor = getFactor().convertToDouble();
  if (!std::isfinite(factor))
    return emitOpError("factor must be finite, got ") << factor;
  return success();
}

LogicalResult SelectPositionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> type =
      selectedPositionType(loc, adaptor.getInput(), adaptor.getPosition());
  if (failed(type))
    return failure();
  types.push_back(*type);
  return success();
}

LogicalResult ScaleByOp::verify() {
  auto factor = cast<RankedTensorType>(getFactor().getType());
  if (factor.getRank() != 0 ||
      factor.getElementType() != getInput().getType().getElementType())
    return emitOpError("factor must be a 0-d tensor of the input's element "
                       "type ")
           << getInput().getType().getElementType() << ", got " << factor;
  return success();
}

LogicalResult CastOp::verify() {
  Type from = getInput().getType().getElementType();
  if (from == getResult().getType().getElementType())
    return emitOpError("casts ")
           << getInput().getType() << " to its own element type; remove it";
  return success();
}

LogicalResult WeightedSumOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  FailureOr<RankedTensorType> input =
      weightedSumInputType(loc, adaptor.getAlpha(), adaptor.getInputs());
  if (failed(input))
    return failure();
  types.push_back(*input);
  return success();
}

LogicalResult CrossEntropyOp::inferReturnTypes(MLIRContext *ctx,
                                               std::optional<Location> location,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLossTypes(ctx, loc, adaptor.getLogits(), adaptor.getTargets(),
                        types);
}

LogicalResult VocabParallelCrossEntropyOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  OpDiag loc{location, getOperationName()};
  return inferLossTypes(ctx, loc, adaptor.getLogits(), adaptor.getTargets(),
                        types);
}

LogicalResult CrossEntropyOp::verify() {
  return verifyIgnoreIndex(*this, getIgnoreIndex());
}

LogicalResult VocabParallelCrossEntropyOp::verify() {
  return verifyVocabParallelLoss(*this, getIgnoreIndex(), getVocabSize(),
                                 getLogits().getType(),
                                 "; logits must hold every vocabulary column");
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// f and g are the conjugate pair of the tensor-parallel group.
static LogicalResult verifyTpCollective(Operation *op, Group group,
                                        StringRef conjugate) {
  if (group == Group::tp)
    return success();
  return op->emitOpError("works on group tp, not ")
         << stringifyGroup(group) << ": it is the tensor-parallel conjugate of "
         << conjugate << "; use tpc.all_reduce for group "
         << stringifyGroup(group);
}

LogicalResult FOp::verify() {
  return verifyTpCollective(*this, getGroup(), "tpc.g");
}

LogicalResult GOp::verify() {
  return verifyTpCollective(*this, getGroup(), "tpc.f");
}

/// A message's chunk and place among its chunk's messages.
static LogicalResult verifyMessage(Operation *op, int64_t chunk,
                                   int64_t index) {
  if (chunk >= 0 && index >= 0)
    return success();
  return op->emitOpError("names chunk ")
         << chunk << " and index " << index
         << "; both count from 0 (tpc-pipeline builds these ops)";
}

LogicalResult RecvOp::verify() {
  return verifyMessage(*this, getChunk(), getIndex());
}

LogicalResult SendOp::verify() {
  return verifyMessage(*this, getChunk(), getIndex());
}

LogicalResult AllGatherOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError("gathers dimension ")
           << dim << " of a rank-" << in.getRank() << " tensor";
  if (in.getRank() != out.getRank() ||
      in.getElementType() != out.getElementType())
    return emitOpError("result ")
           << out << " must have the rank and element type of " << in;
  // Only the tp group's size is known to the module.
  std::optional<int64_t> size;
  if (getGroup() == Group::tp)
    size = getModuleTp(*this);
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t a = in.getDimSize(i), b = out.getDimSize(i);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    if (i != dim) {
      if (a != b)
        return emitOpError("result ")
               << out << " is not a gather of " << in << " along dimension "
               << dim << ": dimension " << i << " differs";
      continue;
    }
    if (size && b != a * *size)
      return emitOpError("result ")
             << out << " is not a gather of " << in << " along dimension "
             << dim << " over tp = " << *size << "; expected extent "
             << a * *size;
    if (!size && (b < a || (a == 0 ? b != 0 : b % a != 0)))
      return emitOpError("result ")
             << out << " is not a gather of " << in << " along dimension "
             << dim << ": extent " << b << " is not a multiple of " << a;
  }
  return success();
}

/// `split` is `whole` cut along the sequence (dimension 1) into the tp
/// group's parts.
static LogicalResult verifySequenceSplit(Operation *op, RankedTensorType whole,
                                         RankedTensorType split) {
  if (whole.getRank() < 2 || whole.getRank() != split.getRank() ||
      whole.getElementType() != split.getElementType())
    return op->emitOpError("moves a tensor of rank >= 2 along its sequence "
                           "dimension (1) with its element type, not ")
           << whole << " and " << split;
  int64_t tp = getModuleTp(op);
  for (int64_t i = 0; i < whole.getRank(); ++i) {
    int64_t a = whole.getDimSize(i), b = split.getDimSize(i);
    if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
      continue;
    if (i != 1 && a != b)
      return op->emitOpError("changes dimension ")
             << i << " (" << a << " vs " << b
             << "); only the sequence dimension (1) is split";
    if (i == 1 && a % tp != 0)
      return op->emitOpError("splits a sequence of ")
             << a << " positions over tp = " << tp
             << ", which does not divide it";
    if (i == 1 && a != b * tp)
      return op->emitOpError("splits a sequence of ")
             << a << " into parts of " << b << ", but tp = " << tp
             << " needs parts of " << a / tp;
  }
  return success();
}

LogicalResult SeqScatterOp::verify() {
  return verifySequenceSplit(*this, getInput().getType(),
                             getResult().getType());
}

LogicalResult SeqGatherOp::verify() {
  return verifySequenceSplit(*this, getResult().getType(),
                             getInput().getType());
}

#define GET_OP_CLASSES
#include "dialects/tpc/TpcOps.cpp.inc"
