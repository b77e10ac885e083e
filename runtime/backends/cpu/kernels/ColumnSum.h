//===- ColumnSum.h - Deterministic column reductions ------------*- C++ -*-===//
//
// Bias and gain gradients sum a (N,C) matrix over its rows. Threads split
// the columns, not the rows: no scratch, no atomics, and the result does not
// depend on the thread count.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_COLUMNSUM_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_COLUMNSUM_H

#include "runtime/backends/cpu/kernels/VecMath.h"

#include <cstddef>

namespace tpc::cpu {

/// Columns per task: 64 floats keep each row's chunk in one cache line pair.
constexpr int kColumnBlock = 64;

/// acc[c] += sum over n of f(n, c), for the columns [c0, c1) of one task,
/// at most kColumnBlock. Vector clones: the columns are independent sums,
/// so the loop over them is vector code in the rows' order.
template <typename F>
TPC_VECTOR_CLONES_TEMPLATE void column_block(float *acc, int N, int c0, int c1,
                                             F f) {
  float sum[kColumnBlock] = {};
  for (int n = 0; n < N; ++n)
    for (int c = c0; c < c1; ++c)
      sum[c - c0] += f(n, c);
  for (int c = c0; c < c1; ++c)
    acc[c] += sum[c - c0];
}

/// For every column c of (N,C): acc[c] += sum over n of f(n, c).
template <typename F> void column_reduce(float *acc, int N, int C, F f) {
  int nblocks = (C + kColumnBlock - 1) / kColumnBlock;
#pragma omp parallel for schedule(static)
  for (int blk = 0; blk < nblocks; ++blk) {
    int c0 = blk * kColumnBlock;
    int c1 = c0 + kColumnBlock < C ? c0 + kColumnBlock : C;
    column_block(acc, N, c0, c1, f);
  }
}

/// acc (C) += sum over rows of src (N,C).
inline void column_sum_accumulate(float *acc, const float *src, int N, int C) {
  column_reduce(acc, N, C,
                [=](int n, int c) { return src[size_t(n) * C + c]; });
}

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_COLUMNSUM_H
