//===- Optimizer.cpp - AdamW, SGD and gradient norms ----------------------===//
//
// Elementwise updates on this rank's shard of each parameter. The global
// gradient norm is the square root of the sum, over ranks, of
// sum_of_squares of the shards each rank owns (replicated parameters
// counted once).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/Chunks.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <omp.h>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tpc::cpu {

namespace {
/// The working copy's storage when the update writes none.
struct NoWorkingCopy {
  using type = char;
};
template <class W> constexpr bool kWrites = !std::is_same_v<W, NoWorkingCopy>;
} // namespace

template <class S, class W>
TPC_VECTOR_CLONES_TEMPLATE static void
adamw_chunk(float *param, const typename S::type *grad, float *m, float *v,
            typename W::type *working, size_t n, const AdamWParams &p,
            float bc1, float bc2) {
  // Locals, so that no store to the arrays could change them.
  const float scale = p.grad_scale, beta1 = p.beta1, beta2 = p.beta2, lr = p.lr,
              eps = p.eps, decay = p.weight_decay;
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    float g = S::load(grad[i]) * scale;
    float mi = beta1 * m[i] + (1.0f - beta1) * g;
    float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    float mhat = mi / bc1, vhat = vi / bc2;
    // Decoupled decay (Loshchilov & Hutter): applied to the weight, not
    // folded into the gradient.
    float w =
        param[i] - lr * (mhat / (std::sqrt(vhat) + eps) + decay * param[i]);
    param[i] = w;
    if constexpr (kWrites<W>)
      working[i] = W::store(w);
  }
}

template <class S, class W>
static void adamw_pass(float *param, const typename S::type *grad, float *m,
                       float *v, typename W::type *working, size_t n,
                       const AdamWParams &p) {
  const float bc1 = 1.0f - float(std::pow(double(p.beta1), double(p.step)));
  const float bc2 = 1.0f - float(std::pow(double(p.beta2), double(p.step)));
  in_chunks(n, [&](size_t i, size_t k) {
    adamw_chunk<S, W>(param + i, grad + i, m + i, v + i,
                      kWrites<W> ? working + i : nullptr, k, p, bc1, bc2);
  });
}

/// Calls f with the storage type of `working` (NoWorkingCopy without data)
/// and its data so typed.
template <class F>
static void with_working_copy(const WorkingCopy &working, F f) {
  if (!working.data)
    return f(NoWorkingCopy{}, static_cast<char *>(nullptr));
  switch (working.type) {
  case ElementType::BF16:
    return f(BF16Storage{}, static_cast<uint16_t *>(working.data));
  case ElementType::F16:
    return f(F16Storage{}, static_cast<uint16_t *>(working.data));
  case ElementType::F32:
  case ElementType::I32:
    break;
  }
  throw std::invalid_argument(
      std::string("a working copy of an f32 master is bf16 or f16, not ") +
      element_type_name(working.type));
}

template <class S>
void adamw_update(float *param, const typename S::type *grad, float *m,
                  float *v, size_t n, const AdamWParams &p,
                  const WorkingCopy &working) {
  with_working_copy(working, [&](auto w, auto *data) {
    adamw_pass<S, decltype(w)>(param, grad, m, v, data, n, p);
  });
}

template <class S, class W>
static void sgd_pass(float *param, const typename S::type *grad,
                     float *momentum_buf, typename W::type *working, size_t n,
                     const SgdParams &p) {
  const bool use_momentum = p.momentum != 0.0f && momentum_buf;
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float g = S::load(grad[i]) * p.grad_scale + p.weight_decay * param[i];
    if (use_momentum) {
      g += p.momentum * momentum_buf[i];
      momentum_buf[i] = g;
    }
    float w = param[i] - p.lr * g;
    param[i] = w;
    if constexpr (kWrites<W>)
      working[i] = W::store(w);
  }
}

template <class S>
void sgd_update(float *param, const typename S::type *grad, float *momentum_buf,
                size_t n, const SgdParams &p, const WorkingCopy &working) {
  with_working_copy(working, [&](auto w, auto *data) {
    sgd_pass<S, decltype(w)>(param, grad, momentum_buf, data, n, p);
  });
}

/// Chunks summed at once by one thread (sum_of_squares).
constexpr int kStreams = 4;

/// out[s] = the sum of x[s][i]^2 over [0, n), in double, for kStreams
/// chunks at once: one read stream per chunk, which a core's prefetchers
/// serve several times faster than one (13 against 22 GB/s on two cores,
/// 124M bf16 values). The streams' sums are alike and apart, so a chunk's
/// sum does not depend on the chunks it is summed with.
template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
sum_of_squares_streams(double *out, const typename S::type *const *x,
                       size_t n) {
  static_assert(kStreams == 4);
  const typename S::type *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
#pragma omp simd reduction(+ : a0, a1, a2, a3)
  for (size_t i = 0; i < n; ++i) {
    const double v0 = S::load(x0[i]), v1 = S::load(x1[i]), v2 = S::load(x2[i]),
                 v3 = S::load(x3[i]);
    a0 += v0 * v0;
    a1 += v1 * v1;
    a2 += v2 * v2;
    a3 += v3 * v3;
  }
  out[0] = a0;
  out[1] = a1;
  out[2] = a2;
  out[3] = a3;
}

