//===- Attention.cpp - Self- and cross-attention --------------------------===//
//
// One implementation serves both: self-attention reads q, k and v from the
// fused qkv (B,T,3C); cross-attention reads q (B,T,C) and k, v from kv
// (B,T,2C). Only the rows' strides and the mask differ. The softmax runs in
// fp32; probabilities are saved (B,NH,T,T) for backward, dropout masks are
// drawn again from their keys.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Dropout.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc::cpu {
namespace {

/// Rows of one operand: row (b, t), head h starts at
/// base + (b*T + t) * stride + h * HS.
struct Rows {
  const float *base;
  size_t stride;
};
struct MutRows {
  float *base;
  size_t stride;
};

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

void check_config(const AttentionConfig &cfg, const char *op) {
  if (cfg.B <= 0 || cfg.T <= 0 || cfg.NH <= 0 || cfg.HS <= 0 ||
      cfg.window < 0 || cfg.head_offset < 0 || cfg.batch_offset < 0 ||
      cfg.head_offset + cfg.NH > cfg.global_heads())
    throw std::invalid_argument(
        std::string(op) + ": bad configuration B=" + std::to_string(cfg.B) +
        " T=" + std::to_string(cfg.T) + " NH=" + std::to_string(cfg.NH) +
        " HS=" + std::to_string(cfg.HS) +
        " window=" + std::to_string(cfg.window) + " heads [" +
        std::to_string(cfg.head_offset) + ", " +
        std::to_string(cfg.head_offset + cfg.NH) + ") of " +
        std::to_string(cfg.global_heads()));
  check_dropout(cfg.dropout);
}

/// Global index of probability (b, h, t, 0) for dropout: the same for a
/// sequence and head whichever rank computes it.
uint64_t dropout_row_base(const AttentionConfig &cfg, int b, int h, int t) {
  uint64_t gh = uint64_t(cfg.global_heads());
  uint64_t gb = uint64_t(cfg.batch_offset) + uint64_t(b);
  return ((gb * gh + uint64_t(cfg.head_offset + h)) * cfg.T + t) *
         uint64_t(cfg.T);
}

/// dst (HS, T) = the T rows of one head of src, transposed: the dot
/// products of a query with every key then run along contiguous memory.
void transpose_head(float *dst, Rows src, int b, int h, int T, int HS) {
  for (int s = 0; s < T; ++s) {
    const float *row = src.base + (size_t(b) * T + s) * src.stride + h * HS;
    for (int i = 0; i < HS; ++i)
      dst[size_t(i) * T + s] = row[i];
  }
}

/// Per-thread scratch of n floats, kept between calls: no allocation per
/// step once a shape has been seen.
float *scratch(size_t n) {
  thread_local std::vector<float> buf;
  if (buf.size() < n)
    buf.resize(n);
  return buf.data();
}

/// a[j] = softmax over j < n of scale * (q . key j), the keys' elements i
/// at k[i * ld + j]. Every score is summed over i in order, and the same
/// code serves the forward and decoding, so a decoded position gives the
/// forward's result exactly. Inlined into its callers' clones.
inline void softmax_row(float *a, const float *q, const float *k, size_t ld,
                        int n, int HS, float scale) {
  for (int j = 0; j < n; ++j)
    a[j] = 0.0f;
  for (int i = 0; i < HS; ++i) {
    const float qi = q[i];
    const float *ki = k + size_t(i) * ld;
#pragma omp simd
    for (int j = 0; j < n; ++j)
      a[j] += qi * ki[j];
  }
  float maxv = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : maxv)
  for (int j = 0; j < n; ++j) {
    a[j] *= scale;
    maxv = std::max(maxv, a[j]);
  }
  float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
  for (int j = 0; j < n; ++j) {
    float e = exp_approx(a[j] - maxv);
    a[j] = e;
    sum += e;
  }
  float inv = 1.0f / sum;
#pragma omp simd
  for (int j = 0; j < n; ++j)
    a[j] *= inv;
}

