//===- AttentionDecode.cpp - Attention one position at a time -------------===//
//
// Decoding: each call appends position pos's keys and values to the KV
// caches (B,capacity,Ckv) and attends from its query to the cached rows,
// through the training forward's loops (AttentionTiles.h) with a block of
// one row, so that a decoded position gives the forward's row bit for bit.
// With RoPE, q and k turn by pos (Rope.h) and the caches hold rotated keys.
// 16-bit caches are read as stored: each call widens only the rows
// [lo, pos] it attends to.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/KernelChecks.h"
#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/AttentionTiles.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/Rope.h"

#include <algorithm>
#include <cmath>

namespace tpc::cpu {
namespace {

using namespace attn;

/// One query row per (b, h) against cached keys and values [lo, hi) of
/// (B,P,Ckv) caches of storage type S, through the forward's loops with a
/// block of one row, so a decoded position gives the full forward's result.
/// Sequence b, one query head (reading KV head kvh) of decode_core_forward;
/// a: scratch for hi - lo scores, then the keys transposed (HS *
/// transposed_ld(hi - lo)), then for 16-bit caches the values in fp32
/// ((hi - lo) * HS). fresh_k, fresh_v: the head's row at position
/// fresh_pos in fp32 (FreshRows), or null.
template <int W, class S>
TPC_ALWAYS_INLINE void
decode_head(float *o, const float *qt, const typename S::type *kcache,
            const typename S::type *vcache, size_t row0, int lo, int hi,
            int kvh, const AttentionConfig &cfg, float *a, const float *fresh_k,
            const float *fresh_v, int fresh_pos) {
  const int HS = cfg.HS, n = hi - lo;
  const size_t Ckv = size_t(cfg.C_kv()), ld = transposed_ld(n);
  const float scale = 1.0f / std::sqrt(float(HS));
  float *kt = a + n;
  transpose_rows<W, S>(kt, n, HS, [&](int j) {
    return kcache + (row0 + lo + j) * Ckv + size_t(kvh) * HS;
  });
  if (fresh_k)
    for (int i = 0; i < HS; ++i)
      kt[size_t(i) * ld + (fresh_pos - lo)] = fresh_k[i];
  const float *x[1] = {qt};
  dot_rows<W, 1>(a, size_t(n), x, kt, ld, n, HS);
  softmax_scores<W>(a, n, scale);
  const typename S::type *vrows = vcache + (row0 + lo) * Ckv + size_t(kvh) * HS;
  const float *values;
  size_t ldv;
  if constexpr (kIsF32<S>) {
    values = vrows;
    ldv = Ckv;
  } else {
    float *v = kt + HS * ld;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < HS; ++i)
        v[size_t(j) * HS + i] = S::load(vrows[size_t(j) * Ckv + i]);
    if (fresh_v)
      std::copy(fresh_v, fresh_v + HS, v + size_t(fresh_pos - lo) * HS);
    values = v;
    ldv = size_t(HS);
  }
  for (int i = 0; i < HS; ++i)
    o[i] = 0.0f;
  float *acc[1] = {o};
  const float *c[1] = {a};
  const int first[1] = {0}, last[1] = {n};
  accumulate_rows<W, 1>(acc, c, Terms{first, last}, values, ldv, 0, n, HS);
}

template <class S> struct DecodeHead {
  template <int W, class... A> static TPC_ALWAYS_INLINE void run(A &...a) {
    decode_head<W, S>(a...);
  }
};

/// The k and v rows (B of each, row b at base + b * stride) that the call
/// wrote into the caches at position pos, in fp32 (pos < 0: none). A
/// 16-bit cache holds them rounded; the call that wrote them attends to
/// them unrounded, as the CUDA backend does (with RoPE the rotated keys are
/// not 16-bit values). Later calls read them from the cache.
struct FreshRows {
  int pos = -1;
  Rows k{}, v{};
};

template <class S>
void decode_core_forward(float *out, const typename S::type *kcache,
                         const typename S::type *vcache, Rows q, int lo, int hi,
                         int capacity, const AttentionConfig &cfg,
                         FreshRows fresh = {}) {
  // An fp32 cache holds the fresh rows exactly.
  const bool use_fresh = !kIsF32<S> && fresh.pos >= lo && fresh.pos < hi;
  const int B = cfg.B, NH = cfg.NH, HS = cfg.HS, C = cfg.C();
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      const float *qt = q.base + size_t(b) * q.stride + h * HS;
      float *o = out + size_t(b) * C + h * HS;
      if (lo >= hi) {
        for (int i = 0; i < HS; ++i)
          o[i] = 0.0f;
        continue;
      }
      size_t n = size_t(hi - lo);
      float *a =
          scratch(n + transposed_ld(int(n)) * HS + (kIsF32<S> ? 0 : n * HS));
      const int kvh = kv_head_of(cfg, h);
      const float *fk = nullptr, *fv = nullptr;
      if (use_fresh) {
        fk = fresh.k.base + size_t(b) * fresh.k.stride + size_t(kvh) * HS;
        fv = fresh.v.base + size_t(b) * fresh.v.stride + size_t(kvh) * HS;
      }
      on_native_lanes<DecodeHead<S>>(o, qt, kcache, vcache,
                                     size_t(b) * capacity, lo, hi, kvh, cfg, a,
                                     fk, fv, fresh.pos);
    }
}

