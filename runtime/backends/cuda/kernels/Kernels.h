//===- Kernels.h - The CUDA backend's kernel launchers ----------*- C++ -*-===//
//
// One launcher per call of the kernel table (runtime/backend/Kernels.h),
// templated on the storage type T: float, __nv_bfloat16 or __half. Each
// family lives in its own .cu file, which also defines the table's entries
// that forward to them (runtime/backends/cuda/CudaKernels.h), and
// instantiates both for the three types.
//
// Conventions are the kernel table's: T tensors are widened on load and
// rounded once on store; float tensors are fp32 whatever T is; backward
// launchers accumulate into their gradients and skip null ones; per-step
// scalars are device pointers. A launcher only issues work on `l.stream`
// (it never synchronizes) and returns at once for an empty tensor.
// Launch errors throw std::runtime_error naming the file and line.
//
// This header is plain C++ over the CUDA runtime's types, so that host
// code compiled by the C++ compiler can include it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_KERNELS_KERNELS_H
#define TPC_RUNTIME_BACKENDS_CUDA_KERNELS_KERNELS_H

#include "runtime/backend/ElementType.h"
#include "runtime/backend/KernelTypes.h"
#include "runtime/backend/Kernels.h"
#include "runtime/util/GlobalIndex.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tpc::cuda {

class Blas;
class MemoryTally;

/// The ElementType of a storage type.
template <class T> constexpr ElementType element_type_of();
template <> constexpr ElementType element_type_of<float>() {
  return ElementType::F32;
}
template <> constexpr ElementType element_type_of<__nv_bfloat16>() {
  return ElementType::BF16;
}
template <> constexpr ElementType element_type_of<__half>() {
  return ElementType::F16;
}

