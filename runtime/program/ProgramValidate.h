//===- ProgramValidate.h - Structural checks of a program -------*- C++ -*-===//
//
// The checks a decoded program passes before anything runs it, against the
// program schema: tensors, parameters, functions and their instructions.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_PROGRAMVALIDATE_H
#define TPC_RUNTIME_PROGRAM_PROGRAMVALIDATE_H

#include "runtime/program/program.pb.h"

#include <string>

namespace tpc {

/// Structural checks of a decoded program: ids in range, shapes sane, every
/// instruction's tensors defined before use, every activation inside its
/// function's arena, aligned, and apart from every other live activation.
/// Returns an empty string when valid.
std::string validate_program(const program::Program &prog);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_PROGRAMVALIDATE_H
