//===- RuntimeSupport.h - What tpc-run can execute today --------*- C++ -*-===//
//
// The dialect is wider than the runtime: it admits f16 and bf16 tensors in
// a model, which the runtime executes only as the compute type that
// --precision chooses. A program that uses them would only fail when tpc-run
// loads it, so tpc-compile checks the model against what the runtime
// executes before it compiles it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_RUNTIMESUPPORT_H
#define TPC_COMPILER_RUNTIMESUPPORT_H

#include "compiler/CostReport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace tpc {

/// Emits a diagnostic naming the op and the fix for every construct of
/// `module` that tpc-run refuses; fails when there is one.
mlir::LogicalResult checkRuntimeSupport(mlir::ModuleOp module);

/// Per-rank memory beyond which no device or machine of today holds a rank:
/// 1 TiB (the largest GPUs hold 0.2 TiB).
inline constexpr int64_t kAbsurdRankBytes = int64_t(1) << 40;

/// A warning (to `os`) when one rank of the report needs more than
/// kAbsurdRankBytes, naming the sizes and what to change; the program is
/// still written, for a machine the compiler does not know.
void warnAbsurdMemory(const CostReport &report, llvm::raw_ostream &os);

} // namespace tpc

#endif // TPC_COMPILER_RUNTIMESUPPORT_H
