//===- ShapeDiagnostics.h - Helpers of the tpc verifiers --------*- C++ -*-===//
//
// Shape checks shared by the type inference and verifiers of the forward,
// backward and optimizer ops. Internal to dialects/tpc.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_DIALECTS_TPC_SHAPEDIAGNOSTICS_H
#define TPC_DIALECTS_TPC_SHAPEDIAGNOSTICS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
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

/// A layer-norm epsilon must be a finite number > 0; `hint` says what to
/// use instead.
inline mlir::LogicalResult verifyEpsilon(mlir::Operation *op, double epsilon,
                                         llvm::StringRef hint) {
  if (epsilon > 0.0 && std::isfinite(epsilon))
    return mlir::success();
  return op->emitOpError("epsilon must be a finite number > 0, got ")
         << epsilon << hint;
}

} // namespace tpc::detail

#endif // TPC_DIALECTS_TPC_SHAPEDIAGNOSTICS_H
