//===- HostMemory.h - Host memory for tensors and scratch -------*- C++ -*-===//
//
// The CPU backend's allocator: tensors, arenas and the kernels' own
// grow-only scratch buffers all come from host_alloc, so they share its
// alignment and its huge pages.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H
#define TPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H

#include <cstddef>

namespace tpc::cpu {

/// At least `bytes` of host memory (one cache line for 0), freed with
/// std::free; throws std::bad_alloc when the system has none. Rows stay on
/// 64-byte cache lines, which suits AVX-512. A block of 2 MiB or more is
/// aligned to 2 MiB and advised for transparent huge pages, which Linux
/// grants such blocks by default ("madvise"): first touching the arenas of a
/// GPT-2 step then takes a fault per 2 MiB instead of one per 4 KiB, and the
/// kernels miss the TLB less. Where the system refuses, the block keeps
/// small pages.
void *host_alloc(size_t bytes);

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H
