//===- TpcVjp.cpp - Vector-Jacobian products of the forward ops -*- C++ -*-===//
//
// Each forward op's VjpOpInterface::buildVjp: given the adjoints of its
// results, build the backward ops that give the adjoints of its operands.
// Integer operands (token ids, targets) and integer results (target counts)
// have no adjoints.
//
// Collectives follow Megatron-LM's tensor-parallel convention: the adjoint of
// a value that every rank of the tp group holds whole is the whole gradient,
// identical on every rank; the adjoint of a rank's slice is the gradient of
// that slice. Hence
//   f (identity forward)   -> all-reduce sum over tp of the adjoint: the
//                             ranks' column-parallel consumers each
//                             contributed part of the gradient;
//   g (all-reduce forward) -> identity: its output is whole on every rank,
//                             so its adjoint already is the whole gradient,
//                             and that is the gradient of each summand;
//   all_reduce sum, tp     -> identity, for the same reason as g (its output
//                             is whole on every rank; a slice-wise consumer
//                             must sit behind an f, as tpc-partition places);
//   all_reduce sum, dp     -> all-reduce sum over dp of the adjoint: each dp
//                             rank's loss is a term of the objective, so
//                             every rank's summand receives every rank's
//                             adjoint (the usual psum/psum rule);
//   seq_scatter            -> seq_gather of the adjoint: the slices of the
//                             result's adjoint make the input's (whole on
//                             every rank, as the input was);
//   seq_gather             -> seq_scatter of the adjoint, reduced when the
//                             consumers were column-parallel (each rank's
//                             adjoint a partial sum, `reduce_grad`), else
//                             this rank's slice;
//   all_reduce max, all_gather -> rejected with a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tpc;

namespace {
/// One null adjoint per operand; callers fill the differentiable ones.
void resetAdjoints(Operation *op, SmallVectorImpl<Value> &operandAdjoints) {
  operandAdjoints.assign(op->getNumOperands(), Value());
}
} // namespace

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::buildVjp(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] =
      EmbeddingGradOp::create(builder, getLoc(), getTable().getType(),
                              resultAdjoints[0], getIds(), getVocabParallel());
  return success();
}

LogicalResult
PositionEmbeddingOp::buildVjp(OpBuilder &builder,
                              ArrayRef<Value> resultAdjoints,
                              SmallVectorImpl<Value> &operandAdjoints) {
  if (getOffset())
    return emitOpError("with an offset reads positions known only at run "
                       "time and has no VJP; differentiate @forward, whose "
                       "positions start at 0");
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = PositionEmbeddingGradOp::create(
      builder, getLoc(), getTable().getType(), resultAdjoints[0]);
  return success();
}

LogicalResult
TokenTypeEmbeddingOp::buildVjp(OpBuilder &builder,
                               ArrayRef<Value> resultAdjoints,
                               SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = TokenTypeEmbeddingGradOp::create(
      builder, getLoc(), getTable().getType(), resultAdjoints[0], getIds());
  return success();
}

LogicalResult LayerNormOp::buildVjp(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  auto grad = LayerNormGradOp::create(builder, getLoc(), resultAdjoints[0],
                                      getInput(), getGamma(), getEpsilonAttr());
  operandAdjoints[0] = grad.getDinput();
  operandAdjoints[1] = grad.getDgamma();
  operandAdjoints[2] = grad.getDbeta();
  return success();
}

LogicalResult RmsNormOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> resultAdjoints,
                                  SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  auto grad = RmsNormGradOp::create(builder, getLoc(), resultAdjoints[0],
                                    getInput(), getWeight(), getEpsilonAttr());
  operandAdjoints[0] = grad.getDinput();
  operandAdjoints[1] = grad.getDweight();
  return success();
}

LogicalResult LinearOp::buildVjp(OpBuilder &builder,
                                 ArrayRef<Value> resultAdjoints,
                                 SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  bool hasBias = static_cast<bool>(getBias());
  auto grad =
      LinearGradOp::create(builder, getLoc(), resultAdjoints[0], getInput(),
                           getWeight(), getTransposed(), hasBias);
  operandAdjoints[0] = grad.getDinput();
  operandAdjoints[1] = grad.getDweight();
  if (hasBias)
    operandAdjoints[2] = grad.getDbias();
  return success();
}

