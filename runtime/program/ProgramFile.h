//===- ProgramFile.h - Reading and writing tpc program files ----*- C++ -*-===//
//
// A program file is an executable script for tpc-run: a `#!` line naming
// the interpreter, the 8-byte magic "TPCPROG2", the little-endian uint64
// payload length and FNV-1a-64 checksum of the payload, then the serialized
// tpc.program.Program.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_PROGRAMFILE_H
#define TPC_RUNTIME_PROGRAM_PROGRAMFILE_H

#include "runtime/program/Abi.h"
#include "runtime/program/ProgramTypes.h"
#include "runtime/program/ProgramValidate.h"
#include "runtime/program/program.pb.h"

#include <cstdint>
#include <string>

namespace tpc {

/// The program format this build writes and reads.
inline constexpr uint32_t kProgramVersion = abi::kProgramVersion;

/// Serializes `prog` to `path` behind a `#!interpreter` line and makes the
/// file executable. Written atomically (AtomicFileWriter: a temporary file,
/// fsynced, renamed), so a failure never leaves a half-written program.
/// Returns an empty string on success, otherwise a message naming the
/// problem.
std::string write_program_file(const std::string &path,
                               const program::Program &prog,
                               const std::string &interpreter);

/// Reads and validates a program file. Throws std::runtime_error with a
/// message that names the file, the problem and the fix.
program::Program read_program_file(const std::string &path);

/// read_program_file on bytes already read; `path` names them in errors.
program::Program parse_program_file(const std::string &bytes,
                                    const std::string &path);

/// The checksum the header carries: FNV-1a (64 bits) of the payload.
uint64_t program_checksum(const char *data, size_t size);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_PROGRAMFILE_H
