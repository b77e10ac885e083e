//===- ShapeDiagnostics.h - Helpers of the tpc verifiers --------*- C++ -*-===//
//
// Shape checks shared by the type inference and verifiers of the forward,
// backward and optimizer ops. Internal to dialects/tpc.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_DIALECTS_TPC_SHAPEDIAGNOSTICS_H
#define TPC_DIALECTS_TPC_SHAPEDIAGNOSTICS_H

#include "dialects/tpc/TpcOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>

namespace tpc::detail {

/// Two extents agree when equal or when either is dynamic.
inline bool sameExtent(int64_t a, int64_t b) {
  return mlir::ShapedType::isDynamic(a) || mlir::ShapedType::isDynamic(b) ||
         a == b;
}

inline std::string str(mlir::Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

inline std::string str(int64_t extent) {
  return mlir::ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
}

/// Where a shape error of type inference is reported, and for which op.
struct OpDiag {
  std::optional<mlir::Location> loc;
  llvm::StringRef op;
};

inline mlir::LogicalResult fail(const OpDiag &loc, const llvm::Twine &message) {
  return mlir::emitOptionalError(loc.loc, "'", loc.op, "' op ", message);
}

/// Checks that a tensor has the given rank; names the operand on failure.
inline mlir::LogicalResult expectRank(const OpDiag &loc, llvm::StringRef what,
                                      mlir::RankedTensorType type,
                                      int64_t rank) {
  if (type.getRank() == rank)
    return mlir::success();
  return fail(loc, what + " must have rank " + llvm::Twine(rank) + ", got " +
                       str(type));
}

/// The output features of a linear layer: `input` [..., in] against
/// `weight` [in, out] ([out, in] when `transposed`). Names both on a mismatch.
inline mlir::FailureOr<int64_t> linearOutFeatures(const OpDiag &loc,
                                                  mlir::RankedTensorType input,
                                                  mlir::RankedTensorType weight,
                                                  bool transposed) {
  if (input.getRank() < 1)
    return fail(loc, "input must have rank >= 1, got " + str(input));
  if (mlir::failed(expectRank(loc, "weight", weight, 2)))
    return mlir::failure();
  int64_t in = weight.getDimSize(transposed ? 1 : 0);
  if (!sameExtent(input.getShape().back(), in))
    return fail(loc,
                "input " + str(input) + " has " + str(input.getShape().back()) +
                    " features but the weight " + str(weight) +
                    (transposed ? " (transposed, [out, in])" : " ([in, out])") +
                    " expects " + str(in));
  return weight.getDimSize(transposed ? 0 : 1);
}

/// Checks that the operands of an op share one element type.
mlir::LogicalResult expectSameElementType(
    const OpDiag &loc,
    llvm::ArrayRef<std::pair<llvm::StringRef, mlir::Value>> operands);

/// `hidden` features must split into `heads` whole heads.
mlir::LogicalResult checkHeads(const OpDiag &loc, int64_t hidden,
                               int64_t heads);

/// The attributes of the attention ops and their grads: a window >= 1, a
/// dropout probability in [0, 1), and a dropout key only with dropout.
mlir::LogicalResult checkWindowAndDropout(mlir::Operation *op,
                                          std::optional<int64_t> window,
                                          double dropout, int64_t key);

/// The features of a self attention's fused qkv [B, T, 3C] (rank already
/// checked): three equal blocks of whole heads. Returns C.
mlir::FailureOr<int64_t> selfAttentionFeatures(const OpDiag &loc,
                                               mlir::RankedTensorType qkv,
                                               int64_t heads);

/// The features of a grouped attention's q [B, T, heads * D] and k, v
/// [B, T, kv_heads * D] (ranks already checked): one batch and sequence
/// length, one element type, whole heads, heads a multiple of kv_heads.
/// Returns heads * D.
/// With `kvReplicated` (a rank's heads of a tp > kv_heads split) the local
/// heads need not be a multiple of kv_heads.
mlir::FailureOr<int64_t> groupedAttentionFeatures(const OpDiag &loc,
                                                  mlir::Value q, mlir::Value k,
                                                  mlir::Value v, int64_t heads,
                                                  int64_t kvHeads,
                                                  bool kvReplicated = false);

/// A norm's per-feature `scale` (named `what`: an RMS norm's weight, a
/// layer norm grad's scale) against its `input` (rank >= 1): [H] of the
/// input's last dimension, of the input's element type or f32.
mlir::LogicalResult checkNormScale(const OpDiag &loc, llvm::StringRef what,
                                   mlir::RankedTensorType input,
                                   mlir::RankedTensorType scale);

/// The last dimension of `value` divided by `blocks` (fused q|k|v: 3), or
/// dynamic.
int64_t featuresOf(mlir::Value value, int64_t blocks = 1);

/// The attributes every attention op, grad op and decode op checks, read
/// by name where the op has them: `window` and dropout as
/// checkWindowAndDropout; `rope` theta >= 0 (0: no rotation) and
/// `rope_dims` even, >= 0 and within a head of `queryFeatures / heads`
/// dimensions (queryFeatures may be dynamic); `kv_replicated` only with
/// `head_parallel`.
mlir::LogicalResult verifyAttentionAttributes(mlir::Operation *op,
                                              int64_t queryFeatures,
                                              int64_t heads);

/// The features of a cross attention's query [B, T, C] and fused kv
/// [B, T, 2C] (ranks already checked): kv holds twice the query's features,
/// of the same element type, in whole heads. Returns C.
mlir::FailureOr<int64_t> crossAttentionFeatures(const OpDiag &loc,
                                                mlir::Value query,
                                                mlir::Value kv, int64_t heads);

/// The result [B, T, C] of an attention over whole sequences, which its
/// grad's dout must match: the operands of rank 3, then checked as by
/// selfAttentionFeatures, groupedAttentionFeatures and, after one batch and
/// sequence length of query and kv, crossAttentionFeatures. Grouped
/// attention's optional key lengths are [B], one per sequence of q.
mlir::FailureOr<mlir::RankedTensorType>
selfAttentionResultType(const OpDiag &loc, mlir::RankedTensorType qkv,
                        int64_t heads);
mlir::FailureOr<mlir::RankedTensorType>
groupedAttentionResultType(const OpDiag &loc, mlir::Value q, mlir::Value k,
                           mlir::Value v, mlir::Value keyLengths, int64_t heads,
                           int64_t kvHeads, bool kvReplicated);
mlir::FailureOr<mlir::RankedTensorType>
crossAttentionResultType(const OpDiag &loc, mlir::Value query, mlir::Value kv,
                         int64_t heads);

/// A layer-norm epsilon must be a finite number > 0; `hint` says what to
/// use instead.
inline mlir::LogicalResult verifyEpsilon(mlir::Operation *op, double epsilon,
                                         llvm::StringRef hint) {
  if (epsilon > 0.0 && std::isfinite(epsilon))
    return mlir::success();
  return op->emitOpError("epsilon must be a finite number > 0, got ")
         << epsilon << hint;
}

/// The logits [B, T, V] and targets [B, T] of the cross-entropy ops and
/// their grads: one batch and sequence length.
mlir::LogicalResult checkLossOperands(const OpDiag &loc, mlir::Value logits,
                                      mlir::Value targets);

/// The inputs of a weighted sum and its grad: at least one, all of one
/// type, and one weight of `alpha` [N] each. Returns the inputs' type.
mlir::FailureOr<mlir::RankedTensorType>
weightedSumInputType(const OpDiag &loc, mlir::Value alpha,
                     mlir::ValueRange inputs);

/// The [B, 1, H] that tpc.select_position takes from `input` [B, T, H] at
/// `position`; names the rank or the position that does not fit.
mlir::FailureOr<mlir::RankedTensorType>
selectedPositionType(const OpDiag &loc, mlir::Value input, int64_t position);

/// The type one rank holds of `param`, with element type `elementType`, at
/// the tp of `op`'s module; reports on `op` when that tp cannot split it.
mlir::FailureOr<mlir::RankedTensorType>
localParamType(mlir::Operation *op, ParamOp param, mlir::Type elementType);

/// The attributes of a vocab-parallel cross-entropy and its grad: the
/// ignore_index (verifyIgnoreIndex) and a `vocab` >= 1 that the local
/// `logits` columns over the module's tp ranks hold; `hint` ends that error.
mlir::LogicalResult verifyVocabParallelLoss(mlir::Operation *op,
                                            int64_t ignoreIndex, int64_t vocab,
                                            mlir::RankedTensorType logits,
                                            llvm::StringRef hint);

/// Targets are i32, so an ignore_index outside the i32 range could never
/// match one; the runtime would wrap it onto a real token instead.
inline mlir::LogicalResult verifyIgnoreIndex(mlir::Operation *op,
                                             int64_t ignoreIndex) {
  if (ignoreIndex >= INT32_MIN && ignoreIndex <= INT32_MAX)
    return mlir::success();
  return op->emitOpError("ignore_index ")
         << ignoreIndex
         << " is outside the i32 range of the targets; use an index in ["
         << INT32_MIN << ", " << INT32_MAX << "], such as -1";
}

} // namespace tpc::detail

#endif // TPC_DIALECTS_TPC_SHAPEDIAGNOSTICS_H
