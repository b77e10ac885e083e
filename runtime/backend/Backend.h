//===- Backend.h - The device interface of the executor ---------*- C++ -*-===//
//
// Everything the executor asks of a device: memory, ordering, GEMMs, the
// fused layer kernels, losses and optimizer updates. The CPU backend runs
// each call to completion; a GPU backend enqueues it on its compute stream.
// Either way calls take effect in the order they are made, and results
// reach the host only through copy_device_to_host after synchronize().
//
// Pointers are device pointers from alloc(); shapes and contracts are those
// of the CPU kernels (runtime/backends/cpu/kernels/Kernels.h): backward
// calls accumulate into gradients, null gradients are skipped, loss
// backward calls write dlogits. Scalars a GPU would otherwise have to send
// back (loss sums, token counts, squared norms) are accumulated into small
// device buffers, so no call needs to wait for the device.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_BACKEND_H
#define TPC_RUNTIME_BACKEND_BACKEND_H

#include "runtime/backend/KernelTypes.h"
#include "runtime/util/GlobalIndex.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tpc {

class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  //===--------------------------------------------------------------------===//
  // Memory and ordering
  //===--------------------------------------------------------------------===//

  /// At least 64-byte aligned; throws std::bad_alloc when out of memory.
  virtual void *alloc(size_t bytes) = 0;
  virtual void free(void *ptr) = 0;
  virtual void copy_host_to_device(void *dst, const void *src,
                                   size_t bytes) = 0;
  virtual void copy_device_to_host(void *dst, const void *src,
                                   size_t bytes) = 0;
  virtual void copy_device_to_device(void *dst, const void *src,
                                     size_t bytes) = 0;
  virtual void zero(void *ptr, size_t bytes) = 0;
  /// Waits until every call made so far has finished.
  virtual void synchronize() = 0;

  //===--------------------------------------------------------------------===//
  // GEMM (row-major)
  //===--------------------------------------------------------------------===//

  virtual void gemm(bool transA, bool transB, int M, int N, int K, float alpha,
                    const float *A, int lda, const float *B, int ldb,
                    float beta, float *C, int ldc) = 0;
  virtual void gemm_strided_batched(bool transA, bool transB, int M, int N,
                                    int K, float alpha, const float *A, int lda,
                                    int64_t strideA, const float *B, int ldb,
                                    int64_t strideB, float beta, float *C,
                                    int ldc, int64_t strideC, int batch) = 0;

  //===--------------------------------------------------------------------===//
  // Layers
  //===--------------------------------------------------------------------===//

  virtual void embedding_forward(float *out, const int *ids, const float *wte,
                                 int B, int T, int C, int vstart,
                                 int vlocal) = 0;
  virtual void embedding_backward(float *dwte, const float *dout,
                                  const int *ids, int B, int T, int C,
                                  int vstart, int vlocal) = 0;
  virtual void position_embedding_forward(float *out, const float *inp,
                                          const float *wpe, int B, int T,
                                          int C) = 0;
  virtual void position_embedding_backward(float *dwpe, const float *dout,
                                           int B, int T, int C) = 0;

  virtual void layernorm_forward(float *out, float *mean, float *rstd,
                                 const float *inp, const float *weight,
                                 const float *bias, int N, int C) = 0;
  virtual void layernorm_backward(float *dinp, float *dweight, float *dbias,
                                  const float *dout, const float *inp,
                                  const float *weight, const float *mean,
                                  const float *rstd, int N, int C) = 0;

  virtual void matmul_forward(float *out, const float *inp, const float *weight,
                              const float *bias, int N, int C, int OC) = 0;
  virtual void matmul_backward(float *dinp, float *dweight, float *dbias,
                               const float *dout, const float *inp,
                               const float *weight, int N, int C, int OC) = 0;
  virtual void matmul_nt_forward(float *out, const float *inp,
                                 const float *weight, const float *bias, int N,
                                 int C, int OC) = 0;
  virtual void matmul_nt_backward(float *dinp, float *dweight, float *dbias,
                                  const float *dout, const float *inp,
                                  const float *weight, int N, int C,
                                  int OC) = 0;

  virtual void gelu_forward(float *out, const float *inp, size_t n) = 0;
  virtual void gelu_backward(float *dinp, const float *inp, const float *dout,
                             size_t n) = 0;

  virtual void residual_forward(float *out, const float *a, const float *b,
                                size_t n) = 0;
  virtual void residual_backward(float *da, float *db, const float *dout,
                                 size_t n) = 0;
  virtual void scale_forward(float *out, const float *inp, float s,
                             size_t n) = 0;
  virtual void scale_backward(float *dinp, const float *dout, float s,
                              size_t n) = 0;
  /// xs, dxs: host arrays of k device pointers; alpha, dalpha: device (k).
  virtual void weighted_sum_forward(float *out, const float *const *xs,
                                    const float *alpha, int k, size_t n) = 0;
  virtual void weighted_sum_backward(float *const *dxs, float *dalpha,
                                     const float *dout, const float *const *xs,
                                     const float *alpha, int k, size_t n) = 0;

  virtual void dropout_forward(float *out, uint8_t *mask, const float *inp,
                               size_t n, const DropoutParams &d,
                               const GlobalIndexMap &map) = 0;
  virtual void dropout_backward(float *dinp, const uint8_t *mask,
                                const float *dout, size_t n,
                                const DropoutParams &d,
                                const GlobalIndexMap &map) = 0;

  virtual void attention_forward(float *out, float *att, const float *qkv,
                                 const AttentionConfig &cfg) = 0;
  virtual void attention_backward(float *dqkv, const float *dout,
                                  const float *qkv, const float *att,
                                  const AttentionConfig &cfg) = 0;
  virtual void cross_attention_forward(float *out, float *att, const float *q,
                                       const float *kv,
                                       const AttentionConfig &cfg) = 0;
  virtual void cross_attention_backward(float *dq, float *dkv,
                                        const float *dout, const float *q,
                                        const float *kv, const float *att,
                                        const AttentionConfig &cfg) = 0;

  /// Decoding: kcache, vcache (B,capacity,C) are the op's KV cache.
  virtual void decode_attention_forward(float *out, float *kcache,
                                        float *vcache, const float *qkv,
                                        int pos, int capacity,
                                        const AttentionConfig &cfg) = 0;
  virtual void decode_cross_attention_forward(float *out, float *kcache,
                                              float *vcache, const float *q,
                                              const float *kv, int pos,
                                              int capacity,
                                              const AttentionConfig &cfg) = 0;

  //===--------------------------------------------------------------------===//
  // Losses. totals is a device float[2] that gets += {loss sum, target
  // count}, so micro-batches accumulate and the caller divides once.
  //===--------------------------------------------------------------------===//

  virtual void crossentropy_forward(float *losses, float *totals,
                                    const float *logits, const int *targets,
                                    int N, int V, int Vp, int ignore_index) = 0;
  virtual void crossentropy_backward(float *dlogits, const float *logits,
                                     const int *targets, int N, int V, int Vp,
                                     float scale, int ignore_index) = 0;
  virtual void vocab_parallel_ce_max(float *row_max, const float *logits, int N,
                                     int Vl, int vstart, int V) = 0;
  virtual void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                        const float *logits, const int *targets,
                                        const float *row_max, int N, int Vl,
                                        int vstart, int V,
                                        int ignore_index) = 0;
  virtual void vocab_parallel_ce_loss(float *losses, float *totals,
                                      const float *sumexp,
                                      const float *target_logit,
                                      const float *row_max, const int *targets,
                                      int N, int ignore_index) = 0;
  virtual void vocab_parallel_ce_backward(float *dlogits, const float *logits,
                                          const int *targets,
                                          const float *row_max,
                                          const float *sumexp, int N, int Vl,
                                          int vstart, int V, float scale,
                                          int ignore_index) = 0;

  //===--------------------------------------------------------------------===//
  // Optimizer
  //===--------------------------------------------------------------------===//

  virtual void adamw_update(float *param, const float *grad, float *m, float *v,
                            size_t n, const AdamWParams &p) = 0;
  virtual void sgd_update(float *param, const float *grad, float *momentum_buf,
                          size_t n, const SgdParams &p) = 0;
  /// *out (device float) += sum of x[i]^2.
  virtual void sum_of_squares(float *out, const float *x, size_t n) = 0;
};

/// The backend called `name` ("cpu"); throws std::invalid_argument naming
/// the backends this build has.
std::unique_ptr<Backend> make_backend(const std::string &name);

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_BACKEND_H