/// Device memory a launcher may use between its own kernels: one buffer
/// per backend, grown in stream order (cudaMallocAsync) when a call needs
/// more. Calls on one stream run one after another, so every launcher may
/// use the whole buffer; a launcher that needs several regions takes one
/// block and splits it. The buffer counts in `tally` when there is one.
class Scratch {
public:
  explicit Scratch(cudaStream_t stream, MemoryTally *tally = nullptr)
      : stream_(stream), tally_(tally) {}
  ~Scratch();
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  /// At least `bytes`, 256-byte aligned; valid until the next get().
  void *get(size_t bytes);

private:
  cudaStream_t stream_;
  MemoryTally *tally_;
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// What every launcher is given.
struct Launch {
  cudaStream_t stream = nullptr;
  Scratch *scratch = nullptr;
  Blas *blas = nullptr; // cuBLASLt, for launchers built on GEMMs
  int sm_count = 1;     // streaming multiprocessors of the device
};

//===----------------------------------------------------------------------===//
// Elementwise.cu
//===----------------------------------------------------------------------===//

template <class T> void fill(const Launch &l, T *out, float value, size_t n);
/// out: n elements of `to` (F32, BF16 or F16).
template <class T>
void cast(const Launch &l, void *out, ElementType to, const T *inp, size_t n);
template <class T>
void residual_forward(const Launch &l, T *out, const T *a, const T *b,
                      size_t n);
template <class T>
void scale_forward(const Launch &l, T *out, const T *inp, float s, size_t n);
template <class T>
void gelu_forward(const Launch &l, T *out, const T *inp, size_t n);
template <class T>
void gelu_backward(const Launch &l, T *dinp, const T *inp, const T *dout,
                   size_t n);
template <class T>
void gelu_exact_forward(const Launch &l, T *out, const T *inp, size_t n);
template <class T>
void gelu_exact_backward(const Launch &l, T *dinp, const T *inp, const T *dout,
                         size_t n);
template <class T>
void tanh_forward(const Launch &l, T *out, const T *inp, size_t n);
/// dinp (n) += dout * (1 - out^2), or = when not `accumulate`; `out` is
/// tanh_forward's result.
template <class T>
void tanh_backward(const Launch &l, T *dinp, const T *out, const T *dout,
                   size_t n, bool accumulate);
template <class T>
void swiglu_forward(const Launch &l, T *out, const T *gate, const T *up,
                    size_t n);
template <class T>
void swiglu_backward(const Launch &l, T *dgate, T *dup, const T *dout,
                     const T *gate, const T *up, size_t n);
/// xs, dxs: host arrays of k device pointers; alpha, dalpha: device (k).
template <class T>
void weighted_sum_forward(const Launch &l, T *out, const T *const *xs,
                          const T *alpha, int k, size_t n);
template <class T>
void weighted_sum_backward(const Launch &l, T *const *dxs, T *dalpha,
                           const T *dout, const T *const *xs, const T *alpha,
                           int k, size_t n);
template <class T>
void dropout_forward(const Launch &l, T *out, const T *inp, size_t n,
                     const DropoutParams &d, const GlobalIndexMap &map);
/// grad (n elements of grad_type: T or F32) += x.
template <class T>
void accumulate(const Launch &l, void *grad, ElementType grad_type, const T *x,
                size_t n);

//===----------------------------------------------------------------------===//
// Embedding.cu
//===----------------------------------------------------------------------===//

template <class T>
void embedding_forward(const Launch &l, T *out, const int *ids, const T *wte,
                       int B, int T_, int C, int vstart, int vlocal);
template <class T>
void embedding_backward(const Launch &l, T *dwte, const T *dout, const int *ids,
                        int B, int T_, int C, int vstart, int vlocal);
template <class T>
void position_embedding_forward(const Launch &l, T *out, const T *inp,
                                const T *wpe, const int *offset, int B, int T_,
                                int C);
template <class T>
void position_embedding_backward(const Launch &l, T *dwpe, const T *dout, int B,
                                 int T_, int C);

//===----------------------------------------------------------------------===//
// Norm.cu
//===----------------------------------------------------------------------===//

template <class T>
void layernorm_forward(const Launch &l, T *out, float *mean, float *rstd,
                       const T *inp, const T *weight, const T *bias, int N,
                       int C, float eps = 1e-5f);
template <class T>
void layernorm_backward(const Launch &l, T *dinp, T *dweight, T *dbias,
                        const T *dout, const T *inp, const T *weight,
                        const float *mean, const float *rstd, int N, int C);
template <class T>
void rmsnorm_forward(const Launch &l, T *out, float *rstd, const T *inp,
                     const T *weight, int N, int C, float eps);
template <class T>
void rmsnorm_backward(const Launch &l, T *dinp, T *dweight, const T *dout,
                      const T *inp, const T *weight, const float *rstd, int N,
                      int C);

//===----------------------------------------------------------------------===//
// Matmul.cu (cuBLASLt)
//===----------------------------------------------------------------------===//

template <class T>
void gemm(const Launch &l, bool trans_a, bool trans_b, int M, int N, int K,
          float alpha, const T *A, int lda, const T *B, int ldb, float beta,
          T *C, int ldc);
template <class T>
void matmul_forward(const Launch &l, T *out, const T *inp, const T *weight,
                    const T *bias, int N, int C, int OC, bool transposed);
template <class T>
void matmul_backward(const Launch &l, T *dinp, T *dweight, T *dbias,
                     const T *dout, const T *inp, const T *weight, int N, int C,
                     int OC, bool transposed);

//===----------------------------------------------------------------------===//
// Attention.cu
//===----------------------------------------------------------------------===//

template <class T>
void attention_forward(const Launch &l, T *out, float *att, const T *qkv,
                       const AttentionConfig &cfg);
template <class T>
void attention_backward(const Launch &l, T *dqkv, const T *dout, const T *qkv,
                        const float *att, const AttentionConfig &cfg);
template <class T>
void cross_attention_forward(const Launch &l, T *out, float *att, const T *q,
                             const T *kv, const AttentionConfig &cfg);
template <class T>
void cross_attention_backward(const Launch &l, T *dq, T *dkv, const T *dout,
                              const T *q, const T *kv, const float *att,
                              const AttentionConfig &cfg);
template <class T>
void decode_attention_forward(const Launch &l, T *out, T *kcache, T *vcache,
                              const T *qkv, const int *pos, int capacity,
                              const AttentionConfig &cfg);
template <class T>
void decode_cross_attention_forward(const Launch &l, T *out, T *kcache,
                                    T *vcache, const T *q, const T *kv,
                                    const int *pos, int capacity,
                                    const AttentionConfig &cfg, bool lagged);
template <class T>
void gqa_attention_forward(const Launch &l, T *out, float *att, const T *q,
                           const T *k, const T *v, const AttentionConfig &cfg);
template <class T>
void gqa_attention_backward(const Launch &l, T *dq, T *dk, T *dv, const T *dout,
                            const T *q, const T *k, const T *v,
                            const float *att, const AttentionConfig &cfg);
template <class T>
void decode_gqa_attention_forward(const Launch &l, T *out, T *kcache, T *vcache,
                                  const T *q, const T *k, const T *v,
                                  const int *pos, int capacity,
                                  const AttentionConfig &cfg);

//===----------------------------------------------------------------------===//
// Loss.cu
//===----------------------------------------------------------------------===//

template <class T>
void crossentropy_forward(const Launch &l, float *losses, float *totals,
                          const T *logits, const int *targets, int N, int V,
                          int Vp, int ignore_index);
template <class T>
void crossentropy_backward(const Launch &l, T *dlogits, const T *logits,
                           const int *targets, int N, int V, int Vp,
                           const float *dloss, int ignore_index);
template <class T>
void vocab_parallel_ce_max(const Launch &l, float *row_max, const T *logits,
                           int N, int Vl, int vstart, int V);
template <class T>
void vocab_parallel_ce_sumexp(const Launch &l, float *sumexp,
                              float *target_logit, const T *logits,
                              const int *targets, const float *row_max, int N,
                              int Vl, int vstart, int V, int ignore_index);
/// Independent of T (fp32 inputs); instantiated once.
void vocab_parallel_ce_loss(const Launch &l, float *losses, float *totals,
                            const float *sumexp, const float *target_logit,
                            const float *row_max, const int *targets, int N,
                            int ignore_index);
template <class T>
void vocab_parallel_ce_backward(const Launch &l, T *dlogits, const T *logits,
                                const int *targets, const float *row_max,
                                const float *sumexp, int N, int Vl, int vstart,
                                int V, const float *dloss, int ignore_index);
void loss_outputs(const Launch &l, float *loss, int32_t *count,
                  const float *totals);

//===----------------------------------------------------------------------===//
// Optimizer.cu
//===----------------------------------------------------------------------===//

template <class T>
void sum_of_squares(const Launch &l, float *out, const T *x, size_t n);
void grad_norm(const Launch &l, float *norm, float *scale, const float *sum_sq,
               const float *inv_count, float max_norm);
/// A grad_scale that is not finite leaves everything untouched.
template <class T>
void adamw_update(const Launch &l, float *param, const T *grad, float *m,
                  float *v, size_t n, const AdamWParams &p,
                  const OptimizerScalars &s);
template <class T>
void sgd_update(const Launch &l, float *param, const T *grad,
                float *momentum_buf, size_t n, const SgdParams &p,
                const OptimizerScalars &s);

} // namespace tpc::cuda

#endif // TPC_RUNTIME_BACKENDS_CUDA_KERNELS_KERNELS_H