/// Writes the Ckv-wide k and v rows of the B sequences (row b at
/// base + b * stride) at position pos, rounded to the caches' storage type.
template <class S>
void decode_append(typename S::type *kcache, typename S::type *vcache, Rows k,
                   Rows v, int pos, int capacity, const AttentionConfig &cfg) {
  const size_t Ckv = size_t(cfg.C_kv());
  for (int b = 0; b < cfg.B; ++b) {
    auto *kd = kcache + (size_t(b) * capacity + pos) * Ckv;
    auto *vd = vcache + (size_t(b) * capacity + pos) * Ckv;
    const float *ks = k.base + size_t(b) * k.stride;
    const float *vs = v.base + size_t(b) * v.stride;
    for (size_t i = 0; i < Ckv; ++i) {
      kd[i] = S::store(ks[i]);
      vd[i] = S::store(vs[i]);
    }
  }
}

} // namespace

template <class S>
void decode_attention_forward(float *out, typename S::type *kcache,
                              typename S::type *vcache, const float *qkv,
                              int pos, int capacity,
                              const AttentionConfig &cfg) {
  check_decode(cfg, capacity, DecodeCall::Self, pos);
  size_t C = size_t(cfg.C()), stride = 3 * C;
  auto [qs, ks] = scored_at({qkv, stride}, {qkv + C, stride}, pos, cfg);
  const Rows vs{qkv + 2 * C, stride};
  decode_append<S>(kcache, vcache, ks, vs, pos, capacity, cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward<S>(out, kcache, vcache, qs, lo, pos + 1, capacity, cfg,
                         {pos, ks, vs});
}

template <class S>
void decode_cross_attention_forward(float *out, typename S::type *kcache,
                                    typename S::type *vcache, const float *q,
                                    const float *kv, int pos, int capacity,
                                    const AttentionConfig &cfg, bool lagged) {
  check_decode(cfg, capacity, DecodeCall::Cross, pos);
  size_t C = size_t(cfg.C());
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window) : 0;
  if (!lagged) {
    auto [qs, ks] = scored_at({q, C}, {kv, 2 * C}, pos, cfg);
    decode_core_forward<S>(out, kcache, vcache, qs, lo, pos, capacity, cfg);
    decode_append<S>(kcache, vcache, ks, {kv + C, 2 * C}, pos, capacity, cfg);
    return;
  }
  // The key is rotated at its own position, pos - 1, the query at pos;
  // rotating the query second keeps its operand buffer for the attention.
  FreshRows fresh;
  if (pos > 0) {
    Rows ks = scored_at({q, C}, {kv, 2 * C}, pos - 1, cfg).second;
    decode_append<S>(kcache, vcache, ks, {kv + C, 2 * C}, pos - 1, capacity,
                     cfg);
    // Kept apart: rotating the query below overwrites the keys' buffer.
    float *kept = operand_buffer(2, size_t(cfg.B) * C);
    for (int b = 0; b < cfg.B; ++b)
      std::copy(ks.base + b * ks.stride, ks.base + b * ks.stride + C,
                kept + b * C);
    fresh = {pos - 1, {kept, C}, {kv + C, 2 * C}};
  }
  Rows qs = scored_at({q, C}, {kv, 2 * C}, pos, cfg).first;
  decode_core_forward<S>(out, kcache, vcache, qs, lo, pos, capacity, cfg,
                         fresh);
}

