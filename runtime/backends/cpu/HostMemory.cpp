//===- HostMemory.cpp - Aligned host memory for tensors and scratch -------===//

#include "runtime/backends/cpu/HostMemory.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>

namespace tpc::cpu {

/// Blocks of at least this many bytes go to transparent huge pages.
constexpr size_t kHugePage = size_t(2) << 20;

void *host_alloc(size_t bytes) {
  const size_t align = bytes >= kHugePage ? kHugePage : 64;
  // aligned_alloc requires a multiple of the alignment.
  const size_t rounded = std::max((bytes + align - 1) / align * align, align);
  void *p = std::aligned_alloc(align, rounded);
  if (!p)
    throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (align == kHugePage)
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
  return p;
}

namespace {

/// Runs f(offset, length) over [0, bytes) in blocks on the OpenMP threads
/// when there are enough of them (copy_in_blocks).
template <class F> void in_blocks(size_t bytes, F f) {
  constexpr size_t kBlock = size_t(1) << 20;
  const size_t blocks = (bytes + kBlock - 1) / kBlock;
  if (blocks < 4)
    return f(size_t(0), bytes);
#pragma omp parallel for schedule(static)
  for (size_t b = 0; b < blocks; ++b)
    f(b * kBlock, std::min(kBlock, bytes - b * kBlock));
}

} // namespace

void copy_in_blocks(void *dst, const void *src, size_t bytes) {
  auto *d = static_cast<char *>(dst);
  const auto *from = static_cast<const char *>(src);
  in_blocks(bytes,
            [&](size_t at, size_t n) { std::memcpy(d + at, from + at, n); });
}

void zero_in_blocks(void *dst, size_t bytes) {
  auto *d = static_cast<char *>(dst);
  in_blocks(bytes, [&](size_t at, size_t n) { std::memset(d + at, 0, n); });
}

} // namespace tpc::cpu
