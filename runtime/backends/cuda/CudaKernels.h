//===- CudaKernels.h - The CUDA backend's kernel tables ---------*- C++ -*-===//
//
// CudaKernels<T>: the kernel table (runtime/backend/Kernels.h) of tensors
// stored as T (float, __nv_bfloat16 or __half). Each kernel file
// (kernels/Norm.cu, kernels/Attention.cu, ...) defines its entries beside
// its launchers (kernels/Kernels.h) and instantiates them for the three
// types; CudaBackend.cpp builds the tables on its device, scratch and
// cuBLASLt. Plain C++ over the CUDA runtime's types, as kernels/Kernels.h.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_CUDAKERNELS_H
#define TPC_RUNTIME_BACKENDS_CUDA_CUDAKERNELS_H

#include "runtime/backend/Kernels.h"
#include "runtime/backends/cuda/kernels/Kernels.h"

#include <cstddef>
#include <cstdint>

namespace tpc::cuda {

template <class T> class CudaKernels final : public Kernels {
public:
  explicit CudaKernels(const Launch &l) : l_(l) {}

  ElementType dtype() const override { return element_type_of<T>(); }
  /// The attention backward recomputes the probabilities with its own
  /// GEMMs (kernels/Attention.cu): nothing (B,NH,T,T) outlives a call.
  bool attention_recomputes() const override { return true; }
  /// The training attention's row kernels apply AttentionConfig's key
  /// padding mask; decoding has none.
  bool attention_takes_key_lengths() const override { return true; }

  // kernels/Elementwise.cu
  void fill(void *out, float value, size_t n) const override;
  void cast(void *out, ElementType to, const void *inp,
            size_t n) const override;
  void residual_forward(void *out, const void *a, const void *b,
                        size_t n) const override;
  void scale_forward(void *out, const void *inp, float s,
                     size_t n) const override;
  void gelu_forward(void *out, const void *inp, size_t n) const override;
  void gelu_backward(void *dinp, const void *inp, const void *dout, size_t n,
                     bool accumulate) const override;
  void gelu_exact_forward(void *out, const void *inp, size_t n) const override;
  void gelu_exact_backward(void *dinp, const void *inp, const void *dout,
                           size_t n, bool accumulate) const override;
  void tanh_forward(void *out, const void *inp, size_t n) const override;
  void tanh_backward(void *dinp, const void *out, const void *dout, size_t n,
                     bool accumulate) const override;
  void swiglu_forward(void *out, const void *gate, const void *up,
                      size_t n) const override;
  void swiglu_backward(void *dgate, void *dup, const void *dout,
                       const void *gate, const void *up,
                       size_t n) const override;
  void weighted_sum_forward(void *out, const void *const *xs, const void *alpha,
                            int k, size_t n) const override;
  void weighted_sum_backward(void *const *dxs, void *dalpha, const void *dout,
                             const void *const *xs, const void *alpha, int k,
                             size_t n) const override;
  void dropout_forward(void *out, const void *inp, size_t n,
                       const DropoutParams &d,
                       const GlobalIndexMap &map) const override;
  void accumulate(void *grad, ElementType grad_type, const void *x,
                  size_t n) const override;

  // kernels/Embedding.cu
  void embedding_forward(void *out, const int *ids, const void *wte, int B,
                         int T_, int C, int vstart, int vlocal) const override;
  void embedding_backward(void *dwte, const void *dout, const int *ids, int B,
                          int T_, int C, int vstart, int vlocal) const override;
  void position_embedding_forward(void *out, const void *inp, const void *wpe,
                                  const int *offset, int B, int T_,
                                  int C) const override;
  void position_embedding_backward(void *dwpe, const void *dout, int B, int T_,
                                   int C) const override;

  // kernels/Norm.cu
  void layernorm_forward(void *out, float *mean, float *rstd, const void *inp,
                         const void *weight, const void *bias, int N, int C,
                         float eps) const override;
  void layernorm_backward(void *dinp, void *dweight, void *dbias,
                          const void *dout, const void *inp, const void *weight,
                          const float *mean, const float *rstd, int N,
                          int C) const override;
  void rmsnorm_forward(void *out, float *rstd, const void *inp,
                       const void *weight, int N, int C,
                       float eps) const override;
  void rmsnorm_backward(void *dinp, void *dweight, const void *dout,
                        const void *inp, const void *weight, const float *rstd,
                        int N, int C) const override;

  // kernels/Matmul.cu
  void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
            const void *A, int lda, const void *B, int ldb, float beta, void *C,
            int ldc) const override;
  void matmul_forward(void *out, const void *inp, const void *weight,
                      const void *bias, int N, int C, int OC,
                      bool transposed) const override;
  void matmul_backward(void *dinp, void *dweight, void *dbias, const void *dout,
                       const void *inp, const void *weight, int N, int C,
                       int OC, bool transposed, bool accumulate) const override;

