//===- LayerNorm.cpp - Layer and RMS normalisation ------------------------===//
//
// Statistics in fp32 over each row of C channels; 1/std (and for layer norm
// the mean) is saved for backward. Layer norm: eps 1e-5, biased variance as
// torch.nn.LayerNorm. RMSNorm: the root mean square, no centring, no bias,
// the caller's eps (Llama's LlamaRMSNorm).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cmath>

namespace tpc::cpu {

void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                       const float *weight, const float *bias, int N, int C) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *x = inp + size_t(n) * C;
    float *o = out + size_t(n) * C;
    float m = 0.0f;
    for (int c = 0; c < C; ++c)
      m += x[c];
    m /= C;
    // Two passes: the one-pass E[x^2] - E[x]^2 loses precision when the mean
    // is large against the spread.
    float var = 0.0f;
    for (int c = 0; c < C; ++c) {
      float d = x[c] - m;
      var += d * d;
    }
    var /= C;
    float s = 1.0f / std::sqrt(var + kLayerNormEps);
    for (int c = 0; c < C; ++c)
      o[c] = (x[c] - m) * s * weight[c] + bias[c];
    mean[n] = m;
    rstd[n] = s;
  }
}

void layernorm_backward(float *dinp, float *dweight, float *dbias,
                        const float *dout, const float *inp,
                        const float *weight, const float *mean,
                        const float *rstd, int N, int C) {
  if (dweight)
    column_reduce(dweight, N, C, [=](int n, int c) {
      size_t i = size_t(n) * C + c;
      return dout[i] * (inp[i] - mean[n]) * rstd[n];
    });
  if (dbias)
    column_sum_accumulate(dbias, dout, N, C);
  if (!dinp)
    return;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *x = inp + size_t(n) * C;
    const float *g = dout + size_t(n) * C;
    float *dx = dinp + size_t(n) * C;
    float m = mean[n], s = rstd[n];
    float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
    for (int c = 0; c < C; ++c) {
      float dnorm = g[c] * weight[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * (x[c] - m) * s;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    for (int c = 0; c < C; ++c) {
      float norm = (x[c] - m) * s;
      float dnorm = g[c] * weight[c];
      dx[c] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
    }
  }
}

void rmsnorm_forward(float *out, float *rstd, const float *inp,
                     const float *weight, int N, int C, float eps) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *x = inp + size_t(n) * C;
    float *o = out + size_t(n) * C;
    float ss = 0.0f;
    for (int c = 0; c < C; ++c)
      ss += x[c] * x[c];
    float s = 1.0f / std::sqrt(ss / C + eps);
    for (int c = 0; c < C; ++c)
      o[c] = x[c] * s * weight[c];
    rstd[n] = s;
  }
}

void rmsnorm_backward(float *dinp, float *dweight, const float *dout,
                      const float *inp, const float *weight, const float *rstd,
                      int N, int C) {
  if (dweight)
    column_reduce(dweight, N, C, [=](int n, int c) {
      size_t i = size_t(n) * C + c;
      return dout[i] * inp[i] * rstd[n];
    });
  if (!dinp)
    return;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *x = inp + size_t(n) * C;
    const float *g = dout + size_t(n) * C;
    float *dx = dinp + size_t(n) * C;
    // y = w * x * s with s = (mean(x^2) + eps)^-1/2, so with g = dout * w:
    // dx = s * (g - x * s * mean(g * x * s)).
    float s = rstd[n];
    float dnorm_norm_mean = 0.0f;
    for (int c = 0; c < C; ++c)
      dnorm_norm_mean += g[c] * weight[c] * x[c] * s;
    dnorm_norm_mean /= C;
    for (int c = 0; c < C; ++c) {
      float norm = x[c] * s;
      float dnorm = g[c] * weight[c];
      dx[c] += (dnorm - norm * dnorm_norm_mean) * s;
    }
  }
}

} // namespace tpc::cpu
