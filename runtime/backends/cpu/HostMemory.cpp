//===- HostMemory.cpp - Aligned host memory for tensors and scratch -------===//

#include "runtime/backends/cpu/HostMemory.h"

#include <algorithm>
#include <cstdlib>
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

} // namespace tpc::cpu
