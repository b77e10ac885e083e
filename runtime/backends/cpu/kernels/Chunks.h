//===- Chunks.h - Elementwise work split into parallel tasks ----*- C++ -*-===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_CHUNKS_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_CHUNKS_H

#include <algorithm>
#include <cstddef>

namespace tpc::cpu {

/// Elements per parallel task: a few pages each, enough to pay for a task.
constexpr size_t kChunk = 16384;

/// Runs f(first, count) over [0, n) in chunks of kChunk on the OpenMP
/// threads. f is where the vector code goes (a TPC_VECTOR_CLONES function):
/// the parallel region itself is outlined before cloning.
template <class F> void in_chunks(size_t n, F f) {
  size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < chunks; ++c)
    f(c * kChunk, std::min(kChunk, n - c * kChunk));
}

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_CHUNKS_H
