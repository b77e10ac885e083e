//===- Elementwise.cpp - Fill, cast, residual add, scale, weighted sum ----===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/Chunks.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

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

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::fill(void *out, float value, size_t n) const {
  auto *o = static_cast<typename S::type *>(out);
  typename S::type v;
  if constexpr (kIsF32<S>)
    v = value;
  else
    v = S::store(value);
  for (size_t i = 0; i < n; ++i)
    o[i] = v;
}

template <class S>
void CpuKernels<S>::residual_forward(void *out, const void *a, const void *b,
                                     size_t n) const {
  cpu::residual_forward<S>(typed(out), typed(a), typed(b), n);
}

template <class S>
void CpuKernels<S>::cast(void *out, ElementType to, const void *inp,
                         size_t n) const {
  // To the same type, the bits as they are: the way through fp32 and
  // back is exact (a gradient's first micro-batch, bf16 to bf16).
  if (to == S::dtype) {
    if (out != inp)
      copy_in_blocks(out, inp, n * element_size(to));
    return;
  }
  if (to == ElementType::F32) {
    widen<S>(static_cast<float *>(out), inp, n);
    return;
  }
  In<S> x(inp, n);
  const float *src = x;
  switch (to) {
  case ElementType::BF16:
    narrow<BF16Storage>(out, src, n);
    return;
  case ElementType::F16:
    narrow<F16Storage>(out, src, n);
    return;
  case ElementType::F32:
  case ElementType::I32:
    break;
  }
  throw std::invalid_argument(std::string("cast to ") + element_type_name(to) +
                              ": only floating-point types convert");
}

template <class S>
void CpuKernels<S>::scale_forward(void *out, const void *inp, float s,
                                  size_t n) const {
  In<S> x(inp, n);
  Out<S> o(out, n, false);
  cpu::scale_forward(o, x, s, n);
}

template <class S>
void CpuKernels<S>::weighted_sum_forward(void *out, const void *const *xs,
                                         const void *alpha, int k,
                                         size_t n) const {
  std::vector<std::unique_ptr<In<S>>> in;
  std::vector<const float *> ptrs;
  for (int i = 0; i < k; ++i) {
    in.push_back(std::make_unique<In<S>>(xs[i], n));
    ptrs.push_back(*in.back());
  }
  In<S> a(alpha, k);
  Out<S> o(out, n, false);
  cpu::weighted_sum_forward(o, ptrs.data(), a, k, n);
}

template <class S>
void CpuKernels<S>::weighted_sum_backward(void *const *dxs, void *dalpha,
                                          const void *dout,
                                          const void *const *xs,
                                          const void *alpha, int k,
                                          size_t n) const {
  std::vector<std::unique_ptr<In<S>>> in;
  std::vector<std::unique_ptr<Out<S>>> out;
  std::vector<const float *> xp;
  std::vector<float *> dxp;
  for (int i = 0; i < k; ++i) {
    in.push_back(std::make_unique<In<S>>(xs[i], n));
    xp.push_back(*in.back());
    out.push_back(std::make_unique<Out<S>>(dxs[i], n, true));
    dxp.push_back(*out.back());
  }
  In<S> a(alpha, k), d(dout, n);
  Out<S> da(dalpha, k, true);
  cpu::weighted_sum_backward(dxp.data(), da, d, xp.data(), a, k, n);
}

template <class S>
void CpuKernels<S>::accumulate(void *grad, ElementType grad_type, const void *x,
                               size_t n) const {
  if (grad_type == ElementType::F32) {
    In<S> x_(x, n);
    auto *g = static_cast<float *>(grad);
    cpu::residual_forward(g, g, x_, n);
    return;
  }
  if (grad_type != S::dtype)
    throw std::invalid_argument(
        std::string("accumulate: a gradient of ") +
        element_type_name(grad_type) + " does not take " +
        element_type_name(S::dtype) + " values; use f32 or " +
        element_type_name(S::dtype) + " gradients");
  cpu::residual_forward<S>(typed(grad), typed(grad), typed(x), n);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void CpuKernels<S>::fill(void *, float, size_t) const;              \
  template void CpuKernels<S>::residual_forward(void *, const void *,          \
                                                const void *, size_t) const;   \
  template void CpuKernels<S>::cast(void *, ElementType, const void *, size_t) \
      const;                                                                   \
  template void CpuKernels<S>::scale_forward(void *, const void *, float,      \
                                             size_t) const;                    \
  template void CpuKernels<S>::weighted_sum_forward(                           \
      void *, const void *const *, const void *, int, size_t) const;           \
  template void CpuKernels<S>::weighted_sum_backward(                          \
      void *const *, void *, const void *, const void *const *, const void *,  \
      int, size_t) const;                                                      \
  template void CpuKernels<S>::accumulate(void *, ElementType, const void *,   \
                                          size_t) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
