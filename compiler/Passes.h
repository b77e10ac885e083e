//===- Passes.h - passes of the compiler driver -----------------*- C++ -*-===//

#ifndef TPC_COMPILER_PASSES_H
#define TPC_COMPILER_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tpc {
#define GEN_PASS_DECL
#include "compiler/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "compiler/Passes.h.inc"
} // namespace tpc

#endif // TPC_COMPILER_PASSES_H
