//===- LayerNorm.cpp - Layer and RMS normalisation ------------------------===//
//
// Statistics in fp32 over each row of C channels; 1/std (and for layer norm
// the mean) is saved for backward. Layer norm: the caller's eps (GPT-2's
// 1e-5, BERT's 1e-12), biased variance as torch.nn.LayerNorm. RMSNorm: the
// root mean square, no centring, no bias, the caller's eps (Llama's
// LlamaRMSNorm).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <cmath>

namespace tpc::cpu {
namespace {

constexpr int kLanes = 16;

/// The sum over c < C of f(c) in an order set by C alone: sixteen running
/// sums over the columns c = l (mod 16), added in lane order, then the
/// columns past the last whole sixteen. The lanes' loop becomes vector
/// adds, where a sum in column order stays scalar, and a row still sums the
/// same at any address and in any batch (decoding one row agrees with the
/// full forward).
template <class F>
inline __attribute__((always_inline)) float lane_sum(int C, F f) {
  float acc[kLanes] = {};
  int c = 0;
  for (; c + kLanes <= C; c += kLanes)
    for (int l = 0; l < kLanes; ++l)
      acc[l] += f(c + l);
  float s = 0.0f;
  for (int l = 0; l < kLanes; ++l)
    s += acc[l];
  for (; c < C; ++c)
    s += f(c);
  return s;
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
layernorm_forward_row(typename S::type *o, float *mean, float *rstd,
                      const typename S::type *x, const float *weight,
                      const float *bias, int C, float eps) {
  float m = lane_sum(C, [=](int c) { return S::load(x[c]); }) / C;
  // Two passes: the one-pass E[x^2] - E[x]^2 loses precision when the mean
  // is large against the spread.
  float var = lane_sum(C,
                       [=](int c) {
                         float d = S::load(x[c]) - m;
                         return d * d;
                       }) /
              C;
  float s = 1.0f / std::sqrt(var + eps);
#pragma omp simd
  for (int c = 0; c < C; ++c)
    o[c] = S::store((S::load(x[c]) - m) * s * weight[c] + bias[c]);
  *mean = m;
  *rstd = s;
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
layernorm_backward_row(typename S::type *dx, const typename S::type *g,
                       const typename S::type *x, const float *weight, float m,
                       float s, int C) {
  float dnorm_mean =
      lane_sum(C, [=](int c) { return S::load(g[c]) * weight[c]; }) / C;
  float dnorm_norm_mean =
      lane_sum(C,
               [=](int c) {
                 return S::load(g[c]) * weight[c] * (S::load(x[c]) - m) * s;
               }) /
      C;
#pragma omp simd
  for (int c = 0; c < C; ++c) {
    float norm = (S::load(x[c]) - m) * s;
    float dnorm = S::load(g[c]) * weight[c];
    dx[c] = S::store(S::load(dx[c]) +
                     (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s);
  }
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
rmsnorm_forward_row(typename S::type *o, float *rstd, const typename S::type *x,
                    const float *weight, int C, float eps) {
  float ss = lane_sum(C, [=](int c) { return S::load(x[c]) * S::load(x[c]); });
  float s = 1.0f / std::sqrt(ss / C + eps);
#pragma omp simd
  for (int c = 0; c < C; ++c)
    o[c] = S::store(S::load(x[c]) * s * weight[c]);
  *rstd = s;
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
rmsnorm_backward_row(typename S::type *dx, const typename S::type *g,
                     const typename S::type *x, const float *weight, float s,
                     int C) {
  // y = w * x * s with s = (mean(x^2) + eps)^-1/2, so with g = dout * w:
  // dx = s * (g - x * s * mean(g * x * s)).
  float dnorm_norm_mean =
      lane_sum(C,
               [=](int c) {
                 return S::load(g[c]) * weight[c] * S::load(x[c]) * s;
               }) /
      C;
#pragma omp simd
  for (int c = 0; c < C; ++c) {
    float norm = S::load(x[c]) * s;
    float dnorm = S::load(g[c]) * weight[c];
    dx[c] = S::store(S::load(dx[c]) + (dnorm - norm * dnorm_norm_mean) * s);
  }
}

} // namespace

template <class S>
void layernorm_forward(typename S::type *out, float *mean, float *rstd,
                       const typename S::type *inp, const float *weight,
                       const float *bias, int N, int C, float eps) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n)
    layernorm_forward_row<S>(out + size_t(n) * C, mean + n, rstd + n,
                             inp + size_t(n) * C, weight, bias, C, eps);
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
  for (int n = 0; n < N; ++n)
    layernorm_backward_row<S>(dinp + size_t(n) * C, dout + size_t(n) * C,
                              inp + size_t(n) * C, weight, mean[n], rstd[n], C);
}

template <class S>
void rmsnorm_forward(typename S::type *out, float *rstd,
                     const typename S::type *inp, const float *weight, int N,
                     int C, float eps) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n)
    rmsnorm_forward_row<S>(out + size_t(n) * C, rstd + n, inp + size_t(n) * C,
                           weight, C, eps);
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
  for (int n = 0; n < N; ++n)
    rmsnorm_backward_row<S>(dinp + size_t(n) * C, dout + size_t(n) * C,
                            inp + size_t(n) * C, weight, rstd[n], C);
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::layernorm_forward(void *out, float *mean, float *rstd,
                                      const void *inp, const void *weight,
                                      const void *bias, int N, int C,
                                      float eps) const {
  In<S> w(weight, C), b(bias, C);
  cpu::layernorm_forward<S>(typed(out), mean, rstd, typed(inp), w, b, N, C,
                            eps);
}

template <class S>
void CpuKernels<S>::layernorm_backward(void *dinp, void *dweight, void *dbias,
                                       const void *dout, const void *inp,
                                       const void *weight, const float *mean,
                                       const float *rstd, int N, int C) const {
  In<S> w(weight, C);
  Out<S> dw(dweight, C, true), db(dbias, C, true);
  cpu::layernorm_backward<S>(typed(dinp), dw, db, typed(dout), typed(inp), w,
                             mean, rstd, N, C);
}

template <class S>
void CpuKernels<S>::rmsnorm_forward(void *out, float *rstd, const void *inp,
                                    const void *weight, int N, int C,
                                    float eps) const {
  In<S> w(weight, C);
  cpu::rmsnorm_forward<S>(typed(out), rstd, typed(inp), w, N, C, eps);
}

template <class S>
void CpuKernels<S>::rmsnorm_backward(void *dinp, void *dweight,
                                     const void *dout, const void *inp,
                                     const void *weight, const float *rstd,
                                     int N, int C) const {
  In<S> w(weight, C);
  Out<S> dw(dweight, C, true);
  cpu::rmsnorm_backward<S>(typed(dinp), dw, typed(dout), typed(inp), w, rstd, N,
                           C);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void layernorm_forward<S>(S::type *, float *, float *,              \
                                     const S::type *, const float *,           \
                                     const float *, int, int, float);          \
  template void layernorm_backward<S>(                                         \
      S::type *, float *, float *, const S::type *, const S::type *,           \
      const float *, const float *, const float *, int, int);                  \
  template void rmsnorm_forward<S>(S::type *, float *, const S::type *,        \
                                   const float *, int, int, float);            \
  template void rmsnorm_backward<S>(S::type *, float *, const S::type *,       \
                                    const S::type *, const float *,            \
                                    const float *, int, int);                  \
  template void CpuKernels<S>::layernorm_forward(                              \
      void *, float *, float *, const void *, const void *, const void *, int, \
      int, float) const;                                                       \
  template void CpuKernels<S>::layernorm_backward(                             \
      void *, void *, void *, const void *, const void *, const void *,        \
      const float *, const float *, int, int) const;                           \
  template void CpuKernels<S>::rmsnorm_forward(                                \
      void *, float *, const void *, const void *, int, int, float) const;     \
  template void CpuKernels<S>::rmsnorm_backward(                               \
      void *, void *, const void *, const void *, const void *, const float *, \
      int, int) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
