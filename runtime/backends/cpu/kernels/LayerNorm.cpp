//===- LayerNorm.cpp - Layer normalisation --------------------------------===//
//
// Statistics in fp32 over each row of C channels (eps 1e-5, biased variance
// as torch.nn.LayerNorm); mean and 1/std are saved for backward.
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

} // namespace tpc::cpu