  // kernels/Attention.cu
  void attention_forward(void *out, float *att, const void *qkv,
                         const AttentionConfig &cfg) const override;
  void attention_backward(void *dqkv, const void *dout, const void *qkv,
                          const float *att,
                          const AttentionConfig &cfg) const override;
  void cross_attention_forward(void *out, float *att, const void *q,
                               const void *kv,
                               const AttentionConfig &cfg) const override;
  void cross_attention_backward(void *dq, void *dkv, const void *dout,
                                const void *q, const void *kv, const float *att,
                                const AttentionConfig &cfg) const override;
  void decode_attention_forward(void *out, void *kcache, void *vcache,
                                const void *qkv, const int *pos, int capacity,
                                const AttentionConfig &cfg) const override;
  void decode_cross_attention_forward(void *out, void *kcache, void *vcache,
                                      const void *q, const void *kv,
                                      const int *pos, int capacity,
                                      const AttentionConfig &cfg,
                                      bool lagged) const override;
  void gqa_attention_forward(void *out, float *att, const void *q,
                             const void *k, const void *v,
                             const AttentionConfig &cfg) const override;
  void gqa_attention_backward(void *dq, void *dk, void *dv, const void *dout,
                              const void *q, const void *k, const void *v,
                              const float *att,
                              const AttentionConfig &cfg) const override;
  void decode_gqa_attention_forward(void *out, void *kcache, void *vcache,
                                    const void *q, const void *k, const void *v,
                                    const int *pos, int capacity,
                                    const AttentionConfig &cfg) const override;

  // kernels/Loss.cu
  void crossentropy_forward(float *losses, float *totals, const void *logits,
                            const int *targets, int N, int V, int Vp,
                            int ignore_index, float *stats) const override;
  void crossentropy_backward(void *dlogits, const void *logits,
                             const int *targets, int N, int V, int Vp,
                             const float *dloss, int ignore_index,
                             const float *stats) const override;
  void vocab_parallel_ce_max(float *row_max, const void *logits, int N, int Vl,
                             int vstart, int V) const override;
  void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                const void *logits, const int *targets,
                                const float *row_max, int N, int Vl, int vstart,
                                int V, int ignore_index) const override;
  void vocab_parallel_ce_loss(float *losses, float *totals, const float *sumexp,
                              const float *target_logit, const float *row_max,
                              const int *targets, int N,
                              int ignore_index) const override;
  void vocab_parallel_ce_backward(void *dlogits, const void *logits,
                                  const int *targets, const float *row_max,
                                  const float *sumexp, int N, int Vl,
                                  int vstart, int V, const float *dloss,
                                  int ignore_index) const override;
  void loss_outputs(float *loss, int32_t *count,
                    const float *totals) const override;

  // kernels/Optimizer.cu
  void sum_of_squares(float *out, const void *x, size_t n) const override;
  void grad_norm(float *norm, float *scale, const float *sum_sq,
                 const float *inv_count, float max_norm) const override;
  void adamw_update(float *param, const void *grad, float *m, float *v,
                    size_t n, const AdamWParams &p, const OptimizerScalars &s,
                    const WorkingCopy &working) const override;
  void sgd_update(float *param, const void *grad, float *momentum_buf, size_t n,
                  const SgdParams &p, const OptimizerScalars &s,
                  const WorkingCopy &working) const override;

private:
  static T *t(void *p) { return static_cast<T *>(p); }
  static const T *t(const void *p) { return static_cast<const T *>(p); }

  Launch l_;
};

} // namespace tpc::cuda

#endif // TPC_RUNTIME_BACKENDS_CUDA_CUDAKERNELS_H
