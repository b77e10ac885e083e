//===- Attention.cpp - Self-, cross- and grouped-query attention ----------===//
//
// One implementation serves all three: self-attention reads q, k and v from
// the fused qkv (B,T,3C); cross-attention reads q (B,T,C) and k, v from kv
// (B,T,2C); grouped-query attention reads q (B,T,C) and k, v (B,T,KVH*HS),
// where a group of NH/KVH query heads shares one KV head. Each rotates q and
// k first when RoPE is on. Only the rows' strides, the KV head each query
// head reads and the mask differ. The softmax runs in fp32; probabilities
// are saved (B,NH,T,T) for backward, or, without a tensor to save them in,
// recomputed by the backward a block of query rows at a time; dropout masks
// are drawn again from their keys. bf16 and f16 tensors are read and
// written as stored, one (sequence, head) at a time (head views, below),
// except with RoPE, whose rotation runs on fp32 copies the backend makes.
// The vector loops are AttentionTiles.h's and the rotation Rope.h's;
// decoding is AttentionDecode.cpp's.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/AttentionTiles.h"
#include "runtime/backends/cpu/kernels/Dropout.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/Rope.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tpc::cpu {
namespace {

using namespace attn;

/// Keys [lo, hi) that query t sees.
void key_range(AttentionMask mask, int window, int T, int t, int &lo, int &hi) {
  switch (mask) {
  case AttentionMask::Causal:
    lo = window > 0 ? std::max(0, t - window + 1) : 0;
    hi = t + 1;
    return;
  case AttentionMask::Bidirectional:
    lo = window > 0 ? std::max(0, t - window + 1) : 0;
    hi = window > 0 ? std::min(T, t + window) : T;
    return;
  case AttentionMask::StrictlyEarlier:
    lo = window > 0 ? std::max(0, t - window) : 0;
    hi = t;
    return;
  }
}

/// Global index of probability (b, h, t, 0) for dropout: the same for a
/// sequence and head whichever rank computes it.
uint64_t dropout_row_base(const AttentionConfig &cfg, int b, int h, int t) {
  uint64_t gh = uint64_t(cfg.global_heads());
  uint64_t gb = uint64_t(cfg.batch_offset) + uint64_t(b);
  return ((gb * gh + uint64_t(cfg.head_offset + h)) * cfg.T + t) *
         uint64_t(cfg.T);
}

//===----------------------------------------------------------------------===//
// Head views
//
// The blocked loops below see one (sequence, head) at a time, through views
// whose row t is base + t * stride. In fp32 a view points into the tensor;
// for 16-bit tensors the task that owns a (sequence, head) widens its rows
// into per-thread buffers, exactly, and rounds its results back once when
// it is done: the same bits as the fp32 loops on widened copies of the
// whole tensors, with the data in the cache and no whole-tensor passes.
//===----------------------------------------------------------------------===//

/// Per-thread buffers of n floats for head views, kept between calls;
/// apart from scratch(), block_scratch() and operand_buffer().
float *stage_buffer(int slot, size_t n) {
  thread_local std::vector<float> buf[6];
  if (buf[slot].size() < n)
    buf[slot].resize(n);
  return buf[slot].data();
}

template <class S>
TPC_ALWAYS_INLINE void widen_row(float *dst, const typename S::type *src,
                                 int n) {
#pragma omp simd
  for (int i = 0; i < n; ++i)
    dst[i] = S::load(src[i]);
}

/// Sequence b, head h of x as a view: x's own rows in fp32, otherwise its T
/// rows widened into stage buffer `slot`. A null x gives a null view.
template <class S>
TPC_ALWAYS_INLINE Rows head_in(TypedRows<S> x, int b, int h,
                               const AttentionConfig &cfg, int slot) {
  const int T = cfg.T, HS = cfg.HS;
  if (!x.base)
    return {nullptr, 0};
  const auto *src = x.base + size_t(b) * T * x.stride + size_t(h) * HS;
  if constexpr (kIsF32<S>) {
    return {src, x.stride};
  } else {
    float *buf = stage_buffer(slot, size_t(T) * HS);
    for (int t = 0; t < T; ++t)
      widen_row<S>(buf + size_t(t) * HS, src + size_t(t) * x.stride, HS);
    return {buf, size_t(HS)};
  }
}

/// The same for a result; `load`: the loops add to it, so a widened view
/// starts from its values (an fp32 one is the tensor itself).
template <class S>
TPC_ALWAYS_INLINE MutRows head_out(MutTypedRows<S> x, int b, int h,
                                   const AttentionConfig &cfg, int slot,
                                   bool load) {
  const int T = cfg.T, HS = cfg.HS;
  if (!x.base)
    return {nullptr, 0};
  auto *dst = x.base + size_t(b) * T * x.stride + size_t(h) * HS;
  if constexpr (kIsF32<S>) {
    return {dst, x.stride};
  } else {
    float *buf = stage_buffer(slot, size_t(T) * HS);
    for (int t = 0; t < T && load; ++t)
      widen_row<S>(buf + size_t(t) * HS, dst + size_t(t) * x.stride, HS);
    return {buf, size_t(HS)};
  }
}

/// Rounds a widened view back into sequence b, head h of x (nothing to do
/// in fp32).
template <class S>
TPC_ALWAYS_INLINE void head_store(MutTypedRows<S> x, MutRows view, int b, int h,
                                  const AttentionConfig &cfg) {
  if constexpr (!kIsF32<S>) {
    const int T = cfg.T, HS = cfg.HS;
    if (!x.base)
      return;
    auto *dst = x.base + size_t(b) * T * x.stride + size_t(h) * HS;
    for (int t = 0; t < T; ++t) {
      const float *src = view.base + size_t(t) * HS;
      auto *row = dst + size_t(t) * x.stride;
#pragma omp simd
      for (int i = 0; i < HS; ++i)
        row[i] = S::store(src[i]);
    }
  }
}

/// Per-thread buffers of a block: n floats in each of f[0] to f[3], n
/// bytes in mask; kept between calls.
struct BlockScratch {
  std::vector<float> f[4];
  std::vector<uint8_t> mask;
};
BlockScratch &block_scratch(size_t n) {
  thread_local BlockScratch s;
  for (auto &v : s.f)
    if (v.size() < n)
      v.resize(n);
  if (s.mask.size() < n)
    s.mask.resize(n);
  return s;
}

/// The keys of sequence b that are not padding: [0, key_lengths[b]).
int real_keys(const AttentionConfig &cfg, int b) {
  if (!cfg.key_lengths)
    return cfg.T;
  return std::clamp(cfg.key_lengths[b], 0, cfg.T);
}

/// Rows [t0, t0 + R) of one (sequence, query head): their key ranges (below
/// `keys`, the sequence's real keys), the union [slo, shi) of them, and
/// their row pointers into a (B,T,stride) operand.
template <int R> struct QueryBlock {
  int lo[R] = {}, hi[R] = {};
  int slo = 0, shi = 0;
  QueryBlock(AttentionMask mask, int window, int T, int t0, int keys) {
    slo = T;
    for (int r = 0; r < R; ++r) {
      key_range(mask, window, T, t0 + r, lo[r], hi[r]);
      hi[r] = std::min(hi[r], keys);
      if (lo[r] < hi[r]) {
        slo = std::min(slo, lo[r]);
        shi = std::max(shi, hi[r]);
      }
    }
    if (shi <= slo)
      slo = shi = 0;
  }
  Terms terms(const uint8_t *use = nullptr, size_t ldu = 0) const {
    return Terms{lo, hi, use, ldu};
  }
};

/// Rows [t0, t0 + R) of a head view.
template <int R> void head_rows(const float *rows[R], Rows x, int t0) {
  for (int r = 0; r < R; ++r)
    rows[r] = x.base + size_t(t0 + r) * x.stride;
}

/// The probabilities of a block's query rows qr: their scores against the
/// keys transposed (kt, HS x T), scaled and turned into a softmax over each
/// row's keys [lo, hi). Row r goes to arow[0] + r * T; its entries outside
/// [lo, hi) are the caller's. The forward and the backward's recomputation
/// both come here, so they agree bit for bit.
template <int W, int R>
TPC_ALWAYS_INLINE void
block_probabilities(float *const *arow, const float *const *qr, const float *kt,
                    const QueryBlock<R> &blk, int T, int HS) {
  const float scale = 1.0f / std::sqrt(float(HS));
  if (blk.shi > blk.slo)
    dot_rows<W, R>(arow[0] + blk.slo, T, qr, kt + blk.slo, transposed_ld(T),
                   blk.shi - blk.slo, HS);
  for (int r = 0; r < R; ++r)
    if (blk.lo[r] < blk.hi[r])
      softmax_scores<W>(arow[r] + blk.lo[r], blk.hi[r] - blk.lo[r], scale);
}

/// Forward rows [t0, t0 + R) of sequence b, query head h, on head views
/// of out, q and v: scores against the keys transposed (kt, HS x T),
/// softmax, the saved probabilities (when att is not null), dropout and the
/// weighted sum of values.
template <int W, int R>
TPC_ALWAYS_INLINE void block_forward(MutRows out, float *att, Rows q,
                                     const float *kt, Rows v,
                                     const AttentionConfig &cfg,
                                     AttentionMask mask, int b, int h, int t0) {
  const int T = cfg.T, NH = cfg.NH, HS = cfg.HS;
  const DropoutDraw draw(cfg.dropout);
  const QueryBlock<R> blk(mask, cfg.window, T, t0, real_keys(cfg, b));
  BlockScratch &bs = block_scratch(size_t(R) * T);
  const float *qr[R];
  head_rows<R>(qr, q, t0);
  float *arow[R], *orow[R];
  for (int r = 0; r < R; ++r) {
    arow[r] = att ? att + ((size_t(b) * NH + h) * T + t0 + r) * T
                  : bs.f[1].data() + size_t(r) * T;
    orow[r] = out.base + size_t(t0 + r) * out.stride;
    std::fill(orow[r], orow[r] + HS, 0.0f);
  }
  block_probabilities<W, R>(arow, qr, kt, blk, T, HS);
  for (int r = 0; r < R && att; ++r) {
    const int lo = blk.lo[r], hi = std::max(blk.lo[r], blk.hi[r]);
    std::fill(arow[r], arow[r] + lo, 0.0f);
    std::fill(arow[r] + hi, arow[r] + T, 0.0f);
  }
  if (blk.shi <= blk.slo)
    return;
  if (!draw.enabled()) {
    accumulate_rows<W, R>(orow, arow, blk.terms(), v.base, v.stride, blk.slo,
                          blk.shi, HS);
    return;
  }
  // With dropout, kept probabilities scaled and a mask of the kept.
  const float *pe[R];
  for (int r = 0; r < R; ++r) {
    float *p = bs.f[0].data() + size_t(r) * T;
    uint8_t *keep = bs.mask.data() + size_t(r) * T;
    const uint64_t base = dropout_row_base(cfg, b, h, t0 + r);
    for (int s = blk.lo[r]; s < blk.hi[r]; ++s) {
      keep[s] = draw.keep(base + s);
      p[s] = arow[r][s] * draw.scale;
    }
    pe[r] = p;
  }
  accumulate_rows<W, R>(orow, pe, blk.terms(bs.mask.data(), size_t(T)), v.base,
                        v.stride, blk.slo, blk.shi, HS);
}

/// Sequence b, query head h (KV head kvh) of attention_core_forward: the
/// KV head's keys transposed (kt, HS x T), then the rows in blocks, on
/// views of q, v and out.
template <int W, class S>
TPC_ALWAYS_INLINE void head_forward(MutTypedRows<S> out, float *att,
                                    TypedRows<S> q, TypedRows<S> k,
                                    TypedRows<S> v, const AttentionConfig &cfg,
                                    AttentionMask mask, int b, int h) {
  const int kvh = kv_head_of(cfg, h);
  float *kt = scratch(size_t(cfg.HS) * transposed_ld(cfg.T));
  transpose_head<W>(kt, k, b, kvh, cfg.T, cfg.HS);
  const Rows qh = head_in(q, b, h, cfg, 0), vh = head_in(v, b, kvh, cfg, 1);
  const MutRows oh = head_out(out, b, h, cfg, 2, false);
  int t = 0;
  for (; t + kBlock<W> <= cfg.T; t += kBlock<W>)
    block_forward<W, kBlock<W>>(oh, att, qh, kt, vh, cfg, mask, b, h, t);
  for (; t < cfg.T; ++t)
    block_forward<W, 1>(oh, att, qh, kt, vh, cfg, mask, b, h, t);
  head_store(out, oh, b, h, cfg);
}
struct HeadForward {
  template <int W, class... A> static TPC_ALWAYS_INLINE void run(A &...a) {
    head_forward<W>(a...);
  }
};

template <class S>
void attention_core_forward(MutTypedRows<S> out, float *att, TypedRows<S> q,
                            TypedRows<S> k, TypedRows<S> v,
                            const AttentionConfig &cfg, AttentionMask mask) {
  const int B = cfg.B, NH = cfg.NH;
  // Query heads are the tasks, for parallelism when KV heads are few; a
  // group's heads each transpose the shared keys, T*HS against T*T*HS.
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      on_native_lanes<HeadForward>(out, att, q, k, v, cfg, mask, b, h);
}

/// Backward of rows [t0, t0 + R) of sequence b, query head h, on head views
/// of dq, dk, dv, dout, q and k (dq, dk, dv may be null). vt: the KV head's
/// values transposed (HS, T); kt: its keys transposed,
/// from which the block's probabilities are recomputed when att is null.
template <int W, int R>
TPC_ALWAYS_INLINE void
block_backward(MutRows dq, MutRows dk, MutRows dv, Rows dout, Rows q, Rows k,
               const float *vt, const float *kt, const float *att,
               const AttentionConfig &cfg, AttentionMask mask, int b, int h,
               int t0) {
  const int T = cfg.T, NH = cfg.NH, HS = cfg.HS;
  const float scale = 1.0f / std::sqrt(float(HS));
  const DropoutDraw draw(cfg.dropout);
  const QueryBlock<R> blk(mask, cfg.window, T, t0, real_keys(cfg, b));
  if (blk.shi <= blk.slo)
    return;
  BlockScratch &bs = block_scratch(size_t(R) * T);
  const float *go[R], *qr[R], *arow[R];
  float *datt[R], *dpre[R], *w[R], *recomputed[R];
  head_rows<R>(qr, q, t0);
  head_rows<R>(go, dout, t0);
  for (int r = 0; r < R; ++r) {
    recomputed[r] = bs.f[3].data() + size_t(r) * T;
    arow[r] =
        att ? att + ((size_t(b) * NH + h) * T + t0 + r) * T : recomputed[r];
    datt[r] = bs.f[0].data() + size_t(r) * T;
    dpre[r] = bs.f[1].data() + size_t(r) * T;
    w[r] = bs.f[2].data() + size_t(r) * T;
  }
  if (!att)
    block_probabilities<W, R>(recomputed, qr, kt, blk, T, HS);

  // Through out = sum_s drop(p_s) v_s: dp_s = dout_t . v_s.
  dot_rows<W, R>(datt[0] + blk.slo, T, go, vt + blk.slo, transposed_ld(T),
                 blk.shi - blk.slo, HS);
  uint8_t *keep = bs.mask.data();
  for (int r = 0; r < R; ++r) {
    const int lo = blk.lo[r], hi = blk.hi[r];
    if (lo >= hi)
      continue;
    const float *p = arow[r];
    float *d = datt[r];
    if (draw.enabled()) {
      const uint64_t base = dropout_row_base(cfg, b, h, t0 + r);
      for (int s = lo; s < hi; ++s) {
        keep[size_t(r) * T + s] = draw.keep(base + s);
        d[s] *= keep[size_t(r) * T + s] ? draw.scale : 0.0f;
        w[r][s] = p[s] * draw.scale;
      }
    }
    float dot_pd = 0.0f; // sum_s p_s * dp_s, for the softmax backward
#pragma omp simd reduction(+ : dot_pd)
    for (int s = lo; s < hi; ++s)
      dot_pd += p[s] * d[s];
#pragma omp simd
    for (int s = lo; s < hi; ++s)
      dpre[r][s] = p[s] * (d[s] - dot_pd) * scale;
  }
  const Terms all = blk.terms();
  if (dv.base) {
    if (draw.enabled())
      update_rows<W, R>(dv.base, dv.stride, w, blk.terms(keep, size_t(T)), go,
                        blk.slo, blk.shi, HS);
    else
      update_rows<W, R>(dv.base, dv.stride, arow, all, go, blk.slo, blk.shi,
                        HS);
  }
  // Through the softmax and the scaled dot products.
  if (dq.base) {
    float *dqr[R];
    for (int r = 0; r < R; ++r)
      dqr[r] = dq.base + size_t(t0 + r) * dq.stride;
    accumulate_rows<W, R>(dqr, dpre, all, k.base, k.stride, blk.slo, blk.shi,
                          HS);
  }
  if (dk.base)
    update_rows<W, R>(dk.base, dk.stride, dpre, all, qr, blk.slo, blk.shi, HS);
}

/// Sequence b, query head h of attention_core_backward, on head views: its
/// rows in blocks, in order. vt, kt: the KV head's values and keys
/// transposed (HS, T); kt is read only when att is null.
template <int W>
TPC_ALWAYS_INLINE void
head_backward(MutRows dq, MutRows dk, MutRows dv, Rows dout, Rows q, Rows k,
              const float *vt, const float *kt, const float *att,
              const AttentionConfig &cfg, AttentionMask mask, int b, int h) {
  int t = 0;
  for (; t + kBlock<W> <= cfg.T; t += kBlock<W>)
    block_backward<W, kBlock<W>>(dq, dk, dv, dout, q, k, vt, kt, att, cfg, mask,
                                 b, h, t);
  for (; t < cfg.T; ++t)
    block_backward<W, 1>(dq, dk, dv, dout, q, k, vt, kt, att, cfg, mask, b, h,
                         t);
}

/// Sequence b, KV head kvh of attention_core_backward: its values and, to
/// recompute probabilities when att is null, its keys transposed (HS, T),
/// then the query heads that read it, in order, on head views.
template <int W, class S>
TPC_ALWAYS_INLINE void
kv_head_backward(MutTypedRows<S> dq, MutTypedRows<S> dk, MutTypedRows<S> dv,
                 TypedRows<S> dout, TypedRows<S> q, TypedRows<S> k,
                 TypedRows<S> v, const float *att, const AttentionConfig &cfg,
                 AttentionMask mask, int b, int kvh) {
  const int T = cfg.T, HS = cfg.HS;
  const size_t head = size_t(HS) * transposed_ld(T);
  float *vt = scratch(att ? head : 2 * head);
  float *kt = att ? nullptr : vt + head;
  transpose_head<W>(vt, v, b, kvh, T, HS);
  if (kt)
    transpose_head<W>(kt, k, b, kvh, T, HS);
  // k's rows are read for dq only.
  const Rows kh = dq.base ? head_in(k, b, kvh, cfg, 0) : Rows{nullptr, 0};
  const MutRows dkh = head_out(dk, b, kvh, cfg, 1, true),
                dvh = head_out(dv, b, kvh, cfg, 2, true);
  for (int h = 0; h < cfg.NH; ++h)
    if (kv_head_of(cfg, h) == kvh) {
      const Rows qh = head_in(q, b, h, cfg, 3),
                 doh = head_in(dout, b, h, cfg, 4);
      const MutRows dqh = head_out(dq, b, h, cfg, 5, true);
      head_backward<W>(dqh, dkh, dvh, doh, qh, kh, vt, kt, att, cfg, mask, b,
                       h);
      head_store(dq, dqh, b, h, cfg);
    }
  head_store(dk, dkh, b, kvh, cfg);
  head_store(dv, dvh, b, kvh, cfg);
}
struct KvHeadBackward {
  template <int W, class... A> static TPC_ALWAYS_INLINE void run(A &...a) {
    kv_head_backward<W>(a...);
  }
};

template <class S>
void attention_core_backward(MutTypedRows<S> dq, MutTypedRows<S> dk,
                             MutTypedRows<S> dv, TypedRows<S> dout,
                             TypedRows<S> q, TypedRows<S> k, TypedRows<S> v,
                             const float *att, const AttentionConfig &cfg,
                             AttentionMask mask) {
  const int B = cfg.B, KVH = cfg.kv_heads();
  // Each (b, KV head) owns its columns of dk and dv and its query heads'
  // columns of dq: no two tasks write the same element, and the query
  // heads of a group add to dk and dv in order, whatever the thread count.
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int kvh = 0; kvh < KVH; ++kvh)
      on_native_lanes<KvHeadBackward>(dq, dk, dv, dout, q, k, v, att, cfg, mask,
                                      b, kvh);
}

