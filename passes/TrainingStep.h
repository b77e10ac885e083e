//===- TrainingStep.h - Parameters and apply_step for training --*- C++ -*-===//
//
// Shared by tpc-data-parallel and tpc-optimizer, which both build the
// `apply_step` entry point from the module's parameters after partitioning.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_PASSES_TRAININGSTEP_H
#define TPC_PASSES_TRAININGSTEP_H

#include "dialects/tpc/TpcOps.h"
#include "runtime/program/Abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace tpc {
/// The entry point the runtime calls once per optimizer step:
/// `apply_step(%lr: tensor<f32>, %inv_count: tensor<f32>) -> tensor<f32>`.
inline constexpr llvm::StringLiteral kApplyStepName = abi::kApplyStep;

/// A parameter as one rank holds it.
struct LocalParam {
  ParamOp param;
  /// The type of this rank's gradient buffer: the parameter's local shape
  /// and its gradient element type.
  mlir::RankedTensorType localType;
  /// Split over the tensor-parallel group (each rank holds another slice);
  /// otherwise replicated (every rank holds the same tensor).
  bool split;
  /// Bytes of this rank's gradient buffer.
  int64_t localBytes;
};

/// The parameters of a partitioned module in module order. Fails with a
/// diagnostic naming `pass` when the module has no parameters, is sharded
/// but not partitioned, has split layouts without `tpc.tp`, or has a
/// parameter with a `partial` layout or one that tp cannot split.
mlir::FailureOr<llvm::SmallVector<LocalParam>>
collectLocalParams(mlir::ModuleOp module, llvm::StringRef pass);

/// The module's `tpc.dp` (absent = 1); fails with a diagnostic when it is
/// not an integer >= 1.
mlir::FailureOr<int64_t> getModuleDp(mlir::ModuleOp module,
                                     llvm::StringRef pass);

/// The module's `apply_step`, created with arguments (%lr, %inv_count), no
/// results and an empty body ending in `func.return` when absent. Fails
/// when a symbol of that name is not a function of those arguments.
mlir::FailureOr<mlir::func::FuncOp> getOrCreateApplyStep(mlir::ModuleOp module,
                                                         llvm::StringRef pass);
} // namespace tpc

#endif // TPC_PASSES_TRAININGSTEP_H
