//===- Embedding.cpp - Token and position embeddings ----------------------===//
//
// Token embedding, optionally vocab-parallel (Megatron: each rank owns a
// contiguous range of vocabulary rows and zeros the tokens it does not own;
// the all-reduce that follows completes the lookup), and the learned
// position embedding.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cstring>
#include <omp.h>
#include <vector>

namespace tpc::cpu {

template <class S>
void embedding_forward(typename S::type *out, const int *ids,
                       const typename S::type *wte, int B, int T, int C,
                       int vstart, int vlocal) {
  int N = B * T;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    auto *o = out + size_t(n) * C;
    int row = ids[n] - vstart;
    if (row >= 0 && row < vlocal)
      std::memcpy(o, wte + size_t(row) * C, sizeof(*o) * C);
    else
      std::memset(o, 0, sizeof(*o) * C);
  }
}

template <class S>
void embedding_backward(typename S::type *dwte, const typename S::type *dout,
                        const int *ids, int B, int T, int C, int vstart,
                        int vlocal) {
  int N = B * T;
  // Repeated ids would race on one row: each thread owns the rows congruent
  // to its id and scans all tokens. Deterministic for a given thread count.
#pragma omp parallel
  {
    int nt = omp_get_num_threads(), tid = omp_get_thread_num();
    if constexpr (kIsF32<S>) {
      for (int n = 0; n < N; ++n) {
        int row = ids[n] - vstart;
        if (row < 0 || row >= vlocal || row % nt != tid)
          continue;
        float *d = dwte + size_t(row) * C;
        const float *g = dout + size_t(n) * C;
        for (int c = 0; c < C; ++c)
          d[c] += g[c];
      }
    } else {
      // A touched row is summed in fp32 from its old value, its tokens in
      // order, and rounded once: what a widened table would hold, without
      // converting the rows no token touches. slot[row] is where the row's
      // sum is, -1 for a row not touched yet; it is put back to -1 at the
      // end, so it is filled once per thread.
      thread_local std::vector<float> sums;
      thread_local std::vector<int> rows, slot;
      if (slot.size() < size_t(vlocal))
        slot.resize(size_t(vlocal), -1);
      rows.clear();
      for (int n = 0; n < N; ++n) {
        int row = ids[n] - vstart;
        if (row < 0 || row >= vlocal || row % nt != tid)
          continue;
        if (slot[row] < 0) {
          slot[row] = int(rows.size());
          rows.push_back(row);
          sums.resize(rows.size() * size_t(C));
          float *acc = sums.data() + size_t(slot[row]) * C;
          const auto *w = dwte + size_t(row) * C;
          for (int c = 0; c < C; ++c)
            acc[c] = S::load(w[c]);
        }
        float *acc = sums.data() + size_t(slot[row]) * C;
        const auto *g = dout + size_t(n) * C;
        for (int c = 0; c < C; ++c)
          acc[c] += S::load(g[c]);
      }
      for (size_t k = 0; k < rows.size(); ++k) {
        auto *w = dwte + size_t(rows[k]) * C;
        const float *acc = sums.data() + k * C;
        for (int c = 0; c < C; ++c)
          w[c] = S::store(acc[c]);
        slot[rows[k]] = -1;
      }
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

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::embedding_forward(void *out, const int *ids,
                                      const void *wte, int B, int T, int C,
                                      int vstart, int vlocal) const {
  cpu::embedding_forward<S>(typed(out), ids, typed(wte), B, T, C, vstart,
                            vlocal);
}

template <class S>
void CpuKernels<S>::embedding_backward(void *dwte, const void *dout,
                                       const int *ids, int B, int T, int C,
                                       int vstart, int vlocal) const {
  cpu::embedding_backward<S>(typed(dwte), typed(dout), ids, B, T, C, vstart,
                             vlocal);
}

template <class S>
void CpuKernels<S>::position_embedding_forward(void *out, const void *inp,
                                               const void *wpe,
                                               const int *offset, int B, int T,
                                               int C) const {
  size_t first = offset ? sz(*offset) * C : 0;
  const auto *table = static_cast<const typename S::type *>(wpe) + first;
  In<S> x(inp, sz(B) * T * C), w(table, sz(T) * C);
  Out<S> o(out, sz(B) * T * C, false);
  cpu::position_embedding_forward(o, x, w, B, T, C);
}

template <class S>
void CpuKernels<S>::position_embedding_backward(void *dwpe, const void *dout,
                                                int B, int T, int C) const {
  In<S> d(dout, sz(B) * T * C);
  Out<S> dw(dwpe, sz(T) * C, true);
  cpu::position_embedding_backward(dw, d, B, T, C);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void embedding_forward<S>(S::type *, const int *, const S::type *,  \
                                     int, int, int, int, int);                 \
  template void embedding_backward<S>(S::type *, const S::type *, const int *, \
                                      int, int, int, int, int);                \
  template void CpuKernels<S>::embedding_forward(                              \
      void *, const int *, const void *, int, int, int, int, int) const;       \
  template void CpuKernels<S>::embedding_backward(                             \
      void *, const void *, const int *, int, int, int, int, int) const;       \
  template void CpuKernels<S>::position_embedding_forward(                     \
      void *, const void *, const void *, const int *, int, int, int) const;   \
  template void CpuKernels<S>::position_embedding_backward(                    \
      void *, const void *, int, int, int) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
