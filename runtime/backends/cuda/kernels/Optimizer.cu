//===- Optimizer.cu - AdamW, SGD and gradient norms ------------*- CUDA -*-===//
//
// The optimizer kernels of the CUDA backend, mirroring the CPU's
// (runtime/backends/cpu/kernels/Optimizer.cpp and the table in
// CpuBackend.cpp): a shard's sum of squared gradients, the global norm and
// clipping scale from the reduced sum, and the elementwise AdamW and SGD
// updates of the fp32 master weights from gradients of the storage type.
//
// The step's scalars (learning rate, gradient scale, step) are read on the
// device, and an update whose gradient scale is not finite (dynamic loss
// scaling saw an overflow) returns without writing anything. The sum of
// squares is accumulated in double, as on the CPU, over a fixed grid and
// added up in block order, so it is deterministic.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"

#include <algorithm>

namespace tpc::cuda {
namespace {

/// One resident wave of kThreads blocks (at most n's worth): the grid of
/// the reductions, and of AdamW, whose threads each compute the bias
/// corrections once and so should loop over many elements.
unsigned wave_for(const Launch &l, size_t n) {
  const unsigned per_sm = 2048 / kThreads;
  const unsigned wave = unsigned(std::max(l.sm_count, 1)) * per_sm;
  return std::min(grid_for(n), wave);
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// x is (n); partial is (gridDim.x): each block's sum of x^2 in double.
template <class T>
__global__ void __launch_bounds__(kThreads)
    sum_of_squares_kernel(double *partial, const T *x, size_t n) {
  __shared__ double sd[kWarp];
  double acc = 0.0;
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    double xi = to_float(x[i]);
    acc += xi * xi;
  }
  acc = block_sum(acc, sd);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = acc;
}

// partial is (blocks); one block. *out += their sum, rounded once.
__global__ void __launch_bounds__(kThreads)
    sum_of_squares_finish_kernel(float *out, const double *partial,
                                 unsigned blocks) {
  __shared__ double sd[kWarp];
  double acc = 0.0;
  for (unsigned b = threadIdx.x; b < blocks; b += blockDim.x)
    acc += partial[b];
  acc = block_sum(acc, sd);
  if (threadIdx.x == 0)
    *out += float(acc);
}

// Scalars; one thread. The CPU table's formula, in double.
__global__ void grad_norm_kernel(float *norm, float *scale, const float *sum_sq,
                                 const float *inv_count, float max_norm) {
  const double inv = *inv_count;
  const double value = inv * sqrt(double(*sum_sq));
  double coef = 1.0;
  if (max_norm > 0.0f) {
    const double r = double(max_norm) / (value + 1e-6);
    coef = r < 1.0 ? r : 1.0; // std::min(1.0, r)
  }
  *norm = float(value);
  *scale = isfinite(value) ? float(inv * coef) : __int_as_float(0x7fc00000);
}

// param, m, v are (n) fp32, grad (n) of T.
template <class T>
__global__ void __launch_bounds__(kThreads)
    adamw_kernel(float *param, const T *grad, float *m, float *v, size_t n,
                 float beta1, float beta2, float eps, float decay,
                 const float *lr_p, const float *grad_scale_p,
                 const int64_t *step_p) {
  const float scale = *grad_scale_p;
  if (!isfinite(scale))
    return; // a skipped step: nothing is written
  const float lr = *lr_p;
  const double step = double(*step_p);
  const float bc1 = 1.0f - float(pow(double(beta1), step));
  const float bc2 = 1.0f - float(pow(double(beta2), step));
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float g = to_float(grad[i]) * scale;
    float mi = beta1 * m[i] + (1.0f - beta1) * g;
    float vi = beta2 * v[i] + (1.0f - beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    float mhat = mi / bc1, vhat = vi / bc2;
    // Decoupled decay: applied to the weight, not folded into g.
    param[i] -= lr * (mhat / (sqrtf(vhat) + eps) + decay * param[i]);
  }
}

// param, momentum_buf (null without momentum) are (n) fp32, grad (n) of T.
template <class T>
__global__ void __launch_bounds__(kThreads)
    sgd_kernel(float *param, const T *grad, float *momentum_buf, size_t n,
               float momentum, float decay, bool use_momentum,
               const float *lr_p, const float *grad_scale_p) {
  const float scale = *grad_scale_p;
  if (!isfinite(scale))
    return;
  const float lr = *lr_p;
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float g = to_float(grad[i]) * scale + decay * param[i];
    if (use_momentum) {
      g += momentum * momentum_buf[i];
      momentum_buf[i] = g;
    }
    param[i] -= lr * g;
  }
}

/// The working copy rounded from the updated master by the f32 cast, in a
/// second kernel (a skipped step rewrites the same values).
void round_into(const Launch &l, const WorkingCopy &working,
                const float *master, size_t n) {
  if (working.data)
    cast<float>(l, working.data, working.type, master, n);
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

template <class T>
void sum_of_squares(const Launch &l, float *out, const T *x, size_t n) {
  if (n == 0)
    return;
  const unsigned blocks = wave_for(l, n);
  auto *partial =
      static_cast<double *>(l.scratch->get(size_t(blocks) * sizeof(double)));
  sum_of_squares_kernel<T><<<blocks, kThreads, 0, l.stream>>>(partial, x, n);
  TPC_CUDA_LAUNCH_CHECK();
  sum_of_squares_finish_kernel<<<1, kThreads, 0, l.stream>>>(out, partial,
                                                             blocks);
  TPC_CUDA_LAUNCH_CHECK();
}

void grad_norm(const Launch &l, float *norm, float *scale, const float *sum_sq,
               const float *inv_count, float max_norm) {
  grad_norm_kernel<<<1, 1, 0, l.stream>>>(norm, scale, sum_sq, inv_count,
                                          max_norm);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void adamw_update(const Launch &l, float *param, const T *grad, float *m,
                  float *v, size_t n, const AdamWParams &p,
                  const OptimizerScalars &s) {
  if (n == 0)
    return;
  adamw_kernel<T><<<wave_for(l, n), kThreads, 0, l.stream>>>(
      param, grad, m, v, n, p.beta1, p.beta2, p.eps, p.weight_decay, s.lr,
      s.grad_scale, s.step);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void sgd_update(const Launch &l, float *param, const T *grad,
                float *momentum_buf, size_t n, const SgdParams &p,
                const OptimizerScalars &s) {
  if (n == 0)
    return;
  const bool use_momentum = p.momentum != 0.0f && momentum_buf;
  sgd_kernel<T><<<grid_for(n), kThreads, 0, l.stream>>>(
      param, grad, momentum_buf, n, p.momentum, p.weight_decay, use_momentum,
      s.lr, s.grad_scale);
  TPC_CUDA_LAUNCH_CHECK();
}

#define TPC_INSTANTIATE_OPTIMIZER(T)                                           \
  template void sum_of_squares<T>(const Launch &, float *, const T *, size_t); \
  template void adamw_update<T>(const Launch &, float *, const T *, float *,   \
                                float *, size_t, const AdamWParams &,          \
                                const OptimizerScalars &);                     \
  template void sgd_update<T>(const Launch &, float *, const T *, float *,     \
                              size_t, const SgdParams &,                       \
                              const OptimizerScalars &);

TPC_INSTANTIATE_OPTIMIZER(float)
TPC_INSTANTIATE_OPTIMIZER(__nv_bfloat16)
TPC_INSTANTIATE_OPTIMIZER(__half)

#undef TPC_INSTANTIATE_OPTIMIZER

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

template <class T>
void CudaKernels<T>::sum_of_squares(float *out, const void *x, size_t n) const {
  cuda::sum_of_squares<T>(l_, out, t(x), n);
}

template <class T>
void CudaKernels<T>::grad_norm(float *norm, float *scale, const float *sum_sq,
                               const float *inv_count, float max_norm) const {
  cuda::grad_norm(l_, norm, scale, sum_sq, inv_count, max_norm);
}

template <class T>
void CudaKernels<T>::adamw_update(float *param, const void *grad, float *m,
                                  float *v, size_t n, const AdamWParams &p,
                                  const OptimizerScalars &s,
                                  const WorkingCopy &working) const {
  cuda::adamw_update<T>(l_, param, t(grad), m, v, n, p, s);
  round_into(l_, working, param, n);
}

template <class T>
void CudaKernels<T>::sgd_update(float *param, const void *grad,
                                float *momentum_buf, size_t n,
                                const SgdParams &p, const OptimizerScalars &s,
                                const WorkingCopy &working) const {
  cuda::sgd_update<T>(l_, param, t(grad), momentum_buf, n, p, s);
  round_into(l_, working, param, n);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::sum_of_squares(float *, const void *, size_t)  \
      const;                                                                   \
  template void CudaKernels<T>::grad_norm(float *, float *, const float *,     \
                                          const float *, float) const;         \
  template void CudaKernels<T>::adamw_update(                                  \
      float *, const void *, float *, float *, size_t, const AdamWParams &,    \
      const OptimizerScalars &, const WorkingCopy &) const;                    \
  template void CudaKernels<T>::sgd_update(                                    \
      float *, const void *, float *, size_t, const SgdParams &,               \
      const OptimizerScalars &, const WorkingCopy &) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