/// Sequence b, head h of attention_core_forward. kt: this head's keys
/// transposed (HS, T). For each query the scores of its keys [lo, hi) are
/// summed over i in order (each score as the scalar dot product would),
/// then softmax, dropout and the weighted sum of values.
TPC_VECTOR_CLONES
void head_forward(float *out, float *att, Rows q, const float *kt, Rows v,
                  const AttentionConfig &cfg, AttentionMask mask, int b,
                  int h) {
  const int T = cfg.T, NH = cfg.NH, HS = cfg.HS, C = cfg.C();
  const float scale = 1.0f / std::sqrt(float(HS));
  const DropoutDraw draw(cfg.dropout);
  for (int t = 0; t < T; ++t) {
    const float *qt = q.base + (size_t(b) * T + t) * q.stride + h * HS;
    float *arow = att + ((size_t(b) * NH + h) * T + t) * T;
    float *o = out + (size_t(b) * T + t) * C + h * HS;
    int lo, hi;
    key_range(mask, cfg.window, T, t, lo, hi);
    for (int s = 0; s < T; ++s)
      arow[s] = 0.0f;
    for (int i = 0; i < HS; ++i)
      o[i] = 0.0f;
    if (lo >= hi)
      continue;

    softmax_row(arow + lo, qt, kt + lo, T, hi - lo, HS, scale);

    uint64_t base = dropout_row_base(cfg, b, h, t);
    for (int s = lo; s < hi; ++s) {
      float p = arow[s];
      if (draw.enabled()) {
        if (!draw.keep(base + s))
          continue;
        p *= draw.scale;
      }
      const float *vs = v.base + (size_t(b) * T + s) * v.stride + h * HS;
#pragma omp simd
      for (int i = 0; i < HS; ++i)
        o[i] += p * vs[i];
    }
  }
}

void attention_core_forward(float *out, float *att, Rows q, Rows k, Rows v,
                            const AttentionConfig &cfg, AttentionMask mask) {
  const int B = cfg.B, NH = cfg.NH;
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      float *kt = scratch(size_t(cfg.HS) * cfg.T);
      transpose_head(kt, k, b, h, cfg.T, cfg.HS);
      head_forward(out, att, q, kt, v, cfg, mask, b, h);
    }
}

/// Sequence b, head h of attention_core_backward. vt: this head's values
/// transposed (HS, T); datt: T floats of scratch.
TPC_VECTOR_CLONES
void head_backward(MutRows dq, MutRows dk, MutRows dv, const float *dout,
                   Rows q, Rows k, const float *vt, const float *att,
                   const AttentionConfig &cfg, AttentionMask mask, int b,
                   int h, float *datt) {
  const int T = cfg.T, NH = cfg.NH, HS = cfg.HS, C = cfg.C();
  const float scale = 1.0f / std::sqrt(float(HS));
  const DropoutDraw draw(cfg.dropout);
  for (int t = 0; t < T; ++t) {
    int lo, hi;
    key_range(mask, cfg.window, T, t, lo, hi);
    if (lo >= hi)
      continue;
    const float *arow = att + ((size_t(b) * NH + h) * T + t) * T;
    const float *go = dout + (size_t(b) * T + t) * C + h * HS;
    uint64_t base = dropout_row_base(cfg, b, h, t);

    // Through out = sum_s drop(p_s) v_s: dp_s = dout_t . v_s.
    for (int s = lo; s < hi; ++s)
      datt[s] = 0.0f;
    for (int i = 0; i < HS; ++i) {
      const float gi = go[i];
      const float *vi = vt + size_t(i) * T;
#pragma omp simd
      for (int s = lo; s < hi; ++s)
        datt[s] += gi * vi[s];
    }
    if (draw.enabled())
      for (int s = lo; s < hi; ++s)
        datt[s] *= draw.keep(base + s) ? draw.scale : 0.0f;
    float dot_pd = 0.0f; // sum_s p_s * dp_s, for the softmax backward
#pragma omp simd reduction(+ : dot_pd)
    for (int s = lo; s < hi; ++s)
      dot_pd += arow[s] * datt[s];
    if (dv.base)
      for (int s = lo; s < hi; ++s) {
        float m = 1.0f;
        if (draw.enabled())
          m = draw.keep(base + s) ? draw.scale : 0.0f;
        if (m == 0.0f)
          continue;
        float *dvs = dv.base + (size_t(b) * T + s) * dv.stride + h * HS;
        float w = arow[s] * m;
#pragma omp simd
        for (int i = 0; i < HS; ++i)
          dvs[i] += w * go[i];
      }

    // Through the softmax and the scaled dot products.
    const float *qt = q.base + (size_t(b) * T + t) * q.stride + h * HS;
    float *dqt =
        dq.base ? dq.base + (size_t(b) * T + t) * dq.stride + h * HS : nullptr;
    for (int s = lo; s < hi; ++s) {
      float dpre = arow[s] * (datt[s] - dot_pd) * scale;
      const float *ks = k.base + (size_t(b) * T + s) * k.stride + h * HS;
      if (dqt) {
#pragma omp simd
        for (int i = 0; i < HS; ++i)
          dqt[i] += dpre * ks[i];
      }
      if (dk.base) {
        float *dks = dk.base + (size_t(b) * T + s) * dk.stride + h * HS;
#pragma omp simd
        for (int i = 0; i < HS; ++i)
          dks[i] += dpre * qt[i];
      }
    }
  }
}

