//===- Passes.h - tpc passes ------------------------------------*- C++ -*-===//

#ifndef TPC_PASSES_PASSES_H
#define TPC_PASSES_PASSES_H

#include "dialects/tpc/TpcOps.h"

#include "mlir/Pass/Pass.h"

namespace tpc {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"
} // namespace tpc

#endif // TPC_PASSES_PASSES_H
