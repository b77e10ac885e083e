//===- FileUtil.cpp - Small POSIX file helpers ----------------------------===//

#include "runtime/io/FileUtil.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tpc {

static std::runtime_error io_error(const std::string &path,
                                   const std::string &what) {
  return std::runtime_error(path + ": " + what + ": " + std::strerror(errno));
}

void FileDescriptor::reset() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

void pread_all(int fd, void *out, size_t bytes, uint64_t offset,
               const std::string &path) {
  char *p = static_cast<char *>(out);
  while (bytes > 0) {
    ssize_t got = ::pread(fd, p, bytes, off_t(offset));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      throw io_error(path, "read failed at byte " + std::to_string(offset));
    }
    if (got == 0)
      throw std::runtime_error(path + ": unexpected end of file at byte " +
                               std::to_string(offset) +
                               "; the file is truncated");
    p += got;
    bytes -= size_t(got);
    offset += uint64_t(got);
  }
}

AtomicFileWriter::AtomicFileWriter(const std::string &path)
    : path_(path), tmp_(path + ".tmp") {
  // The rename would replace a device or a pipe (as root, -o /dev/null
  // replaced /dev/null with a regular file).
  struct stat target;
  if (::stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode))
    throw std::runtime_error(path +
                             ": not a regular file; files are written to a "
                             "temporary file and renamed over their path, "
                             "so give the path of a file");
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw io_error(tmp_, "cannot create");
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(tmp_.c_str());
  }
}

void AtomicFileWriter::write(const void *data, size_t bytes) {
  const char *p = static_cast<const char *>(data);
  while (bytes > 0) {
    ssize_t put = ::write(fd_, p, bytes);
    if (put < 0) {
      if (errno == EINTR)
        continue;
      throw io_error(tmp_, "write failed");
    }
    p += put;
    bytes -= size_t(put);
  }
}

void AtomicFileWriter::commit() {
  if (::fsync(fd_) != 0)
    throw io_error(tmp_, "fsync failed");
  if (::close(fd_) != 0) {
    fd_ = -1;
    ::unlink(tmp_.c_str());
    throw io_error(tmp_, "close failed");
  }
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    ::unlink(tmp_.c_str());
    throw io_error(path_, "cannot rename " + tmp_ + " to it");
  }
  // Make the rename itself durable.
  std::string dir = path_.find('/') == std::string::npos
                        ? "."
                        : path_.substr(0, path_.rfind('/') + 1);
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void ensure_directory(const std::string &dir, const std::string &flag) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(dir, error);
  if (!error && fs::is_directory(dir, error))
    return;
  // Name the component in the way: the directory itself or a parent.
  fs::path blocker;
  for (fs::path p = fs::path(dir); !p.empty(); p = p.parent_path()) {
    std::error_code ignored;
    if (fs::exists(p, ignored) && !fs::is_directory(p, ignored)) {
      blocker = p;
      break;
    }
    if (p == p.parent_path())
      break;
  }
  if (!blocker.empty())
    throw std::runtime_error(flag + " " + dir + ": " + blocker.string() +
                             " is a file, not a directory; choose another " +
                             flag + " or move the file away");
  throw std::runtime_error(flag + " " + dir +
                           ": cannot create the directory: " +
                           (error ? error.message() : "not a directory") +
                           "; choose another " + flag);
}

} // namespace tpc
