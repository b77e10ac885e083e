//===- Optimizer.cpp - AdamW, SGD and gradient norms ----------------------===//
//
// Elementwise updates on this rank's shard of each parameter. The global
// gradient norm is the square root of the sum, over ranks, of
// sum_of_squares of the shards each rank owns (replicated parameters
// counted once).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Chunks.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>
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

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static double
sum_of_squares_chunk(const typename S::type *x, size_t n) {
  double acc = 0.0;
#pragma omp simd reduction(+ : acc)
  for (size_t i = 0; i < n; ++i) {
    const double xi = S::load(x[i]);
    acc += xi * xi;
  }
  return acc;
}

template <class S> double sum_of_squares(const typename S::type *x, size_t n) {
  // Partial sums per chunk, added in chunk order: the result does not
  // depend on the thread count.
  size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> partial(chunks);
  in_chunks(n, [&](size_t i, size_t k) {
    partial[i / kChunk] = sum_of_squares_chunk<S>(x + i, k);
  });
  double acc = 0.0;
  for (double p : partial)
    acc += p;
  return acc;
}

#define TPC_INSTANTIATE(S)                                                     \
  template void adamw_update<S>(float *, const S::type *, float *, float *,    \
                                size_t, const AdamWParams &,                   \
                                const WorkingCopy &);                          \
  template void sgd_update<S>(float *, const S::type *, float *, size_t,       \
                              const SgdParams &, const WorkingCopy &);         \
  template double sum_of_squares<S>(const S::type *, size_t);
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
