//===- CpuKernels.h - The CPU backend's kernel tables -----------*- C++ -*-===//
//
// CpuKernels<S>: the kernel table (runtime/backend/Kernels.h) of tensors
// stored as S (cpu::F32Storage, BF16Storage or F16Storage). Each kernel
// family file (kernels/LayerNorm.cpp, kernels/Attention.cpp, ...) defines
// its entries beside its loops and instantiates them for the three types;
// CpuBackend.cpp builds the tables with their GEMM library. An entry hands
// 16-bit tensors to loops that read them as stored, or widens the operands
// of fp32 loops (In<S>) and rounds their results once (Out<S>, Storage.h).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_CPUKERNELS_H
#define TPC_RUNTIME_BACKENDS_CPU_CPUKERNELS_H

#include "runtime/backend/Kernels.h"
#include "runtime/backends/cpu/kernels/Storage.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tpc::cpu {

class DnnlGemm;

/// Result rows below which the f32 table keeps its GEMMs on oneDNN when
/// the rest go to OpenBLAS (CpuGemm::Auto with OpenBLAS on AVX-512).
constexpr int kSkinnyRows = 32;

template <class S> class CpuKernels final : public Kernels {
public:
  /// With `dnnl`, the GEMMs run on oneDNN where it has more than a
  /// reference kernel (f32 and bf16 tables only); with `skinny_only` too,
  /// only those of fewer than kSkinnyRows result rows.
  CpuKernels(bool dnnl, bool skinny_only);
  ~CpuKernels() override;

  ElementType dtype() const override { return S::dtype; }
  bool attention_recomputes() const override { return true; }
  bool attention_takes_key_lengths() const override { return true; }

  // kernels/Elementwise.cpp
  void fill(void *out, float value, size_t n) const override;
  void residual_forward(void *out, const void *a, const void *b,
                        size_t n) const override;
  void cast(void *out, ElementType to, const void *inp,
            size_t n) const override;
  void scale_forward(void *out, const void *inp, float s,
                     size_t n) const override;
  void weighted_sum_forward(void *out, const void *const *xs, const void *alpha,
                            int k, size_t n) const override;
  void weighted_sum_backward(void *const *dxs, void *dalpha, const void *dout,
                             const void *const *xs, const void *alpha, int k,
                             size_t n) const override;
  void accumulate(void *grad, ElementType grad_type, const void *x,
                  size_t n) const override;

  // kernels/Matmul.cpp
  void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
            const void *A, int lda, const void *B, int ldb, float beta, void *C,
            int ldc) const override;
  void matmul_forward(void *out, const void *inp, const void *weight,
                      const void *bias, int N, int C, int OC,
                      bool transposed) const override;
  void matmul_backward(void *dinp, void *dweight, void *dbias, const void *dout,
                       const void *inp, const void *weight, int N, int C,
                       int OC, bool transposed, bool accumulate) const override;

  // kernels/Embedding.cpp
  void embedding_forward(void *out, const int *ids, const void *wte, int B,
                         int T, int C, int vstart, int vlocal) const override;
  void embedding_backward(void *dwte, const void *dout, const int *ids, int B,
                          int T, int C, int vstart, int vlocal) const override;
  void position_embedding_forward(void *out, const void *inp, const void *wpe,
                                  const int *offset, int B, int T,
                                  int C) const override;
  void position_embedding_backward(void *dwpe, const void *dout, int B, int T,
                                   int C) const override;

  // kernels/LayerNorm.cpp
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

  // kernels/Activation.cpp
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

  // kernels/Dropout.cpp
  void dropout_forward(void *out, const void *inp, size_t n,
                       const DropoutParams &d,
                       const GlobalIndexMap &map) const override;

  // kernels/Attention.cpp
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
  void gqa_attention_forward(void *out, float *att, const void *q,
                             const void *k, const void *v,
                             const AttentionConfig &cfg) const override;
  void gqa_attention_backward(void *dq, void *dk, void *dv, const void *dout,
                              const void *q, const void *k, const void *v,
                              const float *att,
                              const AttentionConfig &cfg) const override;

  // kernels/AttentionDecode.cpp
  void decode_attention_forward(void *out, void *kcache, void *vcache,
                                const void *qkv, const int *pos, int capacity,
                                const AttentionConfig &cfg) const override;
  void decode_cross_attention_forward(void *out, void *kcache, void *vcache,
                                      const void *q, const void *kv,
                                      const int *pos, int capacity,
                                      const AttentionConfig &cfg,
                                      bool lagged) const override;
  void decode_gqa_attention_forward(void *out, void *kcache, void *vcache,
                                    const void *q, const void *k, const void *v,
                                    const int *pos, int capacity,
                                    const AttentionConfig &cfg) const override;

  // kernels/Loss.cpp
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

  // kernels/Optimizer.cpp
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
  using Elem = typename S::type;
  static const Elem *typed(const void *p) {
    return static_cast<const Elem *>(p);
  }
  static Elem *typed(void *p) { return static_cast<Elem *>(p); }
  static size_t sz(int64_t a) { return size_t(a); }

  /// Whether oneDNN takes a GEMM of `rows` result rows.
  bool takes(int rows) const { return !skinny_only_ || rows < kSkinnyRows; }
  bool skinny_only_;
#ifdef TPC_HAVE_DNNL
  // The fp32 and bf16 tables' GEMMs and their cached primitives; null in
  // the fp16 table. Calls fall back to OpenBLAS (on bf16 widened to fp32)
  // where oneDNN declines.
  std::unique_ptr<DnnlGemm> dnnl_;
#endif
};

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_CPUKERNELS_H
