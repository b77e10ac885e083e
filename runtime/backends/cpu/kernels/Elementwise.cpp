//===- Elementwise.cpp - Residual add, scale, weighted sum ----------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

namespace tpc::cpu {

void residual_forward(float *out, const float *a, const float *b, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i)
    out[i] = a[i] + b[i];
}

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
