//===- Kernels.h - CPU kernels ----------------------------------*- C++ -*-===//
//
// Plain functions in the style of llm.c: each layer is an x_forward /
// x_backward pair with the tensor shapes written above it. Backward kernels
// ACCUMULATE into their d-buffers (a parameter used twice, like the tied
// embedding, just gets two contributions); any gradient pointer may be null
// when that gradient is not needed. The loss kernels are the exception: they
// start the backward pass and WRITE dlogits.
//
// Rows are B*T tokens, so most kernels take N = B*T. All run on OpenMP
// threads; the GEMMs call OpenBLAS.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_KERNELS_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_KERNELS_H

#include "runtime/backend/KernelTypes.h"
#include "runtime/backends/cpu/kernels/Storage.h"
#include "runtime/util/GlobalIndex.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tpc::cpu {

//===----------------------------------------------------------------------===//
// Embedding (Embedding.cpp)
//===----------------------------------------------------------------------===//

// out (B,T,C) = wte[ids]; ids (B,T); wte (vlocal,C) holds global rows
// [vstart, vstart+vlocal). Ids this rank does not own give zero rows
// (vocab-parallel embedding; the caller all-reduces). Unsplit: vstart = 0,
// vlocal = V.
// Of storage type S: the rows are copied as they are.
template <class S = F32Storage>
void embedding_forward(typename S::type *out, const int *ids,
                       const typename S::type *wte, int B, int T, int C,
                       int vstart, int vlocal);
// dwte (vlocal,C) += scatter of dout (B,T,C) by owned ids, of storage type
// S; a 16-bit row is summed in fp32 and rounded once.
template <class S = F32Storage>
void embedding_backward(typename S::type *dwte, const typename S::type *dout,
                        const int *ids, int B, int T, int C, int vstart,
                        int vlocal);

// out (B,T,C) = inp (B,T,C) + wpe[t] with wpe (>=T,C); out may alias inp.
void position_embedding_forward(float *out, const float *inp, const float *wpe,
                                int B, int T, int C);
// dwpe (T,C) += sum over b of dout (B,T,C). dinp is the identity: the caller
// passes dout on.
void position_embedding_backward(float *dwpe, const float *dout, int B, int T,
                                 int C);

//===----------------------------------------------------------------------===//
// LayerNorm (LayerNorm.cpp)
//===----------------------------------------------------------------------===//

/// GPT-2's and torch.nn.LayerNorm's default epsilon.
constexpr float kLayerNormEps = 1e-5f;

// The rows below (inp, out and their gradients) are of storage type S (f32,
// bf16 or f16); weights, their gradients and the statistics are fp32.

// out (N,C) = (inp - mean) * rstd * weight + bias; weight, bias (C);
// saves mean (N), rstd (N) for backward.
template <class S = F32Storage>
void layernorm_forward(typename S::type *out, float *mean, float *rstd,
                       const typename S::type *inp, const float *weight,
                       const float *bias, int N, int C,
                       float eps = kLayerNormEps);
template <class S = F32Storage>
void layernorm_backward(typename S::type *dinp, float *dweight, float *dbias,
                        const typename S::type *dout,
                        const typename S::type *inp, const float *weight,
                        const float *mean, const float *rstd, int N, int C);

// RMSNorm (Llama): out (N,C) = inp * rstd * weight with rstd[n] =
// 1/sqrt(mean over c of inp^2 + eps), in fp32; weight (C). Saves rstd (N)
// for backward.
template <class S = F32Storage>
void rmsnorm_forward(typename S::type *out, float *rstd,
                     const typename S::type *inp, const float *weight, int N,
                     int C, float eps);
template <class S = F32Storage>
void rmsnorm_backward(typename S::type *dinp, float *dweight,
                      const typename S::type *dout, const typename S::type *inp,
                      const float *weight, const float *rstd, int N, int C);

//===----------------------------------------------------------------------===//
// Matmul (Matmul.cpp)
//===----------------------------------------------------------------------===//

// Row-major C (M,N) = alpha * op(A) (M,K) * op(B) (K,N) + beta * C.
void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
          const float *A, int lda, const float *B, int ldb, float beta,
          float *C, int ldc);