LogicalResult BiasAddOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> resultAdjoints,
                                  SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = resultAdjoints[0];
  operandAdjoints[1] =
      BiasAddGradOp::create(builder, getLoc(), resultAdjoints[0]);
  return success();
}

LogicalResult GeluOp::buildVjp(OpBuilder &builder,
                               ArrayRef<Value> resultAdjoints,
                               SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = GeluGradOp::create(builder, getLoc(), resultAdjoints[0],
                                          getInput(), getExactAttr());
  return success();
}

LogicalResult TanhOp::buildVjp(OpBuilder &builder,
                               ArrayRef<Value> resultAdjoints,
                               SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] =
      TanhGradOp::create(builder, getLoc(), resultAdjoints[0], getResult());
  return success();
}

LogicalResult
SelectPositionOp::buildVjp(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = SelectPositionGradOp::create(
      builder, getLoc(), resultAdjoints[0], getInput(), getPositionAttr());
  return success();
}

LogicalResult SwiGluOp::buildVjp(OpBuilder &builder,
                                 ArrayRef<Value> resultAdjoints,
                                 SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  auto grad = SwiGluGradOp::create(builder, getLoc(), getGate().getType(),
                                   getUp().getType(), resultAdjoints[0],
                                   getGate(), getUp());
  operandAdjoints[0] = grad.getDgate();
  operandAdjoints[1] = grad.getDup();
  return success();
}

LogicalResult
GroupedAttentionOp::buildVjp(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                             SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  auto grad = GroupedAttentionGradOp::create(
      builder, getLoc(), resultAdjoints[0], getQ(), getK(), getV(),
      getKeyLengths(), getHeadsAttr(), getKvHeadsAttr(), getCausalAttr(),
      getWindowAttr(), getRopeThetaAttr(), getRopeDimsAttr(), getDropoutAttr(),
      getKeyAttr(), getHeadParallelAttr(), getKvReplicatedAttr());
  operandAdjoints[0] = grad.getDq();
  operandAdjoints[1] = grad.getDk();
  operandAdjoints[2] = grad.getDv();
  return success();
}

LogicalResult
SelfAttentionOp::buildVjp(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                          SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = SelfAttentionGradOp::create(
      builder, getLoc(), resultAdjoints[0], getQkv(), getHeadsAttr(),
      getCausalAttr(), getWindowAttr(), getRopeThetaAttr(), getRopeDimsAttr(),
      getDropoutAttr(), getKeyAttr(), getHeadParallelAttr());
  return success();
}

LogicalResult
CrossAttentionOp::buildVjp(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                           SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  auto grad = CrossAttentionGradOp::create(
      builder, getLoc(), resultAdjoints[0], getQuery(), getKv(), getHeadsAttr(),
      getWindowAttr(), getRopeThetaAttr(), getRopeDimsAttr(), getDropoutAttr(),
      getKeyAttr(), getHeadParallelAttr());
  operandAdjoints[0] = grad.getDquery();
  operandAdjoints[1] = grad.getDkv();
  return success();
}

/// The mask is a pure function of (seed, step, key, global index), so the
/// backward dropout with the same attributes redraws the forward mask and
/// applies it, with the same 1/(1-p) scale, to the adjoint.
LogicalResult DropoutOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> resultAdjoints,
                                  SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] =
      DropoutOp::create(builder, getLoc(), resultAdjoints[0], getPAttr(),
                        getStreamAttr(), getKeyAttr(), getLayoutAttr());
  return success();
}

LogicalResult AddOp::buildVjp(OpBuilder &, ArrayRef<Value> resultAdjoints,
                              SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = resultAdjoints[0];
  operandAdjoints[1] = resultAdjoints[0];
  return success();
}

LogicalResult ScaleOp::buildVjp(OpBuilder &builder,
                                ArrayRef<Value> resultAdjoints,
                                SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] =
      ScaleOp::create(builder, getLoc(), resultAdjoints[0], getFactorAttr());
  return success();
}

