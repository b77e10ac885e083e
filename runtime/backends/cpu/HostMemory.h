//===- HostMemory.h - Host memory for tensors and scratch -------*- C++ -*-===//
//
// The CPU backend's allocator: tensors, arenas and the kernels' own
// grow-only scratch buffers all come from host_alloc, so they share its
// alignment and its huge pages. Large copies and fills run on the OpenMP
// threads: one core alone does not reach the memory's bandwidth.
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

/// memcpy of ranges that do not overlap, and memset to zero: in blocks of
/// 1 MiB on the OpenMP threads from 4 blocks on, where the other threads
/// would otherwise only wait for the one that copies.
void copy_in_blocks(void *dst, const void *src, size_t bytes);
void zero_in_blocks(void *dst, size_t bytes);

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_HOSTMEMORY_H
