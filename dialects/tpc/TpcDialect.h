//===- TpcDialect.h - The tpc dialect ---------------------------*- C++ -*-===//

#ifndef TPC_DIALECTS_TPC_TPCDIALECT_H
#define TPC_DIALECTS_TPC_TPCDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "dialects/tpc/TpcDialect.h.inc"

#endif // TPC_DIALECTS_TPC_TPCDIALECT_H
