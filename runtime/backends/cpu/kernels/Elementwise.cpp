//===- Elementwise.cpp - Residual add, scale, weighted sum ----------------===//

#include "runtime/backends/cpu/kernels/Chunks.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

namespace tpc::cpu {

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
residual_chunk(typename S::type *out, const typename S::type *a,
               const typename S::type *b, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    out[i] = S::store(S::load(a[i]) + S::load(b[i]));
}

template <class S>
void residual_forward(typename S::type *out, const typename S::type *a,
                      const typename S::type *b, size_t n) {
  in_chunks(n, [=](size_t i, size_t k) {
    residual_chunk<S>(out + i, a + i, b + i, k);
  });
}
template void residual_forward<F32Storage>(float *, const float *,
                                           const float *, size_t);
template void residual_forward<BF16Storage>(uint16_t *, const uint16_t *,
                                            const uint16_t *, size_t);
template void residual_forward<F16Storage>(uint16_t *, const uint16_t *,
                                           const uint16_t *, size_t);

void residual_backward(float *da, float *db, const float *dout, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    if (da)
      da[i] += dout[i];
    if (db)
      db[i] += dout[i];
  }
}

void scale_forward(float *out, const float *inp, float s, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i)
    out[i] = s * inp[i];
}

void scale_backward(float *dinp, const float *dout, float s, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i)
    dinp[i] += s * dout[i];
}

void weighted_sum_forward(float *out, const float *const *xs,
                          const float *alpha, int k, size_t n) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float acc = 0.0f;
    for (int j = 0; j < k; ++j)
      acc += alpha[j] * xs[j][i];
    out[i] = acc;
  }
}

void weighted_sum_backward(float *const *dxs, float *dalpha, const float *dout,
                           const float *const *xs, const float *alpha, int k,
                           size_t n) {
  for (int j = 0; j < k; ++j) {
    if (dxs && dxs[j]) {
      float *dx = dxs[j];
      float a = alpha[j];
#pragma omp parallel for simd schedule(static)
      for (size_t i = 0; i < n; ++i)
        dx[i] += a * dout[i];
    }
    if (dalpha) {
      const float *x = xs[j];
      double dot = 0.0;
#pragma omp parallel for reduction(+ : dot) schedule(static)
      for (size_t i = 0; i < n; ++i)
        dot += double(dout[i]) * x[i];
      dalpha[j] += float(dot);
    }
  }
}

} // namespace tpc::cpu
