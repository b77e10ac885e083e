//===- Threads.cpp - Threads of the CPU kernels ---------------------------===//

#include "runtime/backends/cpu/Threads.h"

#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <thread>

namespace tpc {

int default_threads(int ranks_on_node) {
  int cores = int(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, ranks_on_node));
}

void set_threads(int threads) {
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
}

} // namespace tpc
