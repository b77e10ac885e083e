//===- Elementwise.cu - Fills, casts, activations, dropout -----*- CUDA -*-===//
//
// The kernels that touch each element on its own: fill, cast, residual add,
// scale, GELU, tanh, SwiGLU, the weighted sum of StagFormer's stacks, dropout
// and gradient accumulation. One thread per element in grid-stride loops over
// size_t indices; fp32 arithmetic, one rounding per stored value. The only
// reduction is the weighted sum's dalpha, summed deterministically in two
// passes over fp32 partials in the scratch buffer. Each kernel mirrors its
// CPU loop (runtime/backends/cpu/kernels/{Elementwise,Activation,Dropout}.cpp)
// expression for expression.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/KernelChecks.h"
#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"
#include "runtime/util/Philox.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tpc::cuda {
namespace {

// GPT-2's tanh GELU, the CPU code's constants.
constexpr float kGeluScale = 0.7978845608028654f; // sqrt(2/pi)
constexpr float kRsqrt2 = 0.7071067811865476f;    // 1/sqrt(2)
constexpr float kRsqrt2Pi = 0.3989422804014327f;  // 1/sqrt(2 pi)
constexpr float kGeluCube = 0.044715f;

/// 1 / (1 + e^-x) from e^-|x| <= 1, as the CPU writes it: never forms an
/// infinity, and stays a tiny nonzero value far below zero.
__device__ __forceinline__ float sigmoid(float x) {
  float e = expf(-fabsf(x));
  float r = 1.0f / (1.0f + e);
  return x >= 0.0f ? r : e * r;
}

/// The most summands weighted_sum takes: the pointers travel by value in the
/// kernel's parameters.
constexpr int kMaxSummands = 16;

template <class P> struct PointerList { P p[kMaxSummands]; };

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// out is (n)
template <class T> __global__ void fill_kernel(T *out, float value, size_t n) {
  T v = from_float<T>(value);
  for (size_t i = first_index(); i < n; i += grid_stride())
    out[i] = v;
}

// out is (n) of U, inp is (n) of T
template <class T, class U>
__global__ void cast_kernel(U *out, const T *inp, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    out[i] = from_float<U>(to_float(inp[i]));
}

// out, a, b are (n); out may alias a or b
template <class T>
__global__ void residual_forward_kernel(T *out, const T *a, const T *b,
                                        size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    out[i] = from_float<T>(to_float(a[i]) + to_float(b[i]));
}

// out, inp are (n)
template <class T>
__global__ void scale_forward_kernel(T *out, const T *inp, float s, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    out[i] = from_float<T>(s * to_float(inp[i]));
}

// out, inp are (n)
template <class T>
__global__ void gelu_forward_kernel(T *out, const T *inp, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float x = to_float(inp[i]);
    float u = kGeluScale * (x + kGeluCube * x * x * x);
    out[i] = from_float<T>(0.5f * x * (1.0f + tanhf(u)));
  }
}

// dinp, inp, dout are (n); dinp accumulates
template <class T>
__global__ void gelu_backward_kernel(T *dinp, const T *inp, const T *dout,
                                     size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float x = to_float(inp[i]);
    float u = kGeluScale * (x + kGeluCube * x * x * x);
    float th = tanhf(u);
    float du = kGeluScale * (1.0f + 3.0f * kGeluCube * x * x);
    float grad = 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * du;
    dinp[i] = from_float<T>(to_float(dinp[i]) + grad * to_float(dout[i]));
  }
}

// out, inp are (n); the exact GELU x * Phi(x)
template <class T>
__global__ void gelu_exact_forward_kernel(T *out, const T *inp, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float x = to_float(inp[i]);
    out[i] = from_float<T>(0.5f * x * (1.0f + erff(x * kRsqrt2)));
  }
}