LogicalResult ScaleByOp::buildVjp(OpBuilder &builder,
                                  ArrayRef<Value> resultAdjoints,
                                  SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] =
      ScaleByOp::create(builder, getLoc(), resultAdjoints[0], getFactor());
  return success();
}

LogicalResult CastOp::buildVjp(OpBuilder &builder,
                               ArrayRef<Value> resultAdjoints,
                               SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = CastOp::create(builder, getLoc(), getInput().getType(),
                                      resultAdjoints[0]);
  return success();
}

LogicalResult WeightedSumOp::buildVjp(OpBuilder &builder,
                                      ArrayRef<Value> resultAdjoints,
                                      SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  auto grad = WeightedSumGradOp::create(builder, getLoc(), resultAdjoints[0],
                                        getAlpha(), getInputs());
  operandAdjoints[0] = grad.getDalpha();
  for (auto [i, dinput] : llvm::enumerate(grad.getDinputs()))
    operandAdjoints[1 + i] = dinput;
  return success();
}

//===----------------------------------------------------------------------===//
// Losses: the loss sum is differentiable, the target count is not.
//===----------------------------------------------------------------------===//

LogicalResult
CrossEntropyOp::buildVjp(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                         SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  if (Value dloss = resultAdjoints[0])
    operandAdjoints[0] =
        CrossEntropyGradOp::create(builder, getLoc(), getLogits(), getTargets(),
                                   dloss, getIgnoreIndexAttr());
  return success();
}

LogicalResult
VocabParallelCrossEntropyOp::buildVjp(OpBuilder &builder,
                                      ArrayRef<Value> resultAdjoints,
                                      SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  if (Value dloss = resultAdjoints[0])
    operandAdjoints[0] = VocabParallelCrossEntropyGradOp::create(
        builder, getLoc(), getLogits(), getTargets(), dloss, getVocabSizeAttr(),
        getIgnoreIndexAttr());
  return success();
}

//===----------------------------------------------------------------------===//
// Collectives (see the file comment for the convention)
//===----------------------------------------------------------------------===//

LogicalResult FOp::buildVjp(OpBuilder &builder, ArrayRef<Value> resultAdjoints,
                            SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = AllReduceOp::create(builder, getLoc(), resultAdjoints[0],
                                           ReduceKind::sum, getGroup());
  return success();
}

LogicalResult GOp::buildVjp(OpBuilder &, ArrayRef<Value> resultAdjoints,
                            SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = resultAdjoints[0];
  return success();
}

LogicalResult AllReduceOp::buildVjp(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  if (getReduce() != ReduceKind::sum)
    return emitOpError("has no VJP: the gradient of a ")
           << stringifyReduceKind(getReduce())
           << " all-reduce depends on which rank holds each extremum; train "
              "through sums only (a max inside a loss belongs in the loss op)";
  if (getGroup() == Group::tp) {
    operandAdjoints[0] = resultAdjoints[0];
    return success();
  }
  operandAdjoints[0] = AllReduceOp::create(builder, getLoc(), resultAdjoints[0],
                                           ReduceKind::sum, getGroup());
  return success();
}

LogicalResult SeqScatterOp::buildVjp(OpBuilder &builder,
                                     ArrayRef<Value> resultAdjoints,
                                     SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = SeqGatherOp::create(
      builder, getLoc(), getInput().getType(), resultAdjoints[0],
      /*reduce_grad=*/false);
  return success();
}

LogicalResult SeqGatherOp::buildVjp(OpBuilder &builder,
                                    ArrayRef<Value> resultAdjoints,
                                    SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  operandAdjoints[0] = SeqScatterOp::create(
      builder, getLoc(), getInput().getType(), resultAdjoints[0],
      /*reduce=*/getReduceGrad());
  return success();
}

LogicalResult AllGatherOp::buildVjp(OpBuilder &, ArrayRef<Value>,
                                    SmallVectorImpl<Value> &operandAdjoints) {
  resetAdjoints(*this, operandAdjoints);
  return emitOpError("has no VJP: the gradient of a gathered tensor is this "
                     "rank's slice of the adjoint, for which no backward op "
                     "exists; in a trained function keep tensor-parallel "
                     "activations split up to a row-parallel linear and "
                     "tpc.g (Megatron), and gather only for evaluation");
}
