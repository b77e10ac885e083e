//===- Activation.cpp - GELU, tanh and SwiGLU -----------------------------===//
//
// GPT-2's GELU, the tanh approximation:
//   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// and BERT's exact GELU, x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))).
// tanh itself, BERT's pooler activation.
// Llama's SwiGLU: silu(gate) * up, silu(x) = x * sigmoid(x).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/Chunks.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace tpc::cpu {

static constexpr float kGeluScale = 0.7978845608028654f; // sqrt(2/pi)
static constexpr float kGeluCube = 0.044715f;

/// sqrt(2/pi) (x + 0.044715 x^3), the argument of GELU's tanh.
static inline float gelu_arg(float x) {
  return kGeluScale * (x + kGeluCube * x * x * x);
}

/// e[i] = e^(2 gelu_arg(x[i])) for i < n <= kExpBlock: the exponentials of
/// GELU's tanh, in one exp_shifted call.
template <class S>
static inline void gelu_exp2u(float *e, const typename S::type *inp, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    e[i] = 2.0f * gelu_arg(S::load(inp[i]));
  exp_shifted(e, n, 0.0f);
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
gelu_forward_chunk(typename S::type *out, const typename S::type *inp,
                   size_t n) {
  float e[kExpBlock];
  for (size_t i0 = 0; i0 < n; i0 += kExpBlock) {
    const size_t m = std::min(kExpBlock, n - i0);
    gelu_exp2u<S>(e, inp + i0, m);
#pragma omp simd
    for (size_t i = 0; i < m; ++i) {
      float x = S::load(inp[i0 + i]);
      out[i0 + i] = S::store(0.5f * x * (1.0f + tanh_from_exp2x(e[i])));
    }
  }
}

/// Accumulate: dinp += grad * dout; else dinp = 0 + grad * dout, the same
/// sum as added to a zeroed dinp (-0 products become +0 alike).
template <class S, bool Accumulate>
TPC_VECTOR_CLONES_TEMPLATE static void
gelu_backward_chunk(typename S::type *dinp, const typename S::type *inp,
                    const typename S::type *dout, size_t n) {
  float e[kExpBlock];
  for (size_t i0 = 0; i0 < n; i0 += kExpBlock) {
    const size_t m = std::min(kExpBlock, n - i0);
    gelu_exp2u<S>(e, inp + i0, m);
#pragma omp simd
    for (size_t i = 0; i < m; ++i) {
      float x = S::load(inp[i0 + i]);
      float th = tanh_from_exp2x(e[i]);
      float du = kGeluScale * (1.0f + 3.0f * kGeluCube * x * x);
      float grad = 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * du;
      const float old = Accumulate ? S::load(dinp[i0 + i]) : 0.0f;
      dinp[i0 + i] = S::store(old + grad * S::load(dout[i0 + i]));
    }
  }
}

static constexpr float kRsqrt2 = 0.7071067811865476f;   // 1/sqrt(2)
static constexpr float kRsqrt2Pi = 0.3989422804014327f; // 1/sqrt(2 pi)

template <class S>
static void gelu_exact_forward_chunk(typename S::type *out,
                                     const typename S::type *inp, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float x = S::load(inp[i]);
    out[i] = S::store(0.5f * x * (1.0f + std::erf(x * kRsqrt2)));
  }
}

/// gelu'(x) = Phi(x) + x phi(x); accumulating as gelu_backward_chunk.
template <class S, bool Accumulate>
static void gelu_exact_backward_chunk(typename S::type *dinp,
                                      const typename S::type *inp,
                                      const typename S::type *dout, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    float x = S::load(inp[i]);
    float grad = 0.5f * (1.0f + std::erf(x * kRsqrt2)) +
                 x * kRsqrt2Pi * std::exp(-0.5f * x * x);
    const float old = Accumulate ? S::load(dinp[i]) : 0.0f;
    dinp[i] = S::store(old + grad * S::load(dout[i]));
  }
}

/// tanh in double, rounded to float: glibc's tanhf is off by up to 2 ulp,
/// this by half of one. Far from zero it is 1 or -1, never inf/inf.
template <class S>
static void tanh_forward_chunk(typename S::type *out,
                               const typename S::type *inp, size_t n) {
  for (size_t i = 0; i < n; ++i)
    out[i] = S::store(static_cast<float>(std::tanh(double(S::load(inp[i])))));
}