// dinp, inp, dout are (n); dinp accumulates gelu'(x) = Phi(x) + x phi(x)
template <class T>
__global__ void gelu_exact_backward_kernel(T *dinp, const T *inp, const T *dout,
                                           size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float x = to_float(inp[i]);
    float grad =
        0.5f * (1.0f + erff(x * kRsqrt2)) + x * kRsqrt2Pi * expf(-0.5f * x * x);
    dinp[i] = from_float<T>(to_float(dinp[i]) + grad * to_float(dout[i]));
  }
}

// out, inp are (n); tanhf is within 2 ulp, the CPU's double tanh within half
template <class T>
__global__ void tanh_forward_kernel(T *out, const T *inp, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    out[i] = from_float<T>(tanhf(to_float(inp[i])));
}

// dinp, out, dout are (n); tanh'(x) = (1 - y)(1 + y) from y = tanh(x);
// dinp accumulates when `accumulate`, else is written (0 + grad * dout)
template <class T>
__global__ void tanh_backward_kernel(T *dinp, const T *out, const T *dout,
                                     size_t n, bool accumulate) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float y = to_float(out[i]);
    float grad = (1.0f - y) * (1.0f + y);
    const float old = accumulate ? to_float(dinp[i]) : 0.0f;
    dinp[i] = from_float<T>(old + grad * to_float(dout[i]));
  }
}

// out, gate, up are (n)
template <class T>
__global__ void swiglu_forward_kernel(T *out, const T *gate, const T *up,
                                      size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float x = to_float(gate[i]);
    out[i] = from_float<T>(x * sigmoid(x) * to_float(up[i]));
  }
}

// dgate, dup, dout, gate, up are (n); dgate and dup accumulate, either may
// be null
template <class T>
__global__ void swiglu_backward_kernel(T *dgate, T *dup, const T *dout,
                                       const T *gate, const T *up, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float x = to_float(gate[i]), sg = sigmoid(x), d = to_float(dout[i]);
    if (dgate) {
      // silu'(x) = sigmoid(x) (1 + x (1 - sigmoid(x))).
      float g = d * to_float(up[i]) * (sg * (1.0f + x * (1.0f - sg)));
      dgate[i] = from_float<T>(to_float(dgate[i]) + g);
    }
    if (dup)
      dup[i] = from_float<T>(to_float(dup[i]) + d * (x * sg));
  }
}

/// alpha (k) widened into shared memory; every thread of the block calls it.
template <class T>
__device__ __forceinline__ void load_alpha(float *a, const T *alpha, int k) {
  if (int(threadIdx.x) < k)
    a[threadIdx.x] = to_float(alpha[threadIdx.x]);
  __syncthreads();
}

// out is (n), xs are k tensors of (n), alpha is (k)
template <class T>
__global__ void weighted_sum_forward_kernel(T *out, PointerList<const T *> xs,
                                            const T *alpha, int k, size_t n) {
  __shared__ float a[kMaxSummands];
  load_alpha(a, alpha, k);
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < kMaxSummands; ++j)
      if (j < k)
        acc += a[j] * to_float(xs.p[j][i]);
    out[i] = from_float<T>(acc);
  }
}

// dxs are k tensors of (n) (null ones skipped), dout is (n), alpha is (k);
// dxs[j] += alpha[j] * dout
template <class T>
__global__ void weighted_sum_backward_dx_kernel(PointerList<T *> dxs,
                                                const T *dout, const T *alpha,
                                                int k, size_t n) {
  __shared__ float a[kMaxSummands];
  load_alpha(a, alpha, k);
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float d = to_float(dout[i]);
#pragma unroll
    for (int j = 0; j < kMaxSummands; ++j)
      if (j < k && dxs.p[j])
        dxs.p[j][i] = from_float<T>(to_float(dxs.p[j][i]) + a[j] * d);
  }
}

// dout is (n), xs are k tensors of (n); grid (blocks, k): block b of
// summand j writes partial[j * gridDim.x + b], its share of <dout, xs[j]>
template <class T>
__global__ void
weighted_sum_dalpha_partial_kernel(float *partial, const T *dout,
                                   PointerList<const T *> xs, size_t n) {
  __shared__ float shared[kWarp];
  const T *x = xs.p[blockIdx.y];
  float acc = 0.0f;
  for (size_t i = first_index(); i < n; i += grid_stride())
    acc += to_float(dout[i]) * to_float(x[i]);
  acc = block_sum(acc, shared);
  if (threadIdx.x == 0)
    partial[size_t(blockIdx.y) * gridDim.x + blockIdx.x] = acc;
}

