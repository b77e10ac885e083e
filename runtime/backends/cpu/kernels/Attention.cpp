//===- Attention.cpp - Self-, cross- and grouped-query attention ----------===//
//
// One implementation serves all three: self-attention reads q, k and v from
// the fused qkv (B,T,3C); cross-attention reads q (B,T,C) and k, v from kv
// (B,T,2C); grouped-query attention reads q (B,T,C) and k, v (B,T,KVH*HS),
// where a group of NH/KVH query heads shares one KV head. Each rotates q and
// k first when RoPE is on. Only the rows' strides, the KV head each query
// head reads and the mask differ. The softmax runs in fp32; probabilities
// are saved (B,NH,T,T) for backward, dropout masks are drawn again from
// their keys.
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
#include <utility>
#include <vector>

namespace tpc::cpu {
namespace {

/// Rows of one operand: row (b, t), head h starts at
/// base + (b*T + t) * stride + h * HS. Query rows are indexed by query
/// head, key and value rows by KV head (see group_size).
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

/// Query heads per KV head: query head h reads KV head h / group_size, so
/// NH/KVH consecutive query heads share one.
int group_size(const AttentionConfig &cfg) { return cfg.NH / cfg.kv_heads(); }

/// The local KV head that local query head h reads: h / group_size, or, when
/// every rank holds all KV heads, the KV head of its global index.
int kv_head_of(const AttentionConfig &cfg, int h) {
  if (cfg.kv_replicated)
    return (cfg.head_offset + h) / (cfg.global_heads() / cfg.kv_heads());
  return h / group_size(cfg);
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

/// Sequence b, query head h (KV head kvh) of attention_core_forward. kt:
/// the KV head's keys transposed (HS, T). For each query the scores of its
/// keys [lo, hi) are summed over i in order (each score as the scalar dot
/// product would), then softmax, dropout and the weighted sum of values.
TPC_VECTOR_CLONES
void head_forward(float *out, float *att, Rows q, const float *kt, Rows v,
                  const AttentionConfig &cfg, AttentionMask mask, int b, int h,
                  int kvh) {
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
      const float *vs = v.base + (size_t(b) * T + s) * v.stride + kvh * HS;
#pragma omp simd
      for (int i = 0; i < HS; ++i)
        o[i] += p * vs[i];
    }
  }
}

void attention_core_forward(float *out, float *att, Rows q, Rows k, Rows v,
                            const AttentionConfig &cfg, AttentionMask mask) {
  const int B = cfg.B, NH = cfg.NH;
  // Query heads are the tasks, for parallelism when KV heads are few; a
  // group's heads each transpose the shared keys, T*HS against T*T*HS.
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      float *kt = scratch(size_t(cfg.HS) * cfg.T);
      int kvh = kv_head_of(cfg, h);
      transpose_head(kt, k, b, kvh, cfg.T, cfg.HS);
      head_forward(out, att, q, kt, v, cfg, mask, b, h, kvh);
    }
}

/// Sequence b, query head h (KV head kvh) of attention_core_backward. vt:
/// the KV head's values transposed (HS, T); datt: T floats of scratch.
TPC_VECTOR_CLONES
void head_backward(MutRows dq, MutRows dk, MutRows dv, const float *dout,
                   Rows q, Rows k, const float *vt, const float *att,
                   const AttentionConfig &cfg, AttentionMask mask, int b, int h,
                   int kvh, float *datt) {
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
        float *dvs = dv.base + (size_t(b) * T + s) * dv.stride + kvh * HS;
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
      const float *ks = k.base + (size_t(b) * T + s) * k.stride + kvh * HS;
      if (dqt) {
#pragma omp simd
        for (int i = 0; i < HS; ++i)
          dqt[i] += dpre * ks[i];
      }
      if (dk.base) {
        float *dks = dk.base + (size_t(b) * T + s) * dk.stride + kvh * HS;
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
  const int B = cfg.B, KVH = cfg.kv_heads(), NH = cfg.NH, T = cfg.T,
            HS = cfg.HS;
  // Each (b, KV head) owns its columns of dk and dv and its query heads'
  // columns of dq: no two tasks write the same element, and the query
  // heads of a group add to dk and dv in order, whatever the thread count.
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int kvh = 0; kvh < KVH; ++kvh) {
      float *vt = scratch(size_t(HS) * T + T);
      transpose_head(vt, v, b, kvh, T, HS);
      for (int h = 0; h < NH; ++h)
        if (kv_head_of(cfg, h) == kvh)
          head_backward(dq, dk, dv, dout, q, k, vt, att, cfg, mask, b, h, kvh,
                        vt + size_t(HS) * T);
    }
}