void attention_core_backward(MutRows dq, MutRows dk, MutRows dv,
                             const float *dout, Rows q, Rows k, Rows v,
                             const float *att, const AttentionConfig &cfg,
                             AttentionMask mask) {
  const int B = cfg.B, NH = cfg.NH, T = cfg.T, HS = cfg.HS;
  // Each (b, h) owns its columns of dq, dk and dv: no two tasks write the
  // same element.
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      float *vt = scratch(size_t(HS) * T + T);
      transpose_head(vt, v, b, h, T, HS);
      head_backward(dq, dk, dv, dout, q, k, vt, att, cfg, mask, b, h,
                    vt + size_t(HS) * T);
    }
}

/// One query row per (b, h) against cached keys and values [lo, hi) of
/// (B,P,C) caches; the arithmetic follows attention_core_forward step for
/// step, so a decoded position gives the full forward's result.
/// Sequence b, head h of decode_core_forward; a: hi - lo floats of scratch,
/// kt: as many of scratch for the keys transposed.
TPC_VECTOR_CLONES
void decode_head(float *o, const float *qt, const float *kcache,
                 const float *vcache, size_t row0, int lo, int hi, int h,
                 const AttentionConfig &cfg, float *a, float *kt) {
  const int HS = cfg.HS, C = cfg.C(), n = hi - lo;
  const float scale = 1.0f / std::sqrt(float(HS));
  for (int j = 0; j < n; ++j) {
    const float *ks = kcache + (row0 + lo + j) * C + h * HS;
    for (int i = 0; i < HS; ++i)
      kt[size_t(i) * n + j] = ks[i];
  }
  softmax_row(a, qt, kt, size_t(n), n, HS, scale);
  for (int i = 0; i < HS; ++i)
    o[i] = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float p = a[j];
    const float *vs = vcache + (row0 + lo + j) * C + h * HS;
#pragma omp simd
    for (int i = 0; i < HS; ++i)
      o[i] += p * vs[i];
  }
}

void decode_core_forward(float *out, const float *kcache, const float *vcache,
                         Rows q, int lo, int hi, int capacity,
                         const AttentionConfig &cfg) {
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
      float *a = scratch(n * (HS + 1));
      decode_head(o, qt, kcache, vcache, size_t(b) * capacity, lo, hi, h, cfg,
                  a, a + n);
    }
}

