//===- TpcInterfaces.h - tpc op interfaces ----------------------*- C++ -*-===//

#ifndef TPC_DIALECTS_TPC_TPCINTERFACES_H
#define TPC_DIALECTS_TPC_TPCINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/tpc/TpcInterfaces.h.inc"

#endif // TPC_DIALECTS_TPC_TPCINTERFACES_H
