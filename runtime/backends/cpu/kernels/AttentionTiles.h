//===- AttentionTiles.h - SIMD tiles of the CPU attention -------*- C++ -*-===//
//
// What training (Attention.cpp), decoding (AttentionDecode.cpp) and RoPE
// (Rope.cpp) share: the rows of an operand, the KV head a query head reads,
// per-thread scratch, and the loops on W-float vectors that a block of
// query rows runs through its keys with: keys transposed in W x W tiles,
// the block's dot products against them, its weighted sums of rows and
// their transposes, and the softmax of a row of scores. Each element takes
// its terms in one order whatever the block, so decoding (blocks of one
// row) gives the forward's rows bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_ATTENTIONTILES_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_ATTENTIONTILES_H

#include "runtime/backend/KernelTypes.h"
#include "runtime/backends/cpu/kernels/Storage.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace tpc::cpu::attn {

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

/// Query heads per KV head: query head h reads KV head h / group_size, so
/// NH/KVH consecutive query heads share one.
inline int group_size(const AttentionConfig &cfg) {
  return cfg.NH / cfg.kv_heads();
}

/// The local KV head that local query head h reads: h / group_size, or, when
/// every rank holds all KV heads, the KV head of its global index.
inline int kv_head_of(const AttentionConfig &cfg, int h) {
  if (cfg.kv_replicated)
    return (cfg.head_offset + h) / (cfg.global_heads() / cfg.kv_heads());
  return h / group_size(cfg);
}

/// The row stride of a head transposed to (HS, n): room for n columns and
/// one more vector of 16 (dot_rows reads its last keys as a whole vector),
/// in an odd number of cache lines. At a power-of-two stride (1 KiB for
/// T = 256) the rows fall into a quarter of L1's sets, and the dot
/// products' loads evict each other.
inline size_t transposed_ld(int n) { return ((size_t(n) + 31) / 16 | 1) * 16; }

/// Per-thread scratch of n floats, kept between calls: no allocation per
/// step once a shape has been seen.
inline float *scratch(size_t n) {
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

} // namespace tpc::cpu::attn

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_ATTENTIONTILES_H
