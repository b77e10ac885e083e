//===- ReadFile.h - whole-file reads for the text tools ---------*- C++ -*-===//

#ifndef TPC_RUNTIME_TOKENIZER_READFILE_H
#define TPC_RUNTIME_TOKENIZER_READFILE_H

#include <string>

namespace tpc {

/// The bytes of `path`; throws std::runtime_error naming the file and the
/// system's reason when it cannot be read.
std::string read_whole_file(const std::string &path);

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_READFILE_H
