//===- Loss.cu - Plain and vocab-parallel cross-entropy --------*- CUDA -*-===//
//
// The loss kernels of the CUDA backend, mirroring the CPU loops
// (runtime/backends/cpu/kernels/Loss.cpp): the plain cross-entropy over
// rows of padded logits, the three phases of Megatron's vocab-parallel
// cross-entropy, its backward, and the copy of the totals into a loss
// entry's outputs.
//
// A row of logits (~50k columns) is one block: a single pass keeps each
// thread's running max and sum of exponentials, and block reductions merge
// them. As on the CPU, the row max and the exponentials are fp32 while the
// sum of exponentials is accumulated in double and rounded once, and the
// loss sum over rows is a double rounded once into totals; both sums are
// reduced in a fixed order, so results do not depend on scheduling.
// Padding columns (V..Vp, or beyond the true V on a vocab-parallel rank)
// never enter the softmax and get a zero gradient; ignored rows have no
// loss, no count and a zero gradient.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"

#include <stdexcept>
#include <string>

namespace tpc::cuda {
namespace {

/// Threads of a block that owns a row of logits.
constexpr int kRowThreads = 512;
/// Loads a thread issues before using them, for memory-level parallelism.
constexpr int kUnroll = 4;
/// Threads of the single block that sums per-row losses.
constexpr int kTotalThreads = 512;

__device__ __forceinline__ float quiet_nan() {
  return __int_as_float(0x7fc00000);
}

/// Folds x into a running max m and sum s of e^(x - m). A -inf column adds
/// nothing (e^-inf), even before any finite one; a NaN makes s NaN, as on
/// the CPU. Rescales (rare) use double so that they add no fp32 error.
__device__ __forceinline__ void online_add(float x, float &m, double &s) {
  if (x > m) {
    s = s * exp(double(m) - double(x)) + 1.0;
    m = x;
  } else if (x != -INFINITY) {
    s += double(expf(x - m));
  }
}

struct RowStats {
  float max;
  float sumexp; // sum of e^(x - max), accumulated in double, rounded once
};

/// The max and sum of exponentials of row[0, cols), for every thread of the
/// block. All threads of the block must call it.
template <class T>
__device__ RowStats row_stats(const T *row, int cols, float *sf, double *sd) {
  const int stride = int(blockDim.x);
  float m = -INFINITY;
  double s = 0.0;
  for (int base = int(threadIdx.x); base < cols; base += kUnroll * stride) {
    float x[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      int i = base + k * stride;
      x[k] = i < cols ? to_float(row[i]) : -INFINITY;
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      online_add(x[k], m, s);
  }
  float M = block_max(m, sf);
  // A thread that saw no finite column has s = 0 whatever M is; otherwise
  // its sum moves to the block's max. m = M = +inf gives NaN, as the CPU's
  // e^(inf - inf) does.
  double part = m == -INFINITY ? 0.0 : s * exp(double(m) - double(M));
  double S = block_sum(part, sd);
  return {M, float(S)};
}

/// d[0, cols) of one row: softmax * scale over the valid columns [0, valid)
/// given the row's max and 1 / sumexp, minus scale at column `target` (none
/// when -1), 0 on padding. Each thread reads row[i] before it writes d[i],
/// so d may be row itself.
template <class T>
__device__ void softmax_grad_row(T *d, const T *row, int valid, int cols,
                                 float max, float inv, float scale,
                                 int target) {
  for (int i = int(threadIdx.x); i < cols; i += int(blockDim.x)) {
    float g = 0.0f;
    if (i < valid) {
      g = expf(to_float(row[i]) - max) * inv * scale;
      if (i == target)
        g -= scale;
    }
    d[i] = from_float<T>(g);
  }
}

template <class T> __device__ void zero_row(T *d, int cols) {
  const T zero = from_float<T>(0.0f);
  for (int i = int(threadIdx.x); i < cols; i += int(blockDim.x))
    d[i] = zero;
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// logits is (N,Vp), targets (N); rowloss (N). One block per row. A target
// outside [0,V) that is not ignore_index (the CPU throws) gives a NaN loss.
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    ce_forward_kernel(float *rowloss, const T *logits, const int *targets,
                      int V, int Vp, int ignore_index) {
  __shared__ float sf[kWarp];
  __shared__ double sd[kWarp];
  const size_t n = blockIdx.x;
  const int t = targets[n];
  if (t == ignore_index) {
    if (threadIdx.x == 0)
      rowloss[n] = 0.0f;
    return;
  }
  const T *row = logits + n * size_t(Vp);
  RowStats st = row_stats(row, V, sf, sd);
  if (threadIdx.x == 0)
    rowloss[n] = t >= 0 && t < V ? logf(st.sumexp) + st.max - to_float(row[t])
                                 : quiet_nan();
}

// rowloss, targets are (N); one block. totals += {sum of the losses in
// double, count of targets}, each rounded once to fp32 as on the CPU.
__global__ void __launch_bounds__(kTotalThreads)
    ce_totals_kernel(float *totals, const float *rowloss, const int *targets,
                     int N, int ignore_index) {
  __shared__ double sd[kWarp];
  double sum = 0.0, count = 0.0;
  for (int n = int(threadIdx.x); n < N; n += int(blockDim.x)) {
    if (targets[n] != ignore_index) {
      sum += double(rowloss[n]);
      count += 1.0;
    }
  }
  sum = block_sum(sum, sd);
  count = block_sum(count, sd);
  if (threadIdx.x == 0) {
    totals[0] += float(sum);
    totals[1] += float(count);
  }
}

// logits, dlogits are (N,Vp) (dlogits may be logits), targets (N). One
// block per row; writes every column.
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    ce_backward_kernel(T *dlogits, const T *logits, const int *targets, int V,
                       int Vp, const float *dloss, int ignore_index) {
  __shared__ float sf[kWarp];
  __shared__ double sd[kWarp];
  const size_t n = blockIdx.x;
  const int t = targets[n];
  T *d = dlogits + n * size_t(Vp);
  if (t == ignore_index) {
    zero_row(d, Vp);
    return;
  }
  const T *row = logits + n * size_t(Vp);
  RowStats st = row_stats(row, V, sf, sd);
  const float scale = *dloss;
  const float inv = 1.0f / st.sumexp;
  softmax_grad_row(d, row, V, Vp, st.max, inv, scale, t >= 0 && t < V ? t : -1);
}

// logits is (N,Vl), row_max (N): the max of each row's first `valid`
// columns (-inf when there are none).
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    vp_max_kernel(float *row_max, const T *logits, int Vl, int valid) {
  __shared__ float sf[kWarp];
  const size_t n = blockIdx.x;
  const T *row = logits + n * size_t(Vl);
  const int stride = int(blockDim.x);
  float m = -INFINITY;
  for (int base = int(threadIdx.x); base < valid; base += kUnroll * stride) {
    float x[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      int i = base + k * stride;
      x[k] = i < valid ? to_float(row[i]) : -INFINITY;
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      m = fmaxf(m, x[k]);
  }
  m = block_max(m, sf);
  if (threadIdx.x == 0)
    row_max[n] = m;
}

// logits is (N,Vl); targets, row_max (the global max), sumexp and
// target_logit are (N). sumexp: the sum of e^(x - max) over this rank's
// valid columns, in double; target_logit: the target's logit when this
// rank holds it, else 0 (NaN for a target outside [0,V) that is not
// ignore_index, where the CPU throws).
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    vp_sumexp_kernel(float *sumexp, float *target_logit, const T *logits,
                     const int *targets, const float *row_max, int Vl,
                     int vstart, int V, int valid, int ignore_index) {
  __shared__ double sd[kWarp];
  const size_t n = blockIdx.x;
  const T *row = logits + n * size_t(Vl);
  const float m = row_max[n];
  const int stride = int(blockDim.x);
  double s = 0.0;
  for (int base = int(threadIdx.x); base < valid; base += kUnroll * stride) {
    float x[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      int i = base + k * stride;
      x[k] = i < valid ? to_float(row[i]) : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * stride < valid)
        s += double(expf(x[k] - m));
  }
  s = block_sum(s, sd);
  if (threadIdx.x == 0) {
    sumexp[n] = float(s);
    const int t = targets[n];
    float tl = 0.0f;
    if (t != ignore_index) {
      const int local = t - vstart;
      if (t < 0 || t >= V)
        tl = quiet_nan();
      else if (local >= 0 && local < valid)
        tl = to_float(row[local]);
    }
    target_logit[n] = tl;
  }
}

// sumexp, target_logit, row_max, targets, losses (may be null) are (N);
// one block. losses gets each row's loss (0 when ignored), totals += {loss
// sum in double, count}, each rounded once.
__global__ void __launch_bounds__(kTotalThreads)
    vp_loss_kernel(float *losses, float *totals, const float *sumexp,
                   const float *target_logit, const float *row_max,
                   const int *targets, int N, int ignore_index) {
  __shared__ double sd[kWarp];
  double sum = 0.0, count = 0.0;
  for (int n = int(threadIdx.x); n < N; n += int(blockDim.x)) {
    float loss = 0.0f;
    if (targets[n] != ignore_index) {
      loss = logf(sumexp[n]) + row_max[n] - target_logit[n];
      sum += double(loss);
      count += 1.0;
    }
    if (losses)
      losses[n] = loss;
  }
  sum = block_sum(sum, sd);
  count = block_sum(count, sd);
  if (threadIdx.x == 0) {
    totals[0] += float(sum);
    totals[1] += float(count);
  }
}

// logits, dlogits are (N,Vl) (dlogits may be logits); targets, row_max,
// sumexp (N) are the globally reduced statistics. One block per row.
template <class T>
__global__ void __launch_bounds__(kRowThreads)
    vp_backward_kernel(T *dlogits, const T *logits, const int *targets,
                       const float *row_max, const float *sumexp, int Vl,
                       int vstart, int valid, const float *dloss,
                       int ignore_index) {
  const size_t n = blockIdx.x;
  const int t = targets[n];
  T *d = dlogits + n * size_t(Vl);
  if (t == ignore_index) {
    zero_row(d, Vl);
    return;
  }
  const T *row = logits + n * size_t(Vl);
  const float scale = *dloss;
  const float inv = 1.0f / sumexp[n];
  const int local = t - vstart;
  softmax_grad_row(d, row, valid, Vl, row_max[n], inv, scale,
                   local >= 0 && local < valid ? local : -1);
}

// totals is float[2]; loss, count are scalars.
__global__ void loss_outputs_kernel(float *loss, int32_t *count,
                                    const float *totals) {
  *loss = totals[0];
  *count = int32_t(lroundf(totals[1]));
}

/// Columns [0, valid) of a row of this rank's logits are real vocabulary.
int valid_columns(int Vl, int vstart, int V) {
  int valid = V - vstart;
  return valid < 0 ? 0 : (valid > Vl ? Vl : valid);
}

void check_padding(const char *op, int V, int Vp) {
  if (V > Vp)
    throw std::invalid_argument(std::string(op) + ": vocab_size " +
                                std::to_string(V) + " exceeds the " +
                                std::to_string(Vp) + " logit columns");
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

template <class T>
void crossentropy_forward(const Launch &l, float *losses, float *totals,
                          const T *logits, const int *targets, int N, int V,
                          int Vp, int ignore_index) {
  check_padding("crossentropy_forward", V, Vp);
  if (N <= 0)
    return;
  // Per-row losses feed a deterministic sum; scratch stands in for them
  // when the caller does not want them.
  float *rowloss =
      losses ? losses
             : static_cast<float *>(l.scratch->get(size_t(N) * sizeof(float)));
  ce_forward_kernel<T><<<unsigned(N), kRowThreads, 0, l.stream>>>(
      rowloss, logits, targets, V, Vp, ignore_index);
  TPC_CUDA_LAUNCH_CHECK();
  ce_totals_kernel<<<1, kTotalThreads, 0, l.stream>>>(totals, rowloss, targets,
                                                      N, ignore_index);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void crossentropy_backward(const Launch &l, T *dlogits, const T *logits,
                           const int *targets, int N, int V, int Vp,
                           const float *dloss, int ignore_index) {
  check_padding("crossentropy_backward", V, Vp);
  if (N <= 0 || Vp <= 0)
    return;
  ce_backward_kernel<T><<<unsigned(N), kRowThreads, 0, l.stream>>>(
      dlogits, logits, targets, V, Vp, dloss, ignore_index);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void vocab_parallel_ce_max(const Launch &l, float *row_max, const T *logits,
                           int N, int Vl, int vstart, int V) {
  if (N <= 0)
    return;
  vp_max_kernel<T><<<unsigned(N), kRowThreads, 0, l.stream>>>(
      row_max, logits, Vl, valid_columns(Vl, vstart, V));
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void vocab_parallel_ce_sumexp(const Launch &l, float *sumexp,
                              float *target_logit, const T *logits,
                              const int *targets, const float *row_max, int N,
                              int Vl, int vstart, int V, int ignore_index) {
  if (N <= 0)
    return;
  vp_sumexp_kernel<T><<<unsigned(N), kRowThreads, 0, l.stream>>>(
      sumexp, target_logit, logits, targets, row_max, Vl, vstart, V,
      valid_columns(Vl, vstart, V), ignore_index);
  TPC_CUDA_LAUNCH_CHECK();
}

void vocab_parallel_ce_loss(const Launch &l, float *losses, float *totals,
                            const float *sumexp, const float *target_logit,
                            const float *row_max, const int *targets, int N,
                            int ignore_index) {
  if (N <= 0)
    return;
  vp_loss_kernel<<<1, kTotalThreads, 0, l.stream>>>(
      losses, totals, sumexp, target_logit, row_max, targets, N, ignore_index);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void vocab_parallel_ce_backward(const Launch &l, T *dlogits, const T *logits,
                                const int *targets, const float *row_max,
                                const float *sumexp, int N, int Vl, int vstart,
                                int V, const float *dloss, int ignore_index) {
  if (N <= 0 || Vl <= 0)
    return;
  vp_backward_kernel<T><<<unsigned(N), kRowThreads, 0, l.stream>>>(
      dlogits, logits, targets, row_max, sumexp, Vl, vstart,
      valid_columns(Vl, vstart, V), dloss, ignore_index);
  TPC_CUDA_LAUNCH_CHECK();
}

void loss_outputs(const Launch &l, float *loss, int32_t *count,
                  const float *totals) {
  loss_outputs_kernel<<<1, 1, 0, l.stream>>>(loss, count, totals);
  TPC_CUDA_LAUNCH_CHECK();
}

#define TPC_INSTANTIATE_LOSS(T)                                                \
  template void crossentropy_forward<T>(const Launch &, float *, float *,      \
                                        const T *, const int *, int, int, int, \
                                        int);                                  \
  template void crossentropy_backward<T>(const Launch &, T *, const T *,       \
                                         const int *, int, int, int,           \
                                         const float *, int);                  \
  template void vocab_parallel_ce_max<T>(const Launch &, float *, const T *,   \
                                         int, int, int, int);                  \
  template void vocab_parallel_ce_sumexp<T>(                                   \
      const Launch &, float *, float *, const T *, const int *, const float *, \
      int, int, int, int, int);                                                \
  template void vocab_parallel_ce_backward<T>(                                 \
      const Launch &, T *, const T *, const int *, const float *,              \
      const float *, int, int, int, int, const float *, int);

TPC_INSTANTIATE_LOSS(float)
TPC_INSTANTIATE_LOSS(__nv_bfloat16)
TPC_INSTANTIATE_LOSS(__half)

#undef TPC_INSTANTIATE_LOSS

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

// The backward kernel recomputes the rows' statistics: `stats` stays
// unused.
template <class T>
void CudaKernels<T>::crossentropy_forward(float *losses, float *totals,
                                          const void *logits,
                                          const int *targets, int N, int V,
                                          int Vp, int ignore_index,
                                          float *) const {
  cuda::crossentropy_forward<T>(l_, losses, totals, t(logits), targets, N, V,
                                Vp, ignore_index);
}

template <class T>
void CudaKernels<T>::crossentropy_backward(void *dlogits, const void *logits,
                                           const int *targets, int N, int V,
                                           int Vp, const float *dloss,
                                           int ignore_index,
                                           const float *) const {
  cuda::crossentropy_backward<T>(l_, t(dlogits), t(logits), targets, N, V, Vp,
                                 dloss, ignore_index);
}

template <class T>
void CudaKernels<T>::vocab_parallel_ce_max(float *row_max, const void *logits,
                                           int N, int Vl, int vstart,
                                           int V) const {
  cuda::vocab_parallel_ce_max<T>(l_, row_max, t(logits), N, Vl, vstart, V);
}

template <class T>
void CudaKernels<T>::vocab_parallel_ce_sumexp(
    float *sumexp, float *target_logit, const void *logits, const int *targets,
    const float *row_max, int N, int Vl, int vstart, int V,
    int ignore_index) const {
  cuda::vocab_parallel_ce_sumexp<T>(l_, sumexp, target_logit, t(logits),
                                    targets, row_max, N, Vl, vstart, V,
                                    ignore_index);
}

template <class T>
void CudaKernels<T>::vocab_parallel_ce_loss(float *losses, float *totals,
                                            const float *sumexp,
                                            const float *target_logit,
                                            const float *row_max,
                                            const int *targets, int N,
                                            int ignore_index) const {
  cuda::vocab_parallel_ce_loss(l_, losses, totals, sumexp, target_logit,
                               row_max, targets, N, ignore_index);
}

template <class T>
void CudaKernels<T>::vocab_parallel_ce_backward(
    void *dlogits, const void *logits, const int *targets, const float *row_max,
    const float *sumexp, int N, int Vl, int vstart, int V, const float *dloss,
    int ignore_index) const {
  cuda::vocab_parallel_ce_backward<T>(l_, t(dlogits), t(logits), targets,
                                      row_max, sumexp, N, Vl, vstart, V, dloss,
                                      ignore_index);
}

template <class T>
void CudaKernels<T>::loss_outputs(float *loss, int32_t *count,
                                  const float *totals) const {
  cuda::loss_outputs(l_, loss, count, totals);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::crossentropy_forward(                          \
      float *, float *, const void *, const int *, int, int, int, int,         \
      float *) const;                                                          \
  template void CudaKernels<T>::crossentropy_backward(                         \
      void *, const void *, const int *, int, int, int, const float *, int,    \
      const float *) const;                                                    \
  template void CudaKernels<T>::vocab_parallel_ce_max(                         \
      float *, const void *, int, int, int, int) const;                        \
  template void CudaKernels<T>::vocab_parallel_ce_sumexp(                      \
      float *, float *, const void *, const int *, const float *, int, int,    \
      int, int, int) const;                                                    \
  template void CudaKernels<T>::vocab_parallel_ce_loss(                        \
      float *, float *, const float *, const float *, const float *,           \
      const int *, int, int) const;                                            \
  template void CudaKernels<T>::vocab_parallel_ce_backward(                    \
      void *, const void *, const int *, const float *, const float *, int,    \
      int, int, int, const float *, int) const;                                \
  template void CudaKernels<T>::loss_outputs(float *, int32_t *,               \
                                             const float *) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
