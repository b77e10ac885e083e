//===- TpcAttrs.h - tpc attributes and enums --------------------*- C++ -*-===//

#ifndef TPC_DIALECTS_TPC_TPCATTRS_H
#define TPC_DIALECTS_TPC_TPCATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/tpc/TpcEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/tpc/TpcAttrs.h.inc"

#endif // TPC_DIALECTS_TPC_TPCATTRS_H