/// tanh'(x) = 1 - y^2 for y = tanh(x), as (1 - y)(1 + y): near |y| = 1,
/// where 1 - y^2 is small, this loses no bits to y^2's rounding.
/// Accumulating as gelu_backward_chunk.
template <class S, bool Accumulate>
TPC_VECTOR_CLONES_TEMPLATE static void
tanh_backward_chunk(typename S::type *dinp, const typename S::type *out,
                    const typename S::type *dout, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    float y = S::load(out[i]);
    float grad = (1.0f - y) * (1.0f + y);
    const float old = Accumulate ? S::load(dinp[i]) : 0.0f;
    dinp[i] = S::store(old + grad * S::load(dout[i]));
  }
}

/// 1 / (1 + e^-x) from e^-|x| <= 1: no overflow to infinity for any x, and
/// a tiny result (not 0/0) far below zero.
static inline float sigmoid(float x) {
  float e = exp_approx(-std::fabs(x));
  float r = 1.0f / (1.0f + e);
  return x >= 0.0f ? r : e * r;
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
swiglu_forward_chunk(typename S::type *out, const typename S::type *gate,
                     const typename S::type *up, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    float x = S::load(gate[i]);
    out[i] = S::store(x * sigmoid(x) * S::load(up[i]));
  }
}

template <class S>
TPC_VECTOR_CLONES_TEMPLATE static void
swiglu_backward_chunk(typename S::type *dgate, typename S::type *dup,
                      const typename S::type *dout,
                      const typename S::type *gate, const typename S::type *up,
                      size_t n) {
  if (dgate) {
#pragma omp simd
    for (size_t i = 0; i < n; ++i) {
      // silu'(x) = sigmoid(x) (1 + x (1 - sigmoid(x))).
      float x = S::load(gate[i]), sg = sigmoid(x);
      dgate[i] =
          S::store(S::load(dgate[i]) + S::load(dout[i]) * S::load(up[i]) *
                                           (sg * (1.0f + x * (1.0f - sg))));
    }
  }
  if (dup) {
#pragma omp simd
    for (size_t i = 0; i < n; ++i) {
      float x = S::load(gate[i]);
      dup[i] = S::store(S::load(dup[i]) + S::load(dout[i]) * (x * sigmoid(x)));
    }
  }
}

/// in_chunks for a backward pass's chunks, compiled apart for adding to the
/// gradient and for writing it: f(std::bool_constant<accumulate>(), i, k).
template <class F>
static void in_chunks_accumulating(size_t n, bool accumulate, F f) {
  in_chunks(n, [=](size_t i, size_t k) {
    if (accumulate)
      f(std::true_type(), i, k);
    else
      f(std::false_type(), i, k);
  });
}

template <class S>
void gelu_forward(typename S::type *out, const typename S::type *inp,
                  size_t n) {
  in_chunks(n, [=](size_t i, size_t k) {
    gelu_forward_chunk<S>(out + i, inp + i, k);
  });
}

template <class S>
void gelu_backward(typename S::type *dinp, const typename S::type *inp,
                   const typename S::type *dout, size_t n, bool accumulate) {
  in_chunks_accumulating(n, accumulate, [=](auto add, size_t i, size_t k) {
    gelu_backward_chunk<S, decltype(add)::value>(dinp + i, inp + i, dout + i,
                                                 k);
  });
}

template <class S>
void gelu_exact_forward(typename S::type *out, const typename S::type *inp,
                        size_t n) {
  in_chunks(n, [=](size_t i, size_t k) {
    gelu_exact_forward_chunk<S>(out + i, inp + i, k);
  });
}

template <class S>
void gelu_exact_backward(typename S::type *dinp, const typename S::type *inp,
                         const typename S::type *dout, size_t n,
                         bool accumulate) {
  in_chunks_accumulating(n, accumulate, [=](auto add, size_t i, size_t k) {
    gelu_exact_backward_chunk<S, decltype(add)::value>(dinp + i, inp + i,
                                                       dout + i, k);
  });
}

template <class S>
void tanh_forward(typename S::type *out, const typename S::type *inp,
                  size_t n) {
  in_chunks(n, [=](size_t i, size_t k) {
    tanh_forward_chunk<S>(out + i, inp + i, k);
  });
}

template <class S>
void tanh_backward(typename S::type *dinp, const typename S::type *out,
                   const typename S::type *dout, size_t n, bool accumulate) {
  in_chunks_accumulating(n, accumulate, [=](auto add, size_t i, size_t k) {
    tanh_backward_chunk<S, decltype(add)::value>(dinp + i, out + i, dout + i,
                                                 k);
  });
}

