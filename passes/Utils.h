//===- Utils.h - Helpers shared by the tpc passes ---------------*- C++ -*-===//

#ifndef TPC_PASSES_UTILS_H
#define TPC_PASSES_UTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

namespace tpc {
/// Recomputes every result type in `func` from its operands, in program
/// order, after argument or parameter types changed, and updates the
/// function's signature to the types it returns. Fails (with a diagnostic
/// on the offending op) when an op rejects its new operand types.
mlir::LogicalResult refreshResultTypes(mlir::func::FuncOp func);

/// The same for one op, whose operands have their final types; `tp` is the
/// module's tensor-parallel size (the factor of a tp all_gather).
mlir::LogicalResult refreshOpResultTypes(mlir::Operation *op, int64_t tp);
} // namespace tpc

#endif // TPC_PASSES_UTILS_H