/// One query row per (b, h) against cached keys and values [lo, hi) of
/// (B,P,Ckv) caches; the arithmetic follows attention_core_forward step for
/// step, so a decoded position gives the full forward's result.
/// Sequence b, one query head (reading KV head kvh) of decode_core_forward;
/// a: hi - lo floats of scratch, kt: as many of scratch for the keys
/// transposed.
TPC_VECTOR_CLONES
void decode_head(float *o, const float *qt, const float *kcache,
                 const float *vcache, size_t row0, int lo, int hi, int kvh,
                 const AttentionConfig &cfg, float *a, float *kt) {
  const int HS = cfg.HS, Ckv = cfg.C_kv(), n = hi - lo;
  const float scale = 1.0f / std::sqrt(float(HS));
  for (int j = 0; j < n; ++j) {
    const float *ks = kcache + (row0 + lo + j) * Ckv + kvh * HS;
    for (int i = 0; i < HS; ++i)
      kt[size_t(i) * n + j] = ks[i];
  }
  softmax_row(a, qt, kt, size_t(n), n, HS, scale);
  for (int i = 0; i < HS; ++i)
    o[i] = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float p = a[j];
    const float *vs = vcache + (row0 + lo + j) * Ckv + kvh * HS;
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
      decode_head(o, qt, kcache, vcache, size_t(b) * capacity, lo, hi,
                  kv_head_of(cfg, h), cfg, a, a + n);
    }
}

