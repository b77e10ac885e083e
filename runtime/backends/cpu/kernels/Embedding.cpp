//===- Embedding.cpp - Token and position embeddings ----------------------===//
//
// Token embedding, optionally vocab-parallel (Megatron: each rank owns a
// contiguous range of vocabulary rows and zeros the tokens it does not own;
// the all-reduce that follows completes the lookup), and the learned
// position embedding.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cstring>
#include <omp.h>

namespace tpc::cpu {

void embedding_forward(float *out, const int *ids, const float *wte, int B,
                       int T, int C, int vstart, int vlocal) {
  int N = B * T;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    float *o = out + size_t(n) * C;
    int row = ids[n] - vstart;
    if (row >= 0 && row < vlocal)
      std::memcpy(o, wte + size_t(row) * C, sizeof(float) * C);
    else
      std::memset(o, 0, sizeof(float) * C);
  }
}

void embedding_backward(float *dwte, const float *dout, const int *ids, int B,
                        int T, int C, int vstart, int vlocal) {
  int N = B * T;
  // Repeated ids would race on one row: each thread owns the rows congruent
  // to its id and scans all tokens. Deterministic for a given thread count.
#pragma omp parallel
  {
    int nt = omp_get_num_threads(), tid = omp_get_thread_num();
    for (int n = 0; n < N; ++n) {
      int row = ids[n] - vstart;
      if (row < 0 || row >= vlocal || row % nt != tid)
        continue;
      float *d = dwte + size_t(row) * C;
      const float *g = dout + size_t(n) * C;
      for (int c = 0; c < C; ++c)
        d[c] += g[c];
    }
  }
}

void position_embedding_forward(float *out, const float *inp, const float *wpe,
                                int B, int T, int C) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      size_t off = (size_t(b) * T + t) * C;
      const float *p = wpe + size_t(t) * C;
      for (int c = 0; c < C; ++c)
        out[off + c] = inp[off + c] + p[c];
    }
}

void position_embedding_backward(float *dwpe, const float *dout, int B, int T,
                                 int C) {
  // dout viewed as (B, T*C): sum over b.
  column_sum_accumulate(dwpe, dout, B, T * C);
}

} // namespace tpc::cpu