template <class S> double sum_of_squares(const typename S::type *x, size_t n) {
  // Partial sums per chunk, added in chunk order: the result does not
  // depend on the thread count. Each thread takes a run of whole chunks
  // and sums kStreams of them at once, a quarter of its run apart (the
  // last round repeats a chunk where the run runs out).
  const size_t whole = n / kChunk, rest = n % kChunk;
  // Kept between calls: no allocation per step once a size has been seen.
  thread_local std::vector<double> chunk_sums;
  if (chunk_sums.size() < whole + 1)
    chunk_sums.resize(whole + 1);
  double *partial = chunk_sums.data();
#pragma omp parallel
  {
    const size_t t = size_t(omp_get_thread_num()),
                 threads = size_t(omp_get_num_threads());
    const size_t c0 = whole * t / threads, c1 = whole * (t + 1) / threads;
    const size_t per = (c1 - c0 + kStreams - 1) / kStreams;
    for (size_t k = 0; k < per; ++k) {
      size_t id[kStreams];
      const typename S::type *rows[kStreams];
      for (int s = 0; s < kStreams; ++s) {
        const size_t c = c0 + s * per + k;
        id[s] = c < c1 ? c : c0 + k;
        rows[s] = x + id[s] * kChunk;
      }
      double sums[kStreams];
      sum_of_squares_streams<S>(sums, rows, kChunk);
      for (int s = 0; s < kStreams; ++s)
        partial[id[s]] = sums[s];
    }
  }
  if (rest) {
    const typename S::type *tail = x + whole * kChunk;
    const typename S::type *rows[kStreams] = {tail, tail, tail, tail};
    double sums[kStreams];
    sum_of_squares_streams<S>(sums, rows, rest);
    partial[whole] = sums[0];
  }
  double acc = 0.0;
  for (size_t c = 0; c < whole + (rest ? 1 : 0); ++c)
    acc += partial[c];
  return acc;
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::sum_of_squares(float *out, const void *x, size_t n) const {
  *out += float(cpu::sum_of_squares<S>(typed(x), n));
}

template <class S>
void CpuKernels<S>::grad_norm(float *norm, float *scale, const float *sum_sq,
                              const float *inv_count, float max_norm) const {
  double inv = *inv_count;
  double value = inv * std::sqrt(double(*sum_sq));
  double coef = 1.0;
  if (max_norm > 0.0f)
    coef = std::min(1.0, double(max_norm) / (value + 1e-6));
  *norm = float(value);
  *scale = std::isfinite(value) ? float(inv * coef)
                                : std::numeric_limits<float>::quiet_NaN();
}

template <class S>
void CpuKernels<S>::adamw_update(float *param, const void *grad, float *m,
                                 float *v, size_t n, const AdamWParams &p,
                                 const OptimizerScalars &s,
                                 const WorkingCopy &working) const {
  if (!std::isfinite(*s.grad_scale))
    return;
  AdamWParams q = p;
  q.lr = *s.lr;
  q.grad_scale = *s.grad_scale;
  q.step = *s.step;
  cpu::adamw_update<S>(param, typed(grad), m, v, n, q, working);
}

template <class S>
void CpuKernels<S>::sgd_update(float *param, const void *grad,
                               float *momentum_buf, size_t n,
                               const SgdParams &p, const OptimizerScalars &s,
                               const WorkingCopy &working) const {
  if (!std::isfinite(*s.grad_scale))
    return;
  SgdParams q = p;
  q.lr = *s.lr;
  q.grad_scale = *s.grad_scale;
  cpu::sgd_update<S>(param, typed(grad), momentum_buf, n, q, working);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void adamw_update<S>(float *, const S::type *, float *, float *,    \
                                size_t, const AdamWParams &,                   \
                                const WorkingCopy &);                          \
  template void sgd_update<S>(float *, const S::type *, float *, size_t,       \
                              const SgdParams &, const WorkingCopy &);         \
  template double sum_of_squares<S>(const S::type *, size_t);                  \
  template void CpuKernels<S>::sum_of_squares(float *, const void *, size_t)   \
      const;                                                                   \
  template void CpuKernels<S>::grad_norm(float *, float *, const float *,      \
                                         const float *, float) const;          \
  template void CpuKernels<S>::adamw_update(                                   \
      float *, const void *, float *, float *, size_t, const AdamWParams &,    \
      const OptimizerScalars &, const WorkingCopy &) const;                    \
  template void CpuKernels<S>::sgd_update(                                     \
      float *, const void *, float *, size_t, const SgdParams &,               \
      const OptimizerScalars &, const WorkingCopy &) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
