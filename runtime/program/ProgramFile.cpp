//===- ProgramFile.cpp - Reading and writing tpc program files --*- C++ -*-===//

#include "runtime/program/ProgramFile.h"
#include "runtime/io/FileUtil.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace tpc {

namespace {
// Format 2 added the checksum after the length. Format 1 files start with
// the old magic and are told to be recompiled rather than called corrupt.
constexpr char kMagic[8] = {'T', 'P', 'C', 'P', 'R', 'O', 'G', '2'};
constexpr char kMagicV1[8] = {'T', 'P', 'C', 'P', 'R', 'O', 'G', '\0'};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 8 + 8;

void put_le64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t get_le64(const char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

std::string fix_hint() {
  return "; recompile the model with tpc-compile to get a valid program";
}
} // namespace

uint64_t program_checksum(const char *data, size_t size) {
  // FNV-1a, 64 bits: enough to tell a damaged file from an intact one.
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

namespace {
std::string program_file_header(const std::string &payload) {
  std::string header(kMagic, sizeof(kMagic));
  put_le64(header, payload.size());
  put_le64(header, program_checksum(payload.data(), payload.size()));
  return header;
}
} // namespace

std::string write_program_file(const std::string &path,
                               const program::Program &prog,
                               const std::string &interpreter) {
  std::string payload;
  if (!prog.SerializeToString(&payload))
    return "cannot serialize the program (is it larger than 2 GiB?)";
  std::string header = "#!" + interpreter + "\n" + program_file_header(payload);
  // The checkpoints' writer: fsync before the rename, so a crash leaves the
  // old program or the new one, never a torn one.
  try {
    AtomicFileWriter out(path);
    out.write(header.data(), header.size());
    out.write(payload.data(), payload.size());
    out.commit();
  } catch (const std::exception &e) {
    return e.what();
  }
  ::chmod(path.c_str(), 0755);
  return "";
}

program::Program read_program_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(
        path + ": cannot open the program file: " + std::strerror(errno));
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  return parse_program_file(bytes, path);
}

program::Program parse_program_file(const std::string &bytes,
                                    const std::string &path) {
  size_t pos = 0;
  if (bytes.compare(0, 2, "#!") == 0) {
    pos = bytes.find('\n');
    if (pos == std::string::npos)
      throw std::runtime_error(path + ": the file ends inside its #! line" +
                               fix_hint());
    ++pos;
  }
  if (bytes.size() >= pos + sizeof(kMagicV1) &&
      std::memcmp(bytes.data() + pos, kMagicV1, sizeof(kMagicV1)) == 0)
    throw std::runtime_error(
        path +
        ": a program of format 1, written by an older tpc-compile; "
        "this tpc-run reads format " +
        std::to_string(kProgramVersion) +
        ": recompile the model with this tpc-compile");
  if (bytes.size() < pos + kHeaderBytes ||
      std::memcmp(bytes.data() + pos, kMagic, sizeof(kMagic)) != 0)
    throw std::runtime_error(path + ": not a tpc program (bad magic)" +
                             fix_hint());
  uint64_t length = get_le64(bytes.data() + pos + 8);
  uint64_t checksum = get_le64(bytes.data() + pos + 16);
  pos += kHeaderBytes;
  uint64_t available = bytes.size() - pos;
  if (length != available) {
    std::ostringstream msg;
    msg << path << ": the header announces " << length
        << " bytes of program but the file holds " << available
        << (length > available ? " (truncated)" : " (trailing bytes)")
        << fix_hint();
    throw std::runtime_error(msg.str());
  }
  // Before anything reads a field: a damaged byte anywhere would otherwise
  // surface as a misleading complaint about that field.
  if (program_checksum(bytes.data() + pos, length) != checksum)
    throw std::runtime_error(path +
                             ": the program's checksum does not match its "
                             "contents; the file is corrupt" +
                             fix_hint());
  if (length > static_cast<uint64_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error(path + ": the program is larger than 2 GiB" +
                             fix_hint());
  program::Program prog;
  if (!prog.ParseFromArray(bytes.data() + pos, static_cast<int>(length)))
    throw std::runtime_error(path + ": the program payload is corrupted" +
                             fix_hint());
  if (prog.version() != kProgramVersion) {
    std::ostringstream msg;
    msg << path << ": program format version " << prog.version()
        << ", but this tpc-run reads version " << kProgramVersion << fix_hint();
    throw std::runtime_error(msg.str());
  }
  std::string problem = validate_program(prog);
  if (!problem.empty())
    throw std::runtime_error(path + ": invalid program: " + problem +
                             fix_hint());
  return prog;
}

} // namespace tpc