/// RoPE on 16-bit tensors: the backend rotates fp32 copies instead.
[[noreturn]] void refuse_rotation(const char *what) {
  throw std::invalid_argument(std::string(what) +
                              ": RoPE rotates fp32 tensors only; pass fp32 "
                              "copies of 16-bit ones");
}

/// attention_core_forward over q and k rotated when RoPE is on. Rotation
/// is fp32 only: the backend gives 16-bit tensors with RoPE as fp32 copies.
template <class S>
void rotary_core_forward(MutTypedRows<S> out, float *att, TypedRows<S> q,
                         TypedRows<S> k, TypedRows<S> v,
                         const AttentionConfig &cfg, AttentionMask mask,
                         const char *what) {
  if (!rope_on(cfg)) {
    attention_core_forward(out, att, q, k, v, cfg, mask);
  } else if constexpr (kIsF32<S>) {
    auto [qs, ks] = scored(q, k, cfg);
    attention_core_forward(out, att, qs, ks, v, cfg, mask);
  } else {
    refuse_rotation(what);
  }
}

/// attention_core_backward over q and k rotated when RoPE is on: the
/// gradients of the rotated operands go to operand buffers 2 and 3, then
/// back through the (orthogonal) rotation into dq and dk. fp32 only with
/// RoPE, as the forward.
template <class S>
void rotary_core_backward(MutTypedRows<S> dq, MutTypedRows<S> dk,
                          MutTypedRows<S> dv, TypedRows<S> dout, TypedRows<S> q,
                          TypedRows<S> k, TypedRows<S> v, const float *att,
                          const AttentionConfig &cfg, AttentionMask mask,
                          const char *what) {
  if (!rope_on(cfg)) {
    attention_core_backward(dq, dk, dv, dout, q, k, v, att, cfg, mask);
  } else if constexpr (kIsF32<S>) {
    auto [qs, ks] = scored(q, k, cfg);
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C()),
                 Ckv = size_t(cfg.C_kv());
    float *dqs = dq.base ? operand_buffer(2, rows * C) : nullptr;
    float *dks = dk.base ? operand_buffer(3, rows * Ckv) : nullptr;
    if (dqs)
      std::fill(dqs, dqs + rows * C, 0.0f);
    if (dks)
      std::fill(dks, dks + rows * Ckv, 0.0f);
    attention_core_backward<F32Storage>({dqs, C}, {dks, Ckv}, dv, dout, qs, ks,
                                        v, att, cfg, mask);
    if (dqs)
      rope_rows(dq, {dqs, C}, cfg.NH, true, cfg);
    if (dks)
      rope_rows(dk, {dks, Ckv}, cfg.kv_heads(), true, cfg);
  } else {
    refuse_rotation(what);
  }
}

