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
#include <type_traits>
#include <utility>
#include <vector>

namespace tpc::cpu {
namespace {

/// Rows of one operand of storage type S: row (b, t), head h starts at
/// base + (b*T + t) * stride + h * HS. Query rows are indexed by query
/// head, key and value rows by KV head (see group_size).
template <class S> struct TypedRows {
  const typename S::type *base;
  size_t stride;
};
template <class S> struct MutTypedRows {
  typename S::type *base;
  size_t stride;
};
/// fp32 rows: an operand as above, or one (sequence, head)'s view, whose
/// row t starts at base + t * stride (head_in, head_out).
using Rows = TypedRows<F32Storage>;
using MutRows = MutTypedRows<F32Storage>;

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

/// The row stride of a head transposed to (HS, n): room for n columns and
/// one more vector of 16 (dot_rows reads its last keys as a whole vector),
/// in an odd number of cache lines. At a power-of-two stride (1 KiB for
/// T = 256) the rows fall into a quarter of L1's sets, and the dot
/// products' loads evict each other.
size_t transposed_ld(int n) { return ((size_t(n) + 31) / 16 | 1) * 16; }

/// Per-thread scratch of n floats, kept between calls: no allocation per
/// step once a shape has been seen.
float *scratch(size_t n) {
  thread_local std::vector<float> buf;
  if (buf.size() < n)
    buf.resize(n);
  return buf.data();
}

//===----------------------------------------------------------------------===//
// Blocked loops
//
// A block of up to kBlock<W> query rows goes through the keys together, with
// its partial sums in vector registers: the keys (or values) loaded for one
// row serve the others, where the per-row loops loaded and stored every
// partial sum for every multiply-add. Every element still takes its terms in
// the per-row order (scores over i, sums over keys s, key and value
// gradients over query rows t), so the results do not depend on the block
// size, and decoding (blocks of one row) gives the forward's rows bit for
// bit.
//===----------------------------------------------------------------------===//

/// Query rows per block, for W-float vectors (below). With AVX-512 a block
/// of 8 rows: the key and value gradients of a head (T x HS floats each,
/// 64 KiB at T = 256, HS = 64) do not stay in L1, and each block loads and
/// stores them once; blocks of 8 rows halve that traffic against 4 (the
/// backward 97 -> 89 ms, the forward 44 -> 40 ms, per GPT-2 124M bf16 step
/// on two cores). AVX2's 16 registers hold a block of 4.
template <int W> constexpr int kBlock = W >= 16 ? 8 : 4;
/// The kernels below run on W-float vectors, W the lanes of the widest
/// registers the CPU has (on_native_lanes in VecMath.h). U is the same at
/// any float's address; GCC lets a vector type alias its elements. (A
/// struct, because GCC drops vector attributes on alias templates.)
template <int W> struct Lanes {
  typedef float V __attribute__((vector_size(W * sizeof(float))));
  typedef float U __attribute__((vector_size(W * sizeof(float)), aligned(4)));
};
template <int W> using Vec = typename Lanes<W>::V;

#define TPC_ALWAYS_INLINE inline __attribute__((always_inline))
#define TPC_LAMBDA_INLINE __attribute__((always_inline))
#define LOAD_VEC(p) (*reinterpret_cast<const typename Lanes<W>::U *>(p))
#define STORE_VEC(p, v) (*reinterpret_cast<typename Lanes<W>::U *>(p) = (v))

/// The even (Hi = 0) or odd (Hi = 1) halves of a and b interleaved:
/// a[o], b[o], a[o + 1], b[o + 1], ... from o = Hi * W / 2.
template <int W, int Hi, int... I>
TPC_ALWAYS_INLINE void zip(Vec<W> &out, const Vec<W> &a, const Vec<W> &b,
                           std::integer_sequence<int, I...>) {
  out =
      __builtin_shufflevector(a, b, ((I % 2 ? W : 0) + Hi * W / 2 + I / 2)...);
}

/// t[r][c] = t[c][r]: log2(W) rounds of interleaving row i with row
/// i + W/2 (a perfect shuffle of the rows) transpose a W x W tile.
template <int W> TPC_ALWAYS_INLINE void transpose_tile(Vec<W> *t) {
  constexpr auto lanes = std::make_integer_sequence<int, W>();
  for (int round = 1; round < W; round *= 2) {
    Vec<W> u[W];
    for (int i = 0; i < W / 2; ++i) {
      zip<W, 0>(u[2 * i], t[i], t[i + W / 2], lanes);
      zip<W, 1>(u[2 * i + 1], t[i], t[i + W / 2], lanes);
    }
    for (int i = 0; i < W; ++i)
      t[i] = u[i];
  }
}

/// dst (HS, n), rows transposed_ld(n) apart: column j = the HS elements
/// of row(j) (of storage type S) in fp32; the columns past n are zero.
/// W x W tiles go through registers (copied a column at a time, every
/// element would be stored ld floats from the last).
template <int W, class S = F32Storage, class Row>
TPC_ALWAYS_INLINE void transpose_rows(float *dst, int n, int HS, Row row) {
  const size_t ld = transposed_ld(n);
  for (int j0 = 0; j0 < n; j0 += W) {
    // The last tile's rows past n are zero; its stores stay within ld,
    // which leaves a whole vector past the last tile.
    const int rows = std::min(W, n - j0);
    const typename S::type *x[W];
    for (int r = 0; r < rows; ++r)
      x[r] = row(j0 + r);
    int i0 = 0;
    for (; i0 + W <= HS; i0 += W) {
      Vec<W> t[W];
      for (int r = 0; r < W; ++r) {
        if constexpr (kIsF32<S>) {
          t[r] = r < rows ? LOAD_VEC(x[r] + i0) : Vec<W>{};
        } else {
          float wide[W] = {};
          for (int l = 0; l < W && r < rows; ++l)
            wide[l] = S::load(x[r][i0 + l]);
          t[r] = LOAD_VEC(wide);
        }
      }
      transpose_tile<W>(t);
      for (int c = 0; c < W; ++c)
        STORE_VEC(dst + size_t(i0 + c) * ld + j0, t[c]);
    }
    for (; i0 < HS; ++i0)
      for (int r = 0; r < rows; ++r)
        dst[size_t(i0) * ld + j0 + r] = S::load(x[r][i0]);
  }
  for (int i = 0; i < HS; ++i)
    std::fill(dst + size_t(i) * ld + n, dst + (size_t(i) + 1) * ld, 0.0f);
}

/// dst = the T rows of sequence b, head h of src in fp32, transposed
/// (transpose_rows): the dot products of a query with every key then run
/// along contiguous memory.
template <int W, class S>
TPC_ALWAYS_INLINE void transpose_head(float *dst, TypedRows<S> src, int b,
                                      int h, int T, int HS) {
  transpose_rows<W, S>(dst, T, HS, [&](int s) {
    return src.base + (size_t(b) * T + s) * src.stride + size_t(h) * HS;
  });
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

/// Vectors of partial sums per row of a block, at most: AVX-512's 32
/// registers hold a block's 8 x 2 with room for the operands, AVX2's and
/// SSE2's 16 a block's 4 x 2.
constexpr int kRowVectors = 2;

/// dot_rows over the NV vectors of columns from S and kt on.
template <int W, int R, int NV>
TPC_ALWAYS_INLINE void dot_chunk(float *S, size_t lds, const float *const *x,
                                 const float *kt, size_t ld, int HS) {
  Vec<W> a[R][NV] = {};
  for (int i = 0; i < HS; ++i) {
    const float *ki = kt + size_t(i) * ld;
    Vec<W> k[NV];
    for (int v = 0; v < NV; ++v)
      k[v] = LOAD_VEC(ki + v * W);
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < NV; ++v)
        a[r][v] += x[r][i] * k[v];
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v)
      STORE_VEC(S + r * lds + v * W, a[r][v]);
}

/// S[r * lds + j] = sum over i < HS, in order, of x[r][i] * kt[i * ld + j]
/// for the R rows x[r] and j in [0, n): scores of R queries against keys
/// stored transposed (HS, ld), or in backward the gradient of R rows'
/// probabilities against values stored so. The last keys go through a
/// whole vector too (kt's rows have room for it, transposed_ld), so every
/// key takes the same arithmetic wherever a block's keys end: decoding a
/// row then scores as the forward did, multiply-adds fused or not alike.
template <int W, int R>
TPC_ALWAYS_INLINE void dot_rows(float *S, size_t lds, const float *const *x,
                                const float *kt, size_t ld, int n, int HS) {
  constexpr int NV = kRowVectors;
  int j = 0;
  for (; j + NV * W <= n; j += NV * W)
    dot_chunk<W, R, NV>(S + j, lds, x, kt + j, ld, HS);
  for (; j + W <= n; j += W)
    dot_chunk<W, R, 1>(S + j, lds, x, kt + j, ld, HS);
  if (j == n)
    return;
  float last[R * W];
  dot_chunk<W, R, 1>(last, W, x, kt + j, ld, HS);
  for (int r = 0; r < R; ++r)
    std::copy(last + r * W, last + r * W + (n - j), S + r * lds + j);
}

/// Which (row, key) terms a loop takes: row r takes key s where
/// lo[r] <= s < hi[r] and, with `use`, use[r * ldu + s] is set (a dropout
/// keep mask).
struct Terms {
  const int *lo, *hi;
  const uint8_t *use = nullptr;
  size_t ldu = 0;
  TPC_ALWAYS_INLINE bool takes(int r, int s) const {
    return s >= lo[r] && s < hi[r] && (!use || use[r * ldu + s]);
  }
  /// Calls step(s, std::bool_constant<every>()) for s in [s0, s1), in
  /// order, where `every` is true in a run of keys that all R rows take:
  /// without a mask, those in every row's range. There the loops need no
  /// test per row and key.
  template <int R, class F>
  TPC_ALWAYS_INLINE void keys(int s0, int s1, F step) const {
    int a = s0, e = s0; // [a, e): taken by every row
    if (!use) {
      e = s1;
      for (int r = 0; r < R; ++r) {
        a = std::max(a, lo[r]);
        e = std::min(e, hi[r]);
      }
      a = std::min(a, s1);
      e = std::max(a, e);
    }
    for (int s = s0; s < a; ++s)
      step(s, std::false_type());
    for (int s = a; s < e; ++s)
      step(s, std::true_type());
    for (int s = e; s < s1; ++s)
      step(s, std::false_type());
  }
};

/// Calls chunk(std::integral_constant<int, NV>(), i0) over the columns
/// [0, HS) in chunks of at most kRowVectors vectors, and returns where
/// the whole vectors end: the columns from there to HS are the caller's.
template <int W, class F> TPC_ALWAYS_INLINE int by_vectors(int HS, F chunk) {
  constexpr int NV = kRowVectors;
  static_assert(NV == 2, "the chunks after the whole ones assume 2");
  int i0 = 0;
  for (; i0 + NV * W <= HS; i0 += NV * W)
    chunk(std::integral_constant<int, NV>(), i0);
  const int rest = (HS - i0) / W;
  if (rest == 1)
    chunk(std::integral_constant<int, 1>(), i0);
  return i0 + rest * W;
}

/// acc[r][i0 + i] += c[r][s] * X[s * ldx + i0 + i] for i < NV vectors,
/// summed over keys s in [s0, s1) in order, for the terms taken.
template <int W, int R, int NV>
TPC_ALWAYS_INLINE void
accumulate_chunk(float *const *acc, const float *const *c, Terms terms,
                 const float *X, size_t ldx, int s0, int s1, int i0) {
  Vec<W> o[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v)
      o[r][v] = LOAD_VEC(acc[r] + i0 + v * W);
  terms.keys<R>(s0, s1, [&](int s, auto every) TPC_LAMBDA_INLINE {
    const float *xs = X + size_t(s) * ldx + i0;
    Vec<W> xv[NV];
    for (int v = 0; v < NV; ++v)
      xv[v] = LOAD_VEC(xs + v * W);
    for (int r = 0; r < R; ++r) {
      if (!every && !terms.takes(r, s))
        continue;
      const float cr = c[r][s];
      for (int v = 0; v < NV; ++v)
        o[r][v] += cr * xv[v];
    }
  });
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v)
      STORE_VEC(acc[r] + i0 + v * W, o[r][v]);
}

/// acc[r][i] += sum over keys s in [s0, s1), in order, of c[r][s] *
/// X[s * ldx + i], i < HS, for the terms taken: a block's rows of
/// probabilities times values, or of score gradients times keys.
template <int W, int R>
TPC_ALWAYS_INLINE void accumulate_rows(float *const *acc, const float *const *c,
                                       Terms terms, const float *X, size_t ldx,
                                       int s0, int s1, int HS) {
  const int i0 = by_vectors<W>(HS, [&](auto nv, int at) TPC_LAMBDA_INLINE {
    accumulate_chunk<W, R, decltype(nv)::value>(acc, c, terms, X, ldx, s0, s1,
                                                at);
  });
  if (i0 == HS)
    return;
  for (int s = s0; s < s1; ++s)
    for (int r = 0; r < R; ++r) {
      if (!terms.takes(r, s))
        continue;
      const float cr = c[r][s];
      const float *xs = X + size_t(s) * ldx;
      for (int i = i0; i < HS; ++i)
        acc[r][i] += cr * xs[i];
    }
}

/// Y[s * ldy + i0 + i] += c[r][s] * x[r][i0 + i] for i < NV vectors, summed
/// over the block's rows r in order, for keys s in [s0, s1) and the terms
/// taken.
template <int W, int R, int NV>
TPC_ALWAYS_INLINE void update_chunk(float *Y, size_t ldy, const float *const *c,
                                    Terms terms, const float *const *x, int s0,
                                    int s1, int i0) {
  Vec<W> xr[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v)
      xr[r][v] = LOAD_VEC(x[r] + i0 + v * W);
  terms.keys<R>(s0, s1, [&](int s, auto every) TPC_LAMBDA_INLINE {
    float *ys = Y + size_t(s) * ldy + i0;
    Vec<W> y[NV];
    for (int v = 0; v < NV; ++v)
      y[v] = LOAD_VEC(ys + v * W);
    for (int r = 0; r < R; ++r) {
      if (!every && !terms.takes(r, s))
        continue;
      const float cr = c[r][s];
      for (int v = 0; v < NV; ++v)
        y[v] += cr * xr[r][v];
    }
    for (int v = 0; v < NV; ++v)
      STORE_VEC(ys + v * W, y[v]);
  });
}

/// Y[s * ldy + i] += sum over the block's rows r, in order, of c[r][s] *
/// x[r][i], i < HS, for keys s in [s0, s1) and the terms taken: the value
/// and key gradients of a block of query rows.
template <int W, int R>
TPC_ALWAYS_INLINE void update_rows(float *Y, size_t ldy, const float *const *c,
                                   Terms terms, const float *const *x, int s0,
                                   int s1, int HS) {
  const int i0 = by_vectors<W>(HS, [&](auto nv, int at) TPC_LAMBDA_INLINE {
    update_chunk<W, R, decltype(nv)::value>(Y, ldy, c, terms, x, s0, s1, at);
  });
  if (i0 == HS)
    return;
  for (int s = s0; s < s1; ++s) {
    float *ys = Y + size_t(s) * ldy;
    for (int r = 0; r < R; ++r) {
      if (!terms.takes(r, s))
        continue;
      const float cr = c[r][s];
      for (int i = i0; i < HS; ++i)
        ys[i] += cr * x[r][i];
    }
  }
}

/// a[j] = softmax over j < n of scale * a[j]: the scores of one row turned
/// into probabilities. The forward and decoding call it on the same scores
/// at different addresses, so its sum runs in W lanes (j = l mod W), added
/// in lane order, then the tail: an order set by n alone, where a
/// vectorized reduction's order would follow the row's alignment.
template <int W>
TPC_ALWAYS_INLINE void softmax_scores(float *a, int n, float scale) {
  // The maximum in W lanes (GCC leaves a scalar loop for a reduction by
  // std::max): a maximum is exact in any order, and a NaN score is skipped
  // as std::max(maxv, a[j]) skips it.
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  Vec<W> top = Vec<W>{} + kNegInf;
  int m = 0;
  for (; m + W <= n; m += W) {
    const Vec<W> x = LOAD_VEC(a + m) * scale;
    STORE_VEC(a + m, x);
    top = x > top ? x : top;
  }
  float maxv = kNegInf;
  for (int l = 0; l < W; ++l)
    maxv = std::max(maxv, top[l]);
  for (; m < n; ++m) {
    a[m] *= scale;
    maxv = std::max(maxv, a[m]);
  }
  exp_shifted(a, size_t(n), maxv);
  Vec<W> lanes = {};
  int j = 0;
  for (; j + W <= n; j += W)
    lanes += LOAD_VEC(a + j);
  float sum = 0.0f;
  for (int l = 0; l < W; ++l)
    sum += lanes[l];
  for (; j < n; ++j)
    sum += a[j];
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int j = 0; j < n; ++j)
    a[j] *= inv;
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

/// Rows [t0, t0 + R) of one (sequence, query head): their key ranges, the
/// union [slo, shi) of them, and their row pointers into a (B,T,stride)
/// operand.
template <int R> struct QueryBlock {
  int lo[R] = {}, hi[R] = {};
  int slo = 0, shi = 0;
  QueryBlock(AttentionMask mask, int window, int T, int t0) {
    slo = T;
    for (int r = 0; r < R; ++r) {
      key_range(mask, window, T, t0 + r, lo[r], hi[r]);
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
  const QueryBlock<R> blk(mask, cfg.window, T, t0);
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
  const QueryBlock<R> blk(mask, cfg.window, T, t0);
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
    rope_rotate(qrot + b * C, q.base + b * q.stride, cfg.NH, cfg.HS, R, cs, sn);
    rope_rotate(krot + b * Ckv, k.base + b * k.stride, cfg.kv_heads(), cfg.HS,
                R, cs, sn);
  }
  return {Rows{qrot, C}, Rows{krot, Ckv}};
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

} // namespace

template <class S>
void attention_forward(typename S::type *out, float *att,
                       const typename S::type *qkv,
                       const AttentionConfig &cfg) {
  check_attention_config(cfg, "attention_forward");
  check_multi_head(cfg, "attention_forward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "attention_forward: the strictly-earlier mask is for cross-attention; "
        "use cross_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  rotary_core_forward<S>({out, C}, att, {qkv, stride}, {qkv + C, stride},
                         {qkv + 2 * C, stride}, cfg, cfg.mask,
                         "attention_forward");
}

template <class S>
void attention_backward(typename S::type *dqkv, const typename S::type *dout,
                        const typename S::type *qkv, const float *att,
                        const AttentionConfig &cfg) {
  check_attention_config(cfg, "attention_backward");
  check_multi_head(cfg, "attention_backward");
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
  check_attention_config(cfg, "cross_attention_forward");
  check_multi_head(cfg, "cross_attention_forward");
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
  check_attention_config(cfg, "cross_attention_backward");
  check_multi_head(cfg, "cross_attention_backward");
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
      const float *, const AttentionConfig &);
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu

namespace tpc::cpu {

template <class S>
void decode_attention_forward(float *out, typename S::type *kcache,
                              typename S::type *vcache, const float *qkv,
                              int pos, int capacity,
                              const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_attention_forward");
  check_multi_head(cfg, "decode_attention_forward");
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
  check_decode(cfg, pos, capacity, "decode_cross_attention_forward");
  check_multi_head(cfg, "decode_cross_attention_forward");
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

} // namespace tpc::cpu

namespace tpc::cpu {

template <class S>
void gqa_attention_forward(typename S::type *out, float *att,
                           const typename S::type *q, const typename S::type *k,
                           const typename S::type *v,
                           const AttentionConfig &cfg) {
  check_attention_config(cfg, "gqa_attention_forward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "gqa_attention_forward: the strictly-earlier mask is for "
        "cross-attention; use cross_attention_forward");
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
  check_attention_config(cfg, "gqa_attention_backward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "gqa_attention_backward: the strictly-earlier mask is for "
        "cross-attention; use cross_attention_backward");
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

#define TPC_INSTANTIATE(S)                                                     \
  template void gqa_attention_forward<S>(S::type *, float *, const S::type *,  \
                                         const S::type *, const S::type *,     \
                                         const AttentionConfig &);             \
  template void gqa_attention_backward<S>(                                     \
      S::type *, S::type *, S::type *, const S::type *, const S::type *,       \
      const S::type *, const S::type *, const float *,                         \
      const AttentionConfig &);
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

template <class S>
void decode_gqa_attention_forward(float *out, typename S::type *kcache,
                                  typename S::type *vcache, const float *q,
                                  const float *k, const float *v, int pos,
                                  int capacity, const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_gqa_attention_forward");
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  auto [qs, ks] = scored_at({q, C}, {k, Ckv}, pos, cfg);
  decode_append<S>(kcache, vcache, ks, {v, Ckv}, pos, capacity, cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward<S>(out, kcache, vcache, qs, lo, pos + 1, capacity, cfg,
                         {pos, ks, {v, Ckv}});
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
      const float *, int, int, const AttentionConfig &);
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
