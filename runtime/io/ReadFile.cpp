//===- ReadFile.cpp - Whole-file reads ------------------------------------===//

#include "runtime/io/ReadFile.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace tpc {

std::string read_whole_file(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    throw std::runtime_error(path + ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad())
    throw std::runtime_error(path + ": read failed");
  return buffer.str();
}

} // namespace tpc