// `batch` independent gemms; operand i starts at X + i * stride_x.
void gemm_strided_batched(bool trans_a, bool trans_b, int M, int N, int K,
                          float alpha, const float *A, int lda,
                          int64_t stride_a, const float *B, int ldb,
                          int64_t stride_b, float beta, float *C, int ldc,
                          int64_t stride_c, int batch);

// out (N,OC) = inp (N,C) . weight (C,OC) + bias (OC); bias may be null.
void matmul_forward(float *out, const float *inp, const float *weight,
                    const float *bias, int N, int C, int OC);
// dinp and dweight accumulate, or are written when not `accumulate` (their
// GEMMs' beta 0: nothing is read); dbias accumulates. Null ones are skipped.
void matmul_backward(float *dinp, float *dweight, float *dbias,
                     const float *dout, const float *inp, const float *weight,
                     int N, int C, int OC, bool accumulate = true);

// out (N,OC) = inp (N,C) . weight^T with weight (OC,C) (the tied output
// layer: weight is wte); bias may be null.
void matmul_nt_forward(float *out, const float *inp, const float *weight,
                       const float *bias, int N, int C, int OC);
void matmul_nt_backward(float *dinp, float *dweight, float *dbias,
                        const float *dout, const float *inp,
                        const float *weight, int N, int C, int OC,
                        bool accumulate = true);

// Whether OpenBLAS runs AVX-512 kernels on this CPU (its SkylakeX,
// Cooperlake or SapphireRapids cores, as picked at load time or pinned by
// OPENBLAS_CORETYPE), and "OpenBLAS 0.3.21 (SkylakeX kernels)".
bool openblas_runs_avx512();
std::string openblas_library();

//===----------------------------------------------------------------------===//
// Activation (Activation.cpp)
//===----------------------------------------------------------------------===//

// Of storage type S (f32, bf16 or f16); each result is
// rounded once.

// out (n) = gelu(inp), tanh approximation as in GPT-2.
template <class S = F32Storage>
void gelu_forward(typename S::type *out, const typename S::type *inp, size_t n);
// dinp (n) += dout * gelu'(inp), or = when not `accumulate`.
template <class S = F32Storage>
void gelu_backward(typename S::type *dinp, const typename S::type *inp,
                   const typename S::type *dout, size_t n,
                   bool accumulate = true);
// The exact GELU (BERT's): out (n) = inp * Phi(inp), and its gradient
// dinp (n) += dout * (Phi(inp) + inp * phi(inp)), or = when not `accumulate`.
template <class S = F32Storage>
void gelu_exact_forward(typename S::type *out, const typename S::type *inp,
                        size_t n);
template <class S = F32Storage>
void gelu_exact_backward(typename S::type *dinp, const typename S::type *inp,
                         const typename S::type *dout, size_t n,
                         bool accumulate = true);
// out (n) = tanh(inp), exactly 1 or -1 far from zero; its gradient from
// that `out`: dinp (n) += dout * (1 - out^2), or = when not `accumulate`.
template <class S = F32Storage>
void tanh_forward(typename S::type *out, const typename S::type *inp, size_t n);
template <class S = F32Storage>
void tanh_backward(typename S::type *dinp, const typename S::type *out,
                   const typename S::type *dout, size_t n,
                   bool accumulate = true);

// SwiGLU (Llama's MLP): out (n) = silu(gate) * up, silu(x) = x * sigmoid(x).
// Finite for any finite input: the sigmoid never forms e^|x|.
template <class S = F32Storage>
void swiglu_forward(typename S::type *out, const typename S::type *gate,
                    const typename S::type *up, size_t n);
// dgate += dout * up * silu'(gate); dup += dout * silu(gate).
template <class S = F32Storage>
void swiglu_backward(typename S::type *dgate, typename S::type *dup,
                     const typename S::type *dout, const typename S::type *gate,
                     const typename S::type *up, size_t n);

//===----------------------------------------------------------------------===//
// Elementwise (Elementwise.cpp)
//===----------------------------------------------------------------------===//