// partial is (k, blocks), dalpha is (k); one block per summand j:
// dalpha[j] += sum of partial[j], rounded once
template <class T>
__global__ void
weighted_sum_dalpha_reduce_kernel(T *dalpha, const float *partial, int blocks) {
  __shared__ float shared[kWarp];
  const float *p = partial + size_t(blockIdx.x) * blocks;
  float acc = 0.0f;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x)
    acc += p[b];
  acc = block_sum(acc, shared);
  if (threadIdx.x == 0)
    dalpha[blockIdx.x] = from_float<T>(to_float(dalpha[blockIdx.x]) + acc);
}

// out, inp are (n); element i keeps iff its global index map(i) draws a
// uniform >= p
template <class T>
__global__ void dropout_forward_kernel(T *out, const T *inp, size_t n,
                                       DropoutParams d, GlobalIndexMap map,
                                       uint64_t stream, float scale) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    bool keep =
        d.p <= 0.0f || philox_uniform(d.seed, stream, map(uint64_t(i))) >= d.p;
    out[i] = from_float<T>(keep ? to_float(inp[i]) * scale : 0.0f);
  }
}

// grad (n) of G += x (n) of T
template <class G, class T>
__global__ void accumulate_kernel(G *grad, const T *x, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride())
    grad[i] = from_float<G>(to_float(grad[i]) + to_float(x[i]));
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