template <class S>
void swiglu_forward(typename S::type *out, const typename S::type *gate,
                    const typename S::type *up, size_t n) {
  in_chunks(n, [=](size_t i, size_t k) {
    swiglu_forward_chunk<S>(out + i, gate + i, up + i, k);
  });
}

template <class S>
void swiglu_backward(typename S::type *dgate, typename S::type *dup,
                     const typename S::type *dout, const typename S::type *gate,
                     const typename S::type *up, size_t n) {
  if (!dgate && !dup)
    return;
  in_chunks(n, [=](size_t i, size_t k) {
    swiglu_backward_chunk<S>(dgate ? dgate + i : nullptr,
                             dup ? dup + i : nullptr, dout + i, gate + i,
                             up + i, k);
  });
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::gelu_forward(void *out, const void *inp, size_t n) const {
  cpu::gelu_forward<S>(typed(out), typed(inp), n);
}

template <class S>
void CpuKernels<S>::gelu_backward(void *dinp, const void *inp, const void *dout,
                                  size_t n, bool accumulate) const {
  cpu::gelu_backward<S>(typed(dinp), typed(inp), typed(dout), n, accumulate);
}

template <class S>
void CpuKernels<S>::gelu_exact_forward(void *out, const void *inp,
                                       size_t n) const {
  cpu::gelu_exact_forward<S>(typed(out), typed(inp), n);
}

template <class S>
void CpuKernels<S>::gelu_exact_backward(void *dinp, const void *inp,
                                        const void *dout, size_t n,
                                        bool accumulate) const {
  cpu::gelu_exact_backward<S>(typed(dinp), typed(inp), typed(dout), n,
                              accumulate);
}

template <class S>
void CpuKernels<S>::tanh_forward(void *out, const void *inp, size_t n) const {
  cpu::tanh_forward<S>(typed(out), typed(inp), n);
}

template <class S>
void CpuKernels<S>::tanh_backward(void *dinp, const void *out, const void *dout,
                                  size_t n, bool accumulate) const {
  cpu::tanh_backward<S>(typed(dinp), typed(out), typed(dout), n, accumulate);
}

template <class S>
void CpuKernels<S>::swiglu_forward(void *out, const void *gate, const void *up,
                                   size_t n) const {
  cpu::swiglu_forward<S>(typed(out), typed(gate), typed(up), n);
}

template <class S>
void CpuKernels<S>::swiglu_backward(void *dgate, void *dup, const void *dout,
                                    const void *gate, const void *up,
                                    size_t n) const {
  cpu::swiglu_backward<S>(typed(dgate), typed(dup), typed(dout), typed(gate),
                          typed(up), n);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void gelu_forward<S>(S::type *, const S::type *, size_t);           \
  template void gelu_backward<S>(S::type *, const S::type *, const S::type *,  \
                                 size_t, bool);                                \
  template void gelu_exact_forward<S>(S::type *, const S::type *, size_t);     \
  template void gelu_exact_backward<S>(S::type *, const S::type *,             \
                                       const S::type *, size_t, bool);         \
  template void tanh_forward<S>(S::type *, const S::type *, size_t);           \
  template void tanh_backward<S>(S::type *, const S::type *, const S::type *,  \
                                 size_t, bool);                                \
  template void swiglu_forward<S>(S::type *, const S::type *, const S::type *, \
                                  size_t);                                     \
  template void swiglu_backward<S>(S::type *, S::type *, const S::type *,      \
                                   const S::type *, const S::type *, size_t);  \
  template void CpuKernels<S>::gelu_forward(void *, const void *, size_t)      \
      const;                                                                   \
  template void CpuKernels<S>::gelu_backward(                                  \
      void *, const void *, const void *, size_t, bool) const;                 \
  template void CpuKernels<S>::gelu_exact_forward(void *, const void *,        \
                                                  size_t) const;               \
  template void CpuKernels<S>::gelu_exact_backward(                            \
      void *, const void *, const void *, size_t, bool) const;                 \
  template void CpuKernels<S>::tanh_forward(void *, const void *, size_t)      \
      const;                                                                   \
  template void CpuKernels<S>::tanh_backward(                                  \
      void *, const void *, const void *, size_t, bool) const;                 \
  template void CpuKernels<S>::swiglu_forward(void *, const void *,            \
                                              const void *, size_t) const;     \
  template void CpuKernels<S>::swiglu_backward(                                \
      void *, void *, const void *, const void *, const void *, size_t) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