// out (n) = a + b of storage type S (f32, bf16 or f16); out may alias
// either input.
template <class S = F32Storage>
void residual_forward(typename S::type *out, const typename S::type *a,
                      const typename S::type *b, size_t n);
void residual_backward(float *da, float *db, const float *dout, size_t n);

// out (n) = s * inp.
void scale_forward(float *out, const float *inp, float s, size_t n);
void scale_backward(float *dinp, const float *dout, float s, size_t n);

// out (n) = sum_i alpha[i] * xs[i] for i < k (StagFormer's combination of
// stack outputs).
void weighted_sum_forward(float *out, const float *const *xs,
                          const float *alpha, int k, size_t n);
// dxs[i] += alpha[i] * dout; dalpha[i] += <dout, xs[i]>.
void weighted_sum_backward(float *const *dxs, float *dalpha, const float *dout,
                           const float *const *xs, const float *alpha, int k,
                           size_t n);

//===----------------------------------------------------------------------===//
// Dropout (Dropout.cpp)
//===----------------------------------------------------------------------===//

// out (n) = inp * keep / (1-p). Element i uses global index map(i), so a
// duplicated op draws the same mask on every rank and a split op draws the
// mask of its global slice. mask (n, may be null) saves keep as 0/1.
void dropout_forward(float *out, uint8_t *mask, const float *inp, size_t n,
                     const DropoutParams &d,
                     const GlobalIndexMap &map = GlobalIndexMap());
// dinp += dout * keep / (1-p); keep comes from mask or is drawn again.
void dropout_backward(float *dinp, const uint8_t *mask, const float *dout,
                      size_t n, const DropoutParams &d,
                      const GlobalIndexMap &map = GlobalIndexMap());

//===----------------------------------------------------------------------===//
// Attention (Attention.cpp; decoding AttentionDecode.cpp; RoPE Rope.cpp)
//===----------------------------------------------------------------------===//

// Self-attention. qkv (B,T,3C) is [q | k | v], each C = NH*HS with head h at
// columns [h*HS, (h+1)*HS). out (B,T,C); att (B,NH,T,T) saves the softmax
// probabilities (before dropout; zero where masked) for backward, or is
// null: nothing is saved, and the backward call, given a null att too,
// recomputes each block of probabilities from q and k as it goes (the
// forward's bits: the same loops). The same holds for every att below.
// Probability dropout is keyed by the global head, so tp ranks owning
// different heads draw different masks and tp=1 draws the same ones.
// The fused and cross-attention kernels are multi-head: they throw
// std::invalid_argument for cfg.KVH other than 0 or NH (the gqa_ kernels
// below take grouped heads). With cfg.rope.theta > 0 every kernel here
// rotates q and k by their positions first, as gqa_attention_forward says;
// decoding rotates at pos and caches rotated keys.
void attention_forward(float *out, float *att, const float *qkv,
                       const AttentionConfig &cfg);
// dqkv (B,T,3C) += gradient.
void attention_backward(float *dqkv, const float *dout, const float *qkv,
                        const float *att, const AttentionConfig &cfg);

// Cross-attention (StagFormer): q (B,T,C), kv (B,T,2C) = [k | v]. Query t
// sees keys s < t (s >= t - window with a window); query 0 sees none and
// outputs zeros. cfg.mask is ignored (always StrictlyEarlier). With RoPE,
// query t and key s turn by their own positions t and s.
void cross_attention_forward(float *out, float *att, const float *q,
                             const float *kv, const AttentionConfig &cfg);
void cross_attention_backward(float *dq, float *dkv, const float *dout,
                              const float *q, const float *kv, const float *att,
                              const AttentionConfig &cfg);

// The kernels above and gqa_ below on tensors of storage type S (bf16,
// f16; F32Storage is the functions above): the results are bit for bit
// those of the fp32 kernels on widened copies, rounded once, without the
// copies: each (sequence, head) is widened and rounded back by the task
// that owns it. Without RoPE only: with cfg.rope.theta > 0 they throw
// std::invalid_argument for 16-bit tensors (rotate fp32 copies instead).
template <class S>
void attention_forward(typename S::type *out, float *att,
                       const typename S::type *qkv, const AttentionConfig &cfg);