/// Writes the Ckv-wide k and v rows of the B sequences (row b at
/// base + b * stride) at position pos.
void decode_append(float *kcache, float *vcache, Rows k, Rows v, int pos,
                   int capacity, const AttentionConfig &cfg) {
  const size_t Ckv = size_t(cfg.C_kv());
  for (int b = 0; b < cfg.B; ++b) {
    float *kd = kcache + (size_t(b) * capacity + pos) * Ckv;
    float *vd = vcache + (size_t(b) * capacity + pos) * Ckv;
    const float *ks = k.base + size_t(b) * k.stride;
    const float *vs = v.base + size_t(b) * v.stride;
    std::copy(ks, ks + Ckv, kd);
    std::copy(vs, vs + Ckv, vd);
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
  check_attention_heads(cfg, op);
}

//===----------------------------------------------------------------------===//
// Rotary position embedding
//===----------------------------------------------------------------------===//

/// cos and sin of the angles of positions [0, rows): R/2 per position,
/// position t's pair i at [t * R/2 + i].
struct RopeTable {
  double theta = 0.0;
  int R = 0;
  int rows = 0;
  std::vector<float> cos, sin;
};

/// The table of (theta, R) with at least `rows` positions, kept between
/// calls (per thread) and grown as needed. Every entry depends on its
/// position and pair alone, computed in double and rounded to float once,
/// so a table grown by decoding holds the values the forward rotated with.
const RopeTable &rope_table(double theta, int R, int rows) {
  thread_local std::vector<RopeTable> tables;
  RopeTable *t = nullptr;
  for (RopeTable &x : tables)
    if (x.theta == theta && x.R == R)
      t = &x;
  if (!t) {
    if (tables.size() >= 8) // a few models' worth; drop the oldest
      tables.erase(tables.begin());
    tables.push_back(RopeTable{theta, R, 0, {}, {}});
    t = &tables.back();
  }
  if (t->rows < rows) {
    const int half = R / 2;
    t->cos.resize(size_t(rows) * half);
    t->sin.resize(size_t(rows) * half);
    for (int i = 0; i < half; ++i) {
      const double inv_freq = std::pow(theta, -2.0 * i / R);
      for (int p = t->rows; p < rows; ++p) {
        const double angle = double(p) * inv_freq;
        t->cos[size_t(p) * half + i] = float(std::cos(angle));
        t->sin[size_t(p) * half + i] = float(std::sin(angle));
      }
    }
    t->rows = rows;
  }
  return *t;
}

/// dst = the `heads` heads (HS apart) of one row of src, each rotated by
/// one position's angles cs, sn (R/2 each): the pair (x[i], x[i+R/2])
/// turns to (x[i] cos - x[i+R/2] sin, x[i+R/2] cos + x[i] sin), dimensions
/// [R, HS) are copied. Out of line, so that the forward and decoding rotate
/// a row with the same instructions and agree bit for bit.
TPC_VECTOR_CLONES_OUT_OF_LINE void rope_rotate(float *dst, const float *src,
                                               int heads, int HS, int R,
                                               const float *cs,
                                               const float *sn) {
  const int half = R / 2;
  for (int hh = 0; hh < heads; ++hh) {
    const float *x = src + size_t(hh) * HS;
    float *y = dst + size_t(hh) * HS;
#pragma omp simd
    for (int i = 0; i < half; ++i) {
      const float a = x[i], b = x[i + half];
      y[i] = a * cs[i] - b * sn[i];
      y[i + half] = b * cs[i] + a * sn[i];
    }
    for (int i = R; i < HS; ++i)
      y[i] = x[i];
  }
}

/// dst += the transpose of rope_rotate applied to src (a gradient with
/// respect to the rotated row, turned back): (dy[i] cos + dy[i+R/2] sin,
/// dy[i+R/2] cos - dy[i] sin).
TPC_VECTOR_CLONES
void rope_rotate_back_add(float *dst, const float *src, int heads, int HS,
                          int R, const float *cs, const float *sn) {
  const int half = R / 2;
  for (int hh = 0; hh < heads; ++hh) {
    const float *dy = src + size_t(hh) * HS;
    float *dx = dst + size_t(hh) * HS;
#pragma omp simd
    for (int i = 0; i < half; ++i) {
      const float a = dy[i], b = dy[i + half];
      dx[i] += a * cs[i] + b * sn[i];
      dx[i + half] += b * cs[i] - a * sn[i];
    }
    for (int i = R; i < HS; ++i)
      dx[i] += dy[i];
  }
}

/// The B*T rows of src rotated into dst, row (b, t) by position t; with
/// `back`, dst += src rotated back (the adjoint, for gradients).
void rope_rows(MutRows dst, Rows src, int heads, bool back,
               const AttentionConfig &cfg) {
  const int R = rope_dims(cfg), half = R / 2, T = cfg.T;
  const RopeTable &table = rope_table(cfg.rope.theta, R, T);
  const float *cs = table.cos.data(), *sn = table.sin.data();
  const int64_t rows = int64_t(cfg.B) * T;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const size_t t = size_t(r % T) * half;
    float *y = dst.base + r * dst.stride;
    const float *x = src.base + r * src.stride;
    if (back)
      rope_rotate_back_add(y, x, heads, cfg.HS, R, cs + t, sn + t);
    else
      rope_rotate(y, x, heads, cfg.HS, R, cs + t, sn + t);
  }
}

/// Buffers of n floats for rotated operands and their gradients, kept
/// between calls like scratch(); apart from it, since the parallel regions
/// use scratch() on this thread too.
float *operand_buffer(int slot, size_t n) {
  thread_local std::vector<float> buf[4];
  if (buf[slot].size() < n)
    buf[slot].resize(n);
  return buf[slot].data();
}

/// q and k as the scores read them: rotated by position into operand
/// buffers 0 and 1 with RoPE on, as given otherwise.
std::pair<Rows, Rows> scored(Rows q, Rows k, const AttentionConfig &cfg) {
  if (!rope_on(cfg))
    return {q, k};
  const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C()),
               Ckv = size_t(cfg.C_kv());
  float *qrot = operand_buffer(0, rows * C);
  float *krot = operand_buffer(1, rows * Ckv);
  rope_rows({qrot, C}, q, cfg.NH, false, cfg);
  rope_rows({krot, Ckv}, k, cfg.kv_heads(), false, cfg);
  return {Rows{qrot, C}, Rows{krot, Ckv}};
}

