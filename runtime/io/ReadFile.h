//===- ReadFile.h - Whole-file reads ----------------------------*- C++ -*-===//

#ifndef TPC_RUNTIME_IO_READFILE_H
#define TPC_RUNTIME_IO_READFILE_H

#include <string>

namespace tpc {

/// The bytes of `path`; throws std::runtime_error naming the file and the
/// system's reason when it cannot be read.
std::string read_whole_file(const std::string &path);

} // namespace tpc

#endif // TPC_RUNTIME_IO_READFILE_H