template <class S>
void attention_backward(typename S::type *dqkv, const typename S::type *dout,
                        const typename S::type *qkv, const float *att,
                        const AttentionConfig &cfg);
template <class S>
void cross_attention_forward(typename S::type *out, float *att,
                             const typename S::type *q,
                             const typename S::type *kv,
                             const AttentionConfig &cfg);
template <class S>
void cross_attention_backward(typename S::type *dq, typename S::type *dkv,
                              const typename S::type *dout,
                              const typename S::type *q,
                              const typename S::type *kv, const float *att,
                              const AttentionConfig &cfg);
template <class S>
void gqa_attention_forward(typename S::type *out, float *att,
                           const typename S::type *q, const typename S::type *k,
                           const typename S::type *v,
                           const AttentionConfig &cfg);
template <class S>
void gqa_attention_backward(typename S::type *dq, typename S::type *dk,
                            typename S::type *dv, const typename S::type *dout,
                            const typename S::type *q,
                            const typename S::type *k,
                            const typename S::type *v, const float *att,
                            const AttentionConfig &cfg);

// Decoding, one position per call (cfg.T is ignored). kcache and vcache
// (B,P,C), P = capacity, hold the keys and values of positions [0, pos)
// written by earlier calls; 0 <= pos < P. The caches are of storage type
// S: a row is rounded once as it is written, and the attention reads only
// the rows [lo, pos] it uses, whatever the capacity.
// Self-attention: qkv (B,1,3C); writes k and v at pos, then out (B,1,C)
// attends to [0, pos] ([pos-window+1, pos] with a window), as
// attention_forward's causal mask does at query pos.
template <class S = F32Storage>
void decode_attention_forward(float *out, typename S::type *kcache,
                              typename S::type *vcache, const float *qkv,
                              int pos, int capacity,
                              const AttentionConfig &cfg);
// Cross-attention: q (B,1,C), kv (B,1,2C); out (B,1,C) attends to [0, pos)
// ([pos-window, pos)), zeros at pos 0, then k and v are written at pos.
// `lagged`: kv belongs to position pos - 1 and is written there first
// (nothing at pos 0), so that the attention includes it.
template <class S = F32Storage>
void decode_cross_attention_forward(float *out, typename S::type *kcache,
                                    typename S::type *vcache, const float *q,
                                    const float *kv, int pos, int capacity,
                                    const AttentionConfig &cfg,
                                    bool lagged = false);

// Grouped-query self-attention (Llama) on separate q (B,T,C), k and v
// (B,T,Ckv), Ckv = KVH*HS (cfg.C_kv()); query head h reads KV head
// h / (NH/KVH). KVH = NH is multi-head attention and gives
// attention_forward's result on the fused [q | k | v]. Masks, window,
// dropout (keyed by the global query head) and att (B,NH,T,T) as
// attention_forward; StrictlyEarlier is refused.
// With cfg.rope.theta > 0, q and k are rotated first: position t, pair
// i < R/2 (R = rope.dims, or HS) turns by t * theta^(-2i/R), x[i] and
// x[i+R/2] as Hugging Face's rotate_half does; dimensions [R, HS) are left
// as they are. cos and sin are computed in double and rounded to float.
void gqa_attention_forward(float *out, float *att, const float *q,
                           const float *k, const float *v,
                           const AttentionConfig &cfg);
// dq (B,T,C), dk, dv (B,T,Ckv) += gradient (any may be null). The query
// heads of a group add to their KV head's dk and dv in order, so the result
// does not depend on the thread count.
void gqa_attention_backward(float *dq, float *dk, float *dv, const float *dout,
                            const float *q, const float *k, const float *v,
                            const float *att, const AttentionConfig &cfg);
// Decoding: q (B,1,C), k, v (B,1,Ckv) of position pos; kcache, vcache
// (B,P,Ckv), P = capacity. Rotates q and k at pos (with rope), writes the
// rotated k and v at pos, then attends to [0, pos] ([pos-window+1, pos]):
// bit for bit gqa_attention_forward's causal row pos.
template <class S = F32Storage>
void decode_gqa_attention_forward(float *out, typename S::type *kcache,
                                  typename S::type *vcache, const float *q,
                                  const float *k, const float *v, int pos,
                                  int capacity, const AttentionConfig &cfg);

