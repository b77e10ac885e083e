//===- Kernels.h - The kernel table of one storage type ---------*- C++ -*-===//
//
// Every kernel the executor calls, for tensors stored in one element type
// (Kernels::dtype()). A backend has one table per storage type it supports
// (Backend::kernels), so mixed precision adds tables, not interface: a bf16
// layer norm is the bf16 table's layernorm_forward.
//
// Conventions, whatever the storage type:
//  - `void *` arguments are tensors of the table's storage type; `float *`
//    ones are fp32 whatever the storage type (statistics saved for the
//    backward pass, attention probabilities, loss sums, optimizer state and
//    gradients of the master weights); `int *` ones are i32 ids.
//  - Arithmetic and reductions are fp32; results are rounded to the
//    storage type once.
//  - Backward calls accumulate into their gradients and skip null ones;
//    the loss backward calls write dlogits.
//  - Scalars that change from step to step (the loss adjoint, learning
//    rate, gradient scale, optimizer step, decode position) are device
//    pointers, so nothing is read back to the host to issue a call.
//  - Calls are issued on the device's compute stream, in order.
// Shapes and the meaning of each call are those of the CPU kernels
// (runtime/backends/cpu/kernels/Kernels.h).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_KERNELS_H
#define TPC_RUNTIME_BACKEND_KERNELS_H

#include "runtime/backend/ElementType.h"
#include "runtime/backend/KernelTypes.h"
#include "runtime/util/GlobalIndex.h"

#include <cstddef>
#include <cstdint>

namespace tpc {

/// Device scalars of an optimizer update, written once per optimizer step.
struct OptimizerScalars {
  const float *lr = nullptr;
  const float *grad_scale = nullptr;
  const int64_t *step = nullptr; // AdamW's 1-based t
};

class Kernels {
public:
  virtual ~Kernels() = default;
  virtual ElementType dtype() const = 0;
  /// Whether the attention kernels take a null `att` (see
  /// attention_forward): no (B,NH,T,T) probabilities in memory, and no
  /// forward call to recompute them before a backward one.
  virtual bool attention_recomputes() const { return false; }
  /// Whether gqa_attention_forward and _backward honour
  /// AttentionConfig::key_lengths (a key padding mask).
  virtual bool attention_takes_key_lengths() const { return false; }

  //===--------------------------------------------------------------------===//
  // Fills and GEMM (row-major)
  //===--------------------------------------------------------------------===//

  virtual void fill(void *out, float value, size_t n) const = 0;
  virtual void gemm(bool trans_a, bool trans_b, int M, int N, int K,
                    float alpha, const void *A, int lda, const void *B, int ldb,
                    float beta, void *C, int ldc) const = 0;

  //===--------------------------------------------------------------------===//
  // Layers
  //===--------------------------------------------------------------------===//

  virtual void embedding_forward(void *out, const int *ids, const void *wte,
                                 int B, int T, int C, int vstart,
                                 int vlocal) const = 0;
  virtual void embedding_backward(void *dwte, const void *dout, const int *ids,
                                  int B, int T, int C, int vstart,
                                  int vlocal) const = 0;
  /// out (B,T,C) = inp + wpe[offset + t]; offset: a device i32 (null: 0).
  virtual void position_embedding_forward(void *out, const void *inp,
                                          const void *wpe, const int *offset,
                                          int B, int T, int C) const = 0;
  virtual void position_embedding_backward(void *dwpe, const void *dout, int B,
                                           int T, int C) const = 0;

  /// out (N,C) = (inp - mean) * rstd * weight + bias, rstd = 1 / sqrt(var +
  /// eps) with the biased variance, as torch.nn.LayerNorm.
  virtual void layernorm_forward(void *out, float *mean, float *rstd,
                                 const void *inp, const void *weight,
                                 const void *bias, int N, int C,
                                 float eps) const = 0;
  virtual void layernorm_backward(void *dinp, void *dweight, void *dbias,
                                  const void *dout, const void *inp,
                                  const void *weight, const float *mean,
                                  const float *rstd, int N, int C) const = 0;
  /// RMSNorm: out (N,C) = inp * rstd * weight, rstd (N) = 1/sqrt(mean(inp^2)
  /// + eps) in fp32, saved for the backward call; weight (C) of the storage
  /// type, as layernorm's.
  virtual void rmsnorm_forward(void *out, float *rstd, const void *inp,
                               const void *weight, int N, int C,
                               float eps) const = 0;
  virtual void rmsnorm_backward(void *dinp, void *dweight, const void *dout,
                                const void *inp, const void *weight,
                                const float *rstd, int N, int C) const = 0;