/// Whether attention reads 16-bit tensors as stored: without RoPE, which
/// rotates whole fp32 copies.
template <class S> bool stored_as_is(const AttentionConfig &cfg) {
  return kIsF32<S> || !rope_on(cfg);
}

} // namespace

template <class S>
void attention_forward(typename S::type *out, float *att,
                       const typename S::type *qkv,
                       const AttentionConfig &cfg) {
  check_attention(cfg, AttentionCall::Forward);
  size_t C = size_t(cfg.C()), stride = 3 * C;
  rotary_core_forward<S>({out, C}, att, {qkv, stride}, {qkv + C, stride},
                         {qkv + 2 * C, stride}, cfg, cfg.mask,
                         "attention_forward");
}

template <class S>
void attention_backward(typename S::type *dqkv, const typename S::type *dout,
                        const typename S::type *qkv, const float *att,
                        const AttentionConfig &cfg) {
  check_attention(cfg, AttentionCall::Backward);
  size_t C = size_t(cfg.C()), stride = 3 * C;
  rotary_core_backward<S>({dqkv, stride}, {dqkv + C, stride},
                          {dqkv + 2 * C, stride}, {dout, C}, {qkv, stride},
                          {qkv + C, stride}, {qkv + 2 * C, stride}, att, cfg,
                          cfg.mask, "attention_backward");
}

