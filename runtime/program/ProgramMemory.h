//===- ProgramMemory.h - The memory one rank of a program needs -*- C++ -*-===//
//
// What one rank allocates to train a program with AdamW, from the program
// alone: `tpc-run info` prints it, and an allocation that fails explains
// itself with it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_PROGRAMMEMORY_H
#define TPC_RUNTIME_PROGRAM_PROGRAMMEMORY_H

#include "runtime/program/program.pb.h"

#include <string>

namespace tpc {

/// Bytes one rank allocates, by what they hold. Doubles: a sum over a
/// damaged program must not wrap.
struct ProgramMemory {
  /// The parameters' working copies and their fp32 master copies.
  double parameters = 0;
  /// One gradient per parameter, of its grad_dtype (else its own type).
  double gradients = 0;
  /// AdamW's two fp32 moments per parameter element.
  double optimizer_state = 0;
  /// The one arena every entry point's activations share: the largest
  /// entry point's planned arena.
  double arena = 0;

  double total() const {
    return parameters + gradients + optimizer_state + arena;
  }
};

/// The memory one rank of a validated `prog` needs to train with AdamW.
ProgramMemory memory_of(const program::Program &prog);

/// A sentence on the memory one rank of `prog` allocates (the arena and
/// parameters with their gradients and AdamW moments) and how to shrink it:
/// the message for an allocation that failed.
std::string describe_memory_need(const program::Program &prog);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_PROGRAMMEMORY_H