  /// transposed: weight (OC,C) instead of (C,OC).
  virtual void matmul_forward(void *out, const void *inp, const void *weight,
                              const void *bias, int N, int C, int OC,
                              bool transposed) const = 0;
  /// dinp, dweight and dbias (null ones skipped) get the gradients added
  /// when `accumulate`, else written: their old contents are not read.
  virtual void matmul_backward(void *dinp, void *dweight, void *dbias,
                               const void *dout, const void *inp,
                               const void *weight, int N, int C, int OC,
                               bool transposed, bool accumulate) const = 0;

  virtual void gelu_forward(void *out, const void *inp, size_t n) const = 0;
  /// dinp gets dout * gelu'(inp) added when `accumulate`, else written
  /// (its old contents are not read).
  virtual void gelu_backward(void *dinp, const void *inp, const void *dout,
                             size_t n, bool accumulate) const = 0;
  /// The exact GELU x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))) (BERT's) and
  /// its gradient, as gelu_forward and gelu_backward.
  virtual void gelu_exact_forward(void *out, const void *inp,
                                  size_t n) const = 0;
  virtual void gelu_exact_backward(void *dinp, const void *inp,
                                   const void *dout, size_t n,
                                   bool accumulate) const = 0;
  /// out = tanh(inp).
  virtual void tanh_forward(void *out, const void *inp, size_t n) const = 0;
  /// dinp gets dout * (1 - out^2) added when `accumulate`, else written;
  /// `out` is tanh_forward's result (the derivative is taken from it).
  virtual void tanh_backward(void *dinp, const void *out, const void *dout,
                             size_t n, bool accumulate) const = 0;
  /// out (n) = silu(gate) * up; backward: dgate += dout * up * silu'(gate),
  /// dup += dout * silu(gate).
  virtual void swiglu_forward(void *out, const void *gate, const void *up,
                              size_t n) const = 0;
  virtual void swiglu_backward(void *dgate, void *dup, const void *dout,
                               const void *gate, const void *up,
                               size_t n) const = 0;
  virtual void residual_forward(void *out, const void *a, const void *b,
                                size_t n) const = 0;
  /// out (n elements of `to`, a floating-point type) = inp, rounded to the
  /// nearest `to` value, ties to even; beyond f16's range: infinity.
  virtual void cast(void *out, ElementType to, const void *inp,
                    size_t n) const = 0;
  virtual void scale_forward(void *out, const void *inp, float s,
                             size_t n) const = 0;
  /// xs, dxs: host arrays of k device pointers; alpha, dalpha: device (k).
  virtual void weighted_sum_forward(void *out, const void *const *xs,
                                    const void *alpha, int k,
                                    size_t n) const = 0;
  virtual void weighted_sum_backward(void *const *dxs, void *dalpha,
                                     const void *dout, const void *const *xs,
                                     const void *alpha, int k,
                                     size_t n) const = 0;
  virtual void dropout_forward(void *out, const void *inp, size_t n,
                               const DropoutParams &d,
                               const GlobalIndexMap &map) const = 0;

  /// att: fp32 probabilities (B,NH,T,T), saved for the backward call.
  /// Where attention_recomputes(), att may be null in forward and backward
  /// calls alike: nothing is saved, and the backward call recomputes the
  /// probabilities from its operands block by block, as the forward did.
  virtual void attention_forward(void *out, float *att, const void *qkv,
                                 const AttentionConfig &cfg) const = 0;
  virtual void attention_backward(void *dqkv, const void *dout, const void *qkv,
                                  const float *att,
                                  const AttentionConfig &cfg) const = 0;
  virtual void cross_attention_forward(void *out, float *att, const void *q,
                                       const void *kv,
                                       const AttentionConfig &cfg) const = 0;
  virtual void cross_attention_backward(void *dq, void *dkv, const void *dout,
                                        const void *q, const void *kv,
                                        const float *att,
                                        const AttentionConfig &cfg) const = 0;
  /// kcache, vcache (B,capacity,C): the op's KV cache; pos: a device i32.
  virtual void decode_attention_forward(void *out, void *kcache, void *vcache,
                                        const void *qkv, const int *pos,
                                        int capacity,
                                        const AttentionConfig &cfg) const = 0;
  /// `lagged`: kv is position *pos - 1's, written before the attention
  /// over [0, *pos) instead of at *pos after it.
  virtual void decode_cross_attention_forward(void *out, void *kcache,
                                              void *vcache, const void *q,
                                              const void *kv, const int *pos,
                                              int capacity,
                                              const AttentionConfig &cfg,
                                              bool lagged) const = 0;
  /// Grouped-query attention with optional RoPE (cfg.KVH, cfg.rope): q
  /// (B,T,C), k, v (B,T,cfg.C_kv()); out (B,T,C); att (B,NH,T,T) as
  /// attention_forward's.
  virtual void gqa_attention_forward(void *out, float *att, const void *q,
                                     const void *k, const void *v,
                                     const AttentionConfig &cfg) const = 0;
  virtual void gqa_attention_backward(void *dq, void *dk, void *dv,
                                      const void *dout, const void *q,
                                      const void *k, const void *v,
                                      const float *att,
                                      const AttentionConfig &cfg) const = 0;
  /// q (B,1,C), k, v (B,1,C_kv) of position *pos (a device i32); kcache,
  /// vcache (B,capacity,C_kv) hold the rotated keys and the values.
  virtual void
  decode_gqa_attention_forward(void *out, void *kcache, void *vcache,
                               const void *q, const void *k, const void *v,
                               const int *pos, int capacity,
                               const AttentionConfig &cfg) const = 0;

