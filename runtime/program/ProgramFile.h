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
#include "runtime/program/program.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tpc {

/// The program format this build writes and reads.
inline constexpr uint32_t kProgramVersion = abi::kProgramVersion;

/// Bytes per element of a program dtype; 0 for DTYPE_UNSPECIFIED.
int64_t dtype_bytes(program::DType dtype);
/// "f32", "bf16", "f16", "i32" or "unspecified".
const char *dtype_text(program::DType dtype);

/// The names of a list attribute ("a,b,c" -> {a, b, c}), as instructions
/// spell lists of parameters (bucket_all_reduce's `params`).
std::vector<std::string> split_name_list(const std::string &list);

/// Elements of a tensor of the given shape; -1 for a negative dimension or
/// a product that overflows.
int64_t num_elements(const google::protobuf::RepeatedField<int64_t> &shape);

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

/// A sentence on the memory one rank of `prog` allocates (arenas and
/// parameters with their gradients and AdamW moments) and how to shrink it:
/// the message for an allocation that failed.
std::string describe_memory_need(const program::Program &prog);

/// Structural checks of a decoded program: ids in range, shapes sane, every
/// instruction's tensors defined before use, every activation inside its
/// function's arena, aligned, and apart from every other live activation. Returns an empty string when valid.
std::string validate_program(const program::Program &prog);

} // namespace tpc

#endif // TPC_RUNTIME_PROGRAM_PROGRAMFILE_H
