//===- FuzzUtil.h - Helpers shared by the fuzz targets ----------*- C++ -*-===//
//
// The readers under test open paths; an anonymous in-memory file
// (memfd_create) gives each input a path without touching the disk.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_TEST_FUZZ_FUZZUTIL_H
#define TPC_TEST_FUZZ_FUZZUTIL_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace tpc::fuzz {

/// An in-memory file holding `size` bytes, open for as long as it lives.
class MemFile {
public:
  MemFile(const uint8_t *data, size_t size) {
    fd_ = ::memfd_create("tpc-fuzz", MFD_CLOEXEC);
    if (fd_ < 0)
      std::abort();
    size_t done = 0;
    while (done < size) {
      ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0)
        std::abort();
      done += size_t(n);
    }
  }
  ~MemFile() { ::close(fd_); }
  MemFile(const MemFile &) = delete;
  MemFile &operator=(const MemFile &) = delete;

  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

private:
  int fd_ = -1;
};

} // namespace tpc::fuzz

#endif // TPC_TEST_FUZZ_FUZZUTIL_H