template <class T> void fill(const Launch &l, T *out, float value, size_t n) {
  if (n == 0)
    return;
  fill_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, value, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void cast(const Launch &l, void *out, ElementType to, const T *inp, size_t n) {
  switch (to) {
  case ElementType::F32:
    if (n == 0)
      return;
    cast_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
        static_cast<float *>(out), inp, n);
    break;
  case ElementType::BF16:
    if (n == 0)
      return;
    cast_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
        static_cast<__nv_bfloat16 *>(out), inp, n);
    break;
  case ElementType::F16:
    if (n == 0)
      return;
    cast_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
        static_cast<__half *>(out), inp, n);
    break;
  default:
    throw std::invalid_argument(std::string("cast to ") +
                                element_type_name(to) +
                                ": only floating-point types convert");
  }
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void residual_forward(const Launch &l, T *out, const T *a, const T *b,
                      size_t n) {
  if (n == 0)
    return;
  residual_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, a, b, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void scale_forward(const Launch &l, T *out, const T *inp, float s, size_t n) {
  if (n == 0)
    return;
  scale_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, inp, s, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void gelu_forward(const Launch &l, T *out, const T *inp, size_t n) {
  if (n == 0)
    return;
  gelu_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, inp, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void gelu_backward(const Launch &l, T *dinp, const T *inp, const T *dout,
                   size_t n) {
  if (n == 0 || !dinp)
    return;
  gelu_backward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(dinp, inp, dout,
                                                               n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void gelu_exact_forward(const Launch &l, T *out, const T *inp, size_t n) {
  if (n == 0)
    return;
  gelu_exact_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, inp,
                                                                    n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void gelu_exact_backward(const Launch &l, T *dinp, const T *inp, const T *dout,
                         size_t n) {
  if (n == 0 || !dinp)
    return;
  gelu_exact_backward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(dinp, inp,
                                                                     dout, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void tanh_forward(const Launch &l, T *out, const T *inp, size_t n) {
  if (n == 0)
    return;
  tanh_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, inp, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void tanh_backward(const Launch &l, T *dinp, const T *out, const T *dout,
                   size_t n, bool accumulate) {
  if (n == 0 || !dinp)
    return;
  tanh_backward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(dinp, out, dout,
                                                               n, accumulate);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void swiglu_forward(const Launch &l, T *out, const T *gate, const T *up,
                    size_t n) {
  if (n == 0)
    return;
  swiglu_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(out, gate, up,
                                                                n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void swiglu_backward(const Launch &l, T *dgate, T *dup, const T *dout,
                     const T *gate, const T *up, size_t n) {
  if (n == 0 || (!dgate && !dup))
    return;
  swiglu_backward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
      dgate, dup, dout, gate, up, n);
  TPC_CUDA_LAUNCH_CHECK();
}

static void check_summands(int k) {
  if (k > kMaxSummands)
    throw std::invalid_argument("weighted_sum: " + std::to_string(k) +
                                " summands; the CUDA backend takes at most " +
                                std::to_string(kMaxSummands));
}

template <class T>
void weighted_sum_forward(const Launch &l, T *out, const T *const *xs,
                          const T *alpha, int k, size_t n) {
  if (n == 0)
    return;
  check_summands(k);
  k = std::max(k, 0); // no summands: out = 0, as the CPU loop gives
  PointerList<const T *> list{};
  for (int j = 0; j < k; ++j)
    list.p[j] = xs[j];
  weighted_sum_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
      out, list, alpha, k, n);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void weighted_sum_backward(const Launch &l, T *const *dxs, T *dalpha,
                           const T *dout, const T *const *xs, const T *alpha,
                           int k, size_t n) {
  if (n == 0 || k <= 0)
    return;
  check_summands(k);
  PointerList<T *> grads{};
  bool any_dx = false;
  for (int j = 0; j < k; ++j) {
    grads.p[j] = dxs ? dxs[j] : nullptr;
    any_dx = any_dx || grads.p[j];
  }
  if (any_dx) {
    weighted_sum_backward_dx_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
        grads, dout, alpha, k, n);
    TPC_CUDA_LAUNCH_CHECK();
  }
  if (!dalpha)
    return;
  PointerList<const T *> list{};
  for (int j = 0; j < k; ++j)
    list.p[j] = xs[j];
  // A few blocks per SM for each summand: enough to stream dout and xs at
  // full bandwidth, few enough that one block reduces the partials.
  unsigned blocks =
      std::min(grid_for(n), unsigned(std::max(l.sm_count, 1)) * 4u);
  auto *partial =
      static_cast<float *>(l.scratch->get(size_t(k) * blocks * sizeof(float)));
  weighted_sum_dalpha_partial_kernel<<<dim3(blocks, unsigned(k)), kThreads, 0,
                                       l.stream>>>(partial, dout, list, n);
  TPC_CUDA_LAUNCH_CHECK();
  weighted_sum_dalpha_reduce_kernel<<<unsigned(k), kThreads, 0, l.stream>>>(
      dalpha, partial, int(blocks));
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void dropout_forward(const Launch &l, T *out, const T *inp, size_t n,
                     const DropoutParams &d, const GlobalIndexMap &map) {
  check_dropout(d);
  if (n == 0)
    return;
  const float scale = 1.0f / (1.0f - d.p);
  const uint64_t stream = dropout_stream(d.key, d.step);
  dropout_forward_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
      out, inp, n, d, map, stream, scale);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void accumulate(const Launch &l, void *grad, ElementType grad_type, const T *x,
                size_t n) {
  constexpr ElementType self = element_type_of<T>();
  if (grad_type != ElementType::F32 && grad_type != self)
    throw std::invalid_argument(std::string("accumulate: a gradient of ") +
                                element_type_name(grad_type) +
                                " does not take " + element_type_name(self) +
                                " values; use f32 or " +
                                element_type_name(self) + " gradients");
  if (n == 0)
    return;
  if (grad_type == ElementType::F32)
    accumulate_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
        static_cast<float *>(grad), x, n);
  else
    accumulate_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(
        static_cast<T *>(grad), x, n);
  TPC_CUDA_LAUNCH_CHECK();
}

#define TPC_INSTANTIATE_ELEMENTWISE(T)                                         \
  template void fill<T>(const Launch &, T *, float, size_t);                   \
  template void cast<T>(const Launch &, void *, ElementType, const T *,        \
                        size_t);                                               \
  template void residual_forward<T>(const Launch &, T *, const T *, const T *, \
                                    size_t);                                   \
  template void scale_forward<T>(const Launch &, T *, const T *, float,        \
                                 size_t);                                      \
  template void gelu_forward<T>(const Launch &, T *, const T *, size_t);       \
  template void gelu_backward<T>(const Launch &, T *, const T *, const T *,    \
                                 size_t);                                      \
  template void gelu_exact_forward<T>(const Launch &, T *, const T *, size_t); \
  template void gelu_exact_backward<T>(const Launch &, T *, const T *,         \
                                       const T *, size_t);                     \
  template void tanh_forward<T>(const Launch &, T *, const T *, size_t);       \
  template void tanh_backward<T>(const Launch &, T *, const T *, const T *,    \
                                 size_t, bool);                                \
  template void swiglu_forward<T>(const Launch &, T *, const T *, const T *,   \
                                  size_t);                                     \
  template void swiglu_backward<T>(const Launch &, T *, T *, const T *,        \
                                   const T *, const T *, size_t);              \
  template void weighted_sum_forward<T>(const Launch &, T *, const T *const *, \
                                        const T *, int, size_t);               \
  template void weighted_sum_backward<T>(const Launch &, T *const *, T *,      \
                                         const T *, const T *const *,          \
                                         const T *, int, size_t);              \
  template void dropout_forward<T>(const Launch &, T *, const T *, size_t,     \
                                   const DropoutParams &,                      \
                                   const GlobalIndexMap &);                    \
  template void accumulate<T>(const Launch &, void *, ElementType, const T *,  \
                              size_t);

TPC_INSTANTIATE_ELEMENTWISE(float)
TPC_INSTANTIATE_ELEMENTWISE(__nv_bfloat16)
TPC_INSTANTIATE_ELEMENTWISE(__half)

#undef TPC_INSTANTIATE_ELEMENTWISE

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

template <class T>
void CudaKernels<T>::fill(void *out, float value, size_t n) const {
  cuda::fill<T>(l_, t(out), value, n);
}

template <class T>
void CudaKernels<T>::cast(void *out, ElementType to, const void *inp,
                          size_t n) const {
  cuda::cast<T>(l_, out, to, t(inp), n);
}

template <class T>
void CudaKernels<T>::residual_forward(void *out, const void *a, const void *b,
                                      size_t n) const {
  cuda::residual_forward<T>(l_, t(out), t(a), t(b), n);
}

template <class T>
void CudaKernels<T>::scale_forward(void *out, const void *inp, float s,
                                   size_t n) const {
  cuda::scale_forward<T>(l_, t(out), t(inp), s, n);
}

template <class T>
void CudaKernels<T>::gelu_forward(void *out, const void *inp, size_t n) const {
  cuda::gelu_forward<T>(l_, t(out), t(inp), n);
}

template <class T>
void CudaKernels<T>::gelu_backward(void *dinp, const void *inp,
                                   const void *dout, size_t n,
                                   bool accumulate) const {
  // A written result starts from zeros on the stream, then accumulates.
  if (!accumulate && dinp)
    cudaCheck(cudaMemsetAsync(dinp, 0, n * sizeof(T), l_.stream));
  cuda::gelu_backward<T>(l_, t(dinp), t(inp), t(dout), n);
}

template <class T>
void CudaKernels<T>::gelu_exact_forward(void *out, const void *inp,
                                        size_t n) const {
  cuda::gelu_exact_forward<T>(l_, t(out), t(inp), n);
}

template <class T>
void CudaKernels<T>::gelu_exact_backward(void *dinp, const void *inp,
                                         const void *dout, size_t n,
                                         bool accumulate) const {
  if (!accumulate && dinp)
    cudaCheck(cudaMemsetAsync(dinp, 0, n * sizeof(T), l_.stream));
  cuda::gelu_exact_backward<T>(l_, t(dinp), t(inp), t(dout), n);
}

template <class T>
void CudaKernels<T>::tanh_forward(void *out, const void *inp, size_t n) const {
  cuda::tanh_forward<T>(l_, t(out), t(inp), n);
}

template <class T>
void CudaKernels<T>::tanh_backward(void *dinp, const void *out,
                                   const void *dout, size_t n,
                                   bool accumulate) const {
  cuda::tanh_backward<T>(l_, t(dinp), t(out), t(dout), n, accumulate);
}

template <class T>
void CudaKernels<T>::swiglu_forward(void *out, const void *gate, const void *up,
                                    size_t n) const {
  cuda::swiglu_forward<T>(l_, t(out), t(gate), t(up), n);
}

template <class T>
void CudaKernels<T>::swiglu_backward(void *dgate, void *dup, const void *dout,
                                     const void *gate, const void *up,
                                     size_t n) const {
  cuda::swiglu_backward<T>(l_, t(dgate), t(dup), t(dout), t(gate), t(up), n);
}

template <class T>
void CudaKernels<T>::weighted_sum_forward(void *out, const void *const *xs,
                                          const void *alpha, int k,
                                          size_t n) const {
  cuda::weighted_sum_forward<T>(
      l_, t(out), reinterpret_cast<const T *const *>(xs), t(alpha), k, n);
}

template <class T>
void CudaKernels<T>::weighted_sum_backward(void *const *dxs, void *dalpha,
                                           const void *dout,
                                           const void *const *xs,
                                           const void *alpha, int k,
                                           size_t n) const {
  cuda::weighted_sum_backward<T>(
      l_, reinterpret_cast<T *const *>(dxs), t(dalpha), t(dout),
      reinterpret_cast<const T *const *>(xs), t(alpha), k, n);
}

template <class T>
void CudaKernels<T>::dropout_forward(void *out, const void *inp, size_t n,
                                     const DropoutParams &d,
                                     const GlobalIndexMap &map) const {
  cuda::dropout_forward<T>(l_, t(out), t(inp), n, d, map);
}

template <class T>
void CudaKernels<T>::accumulate(void *grad, ElementType grad_type,
                                const void *x, size_t n) const {
  cuda::accumulate<T>(l_, grad, grad_type, t(x), n);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::fill(void *, float, size_t) const;             \
  template void CudaKernels<T>::cast(void *, ElementType, const void *,        \
                                     size_t) const;                            \
  template void CudaKernels<T>::residual_forward(void *, const void *,         \
                                                 const void *, size_t) const;  \
  template void CudaKernels<T>::scale_forward(void *, const void *, float,     \
                                              size_t) const;                   \
  template void CudaKernels<T>::gelu_forward(void *, const void *, size_t)     \
      const;                                                                   \
  template void CudaKernels<T>::gelu_backward(                                 \
      void *, const void *, const void *, size_t, bool) const;                 \
  template void CudaKernels<T>::gelu_exact_forward(void *, const void *,       \
                                                   size_t) const;              \
  template void CudaKernels<T>::gelu_exact_backward(                           \
      void *, const void *, const void *, size_t, bool) const;                 \
  template void CudaKernels<T>::tanh_forward(void *, const void *, size_t)     \
      const;                                                                   \
  template void CudaKernels<T>::tanh_backward(                                 \
      void *, const void *, const void *, size_t, bool) const;                 \
  template void CudaKernels<T>::swiglu_forward(void *, const void *,           \
                                               const void *, size_t) const;    \
  template void CudaKernels<T>::swiglu_backward(                               \
      void *, void *, const void *, const void *, const void *, size_t) const; \
  template void CudaKernels<T>::weighted_sum_forward(                          \
      void *, const void *const *, const void *, int, size_t) const;           \
  template void CudaKernels<T>::weighted_sum_backward(                         \
      void *const *, void *, const void *, const void *const *, const void *,  \
      int, size_t) const;                                                      \
  template void CudaKernels<T>::dropout_forward(void *, const void *, size_t,  \
                                                const DropoutParams &,         \
                                                const GlobalIndexMap &) const; \
  template void CudaKernels<T>::accumulate(void *, ElementType, const void *,  \
                                           size_t) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