/// Writes k and v rows (B,1,C) with row stride `stride` at position pos.
void decode_append(float *kcache, float *vcache, const float *k, const float *v,
                   size_t stride, int pos, int capacity,
                   const AttentionConfig &cfg) {
  const size_t C = size_t(cfg.C());
  for (int b = 0; b < cfg.B; ++b) {
    float *kd = kcache + (size_t(b) * capacity + pos) * C;
    float *vd = vcache + (size_t(b) * capacity + pos) * C;
    std::copy(k + size_t(b) * stride, k + size_t(b) * stride + C, kd);
    std::copy(v + size_t(b) * stride, v + size_t(b) * stride + C, vd);
  }
}

void check_decode(const AttentionConfig &cfg, int pos, int capacity,
                  const char *op) {
  if (cfg.B <= 0 || cfg.NH <= 0 || cfg.HS <= 0 || cfg.window < 0 ||
      capacity <= 0 || pos < 0 || pos >= capacity)
    throw std::invalid_argument(
        std::string(op) + ": bad configuration B=" + std::to_string(cfg.B) +
        " NH=" + std::to_string(cfg.NH) + " HS=" + std::to_string(cfg.HS) +
        " window=" + std::to_string(cfg.window) + " position " +
        std::to_string(pos) + " of capacity " + std::to_string(capacity));
}

} // namespace

void attention_forward(float *out, float *att, const float *qkv,
                       const AttentionConfig &cfg) {
  check_config(cfg, "attention_forward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "attention_forward: the strictly-earlier mask is for cross-attention; "
        "use cross_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  attention_core_forward(out, att, {qkv, stride}, {qkv + C, stride},
                         {qkv + 2 * C, stride}, cfg, cfg.mask);
}

void attention_backward(float *dqkv, const float *dout, const float *qkv,
                        const float *att, const AttentionConfig &cfg) {
  check_config(cfg, "attention_backward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  attention_core_backward({dqkv, stride}, {dqkv + C, stride},
                          {dqkv + 2 * C, stride}, dout, {qkv, stride},
                          {qkv + C, stride}, {qkv + 2 * C, stride}, att, cfg,
                          cfg.mask);
}

void cross_attention_forward(float *out, float *att, const float *q,
                             const float *kv, const AttentionConfig &cfg) {
  check_config(cfg, "cross_attention_forward");
  size_t C = size_t(cfg.C());
  attention_core_forward(out, att, {q, C}, {kv, 2 * C}, {kv + C, 2 * C}, cfg,
                         AttentionMask::StrictlyEarlier);
}

void cross_attention_backward(float *dq, float *dkv, const float *dout,
                              const float *q, const float *kv, const float *att,
                              const AttentionConfig &cfg) {
  check_config(cfg, "cross_attention_backward");
  size_t C = size_t(cfg.C());
  attention_core_backward(
      {dq, C}, {dkv, 2 * C}, {dkv ? dkv + C : nullptr, 2 * C}, dout, {q, C},
      {kv, 2 * C}, {kv + C, 2 * C}, att, cfg, AttentionMask::StrictlyEarlier);
}

} // namespace tpc::cpu

namespace tpc::cpu {

void decode_attention_forward(float *out, float *kcache, float *vcache,
                              const float *qkv, int pos, int capacity,
                              const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  decode_append(kcache, vcache, qkv + C, qkv + 2 * C, stride, pos, capacity,
                cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward(out, kcache, vcache, {qkv, stride}, lo, pos + 1, capacity,
                      cfg);
}

void decode_cross_attention_forward(float *out, float *kcache, float *vcache,
                                    const float *q, const float *kv, int pos,
                                    int capacity, const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_cross_attention_forward");
  size_t C = size_t(cfg.C());
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window) : 0;
  decode_core_forward(out, kcache, vcache, {q, C}, lo, pos, capacity, cfg);
  decode_append(kcache, vcache, kv, kv + C, 2 * C, pos, capacity, cfg);
}

} // namespace tpc::cpu
