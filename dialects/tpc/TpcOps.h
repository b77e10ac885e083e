//===- TpcOps.h - tpc operations --------------------------------*- C++ -*-===//

#ifndef TPC_DIALECTS_TPC_TPCOPS_H
#define TPC_DIALECTS_TPC_TPCOPS_H

#include "dialects/tpc/TpcAttrs.h"
#include "dialects/tpc/TpcDialect.h"
#include "dialects/tpc/TpcInterfaces.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/tpc/TpcOps.h.inc"

namespace tpc {
/// The module attribute that records the tensor-parallel size after the
/// partition pass; absent means 1 (global shapes).
inline constexpr llvm::StringLiteral kTpAttrName = "tpc.tp";

/// The module attribute that records the data-parallel size of the job
/// (tpc-compile --dp); absent means 1.
inline constexpr llvm::StringLiteral kDpAttrName = "tpc.dp";

/// The module attribute (i64) of a model without a position table (rotary
/// positions): the longest sequence it reads, which sizes decoding's KV
/// caches.
inline constexpr llvm::StringLiteral kContextAttrName = "tpc.context";

/// The tensor-parallel size a module has been partitioned for: of `op` when
/// it is a module, else of the module that holds it; 1 outside a module or
/// before partitioning.
int64_t getModuleTp(mlir::Operation *op);
} // namespace tpc

#endif // TPC_DIALECTS_TPC_TPCOPS_H
