//===- Threads.h - Threads of the CPU kernels -------------------*- C++ -*-===//
//
// The CPU backend's kernels run on OpenMP's thread pool, and OpenBLAS's
// GEMMs on the same number of threads; each rank of a job on one node takes
// its share of the node's cores.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_THREADS_H
#define TPC_RUNTIME_BACKENDS_CPU_THREADS_H

namespace tpc {

/// Threads per rank: the node's cores shared evenly by the ranks on it.
int default_threads(int ranks_on_node);
/// Sets the OpenMP and OpenBLAS thread counts.
void set_threads(int threads);

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CPU_THREADS_H
