//===- Norm.cu - Layer norm and RMSNorm ------------------------*- CUDA -*-===//
//
// Layer norm (the caller's eps, biased variance, two passes for the
// statistics) and RMSNorm (the caller's eps), forward and backward, as
// runtime/backends/cpu/kernels/LayerNorm.cpp defines them. Each row of C
// channels belongs to one warp: the lanes stride the channels and combine
// their fp32 sums with shuffles, so no shared memory or block barrier is
// involved and C is only limited by time. The forward saves the fp32
// statistics the backward reads.
//
// The gain and bias gradients sum over rows. Blocks sum chunks of rows for a
// tile of columns into fp32 partials in the scratch buffer; a second kernel
// adds the partials of each column, in chunk order, to the gradient with one
// rounding. No atomics, so the result is the same on every run.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"

#include <algorithm>
#include <cstdint>

namespace tpc::cuda {
namespace {

constexpr int kRowsPerBlock = kThreads / kWarp;

/// Blocks for one warp per row.
unsigned warp_row_blocks(int N) {
  return unsigned((int64_t(N) + kRowsPerBlock - 1) / kRowsPerBlock);
}

/// The row this warp owns (may be >= N).
__device__ __forceinline__ int64_t warp_row() {
  return int64_t(blockIdx.x) * (blockDim.x / kWarp) + threadIdx.x / kWarp;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// out, inp are (N,C); mean, rstd are (N); weight, bias are (C). One warp per
// row. out may alias inp: each lane reads its channel before writing it.
template <class T>
__global__ void layernorm_forward_kernel(T *out, float *mean, float *rstd,
                                         const T *inp, const T *weight,
                                         const T *bias, int N, int C,
                                         float eps) {
  const int64_t row = warp_row();
  if (row >= N)
    return;
  const int lane = threadIdx.x % kWarp;
  const T *x = inp + size_t(row) * C;
  T *o = out + size_t(row) * C;

  float sum = 0.0f;
  for (int c = lane; c < C; c += kWarp)
    sum += to_float(x[c]);
  const float m = warp_sum(sum) / C;
  // Two passes: E[x^2] - E[x]^2 cancels when the mean is large against the
  // spread.
  float sq = 0.0f;
  for (int c = lane; c < C; c += kWarp) {
    float d = to_float(x[c]) - m;
    sq += d * d;
  }
  const float var = warp_sum(sq) / C;
  const float s = 1.0f / sqrtf(var + eps);

  for (int c = lane; c < C; c += kWarp)
    o[c] = from_float<T>((to_float(x[c]) - m) * s * to_float(weight[c]) +
                         to_float(bias[c]));
  if (lane == 0) {
    if (mean)
      mean[row] = m;
    if (rstd)
      rstd[row] = s;
  }
}

// dinp, dout, inp are (N,C); weight is (C); mean, rstd are (N). One warp per
// row; dinp accumulates.
template <class T>
__global__ void
layernorm_backward_dinp_kernel(T *dinp, const T *dout, const T *inp,
                               const T *weight, const float *mean,
                               const float *rstd, int N, int C) {
  const int64_t row = warp_row();
  if (row >= N)
    return;
  const int lane = threadIdx.x % kWarp;
  const size_t off = size_t(row) * C;
  const T *x = inp + off, *g = dout + off;
  T *dx = dinp + off;
  const float m = mean[row], s = rstd[row];

  float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
  for (int c = lane; c < C; c += kWarp) {
    float dnorm = to_float(g[c]) * to_float(weight[c]);
    dnorm_mean += dnorm;
    dnorm_norm_mean += dnorm * (to_float(x[c]) - m) * s;
  }
  dnorm_mean = warp_sum(dnorm_mean) / C;
  dnorm_norm_mean = warp_sum(dnorm_norm_mean) / C;

  for (int c = lane; c < C; c += kWarp) {
    float norm = (to_float(x[c]) - m) * s;
    float dnorm = to_float(g[c]) * to_float(weight[c]);
    float grad = (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
    dx[c] = from_float<T>(to_float(dx[c]) + grad);
  }
}

// out, inp are (N,C); rstd is (N); weight is (C). One warp per row; out may
// alias inp.
template <class T>
__global__ void rmsnorm_forward_kernel(T *out, float *rstd, const T *inp,
                                       const T *weight, int N, int C,
                                       float eps) {
  const int64_t row = warp_row();
  if (row >= N)
    return;
  const int lane = threadIdx.x % kWarp;
  const T *x = inp + size_t(row) * C;
  T *o = out + size_t(row) * C;

  float ss = 0.0f;
  for (int c = lane; c < C; c += kWarp) {
    float v = to_float(x[c]);
    ss += v * v;
  }
  const float s = 1.0f / sqrtf(warp_sum(ss) / C + eps);

  for (int c = lane; c < C; c += kWarp)
    o[c] = from_float<T>(to_float(x[c]) * s * to_float(weight[c]));
  if (lane == 0 && rstd)
    rstd[row] = s;
}

// dinp, dout, inp are (N,C); weight is (C); rstd is (N). One warp per row;
// dinp accumulates. With g = dout * weight and y = x * s:
// dx = s * (g - y * mean(g * y)).
template <class T>
__global__ void rmsnorm_backward_dinp_kernel(T *dinp, const T *dout,
                                             const T *inp, const T *weight,
                                             const float *rstd, int N, int C) {
  const int64_t row = warp_row();
  if (row >= N)
    return;
  const int lane = threadIdx.x % kWarp;
  const size_t off = size_t(row) * C;
  const T *x = inp + off, *g = dout + off;
  T *dx = dinp + off;
  const float s = rstd[row];

  float dnorm_norm_mean = 0.0f;
  for (int c = lane; c < C; c += kWarp)
    dnorm_norm_mean +=
        to_float(g[c]) * to_float(weight[c]) * to_float(x[c]) * s;
  dnorm_norm_mean = warp_sum(dnorm_norm_mean) / C;

  for (int c = lane; c < C; c += kWarp) {
    float norm = to_float(x[c]) * s;
    float dnorm = to_float(g[c]) * to_float(weight[c]);
    float grad = (dnorm - norm * dnorm_norm_mean) * s;
    dx[c] = from_float<T>(to_float(dx[c]) + grad);
  }
}

// dout, inp are (N,C); mean, rstd are (N); pw, pb are (chunks,C) fp32.
// Grid (chunks, column tiles): block (k, t) sums rows [k*rows, (k+1)*rows)
// of column t*blockDim.x + threadIdx.x:
//   pw[k][c] = sum dout * (inp - mean) * rstd   (mean null: 0, RMSNorm)
//   pb[k][c] = sum dout
// pw or pb null: not wanted.
template <class T>
__global__ void norm_param_partial_kernel(float *pw, float *pb, const T *dout,
                                          const T *inp, const float *mean,
                                          const float *rstd, int N, int C,
                                          int rows) {
  const int c = int(blockIdx.y) * int(blockDim.x) + int(threadIdx.x);
  if (c >= C)
    return;
  const int64_t n0 = int64_t(blockIdx.x) * rows;
  const int64_t n1 = n0 + rows < N ? n0 + rows : N;
  float sw = 0.0f, sb = 0.0f;
  for (int64_t n = n0; n < n1; ++n) {
    size_t i = size_t(n) * C + c;
    float g = to_float(dout[i]);
    if (pw) {
      float m = mean ? mean[n] : 0.0f;
      sw += g * (to_float(inp[i]) - m) * rstd[n];
    }
    sb += g;
  }
  const size_t o = size_t(blockIdx.x) * C + c;
  if (pw)
    pw[o] = sw;
  if (pb)
    pb[o] = sb;
}

// pw, pb are (chunks,C) fp32; dweight, dbias are (C): each += the sum of its
// column of partials, rounded once. Null ones are skipped.
template <class T>
__global__ void norm_param_reduce_kernel(T *dweight, T *dbias, const float *pw,
                                         const float *pb, int chunks, int C) {
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < C;
       c += int64_t(gridDim.x) * blockDim.x) {
    if (dweight) {
      float s = 0.0f;
      for (int k = 0; k < chunks; ++k)
        s += pw[size_t(k) * C + c];
      dweight[c] = from_float<T>(to_float(dweight[c]) + s);
    }
    if (dbias) {
      float s = 0.0f;
      for (int k = 0; k < chunks; ++k)
        s += pb[size_t(k) * C + c];
      dbias[c] = from_float<T>(to_float(dbias[c]) + s);
    }
  }
}

/// dweight (and dbias, when layer norm has one) += their column sums over
/// the N rows, via fp32 partials in scratch. mean null: RMSNorm.
template <class T>
void norm_param_backward(const Launch &l, T *dweight, T *dbias, const T *dout,
                         const T *inp, const float *mean, const float *rstd,
                         int N, int C) {
  if (!dweight && !dbias)
    return;
  // Enough blocks to fill the device a few times over, each over a chunk of
  // at least one row; the partials cost chunks * C floats each.
  const int tiles = (C + kThreads - 1) / kThreads;
  const int64_t want =
      std::max<int64_t>(1, int64_t(4) * std::max(l.sm_count, 1) / tiles);
  int64_t chunks = std::min<int64_t>(N, want);
  const int64_t rows = (int64_t(N) + chunks - 1) / chunks;
  chunks = (int64_t(N) + rows - 1) / rows;

  const size_t per = size_t(chunks) * size_t(C);
  const size_t parts = size_t(dweight != nullptr) + size_t(dbias != nullptr);
  auto *scratch =
      static_cast<float *>(l.scratch->get(parts * per * sizeof(float)));
  float *pw = dweight ? scratch : nullptr;
  float *pb = dbias ? scratch + (dweight ? per : 0) : nullptr;

  norm_param_partial_kernel<<<dim3(unsigned(chunks), unsigned(tiles)), kThreads,
                              0, l.stream>>>(pw, pb, dout, inp, mean, rstd, N,
                                             C, int(rows));
  TPC_CUDA_LAUNCH_CHECK();
  norm_param_reduce_kernel<<<grid_for(size_t(C)), kThreads, 0, l.stream>>>(
      dweight, dbias, pw, pb, int(chunks), C);
  TPC_CUDA_LAUNCH_CHECK();
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

template <class T>
void layernorm_forward(const Launch &l, T *out, float *mean, float *rstd,
                       const T *inp, const T *weight, const T *bias, int N,
                       int C, float eps) {
  if (N <= 0 || C <= 0)
    return;
  layernorm_forward_kernel<<<warp_row_blocks(N), kThreads, 0, l.stream>>>(
      out, mean, rstd, inp, weight, bias, N, C, eps);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void layernorm_backward(const Launch &l, T *dinp, T *dweight, T *dbias,
                        const T *dout, const T *inp, const T *weight,
                        const float *mean, const float *rstd, int N, int C) {
  if (N <= 0 || C <= 0)
    return;
  norm_param_backward(l, dweight, dbias, dout, inp, mean, rstd, N, C);
  if (!dinp)
    return;
  layernorm_backward_dinp_kernel<<<warp_row_blocks(N), kThreads, 0, l.stream>>>(
      dinp, dout, inp, weight, mean, rstd, N, C);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void rmsnorm_forward(const Launch &l, T *out, float *rstd, const T *inp,
                     const T *weight, int N, int C, float eps) {
  if (N <= 0 || C <= 0)
    return;
  rmsnorm_forward_kernel<<<warp_row_blocks(N), kThreads, 0, l.stream>>>(
      out, rstd, inp, weight, N, C, eps);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void rmsnorm_backward(const Launch &l, T *dinp, T *dweight, const T *dout,
                      const T *inp, const T *weight, const float *rstd, int N,
                      int C) {
  if (N <= 0 || C <= 0)
    return;
  norm_param_backward<T>(l, dweight, nullptr, dout, inp, nullptr, rstd, N, C);
  if (!dinp)
    return;
  rmsnorm_backward_dinp_kernel<<<warp_row_blocks(N), kThreads, 0, l.stream>>>(
      dinp, dout, inp, weight, rstd, N, C);
  TPC_CUDA_LAUNCH_CHECK();
}

#define TPC_INSTANTIATE_NORM(T)                                                \
  template void layernorm_forward<T>(const Launch &, T *, float *, float *,    \
                                     const T *, const T *, const T *, int,     \
                                     int, float);                              \
  template void layernorm_backward<T>(const Launch &, T *, T *, T *,           \
                                      const T *, const T *, const T *,         \
                                      const float *, const float *, int, int); \
  template void rmsnorm_forward<T>(const Launch &, T *, float *, const T *,    \
                                   const T *, int, int, float);                \
  template void rmsnorm_backward<T>(const Launch &, T *, T *, const T *,       \
                                    const T *, const T *, const float *, int,  \
                                    int);

TPC_INSTANTIATE_NORM(float)
TPC_INSTANTIATE_NORM(__nv_bfloat16)
TPC_INSTANTIATE_NORM(__half)

#undef TPC_INSTANTIATE_NORM

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

template <class T>
void CudaKernels<T>::layernorm_forward(void *out, float *mean, float *rstd,
                                       const void *inp, const void *weight,
                                       const void *bias, int N, int C,
                                       float eps) const {
  cuda::layernorm_forward<T>(l_, t(out), mean, rstd, t(inp), t(weight), t(bias),
                             N, C, eps);
}

template <class T>
void CudaKernels<T>::layernorm_backward(void *dinp, void *dweight, void *dbias,
                                        const void *dout, const void *inp,
                                        const void *weight, const float *mean,
                                        const float *rstd, int N, int C) const {
  cuda::layernorm_backward<T>(l_, t(dinp), t(dweight), t(dbias), t(dout),
                              t(inp), t(weight), mean, rstd, N, C);
}

template <class T>
void CudaKernels<T>::rmsnorm_forward(void *out, float *rstd, const void *inp,
                                     const void *weight, int N, int C,
                                     float eps) const {
  cuda::rmsnorm_forward<T>(l_, t(out), rstd, t(inp), t(weight), N, C, eps);
}

template <class T>
void CudaKernels<T>::rmsnorm_backward(void *dinp, void *dweight,
                                      const void *dout, const void *inp,
                                      const void *weight, const float *rstd,
                                      int N, int C) const {
  cuda::rmsnorm_backward<T>(l_, t(dinp), t(dweight), t(dout), t(inp), t(weight),
                            rstd, N, C);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::layernorm_forward(                             \
      void *, float *, float *, const void *, const void *, const void *, int, \
      int, float) const;                                                       \
  template void CudaKernels<T>::layernorm_backward(                            \
      void *, void *, void *, const void *, const void *, const void *,        \
      const float *, const float *, int, int) const;                           \
  template void CudaKernels<T>::rmsnorm_forward(                               \
      void *, float *, const void *, const void *, int, int, float) const;     \
  template void CudaKernels<T>::rmsnorm_backward(                              \
      void *, void *, const void *, const void *, const void *, const float *, \
      int, int) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
