//===- CpuBackend.cpp - Backend on OpenMP threads and OpenBLAS ------------===//

#include "runtime/backends/cpu/CpuBackend.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

namespace tpc {

std::string CpuBackend::name() const { return "cpu"; }

void *CpuBackend::alloc(size_t bytes) {
  // Rounded up to the alignment, as aligned_alloc requires; 64 bytes keeps
  // rows on cache lines and suits AVX-512.
  size_t rounded = (bytes + 63) / 64 * 64;
  void *p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p)
    throw std::bad_alloc();
  return p;
}

void CpuBackend::free(void *ptr) { std::free(ptr); }

void CpuBackend::copy_host_to_device(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuBackend::copy_device_to_host(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuBackend::copy_device_to_device(void *dst, const void *src,
                                       size_t bytes) {
  std::memmove(dst, src, bytes);
}
void CpuBackend::zero(void *ptr, size_t bytes) { std::memset(ptr, 0, bytes); }
void CpuBackend::synchronize() {}

void CpuBackend::gemm(bool transA, bool transB, int M, int N, int K,
                      float alpha, const float *A, int lda, const float *B,
                      int ldb, float beta, float *C, int ldc) {
  cpu::gemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void CpuBackend::gemm_strided_batched(bool transA, bool transB, int M, int N,
                                      int K, float alpha, const float *A,
                                      int lda, int64_t strideA, const float *B,
                                      int ldb, int64_t strideB, float beta,
                                      float *C, int ldc, int64_t strideC,
                                      int batch) {
  cpu::gemm_strided_batched(transA, transB, M, N, K, alpha, A, lda, strideA, B,
                            ldb, strideB, beta, C, ldc, strideC, batch);
}

void CpuBackend::embedding_forward(float *out, const int *ids, const float *wte,
                                   int B, int T, int C, int vstart,
                                   int vlocal) {
  cpu::embedding_forward(out, ids, wte, B, T, C, vstart, vlocal);
}
void CpuBackend::embedding_backward(float *dwte, const float *dout,
                                    const int *ids, int B, int T, int C,
                                    int vstart, int vlocal) {
  cpu::embedding_backward(dwte, dout, ids, B, T, C, vstart, vlocal);
}
void CpuBackend::position_embedding_forward(float *out, const float *inp,
                                            const float *wpe, int B, int T,
                                            int C) {
  cpu::position_embedding_forward(out, inp, wpe, B, T, C);
}
void CpuBackend::position_embedding_backward(float *dwpe, const float *dout,
                                             int B, int T, int C) {
  cpu::position_embedding_backward(dwpe, dout, B, T, C);
}

void CpuBackend::layernorm_forward(float *out, float *mean, float *rstd,
                                   const float *inp, const float *weight,
                                   const float *bias, int N, int C) {
  cpu::layernorm_forward(out, mean, rstd, inp, weight, bias, N, C);
}
void CpuBackend::layernorm_backward(float *dinp, float *dweight, float *dbias,
                                    const float *dout, const float *inp,
                                    const float *weight, const float *mean,
                                    const float *rstd, int N, int C) {
  cpu::layernorm_backward(dinp, dweight, dbias, dout, inp, weight, mean, rstd,
                          N, C);
}

void CpuBackend::matmul_forward(float *out, const float *inp,
                                const float *weight, const float *bias, int N,
                                int C, int OC) {
  cpu::matmul_forward(out, inp, weight, bias, N, C, OC);
}
void CpuBackend::matmul_backward(float *dinp, float *dweight, float *dbias,
                                 const float *dout, const float *inp,
                                 const float *weight, int N, int C, int OC) {
  cpu::matmul_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC);
}
void CpuBackend::matmul_nt_forward(float *out, const float *inp,
                                   const float *weight, const float *bias,
                                   int N, int C, int OC) {
  cpu::matmul_nt_forward(out, inp, weight, bias, N, C, OC);
}
void CpuBackend::matmul_nt_backward(float *dinp, float *dweight, float *dbias,
                                    const float *dout, const float *inp,
                                    const float *weight, int N, int C, int OC) {
  cpu::matmul_nt_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC);
}

void CpuBackend::gelu_forward(float *out, const float *inp, size_t n) {
  cpu::gelu_forward(out, inp, n);
}
void CpuBackend::gelu_backward(float *dinp, const float *inp, const float *dout,
                               size_t n) {
  cpu::gelu_backward(dinp, inp, dout, n);
}

void CpuBackend::residual_forward(float *out, const float *a, const float *b,
                                  size_t n) {
  cpu::residual_forward(out, a, b, n);
}
void CpuBackend::residual_backward(float *da, float *db, const float *dout,
                                   size_t n) {
  cpu::residual_backward(da, db, dout, n);
}
void CpuBackend::scale_forward(float *out, const float *inp, float s,
                               size_t n) {
  cpu::scale_forward(out, inp, s, n);
}
void CpuBackend::scale_backward(float *dinp, const float *dout, float s,
                                size_t n) {
  cpu::scale_backward(dinp, dout, s, n);
}
void CpuBackend::weighted_sum_forward(float *out, const float *const *xs,
                                      const float *alpha, int k, size_t n) {
  cpu::weighted_sum_forward(out, xs, alpha, k, n);
}
void CpuBackend::weighted_sum_backward(float *const *dxs, float *dalpha,
                                       const float *dout,
                                       const float *const *xs,
                                       const float *alpha, int k, size_t n) {
  cpu::weighted_sum_backward(dxs, dalpha, dout, xs, alpha, k, n);
}

void CpuBackend::dropout_forward(float *out, uint8_t *mask, const float *inp,
                                 size_t n, const DropoutParams &d,
                                 const GlobalIndexMap &map) {
  cpu::dropout_forward(out, mask, inp, n, d, map);
}
void CpuBackend::dropout_backward(float *dinp, const uint8_t *mask,
                                  const float *dout, size_t n,
                                  const DropoutParams &d,
                                  const GlobalIndexMap &map) {
  cpu::dropout_backward(dinp, mask, dout, n, d, map);
}

void CpuBackend::attention_forward(float *out, float *att, const float *qkv,
                                   const AttentionConfig &cfg) {
  cpu::attention_forward(out, att, qkv, cfg);
}
void CpuBackend::attention_backward(float *dqkv, const float *dout,
                                    const float *qkv, const float *att,
                                    const AttentionConfig &cfg) {
  cpu::attention_backward(dqkv, dout, qkv, att, cfg);
}
void CpuBackend::cross_attention_forward(float *out, float *att, const float *q,
                                         const float *kv,
                                         const AttentionConfig &cfg) {
  cpu::cross_attention_forward(out, att, q, kv, cfg);
}
void CpuBackend::cross_attention_backward(float *dq, float *dkv,
                                          const float *dout, const float *q,
                                          const float *kv, const float *att,
                                          const AttentionConfig &cfg) {
  cpu::cross_attention_backward(dq, dkv, dout, q, kv, att, cfg);
}

void CpuBackend::decode_attention_forward(float *out, float *kcache,
                                          float *vcache, const float *qkv,
                                          int pos, int capacity,
                                          const AttentionConfig &cfg) {
  cpu::decode_attention_forward(out, kcache, vcache, qkv, pos, capacity, cfg);
}
void CpuBackend::decode_cross_attention_forward(float *out, float *kcache,
                                                float *vcache, const float *q,
                                                const float *kv, int pos,
                                                int capacity,
                                                const AttentionConfig &cfg) {
  cpu::decode_cross_attention_forward(out, kcache, vcache, q, kv, pos, capacity,
                                      cfg);
}

void CpuBackend::crossentropy_forward(float *losses, float *totals,
                                      const float *logits, const int *targets,
                                      int N, int V, int Vp, int ignore_index) {
  LossSum r = cpu::crossentropy_forward(losses, logits, targets, N, V, Vp,
                                        ignore_index);
  totals[0] += float(r.sum);
  totals[1] += float(r.count);
}
void CpuBackend::crossentropy_backward(float *dlogits, const float *logits,
                                       const int *targets, int N, int V, int Vp,
                                       float scale, int ignore_index) {
  cpu::crossentropy_backward(dlogits, logits, targets, N, V, Vp, scale,
                             ignore_index);
}
void CpuBackend::vocab_parallel_ce_max(float *row_max, const float *logits,
                                       int N, int Vl, int vstart, int V) {
  cpu::vocab_parallel_ce_max(row_max, logits, N, Vl, vstart, V);
}
void CpuBackend::vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                          const float *logits,
                                          const int *targets,
                                          const float *row_max, int N, int Vl,
                                          int vstart, int V, int ignore_index) {
  cpu::vocab_parallel_ce_sumexp(sumexp, target_logit, logits, targets, row_max,
                                N, Vl, vstart, V, ignore_index);
}
void CpuBackend::vocab_parallel_ce_loss(float *losses, float *totals,
                                        const float *sumexp,
                                        const float *target_logit,
                                        const float *row_max,
                                        const int *targets, int N,
                                        int ignore_index) {
  LossSum r = cpu::vocab_parallel_ce_loss(losses, sumexp, target_logit, row_max,
                                          targets, N, ignore_index);
  totals[0] += float(r.sum);
  totals[1] += float(r.count);
}
void CpuBackend::vocab_parallel_ce_backward(float *dlogits, const float *logits,
                                            const int *targets,
                                            const float *row_max,
                                            const float *sumexp, int N, int Vl,
                                            int vstart, int V, float scale,
                                            int ignore_index) {
  cpu::vocab_parallel_ce_backward(dlogits, logits, targets, row_max, sumexp, N,
                                  Vl, vstart, V, scale, ignore_index);
}

void CpuBackend::adamw_update(float *param, const float *grad, float *m,
                              float *v, size_t n, const AdamWParams &p) {
  cpu::adamw_update(param, grad, m, v, n, p);
}
void CpuBackend::sgd_update(float *param, const float *grad,
                            float *momentum_buf, size_t n, const SgdParams &p) {
  cpu::sgd_update(param, grad, momentum_buf, n, p);
}
void CpuBackend::sum_of_squares(float *out, const float *x, size_t n) {
  *out += float(cpu::sum_of_squares(x, n));
}

std::unique_ptr<Backend> make_backend(const std::string &name) {
  if (name == "cpu")
    return std::make_unique<CpuBackend>();
  throw std::invalid_argument("unknown backend '" + name +
                              "'; this build has: cpu");
}

} // namespace tpc