/// The same for decoding: the B rows of q and k are position pos's.
std::pair<Rows, Rows> scored_at(Rows q, Rows k, int pos,
                                const AttentionConfig &cfg) {
  if (!rope_on(cfg))
    return {q, k};
  // Position pos's row of the table the forward rotates with.
  const int R = rope_dims(cfg), half = R / 2;
  const RopeTable &table = rope_table(cfg.rope.theta, R, pos + 1);
  const float *cs = table.cos.data() + size_t(pos) * half;
  const float *sn = table.sin.data() + size_t(pos) * half;
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  float *qrot = operand_buffer(0, size_t(cfg.B) * C);
  float *krot = operand_buffer(1, size_t(cfg.B) * Ckv);
  for (int b = 0; b < cfg.B; ++b) {
    rope_rotate(qrot + b * C, q.base + b * q.stride, cfg.NH, cfg.HS, R, cs,
                sn);
    rope_rotate(krot + b * Ckv, k.base + b * k.stride, cfg.kv_heads(), cfg.HS,
                R, cs, sn);
  }
  return {Rows{qrot, C}, Rows{krot, Ckv}};
}

/// attention_core_forward over q and k rotated when RoPE is on.
void rotary_core_forward(float *out, float *att, Rows q, Rows k, Rows v,
                         const AttentionConfig &cfg, AttentionMask mask) {
  auto [qs, ks] = scored(q, k, cfg);
  attention_core_forward(out, att, qs, ks, v, cfg, mask);
}

/// attention_core_backward over q and k rotated when RoPE is on: the
/// gradients of the rotated operands go to operand buffers 2 and 3, then
/// back through the (orthogonal) rotation into dq and dk.
void rotary_core_backward(MutRows dq, MutRows dk, MutRows dv,
                          const float *dout, Rows q, Rows k, Rows v,
                          const float *att, const AttentionConfig &cfg,
                          AttentionMask mask) {
  if (!rope_on(cfg)) {
    attention_core_backward(dq, dk, dv, dout, q, k, v, att, cfg, mask);
    return;
  }
  auto [qs, ks] = scored(q, k, cfg);
  const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C()),
               Ckv = size_t(cfg.C_kv());
  float *dqs = dq.base ? operand_buffer(2, rows * C) : nullptr;
  float *dks = dk.base ? operand_buffer(3, rows * Ckv) : nullptr;
  if (dqs)
    std::fill(dqs, dqs + rows * C, 0.0f);
  if (dks)
    std::fill(dks, dks + rows * Ckv, 0.0f);
  attention_core_backward({dqs, C}, {dks, Ckv}, dv, dout, qs, ks, v, att, cfg,
                          mask);
  if (dqs)
    rope_rows(dq, {dqs, C}, cfg.NH, true, cfg);
  if (dks)
    rope_rows(dk, {dks, Ckv}, cfg.kv_heads(), true, cfg);
}

} // namespace

void attention_forward(float *out, float *att, const float *qkv,
                       const AttentionConfig &cfg) {
  check_attention_config(cfg, "attention_forward");
  check_multi_head(cfg, "attention_forward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "attention_forward: the strictly-earlier mask is for cross-attention; "
        "use cross_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  rotary_core_forward(out, att, {qkv, stride}, {qkv + C, stride},
                      {qkv + 2 * C, stride}, cfg, cfg.mask);
}

void attention_backward(float *dqkv, const float *dout, const float *qkv,
                        const float *att, const AttentionConfig &cfg) {
  check_attention_config(cfg, "attention_backward");
  check_multi_head(cfg, "attention_backward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  rotary_core_backward({dqkv, stride}, {dqkv + C, stride},
                       {dqkv + 2 * C, stride}, dout, {qkv, stride},
                       {qkv + C, stride}, {qkv + 2 * C, stride}, att, cfg,
                       cfg.mask);
}

void cross_attention_forward(float *out, float *att, const float *q,
                             const float *kv, const AttentionConfig &cfg) {
  check_attention_config(cfg, "cross_attention_forward");
  check_multi_head(cfg, "cross_attention_forward");
  size_t C = size_t(cfg.C());
  rotary_core_forward(out, att, {q, C}, {kv, 2 * C}, {kv + C, 2 * C}, cfg,
                      AttentionMask::StrictlyEarlier);
}

