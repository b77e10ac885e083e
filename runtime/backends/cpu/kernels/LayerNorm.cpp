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

template <class S>
void layernorm_forward(typename S::type *out, float *mean, float *rstd,
                       const typename S::type *inp, const float *weight,
                       const float *bias, int N, int C) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *x = inp + size_t(n) * C;
    auto *o = out + size_t(n) * C;
    float m = 0.0f;
    for (int c = 0; c < C; ++c)
      m += S::load(x[c]);
    m /= C;
    // Two passes: the one-pass E[x^2] - E[x]^2 loses precision when the mean
    // is large against the spread.
    float var = 0.0f;
    for (int c = 0; c < C; ++c) {
      float d = S::load(x[c]) - m;
      var += d * d;
    }
    var /= C;
    float s = 1.0f / std::sqrt(var + kLayerNormEps);
    for (int c = 0; c < C; ++c)
      o[c] = S::store((S::load(x[c]) - m) * s * weight[c] + bias[c]);
    mean[n] = m;
    rstd[n] = s;
  }
}

template <class S>
void layernorm_backward(typename S::type *dinp, float *dweight, float *dbias,
                        const typename S::type *dout,
                        const typename S::type *inp, const float *weight,
                        const float *mean, const float *rstd, int N, int C) {
  if (dweight)
    column_reduce(dweight, N, C, [=](int n, int c) {
      size_t i = size_t(n) * C + c;
      return S::load(dout[i]) * (S::load(inp[i]) - mean[n]) * rstd[n];
    });
  if (dbias)
    column_reduce(dbias, N, C, [=](int n, int c) {
      return S::load(dout[size_t(n) * C + c]);
    });
  if (!dinp)
    return;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *x = inp + size_t(n) * C;
    const auto *g = dout + size_t(n) * C;
    auto *dx = dinp + size_t(n) * C;
    float m = mean[n], s = rstd[n];
    float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
    for (int c = 0; c < C; ++c) {
      float dnorm = S::load(g[c]) * weight[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * (S::load(x[c]) - m) * s;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    for (int c = 0; c < C; ++c) {
      float norm = (S::load(x[c]) - m) * s;
      float dnorm = S::load(g[c]) * weight[c];
      dx[c] = S::store(S::load(dx[c]) +
                       (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s);
    }
  }
}

template <class S>
void rmsnorm_forward(typename S::type *out, float *rstd,
                     const typename S::type *inp, const float *weight, int N,
                     int C, float eps) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *x = inp + size_t(n) * C;
    auto *o = out + size_t(n) * C;
    float ss = 0.0f;
    for (int c = 0; c < C; ++c)
      ss += S::load(x[c]) * S::load(x[c]);
    float s = 1.0f / std::sqrt(ss / C + eps);
    for (int c = 0; c < C; ++c)
      o[c] = S::store(S::load(x[c]) * s * weight[c]);
    rstd[n] = s;
  }
}

template <class S>
void rmsnorm_backward(typename S::type *dinp, float *dweight,
                      const typename S::type *dout, const typename S::type *inp,
                      const float *weight, const float *rstd, int N, int C) {
  if (dweight)
    column_reduce(dweight, N, C, [=](int n, int c) {
      size_t i = size_t(n) * C + c;
      return S::load(dout[i]) * S::load(inp[i]) * rstd[n];
    });
  if (!dinp)
    return;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *x = inp + size_t(n) * C;
    const auto *g = dout + size_t(n) * C;
    auto *dx = dinp + size_t(n) * C;
    // y = w * x * s with s = (mean(x^2) + eps)^-1/2, so with g = dout * w:
    // dx = s * (g - x * s * mean(g * x * s)).
    float s = rstd[n];
    float dnorm_norm_mean = 0.0f;
    for (int c = 0; c < C; ++c)
      dnorm_norm_mean += S::load(g[c]) * weight[c] * S::load(x[c]) * s;
    dnorm_norm_mean /= C;
    for (int c = 0; c < C; ++c) {
      float norm = S::load(x[c]) * s;
      float dnorm = S::load(g[c]) * weight[c];
      dx[c] = S::store(S::load(dx[c]) + (dnorm - norm * dnorm_norm_mean) * s);
    }
  }
}

#define TPC_INSTANTIATE(S)                                                     \
  template void layernorm_forward<S>(S::type *, float *, float *,              \
                                     const S::type *, const float *,           \
                                     const float *, int, int);                 \
  template void layernorm_backward<S>(                                         \
      S::type *, float *, float *, const S::type *, const S::type *,           \
      const float *, const float *, const float *, int, int);                  \
  template void rmsnorm_forward<S>(S::type *, float *, const S::type *,        \
                                   const float *, int, int, float);            \
  template void rmsnorm_backward<S>(S::type *, float *, const S::type *,       \
                                    const S::type *, const float *,            \
                                    const float *, int, int);
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
