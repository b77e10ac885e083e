//===- CpuBackend.h - Backend on OpenMP threads and OpenBLAS ----*- C++ -*-===//
//
// Each call runs to completion on the calling thread's OpenMP team, so
// synchronize() has nothing to wait for and "device" memory is host memory.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
#define TPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H

#include "runtime/backend/Backend.h"

namespace tpc {

class CpuBackend final : public Backend {
public:
  std::string name() const override;
  void *alloc(size_t bytes) override;
  void free(void *ptr) override;
  void copy_host_to_device(void *dst, const void *src, size_t bytes) override;
  void copy_device_to_host(void *dst, const void *src, size_t bytes) override;
  void copy_device_to_device(void *dst, const void *src, size_t bytes) override;
  void zero(void *ptr, size_t bytes) override;
  void synchronize() override;
  void gemm(bool transA, bool transB, int M, int N, int K, float alpha,
            const float *A, int lda, const float *B, int ldb, float beta,
            float *C, int ldc) override;
  void gemm_strided_batched(bool transA, bool transB, int M, int N, int K,
                            float alpha, const float *A, int lda,
                            int64_t strideA, const float *B, int ldb,
                            int64_t strideB, float beta, float *C, int ldc,
                            int64_t strideC, int batch) override;
  void embedding_forward(float *out, const int *ids, const float *wte, int B,
                         int T, int C, int vstart, int vlocal) override;
  void embedding_backward(float *dwte, const float *dout, const int *ids, int B,
                          int T, int C, int vstart, int vlocal) override;
  void position_embedding_forward(float *out, const float *inp,
                                  const float *wpe, int B, int T,
                                  int C) override;
  void position_embedding_backward(float *dwpe, const float *dout, int B, int T,
                                   int C) override;
  void layernorm_forward(float *out, float *mean, float *rstd, const float *inp,
                         const float *weight, const float *bias, int N,
                         int C) override;
  void layernorm_backward(float *dinp, float *dweight, float *dbias,
                          const float *dout, const float *inp,
                          const float *weight, const float *mean,
                          const float *rstd, int N, int C) override;
  void matmul_forward(float *out, const float *inp, const float *weight,
                      const float *bias, int N, int C, int OC) override;
  void matmul_backward(float *dinp, float *dweight, float *dbias,
                       const float *dout, const float *inp, const float *weight,
                       int N, int C, int OC) override;
  void matmul_nt_forward(float *out, const float *inp, const float *weight,
                         const float *bias, int N, int C, int OC) override;
  void matmul_nt_backward(float *dinp, float *dweight, float *dbias,
                          const float *dout, const float *inp,
                          const float *weight, int N, int C, int OC) override;
  void gelu_forward(float *out, const float *inp, size_t n) override;
  void gelu_backward(float *dinp, const float *inp, const float *dout,
                     size_t n) override;
  void residual_forward(float *out, const float *a, const float *b,
                        size_t n) override;
  void residual_backward(float *da, float *db, const float *dout,
                         size_t n) override;
  void scale_forward(float *out, const float *inp, float s, size_t n) override;
  void scale_backward(float *dinp, const float *dout, float s,
                      size_t n) override;
  void weighted_sum_forward(float *out, const float *const *xs,
                            const float *alpha, int k, size_t n) override;
  void weighted_sum_backward(float *const *dxs, float *dalpha,
                             const float *dout, const float *const *xs,
                             const float *alpha, int k, size_t n) override;
  void dropout_forward(float *out, uint8_t *mask, const float *inp, size_t n,
                       const DropoutParams &d,
                       const GlobalIndexMap &map) override;
  void dropout_backward(float *dinp, const uint8_t *mask, const float *dout,
                        size_t n, const DropoutParams &d,
                        const GlobalIndexMap &map) override;
  void attention_forward(float *out, float *att, const float *qkv,
                         const AttentionConfig &cfg) override;
  void attention_backward(float *dqkv, const float *dout, const float *qkv,
                          const float *att,
                          const AttentionConfig &cfg) override;
  void cross_attention_forward(float *out, float *att, const float *q,
                               const float *kv,
                               const AttentionConfig &cfg) override;
  void cross_attention_backward(float *dq, float *dkv, const float *dout,
                                const float *q, const float *kv,
                                const float *att,
                                const AttentionConfig &cfg) override;
  void decode_attention_forward(float *out, float *kcache, float *vcache,
                                const float *qkv, int pos, int capacity,
                                const AttentionConfig &cfg) override;
  void decode_cross_attention_forward(float *out, float *kcache, float *vcache,
                                      const float *q, const float *kv, int pos,
                                      int capacity,
                                      const AttentionConfig &cfg) override;
  void crossentropy_forward(float *losses, float *totals, const float *logits,
                            const int *targets, int N, int V, int Vp,
                            int ignore_index) override;
  void crossentropy_backward(float *dlogits, const float *logits,
                             const int *targets, int N, int V, int Vp,
                             float scale, int ignore_index) override;
  void vocab_parallel_ce_max(float *row_max, const float *logits, int N, int Vl,
                             int vstart, int V) override;
  void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                const float *logits, const int *targets,
                                const float *row_max, int N, int Vl, int vstart,
                                int V, int ignore_index) override;
  void vocab_parallel_ce_loss(float *losses, float *totals, const float *sumexp,
                              const float *target_logit, const float *row_max,
                              const int *targets, int N,
                              int ignore_index) override;
  void vocab_parallel_ce_backward(float *dlogits, const float *logits,
                                  const int *targets, const float *row_max,
                                  const float *sumexp, int N, int Vl,
                                  int vstart, int V, float scale,
                                  int ignore_index) override;
  void adamw_update(float *param, const float *grad, float *m, float *v,
                    size_t n, const AdamWParams &p) override;
  void sgd_update(float *param, const float *grad, float *momentum_buf,
                  size_t n, const SgdParams &p) override;
  void sum_of_squares(float *out, const float *x, size_t n) override;
};

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
