//===- ProgramFile.h - Reading and writing tpc program files ----*- C++ -*-===//
//
// A program file is an executable script for tpc-run: a `#!` line naming
// the interpreter, the 8-byte magic "TPCPROG\0", a little-endian uint64
// payload length and the serialized tpc.program.Program.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_PROGRAMFILE_H
#define TPC_RUNTIME_PROGRAM_PROGRAMFILE_H

#include "runtime/program/Abi.h"
#include "runtime/program/program.pb.h"

#include <cstdint>
#include <string>

namespace tpc {

/// The program format this build writes and reads.
inline constexpr uint32_t kProgramVersion = abi::kProgramVersion;

/// Bytes per element of a program dtype; 0 for DTYPE_UNSPECIFIED.
int64_t dtypeBytes(program::DType dtype);

/// Elements of a tensor of the given shape.
int64_t numElements(const google::protobuf::RepeatedField<int64_t> &shape);

/// Serializes `prog` to `path` behind a `#!interpreter` line and makes the
/// file executable. Written atomically (AtomicFileWriter: a temporary file,
/// fsynced, renamed), so a failure never leaves a half-written program.
/// Returns an empty string on success, otherwise a message naming the
/// problem.
std::string writeProgramFile(const std::string &path,
                             const program::Program &prog,
                             const std::string &interpreter);

/// Reads and validates a program file. Throws std::runtime_error with a
/// message that names the file, the problem and the fix.
program::Program readProgramFile(const std::string &path);

/// Structural checks of a decoded program: ids in range, shapes sane, every
/// instruction's tensors defined. Returns an empty string when valid.
std::string validateProgram(const program::Program &prog);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_PROGRAMFILE_H
