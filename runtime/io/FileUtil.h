//===- FileUtil.h - Small POSIX file helpers --------------------*- C++ -*-===//
//
// Owned file descriptors, full reads at an offset, and atomic file
// replacement: data goes to path.tmp, is fsynced, then renamed over path, so
// a crash leaves either the old file or the new one, never a torn one.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_IO_FILEUTIL_H
#define TPC_RUNTIME_IO_FILEUTIL_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace tpc {

/// An open file descriptor, closed when its owner is destroyed or given
/// another: a reader that holds one closes its file on every way out of its
/// constructor and needs no destructor or moves of its own.
class FileDescriptor {
public:
  FileDescriptor() = default;
  /// Owns `fd`, which may be -1 (a failed open).
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() { reset(); }
  FileDescriptor(FileDescriptor &&other) noexcept : fd_(other.release()) {}
  FileDescriptor &operator=(FileDescriptor &&other) noexcept {
    if (this != &other) {
      reset();
      fd_ = other.release();
    }
    return *this;
  }
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;

  /// The descriptor, or -1 when none is open.
  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  /// Closes the descriptor, if one is open.
  void reset();

private:
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

  int fd_ = -1;
};

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