void cross_attention_backward(float *dq, float *dkv, const float *dout,
                              const float *q, const float *kv, const float *att,
                              const AttentionConfig &cfg) {
  check_attention_config(cfg, "cross_attention_backward");
  check_multi_head(cfg, "cross_attention_backward");
  size_t C = size_t(cfg.C());
  rotary_core_backward(
      {dq, C}, {dkv, 2 * C}, {dkv ? dkv + C : nullptr, 2 * C}, dout, {q, C},
      {kv, 2 * C}, {kv + C, 2 * C}, att, cfg, AttentionMask::StrictlyEarlier);
}

} // namespace tpc::cpu

namespace tpc::cpu {

void decode_attention_forward(float *out, float *kcache, float *vcache,
                              const float *qkv, int pos, int capacity,
                              const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_attention_forward");
  check_multi_head(cfg, "decode_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  auto [qs, ks] = scored_at({qkv, stride}, {qkv + C, stride}, pos, cfg);
  decode_append(kcache, vcache, ks, {qkv + 2 * C, stride}, pos, capacity, cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward(out, kcache, vcache, qs, lo, pos + 1, capacity, cfg);
}

void decode_cross_attention_forward(float *out, float *kcache, float *vcache,
                                    const float *q, const float *kv, int pos,
                                    int capacity, const AttentionConfig &cfg,
                                    bool lagged) {
  check_decode(cfg, pos, capacity, "decode_cross_attention_forward");
  check_multi_head(cfg, "decode_cross_attention_forward");
  size_t C = size_t(cfg.C());
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window) : 0;
  if (!lagged) {
    auto [qs, ks] = scored_at({q, C}, {kv, 2 * C}, pos, cfg);
    decode_core_forward(out, kcache, vcache, qs, lo, pos, capacity, cfg);
    decode_append(kcache, vcache, ks, {kv + C, 2 * C}, pos, capacity, cfg);
    return;
  }
  // The key is rotated at its own position, pos - 1, the query at pos;
  // rotating the query second keeps its operand buffer for the attention.
  if (pos > 0) {
    Rows ks = scored_at({q, C}, {kv, 2 * C}, pos - 1, cfg).second;
    decode_append(kcache, vcache, ks, {kv + C, 2 * C}, pos - 1, capacity, cfg);
  }
  Rows qs = scored_at({q, C}, {kv, 2 * C}, pos, cfg).first;
  decode_core_forward(out, kcache, vcache, qs, lo, pos, capacity, cfg);
}

} // namespace tpc::cpu

namespace tpc::cpu {

void gqa_attention_forward(float *out, float *att, const float *q,
                           const float *k, const float *v,
                           const AttentionConfig &cfg) {
  check_attention_config(cfg, "gqa_attention_forward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "gqa_attention_forward: the strictly-earlier mask is for "
        "cross-attention; use cross_attention_forward");
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  rotary_core_forward(out, att, {q, C}, {k, Ckv}, {v, Ckv}, cfg, cfg.mask);
}

void gqa_attention_backward(float *dq, float *dk, float *dv, const float *dout,
                            const float *q, const float *k, const float *v,
                            const float *att, const AttentionConfig &cfg) {
  check_attention_config(cfg, "gqa_attention_backward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "gqa_attention_backward: the strictly-earlier mask is for "
        "cross-attention; use cross_attention_backward");
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  rotary_core_backward({dq, C}, {dk, Ckv}, {dv, Ckv}, dout, {q, C}, {k, Ckv},
                       {v, Ckv}, att, cfg, cfg.mask);
}

void decode_gqa_attention_forward(float *out, float *kcache, float *vcache,
                                  const float *q, const float *k,
                                  const float *v, int pos, int capacity,
                                  const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_gqa_attention_forward");
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  auto [qs, ks] = scored_at({q, C}, {k, Ckv}, pos, cfg);
  decode_append(kcache, vcache, ks, {v, Ckv}, pos, capacity, cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward(out, kcache, vcache, qs, lo, pos + 1, capacity, cfg);
}

} // namespace tpc::cpu
