//===- FileUtil.h - Small POSIX file helpers --------------------*- C++ -*-===//
//
// Full reads at an offset, and atomic file replacement: data goes to
// path.tmp, is fsynced, then renamed over path, so a crash leaves either
// the old file or the new one, never a torn one.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_IO_FILEUTIL_H
#define TPC_RUNTIME_IO_FILEUTIL_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tpc {

/// Reads exactly `bytes` at `offset`; throws std::runtime_error naming `path`
/// on an error or a short read.
void pread_all(int fd, void *out, size_t bytes, uint64_t offset,
               const std::string &path);

/// Creates the directory `dir` and its parents if missing. Throws
/// std::runtime_error naming `flag`, the directory and the fix when it
/// cannot (a file in the way, no permission), never a raw filesystem_error.
void ensure_directory(const std::string &dir, const std::string &flag);

class AtomicFileWriter {
public:
  explicit AtomicFileWriter(const std::string &path);
  /// Removes path.tmp unless commit() ran.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;

  void write(const void *data, size_t bytes);
  /// fsync, rename over the final path, fsync the directory.
  void commit();

private:
  std::string path_, tmp_;
  int fd_ = -1;
};

} // namespace tpc

#endif // TPC_RUNTIME_IO_FILEUTIL_H
