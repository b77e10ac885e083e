//===- RuntimeSupport.h - What tpc-run can execute today --------*- C++ -*-===//
//
// The dialect is wider than the runtime: it admits f16 and bf16 tensors and
// any positive layer-norm epsilon, for mixed precision and other models to
// come. A program that uses them would only fail when tpc-run loads it, so
// tpc-compile checks the model against what the runtime executes before it
// compiles it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_RUNTIMESUPPORT_H
#define TPC_COMPILER_RUNTIMESUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace tpc {

/// Emits a diagnostic naming the op and the fix for every construct of
/// `module` that tpc-run refuses; fails when there is one.
mlir::LogicalResult checkRuntimeSupport(mlir::ModuleOp module);

} // namespace tpc

#endif // TPC_COMPILER_RUNTIMESUPPORT_H