//===----------------------------------------------------------------------===//
// Loss (Loss.cpp)
//===----------------------------------------------------------------------===//

constexpr int kIgnoreIndex = -1;

// Logits and their gradients below are of storage type S (f32, bf16 or
// f16); sums and statistics are fp32, each gradient
// element is rounded once.

// logits (N,Vp) with padded columns [V, Vp) excluded; targets (N) in [0,V)
// or ignore_index. Returns the loss SUM and the target COUNT; losses (N, may
// be null) gets per-row losses (0 for ignored rows); stats (2N, may be null)
// gets each counted row's max and sum of exponentials, for the backward.
// Throws std::invalid_argument for a target outside [0,V).
template <class S = F32Storage>
LossSum crossentropy_forward(float *losses, const typename S::type *logits,
                             const int *targets, int N, int V, int Vp,
                             int ignore_index = kIgnoreIndex,
                             float *stats = nullptr);
// dlogits (N,Vp) = (softmax - onehot) * scale (scale is d(objective)/d(loss
// sum), e.g. 1/global_count); zero for ignored rows and padding. Writes.
// With the forward's stats it reads them instead of recomputing them.
template <class S = F32Storage>
void crossentropy_backward(typename S::type *dlogits,
                           const typename S::type *logits, const int *targets,
                           int N, int V, int Vp, float scale,
                           int ignore_index = kIgnoreIndex,
                           const float *stats = nullptr);

// Vocab-parallel cross-entropy (Megatron): this rank holds logits (N,Vl) for
// global columns [vstart, vstart+Vl); columns >= V are padding. Only N values
// per phase cross ranks:
//   1. local row max          -> caller all-reduces MAX
//   2. local sum of exp(l - max) and the target logit (0 if not owned)
//                             -> caller all-reduces SUM of both
//   3. loss sum and count from the reduced values.
template <class S = F32Storage>
void vocab_parallel_ce_max(float *row_max, const typename S::type *logits,
                           int N, int Vl, int vstart, int V);
template <class S = F32Storage>
void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                              const typename S::type *logits,
                              const int *targets, const float *row_max, int N,
                              int Vl, int vstart, int V,
                              int ignore_index = kIgnoreIndex);
LossSum vocab_parallel_ce_loss(float *losses, const float *sumexp,
                               const float *target_logit, const float *row_max,
                               const int *targets, int N,
                               int ignore_index = kIgnoreIndex);
// dlogits (N,Vl) = (softmax - onehot) * scale from the global max and
// sumexp. Writes.
template <class S = F32Storage>
void vocab_parallel_ce_backward(typename S::type *dlogits,
                                const typename S::type *logits,
                                const int *targets, const float *row_max,
                                const float *sumexp, int N, int Vl, int vstart,
                                int V, float scale,
                                int ignore_index = kIgnoreIndex);

//===----------------------------------------------------------------------===//
// Optimizer (Optimizer.cpp)
//===----------------------------------------------------------------------===//

// The gradients below are of storage type S (f32, bf16 or f16), read as
// fp32 where they are used.

// param, grad, m, v (n). AdamW with decoupled weight decay and bias
// correction; the gradient is multiplied by p.grad_scale first. Each new
// param is also rounded into `working` (n, working.type) when it has data.
template <class S = F32Storage>
void adamw_update(float *param, const typename S::type *grad, float *m,
                  float *v, size_t n, const AdamWParams &p,
                  const WorkingCopy &working = {});
// SGD with optional momentum (momentum_buf may be null when p.momentum = 0)
// and L2 weight decay, as torch.optim.SGD with dampening 0; `working` as for
// adamw_update.
template <class S = F32Storage>
void sgd_update(float *param, const typename S::type *grad, float *momentum_buf,
                size_t n, const SgdParams &p, const WorkingCopy &working = {});
// sum of x[i]^2 in double: a rank's part of the global gradient norm.
template <class S = F32Storage>
double sum_of_squares(const typename S::type *x, size_t n);

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_KERNELS_H