template <class S>
void decode_gqa_attention_forward(float *out, typename S::type *kcache,
                                  typename S::type *vcache, const float *q,
                                  const float *k, const float *v, int pos,
                                  int capacity, const AttentionConfig &cfg) {
  check_decode(cfg, capacity, DecodeCall::Gqa, pos);
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  auto [qs, ks] = scored_at({q, C}, {k, Ckv}, pos, cfg);
  decode_append<S>(kcache, vcache, ks, {v, Ckv}, pos, capacity, cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward<S>(out, kcache, vcache, qs, lo, pos + 1, capacity, cfg,
                         {pos, ks, {v, Ckv}});
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::decode_attention_forward(void *out, void *kcache,
                                             void *vcache, const void *qkv,
                                             const int *pos, int capacity,
                                             const AttentionConfig &cfg) const {
  In<S> x(qkv, sz(cfg.B) * 3 * cfg.C());
  Out<S> o(out, sz(cfg.B) * cfg.C(), false);
  cpu::decode_attention_forward<S>(o, typed(kcache), typed(vcache), x, *pos,
                                   capacity, cfg);
}

template <class S>
void CpuKernels<S>::decode_cross_attention_forward(void *out, void *kcache,
                                                   void *vcache, const void *q,
                                                   const void *kv,
                                                   const int *pos, int capacity,
                                                   const AttentionConfig &cfg,
                                                   bool lagged) const {
  In<S> q_(q, sz(cfg.B) * cfg.C()), kv_(kv, sz(cfg.B) * 2 * cfg.C());
  Out<S> o(out, sz(cfg.B) * cfg.C(), false);
  cpu::decode_cross_attention_forward<S>(o, typed(kcache), typed(vcache), q_,
                                         kv_, *pos, capacity, cfg, lagged);
}

template <class S>
void CpuKernels<S>::decode_gqa_attention_forward(
    void *out, void *kcache, void *vcache, const void *q, const void *k,
    const void *v, const int *pos, int capacity,
    const AttentionConfig &cfg) const {
  In<S> q_(q, sz(cfg.B) * cfg.C()), k_(k, sz(cfg.B) * cfg.C_kv()),
      v_(v, sz(cfg.B) * cfg.C_kv());
  Out<S> o(out, sz(cfg.B) * cfg.C(), false);
  cpu::decode_gqa_attention_forward<S>(o, typed(kcache), typed(vcache), q_, k_,
                                       v_, *pos, capacity, cfg);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void decode_attention_forward<S>(float *, S::type *, S::type *,     \
                                            const float *, int, int,           \
                                            const AttentionConfig &);          \
  template void decode_cross_attention_forward<S>(                             \
      float *, S::type *, S::type *, const float *, const float *, int, int,   \
      const AttentionConfig &, bool);                                          \
  template void decode_gqa_attention_forward<S>(                               \
      float *, S::type *, S::type *, const float *, const float *,             \
      const float *, int, int, const AttentionConfig &);                       \
  template void CpuKernels<S>::decode_attention_forward(                       \
      void *, void *, void *, const void *, const int *, int,                  \
      const AttentionConfig &) const;                                          \
  template void CpuKernels<S>::decode_cross_attention_forward(                 \
      void *, void *, void *, const void *, const void *, const int *, int,    \
      const AttentionConfig &, bool) const;                                    \
  template void CpuKernels<S>::decode_gqa_attention_forward(                   \
      void *, void *, void *, const void *, const void *, const void *,        \
      const int *, int, const AttentionConfig &) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
