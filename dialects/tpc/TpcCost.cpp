//===- TpcCost.cpp - What the matrix-product ops cost ------------*- C++
//-*-===//
//
// The CostOpInterface of the ops whose work is matrix products, attached as
// external models so that the op definitions stay as they are. Shapes are
// this rank's: after partitioning, a column-parallel linear counts its own
// columns, a head-parallel attention its own heads.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpc/TpcCost.h"
#include "dialects/tpc/TpcDialect.h"
#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace tpc;

namespace {
double elements(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? double(t.getNumElements()) : 0.0;
}

double lastDim(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return double(t.getShape().back());
}

/// Q K^T and P V over the whole T x T (a causal mask saves work a kernel
/// may or may not skip; the count is that of the dense products):
/// 2 products of 2 B T T d each, d the width of the rank's heads.
double attentionFlops(Value query, double width) {
  auto q = cast<RankedTensorType>(query.getType());
  return 4.0 * double(q.getDimSize(0)) * double(q.getDimSize(1)) *
         double(q.getDimSize(1)) * width;
}

/// An attention's backward recomputes the probabilities (one product) and
/// forms dP, dQ, dK and dV (four): 2.5 forwards.
constexpr double kAttentionBackward = 2.5;

double tensorBytes(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || !t.hasStaticShape())
    return 0.0;
  return double(t.getNumElements()) *
         double((t.getElementTypeBitWidth() + 7) / 8);
}

/// Every tensor operand and result, once.
double allBytes(Operation *op) {
  double bytes = 0;
  for (Value v : op->getOperands())
    bytes += tensorBytes(v);
  for (Value v : op->getResults())
    bytes += tensorBytes(v);
  return bytes;
}

template <typename Op, double (*Flops)(Op)>
struct MatmulCost
    : public CostOpInterface::ExternalModel<MatmulCost<Op, Flops>, Op> {
  double getMatmulFlops(Operation *op) const { return Flops(cast<Op>(op)); }
  double getBytesMoved(Operation *op) const { return allBytes(op); }
};

/// A lookup reads the ids and the rows it returns, and writes them.
template <typename Op>
struct GatherCost : public CostOpInterface::ExternalModel<GatherCost<Op>, Op> {
  double getMatmulFlops(Operation *) const { return 0; }
  double getBytesMoved(Operation *op) const {
    double bytes = 2 * tensorBytes(op->getResult(0));
    for (Value v : op->getOperands())
      if (isa<IntegerType>(getElementTypeOrSelf(v.getType())))
        bytes += tensorBytes(v);
    return bytes;
  }
};

double linear(LinearOp l) {
  return 2.0 * elements(l.getResult()) *
         double(l.getWeight().getType().getDimSize(l.getTransposed() ? 1 : 0));
}
double linearGrad(LinearGradOp g) {
  return 4.0 * elements(g.getDout()) * lastDim(g.getInput());
}
double linearInputGrad(LinearInputGradOp g) {
  return 2.0 * elements(g.getDout()) * lastDim(g.getDinput());
}
double linearWeightGrad(LinearWeightGradOp g) {
  return 2.0 * elements(g.getDout()) * lastDim(g.getInput());
}
double selfAttention(SelfAttentionOp a) {
  return attentionFlops(a.getQkv(), lastDim(a.getQkv()) / 3);
}
double selfAttentionGrad(SelfAttentionGradOp a) {
  return kAttentionBackward *
         attentionFlops(a.getQkv(), lastDim(a.getQkv()) / 3);
}
double groupedAttention(GroupedAttentionOp a) {
  return attentionFlops(a.getQ(), lastDim(a.getQ()));
}
double groupedAttentionGrad(GroupedAttentionGradOp a) {
  return kAttentionBackward * attentionFlops(a.getQ(), lastDim(a.getQ()));
}
double crossAttention(CrossAttentionOp a) {
  return attentionFlops(a.getQuery(), lastDim(a.getQuery()));
}
double crossAttentionGrad(CrossAttentionGradOp a) {
  return kAttentionBackward *
         attentionFlops(a.getQuery(), lastDim(a.getQuery()));
}
} // namespace

void tpc::registerCostOpModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TpcDialect *) {
    LinearOp::attachInterface<MatmulCost<LinearOp, linear>>(*context);
    LinearGradOp::attachInterface<MatmulCost<LinearGradOp, linearGrad>>(
        *context);
    LinearInputGradOp::attachInterface<
        MatmulCost<LinearInputGradOp, linearInputGrad>>(*context);
    LinearWeightGradOp::attachInterface<
        MatmulCost<LinearWeightGradOp, linearWeightGrad>>(*context);
    SelfAttentionOp::attachInterface<
        MatmulCost<SelfAttentionOp, selfAttention>>(*context);
    SelfAttentionGradOp::attachInterface<
        MatmulCost<SelfAttentionGradOp, selfAttentionGrad>>(*context);
    GroupedAttentionOp::attachInterface<
        MatmulCost<GroupedAttentionOp, groupedAttention>>(*context);
    GroupedAttentionGradOp::attachInterface<
        MatmulCost<GroupedAttentionGradOp, groupedAttentionGrad>>(*context);
    CrossAttentionOp::attachInterface<
        MatmulCost<CrossAttentionOp, crossAttention>>(*context);
    CrossAttentionGradOp::attachInterface<
        MatmulCost<CrossAttentionGradOp, crossAttentionGrad>>(*context);
    EmbeddingOp::attachInterface<GatherCost<EmbeddingOp>>(*context);
    PositionEmbeddingOp::attachInterface<GatherCost<PositionEmbeddingOp>>(
        *context);
  });
}

OpCostFigures tpc::opCost(Operation *op) {
  OpCostFigures cost;
  if (auto costed = dyn_cast<CostOpInterface>(op)) {
    cost.matmulFlops = costed.getMatmulFlops();
    cost.bytes = costed.getBytesMoved();
  } else {
    cost.bytes = allBytes(op);
  }
  return cost;
}