  //===--------------------------------------------------------------------===//
  // Losses. totals is a device float[2] that gets += {loss sum, target
  // count}; dloss is the device adjoint of the loss sum.
  //===--------------------------------------------------------------------===//

  /// `stats` (2N floats, may be null) is the backend's to fill with what
  /// the backward of the same logits and targets would otherwise recompute
  /// (the rows' maxima and sums of exponentials); that backward is then
  /// given it.
  virtual void crossentropy_forward(float *losses, float *totals,
                                    const void *logits, const int *targets,
                                    int N, int V, int Vp, int ignore_index,
                                    float *stats) const = 0;
  /// `stats`: the forward's, on the same logits and targets, or null.
  virtual void crossentropy_backward(void *dlogits, const void *logits,
                                     const int *targets, int N, int V, int Vp,
                                     const float *dloss, int ignore_index,
                                     const float *stats) const = 0;
  virtual void vocab_parallel_ce_max(float *row_max, const void *logits, int N,
                                     int Vl, int vstart, int V) const = 0;
  virtual void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                        const void *logits, const int *targets,
                                        const float *row_max, int N, int Vl,
                                        int vstart, int V,
                                        int ignore_index) const = 0;
  virtual void vocab_parallel_ce_loss(float *losses, float *totals,
                                      const float *sumexp,
                                      const float *target_logit,
                                      const float *row_max, const int *targets,
                                      int N, int ignore_index) const = 0;
  virtual void vocab_parallel_ce_backward(void *dlogits, const void *logits,
                                          const int *targets,
                                          const float *row_max,
                                          const float *sumexp, int N, int Vl,
                                          int vstart, int V, const float *dloss,
                                          int ignore_index) const = 0;
  /// A loss entry's outputs from totals: *loss = totals[0] (f32), *count =
  /// round(totals[1]) (i32).
  virtual void loss_outputs(float *loss, int32_t *count,
                            const float *totals) const = 0;

  //===--------------------------------------------------------------------===//
  // Optimizer. Gradients are of the table's storage type (the compute type,
  // or f32 when gradients are reduced in f32); the parameter an update
  // writes is the f32 master (in an f32 program, the parameter itself), and
  // moments and momentum are f32. A working copy of a master is refreshed
  // with the f32 table's cast.
  //===--------------------------------------------------------------------===//

  /// grad += x (storage type); grad is of `grad_type`, the table's storage
  /// type or f32.
  virtual void accumulate(void *grad, ElementType grad_type, const void *x,
                          size_t n) const = 0;
  /// *out += sum of x[i]^2 (x of the storage type), accumulated in f32.
  virtual void sum_of_squares(float *out, const void *x, size_t n) const = 0;
  /// norm = inv_count * sqrt(sum_sq); scale = inv_count * min(1, max_norm /
  /// (norm + 1e-6)) when max_norm > 0, else inv_count. When norm is not
  /// finite (a gradient overflowed), scale is NaN and the updates skip.
  virtual void grad_norm(float *norm, float *scale, const float *sum_sq,
                         const float *inv_count, float max_norm) const = 0;
  /// AdamWParams' lr, step and grad_scale come from `s`; each updated
  /// param is also rounded into `working` when it has data. A grad_scale
  /// that is not finite leaves param, m and v untouched (a skipped step), and
  /// working holding param's rounding as before.
  virtual void adamw_update(float *param, const void *grad, float *m, float *v,
                            size_t n, const AdamWParams &p,
                            const OptimizerScalars &s,
                            const WorkingCopy &working) const = 0;
  /// SgdParams' lr and grad_scale come from `s`; momentum_buf may be null
  /// when p.momentum is 0; `working` as for adamw_update. A grad_scale that
  /// is not finite leaves param and momentum_buf untouched.
  virtual void sgd_update(float *param, const void *grad, float *momentum_buf,
                          size_t n, const SgdParams &p,
                          const OptimizerScalars &s,
                          const WorkingCopy &working) const = 0;
};

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_KERNELS_H
