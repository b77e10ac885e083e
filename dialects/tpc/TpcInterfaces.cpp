//===- TpcInterfaces.cpp - tpc op interfaces --------------------*- C++ -*-===//

#include "dialects/tpc/TpcInterfaces.h"

#include "dialects/tpc/TpcInterfaces.cpp.inc"