template <class S>
void cross_attention_forward(typename S::type *out, float *att,
                             const typename S::type *q,
                             const typename S::type *kv,
                             const AttentionConfig &cfg) {
  check_attention(cfg, AttentionCall::CrossForward);
  size_t C = size_t(cfg.C());
  rotary_core_forward<S>({out, C}, att, {q, C}, {kv, 2 * C}, {kv + C, 2 * C},
                         cfg, AttentionMask::StrictlyEarlier,
                         "cross_attention_forward");
}

template <class S>
void cross_attention_backward(typename S::type *dq, typename S::type *dkv,
                              const typename S::type *dout,
                              const typename S::type *q,
                              const typename S::type *kv, const float *att,
                              const AttentionConfig &cfg) {
  check_attention(cfg, AttentionCall::CrossBackward);
  size_t C = size_t(cfg.C());
  rotary_core_backward<S>(
      {dq, C}, {dkv, 2 * C}, {dkv ? dkv + C : nullptr, 2 * C}, {dout, C},
      {q, C}, {kv, 2 * C}, {kv + C, 2 * C}, att, cfg,
      AttentionMask::StrictlyEarlier, "cross_attention_backward");
}

void attention_forward(float *out, float *att, const float *qkv,
                       const AttentionConfig &cfg) {
  attention_forward<F32Storage>(out, att, qkv, cfg);
}
void attention_backward(float *dqkv, const float *dout, const float *qkv,
                        const float *att, const AttentionConfig &cfg) {
  attention_backward<F32Storage>(dqkv, dout, qkv, att, cfg);
}
void cross_attention_forward(float *out, float *att, const float *q,
                             const float *kv, const AttentionConfig &cfg) {
  cross_attention_forward<F32Storage>(out, att, q, kv, cfg);
}
void cross_attention_backward(float *dq, float *dkv, const float *dout,
                              const float *q, const float *kv, const float *att,
                              const AttentionConfig &cfg) {
  cross_attention_backward<F32Storage>(dq, dkv, dout, q, kv, att, cfg);
}

