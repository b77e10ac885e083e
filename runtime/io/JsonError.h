//===- JsonError.h - nlohmann::json errors in plain words -------*- C++ -*-===//
//
// nlohmann::json's messages start with the library's own tag
// ("[json.exception.parse_error.101] parse error at line 1, column 9: ...");
// a user needs where the text breaks and why, not the tag.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_IO_JSONERROR_H
#define TPC_RUNTIME_IO_JSONERROR_H

#include <nlohmann/json.hpp>

#include <string>

namespace tpc {

/// The message of `e` without the library's "[json.exception....] " tag.
inline std::string json_error_text(const nlohmann::json::exception &e) {
  std::string text = e.what();
  if (!text.empty() && text[0] == '[') {
    size_t end = text.find("] ");
    if (end != std::string::npos)
      text.erase(0, end + 2);
  }
  return text;
}

} // namespace tpc

#endif // TPC_RUNTIME_IO_JSONERROR_H