template <class S>
void gqa_attention_forward(typename S::type *out, float *att,
                           const typename S::type *q, const typename S::type *k,
                           const typename S::type *v,
                           const AttentionConfig &cfg) {
  check_attention(cfg, AttentionCall::GqaForward);
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  rotary_core_forward<S>({out, C}, att, {q, C}, {k, Ckv}, {v, Ckv}, cfg,
                         cfg.mask, "gqa_attention_forward");
}

template <class S>
void gqa_attention_backward(typename S::type *dq, typename S::type *dk,
                            typename S::type *dv, const typename S::type *dout,
                            const typename S::type *q,
                            const typename S::type *k,
                            const typename S::type *v, const float *att,
                            const AttentionConfig &cfg) {
  check_attention(cfg, AttentionCall::GqaBackward);
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  rotary_core_backward<S>({dq, C}, {dk, Ckv}, {dv, Ckv}, {dout, C}, {q, C},
                          {k, Ckv}, {v, Ckv}, att, cfg, cfg.mask,
                          "gqa_attention_backward");
}

void gqa_attention_forward(float *out, float *att, const float *q,
                           const float *k, const float *v,
                           const AttentionConfig &cfg) {
  gqa_attention_forward<F32Storage>(out, att, q, k, v, cfg);
}
void gqa_attention_backward(float *dq, float *dk, float *dv, const float *dout,
                            const float *q, const float *k, const float *v,
                            const float *att, const AttentionConfig &cfg) {
  gqa_attention_backward<F32Storage>(dq, dk, dv, dout, q, k, v, att, cfg);
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::attention_forward(void *out, float *att, const void *qkv,
                                      const AttentionConfig &cfg) const {
  if (stored_as_is<S>(cfg))
    return cpu::attention_forward<S>(typed(out), att, typed(qkv), cfg);
  size_t rows = sz(cfg.B) * cfg.T;
  In<S> x(qkv, rows * 3 * cfg.C());
  Out<S> o(out, rows * cfg.C(), false);
  cpu::attention_forward(o, att, x, cfg);
}

template <class S>
void CpuKernels<S>::attention_backward(void *dqkv, const void *dout,
                                       const void *qkv, const float *att,
                                       const AttentionConfig &cfg) const {
  if (stored_as_is<S>(cfg))
    return cpu::attention_backward<S>(typed(dqkv), typed(dout), typed(qkv), att,
                                      cfg);
  size_t rows = sz(cfg.B) * cfg.T;
  In<S> d(dout, rows * cfg.C()), x(qkv, rows * 3 * cfg.C());
  Out<S> dx(dqkv, rows * 3 * cfg.C(), true);
  cpu::attention_backward(dx, d, x, att, cfg);
}

template <class S>
void CpuKernels<S>::cross_attention_forward(void *out, float *att,
                                            const void *q, const void *kv,
                                            const AttentionConfig &cfg) const {
  if (stored_as_is<S>(cfg))
    return cpu::cross_attention_forward<S>(typed(out), att, typed(q), typed(kv),
                                           cfg);
  size_t rows = sz(cfg.B) * cfg.T;
  In<S> q_(q, rows * cfg.C()), kv_(kv, rows * 2 * cfg.C());
  Out<S> o(out, rows * cfg.C(), false);
  cpu::cross_attention_forward(o, att, q_, kv_, cfg);
}

template <class S>
void CpuKernels<S>::cross_attention_backward(void *dq, void *dkv,
                                             const void *dout, const void *q,
                                             const void *kv, const float *att,
                                             const AttentionConfig &cfg) const {
  if (stored_as_is<S>(cfg))
    return cpu::cross_attention_backward<S>(typed(dq), typed(dkv), typed(dout),
                                            typed(q), typed(kv), att, cfg);
  size_t rows = sz(cfg.B) * cfg.T;
  In<S> d(dout, rows * cfg.C()), q_(q, rows * cfg.C()),
      kv_(kv, rows * 2 * cfg.C());
  Out<S> dq_(dq, rows * cfg.C(), true), dkv_(dkv, rows * 2 * cfg.C(), true);
  cpu::cross_attention_backward(dq_, dkv_, d, q_, kv_, att, cfg);
}

template <class S>
void CpuKernels<S>::gqa_attention_forward(void *out, float *att, const void *q,
                                          const void *k, const void *v,
                                          const AttentionConfig &cfg) const {
  if (stored_as_is<S>(cfg))
    return cpu::gqa_attention_forward<S>(typed(out), att, typed(q), typed(k),
                                         typed(v), cfg);
  size_t rows = sz(cfg.B) * cfg.T;
  In<S> q_(q, rows * cfg.C()), k_(k, rows * cfg.C_kv()),
      v_(v, rows * cfg.C_kv());
  Out<S> o(out, rows * cfg.C(), false);
  cpu::gqa_attention_forward(o, att, q_, k_, v_, cfg);
}

template <class S>
void CpuKernels<S>::gqa_attention_backward(void *dq, void *dk, void *dv,
                                           const void *dout, const void *q,
                                           const void *k, const void *v,
                                           const float *att,
                                           const AttentionConfig &cfg) const {
  if (stored_as_is<S>(cfg))
    return cpu::gqa_attention_backward<S>(typed(dq), typed(dk), typed(dv),
                                          typed(dout), typed(q), typed(k),
                                          typed(v), att, cfg);
  size_t rows = sz(cfg.B) * cfg.T;
  In<S> d(dout, rows * cfg.C()), q_(q, rows * cfg.C()),
      k_(k, rows * cfg.C_kv()), v_(v, rows * cfg.C_kv());
  Out<S> dq_(dq, rows * cfg.C(), true), dk_(dk, rows * cfg.C_kv(), true),
      dv_(dv, rows * cfg.C_kv(), true);
  cpu::gqa_attention_backward(dq_, dk_, dv_, d, q_, k_, v_, att, cfg);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void attention_forward<S>(S::type *, float *, const S::type *,      \
                                     const AttentionConfig &);                 \
  template void attention_backward<S>(S::type *, const S::type *,              \
                                      const S::type *, const float *,          \
                                      const AttentionConfig &);                \
  template void cross_attention_forward<S>(S::type *, float *,                 \
                                           const S::type *, const S::type *,   \
                                           const AttentionConfig &);           \
  template void cross_attention_backward<S>(                                   \
      S::type *, S::type *, const S::type *, const S::type *, const S::type *, \
      const float *, const AttentionConfig &);                                 \
  template void gqa_attention_forward<S>(S::type *, float *, const S::type *,  \
                                         const S::type *, const S::type *,     \
                                         const AttentionConfig &);             \
  template void gqa_attention_backward<S>(                                     \
      S::type *, S::type *, S::type *, const S::type *, const S::type *,       \
      const S::type *, const S::type *, const float *,                         \
      const AttentionConfig &);                                                \
  template void CpuKernels<S>::attention_forward(                              \
      void *, float *, const void *, const AttentionConfig &) const;           \
  template void CpuKernels<S>::attention_backward(                             \
      void *, const void *, const void *, const float *,                       \
      const AttentionConfig &) const;                                          \
  template void CpuKernels<S>::cross_attention_forward(                        \
      void *, float *, const void *, const void *, const AttentionConfig &)    \
      const;                                                                   \
  template void CpuKernels<S>::cross_attention_backward(                       \
      void *, void *, const void *, const void *, const void *, const float *, \
      const AttentionConfig &) const;                                          \
  template void CpuKernels<S>::gqa_attention_forward(                          \
      void *, float *, const void *, const void *, const void *,               \
      const AttentionConfig &) const;                                          \
  template void CpuKernels<S>::gqa_attention_backward(                         \
      void *, void *, void *, const void *, const void *, const void *,        \
      const void *, const float *, const AttentionConfig &) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
