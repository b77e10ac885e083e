//===- Attention.cu - Self, cross and grouped-query attention --*- CUDA -*-===//
//
// The nine attention launchers of the kernel table, with the semantics of
// runtime/backends/cpu/kernels/Attention.cpp: the same key ranges per mask
// and window, zero outputs for a query with no keys, probabilities saved
// before dropout (zero where masked), probability dropout keyed by the
// global sequence and head, RoPE by rotate-half with angles computed in
// double and rounded once, and decoding that gives the forward's row.
//
// The forward runs one block per (sequence, head, tile of 32 queries): the
// queries sit in shared memory while tiles of 32 keys, then of 32 values,
// stream through it. Lane l of a warp always holds the keys s = l mod 32
// (tiles start at multiples of 32), so a decoding call, which runs the very
// same kernel on one query row against the KV cache, sums its scores and
// outputs in the forward's order and agrees with it bit for bit whenever it
// reads the same keys. The backward has two passes and no atomics: per
// query row, dpre = att * (datt - sum att * datt) * scale into an fp32
// scratch (B,NH,T,T) and dq; then per tile of keys of one KV head, dk and
// dv summed over the group's query heads in order. Every gradient element
// is written by one thread and rounded once.
//
// With RoPE on, q and k are rotated into fp32 scratch first (as the CPU
// rotates into its operand buffers), the shared path runs on the rotated
// operands, and the gradients of the rotated q and k are turned back into
// dq and dk.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/KernelChecks.h"
#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"
#include "runtime/util/Philox.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace tpc::cuda {
namespace {

/// Queries per block and keys per tile; a tile's keys map onto the lanes.
constexpr int kTile = 32;
constexpr int kWarps = kThreads / kWarp;
constexpr int kRowsPerWarp = kTile / kWarps;
static_assert(kTile == kWarp, "lane l holds key s0 + l of a tile");
static_assert(kTile % kWarps == 0, "each warp owns whole rows");

/// The default dynamic shared memory of a block; kernels that need more
/// opt in (H100/H200 allow up to 227 KiB).
constexpr size_t kDefaultSmem = 48 * 1024;

//===----------------------------------------------------------------------===//
// What the kernels read
//===----------------------------------------------------------------------===//

/// One call's shape as the kernels see it. Queries are rows [0, Tq) at
/// positions *pos + row (pos null: row); keys are positions [0, Tk).
struct Geometry {
  int B = 0, Tq = 0, NH = 0, HS = 0, KVH = 0;
  int head_offset = 0, global_heads = 0;
  bool kv_replicated = false;
  AttentionMask mask = AttentionMask::Causal;
  int window = 0;
  int Tk = 0;
  float scale = 1.0f;
  // Probability dropout; drop_p = 0: off.
  float drop_p = 0.0f, drop_scale = 1.0f;
  uint64_t drop_seed = 0, drop_stream = 0;
  int batch_offset = 0;
  int T = 0; // cfg.T: the extent of the global probability index
};

/// Rows of one operand: head `head` of position s of sequence b starts at
/// base + b * batch_stride + s * row_stride + head * HS.
template <class E> struct View {
  E *base;
  size_t batch_stride, row_stride;
  __device__ __forceinline__ E *at(int b, int s, int head, int HS) const {
    return base + size_t(b) * batch_stride + size_t(s) * row_stride +
           size_t(head) * HS;
  }
};

/// A decoding call's key of the current position in fp32 (B, KVH*HS), read
/// instead of the cache row it was rounded into; null: none.
struct Fresh {
  const float *k = nullptr;
  int offset = 0; // its position is *pos + offset
};

__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int imax(int a, int b) { return a > b ? a : b; }

/// Keys [lo, hi) that the query at position t sees (the CPU's key_range).
/// hi never passes Tk, which only a position beyond the cache would reach.
__device__ __forceinline__ void key_range(const Geometry &g, int t, int &lo,
                                          int &hi) {
  const int w = g.window;
  if (g.mask == AttentionMask::Causal) {
    lo = w > 0 ? imax(0, t - w + 1) : 0;
    hi = t + 1;
  } else if (g.mask == AttentionMask::Bidirectional) {
    lo = w > 0 ? imax(0, t - w + 1) : 0;
    hi = w > 0 ? imin(g.Tk, t + w) : g.Tk;
  } else { // StrictlyEarlier
    lo = w > 0 ? imax(0, t - w) : 0;
    hi = t;
  }
  hi = imin(hi, g.Tk);
}

/// Queries [tlo, thi) whose key range holds key s: the inverse of
/// key_range, for the training shapes (Tq = Tk).
__device__ __forceinline__ void query_range(const Geometry &g, int s, int &tlo,
                                            int &thi) {
  const int w = g.window, T = g.Tq;
  if (g.mask == AttentionMask::Causal) {
    tlo = s; // lo(t) <= s  <=>  t <= s + w - 1
    thi = w > 0 ? imin(T, s + w) : T;
  } else if (g.mask == AttentionMask::Bidirectional) {
    tlo = w > 0 ? imax(0, s - w + 1) : 0;
    thi = w > 0 ? imin(T, s + w) : T;
  } else { // StrictlyEarlier: s < t <= s + w
    tlo = s + 1;
    thi = w > 0 ? imin(T, s + w + 1) : T;
  }
}

/// The local KV head that local query head h reads (the CPU's kv_head_of).
__device__ __forceinline__ int kv_head(const Geometry &g, int h) {
  if (g.kv_replicated)
    return (g.head_offset + h) / (g.global_heads / g.KVH);
  return h / (g.NH / g.KVH);
}

/// Global index of probability (b, h, t, 0) for dropout, as the CPU's
/// dropout_row_base.
__device__ __forceinline__ uint64_t drop_row_base(const Geometry &g, int b,
                                                  int h, int t) {
  const uint64_t gh = uint64_t(g.global_heads);
  const uint64_t gb = uint64_t(g.batch_offset) + uint64_t(b);
  return ((gb * gh + uint64_t(g.head_offset + h)) * uint64_t(g.T) +
          uint64_t(t)) *
         uint64_t(g.T);
}

/// 1/(1-p) if the probability with this global index survives, else 0.
__device__ __forceinline__ float drop_factor(const Geometry &g,
                                             uint64_t index) {
  return philox_uniform(g.drop_seed, g.drop_stream, index) >= g.drop_p
             ? g.drop_scale
             : 0.0f;
}

/// *p = x, or *p + x rounded once when `accumulate`.
template <class E>
__device__ __forceinline__ void store(E *p, float x, bool accumulate) {
  *p = from_float<E>(accumulate ? to_float(*p) + x : x);
}

//===----------------------------------------------------------------------===//
// Shared-memory tiles
//===----------------------------------------------------------------------===//

/// dst[j * ld + i] = element i of head `head` of row t0 + j (j < kTile) of
/// src, 0 for rows at or past `end`. The row at `fresh_pos` comes from
/// `fresh` (a (B, fresh_stride) fp32 tensor) when that is not null.
template <class E>
__device__ void load_rows(float *dst, int ld, View<const E> src, int b, int t0,
                          int end, int head, int HS,
                          const float *fresh = nullptr, int fresh_pos = -1,
                          size_t fresh_stride = 0) {
  for (int e = int(threadIdx.x); e < kTile * HS; e += int(blockDim.x)) {
    const int j = e / HS, i = e - j * HS, t = t0 + j;
    float x = 0.0f;
    if (t < end) {
      if (fresh && t == fresh_pos)
        x = fresh[size_t(b) * fresh_stride + size_t(head) * HS + i];
      else
        x = to_float(src.at(b, t, head, HS)[i]);
    }
    dst[j * ld + i] = x;
  }
}

/// acc[r] = the dot product of query row r of the warp (qw, rows HS apart)
/// with tile row `lane` (HS + 1 apart), summed over i in order.
__device__ __forceinline__ void row_dots(float (&acc)[kRowsPerWarp],
                                         const float *qw, const float *tile,
                                         int lane, int HS) {
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r)
    acc[r] = 0.0f;
  const float *kr = tile + lane * (HS + 1);
  for (int i = 0; i < HS; ++i) {
    const float x = kr[i];
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r)
      acc[r] = fmaf(qw[r * HS + i], x, acc[r]);
  }
}

/// o[d] += sum over j of w_j * tile[j][d], j in order, where lane j holds
/// w_j; lane l owns columns d = l mod 32. Every lane of the warp calls it.
__device__ __forceinline__ void weighted_rows(float *o, const float *tile,
                                              float w, int lane, int HS) {
  for (int d0 = 0; d0 < HS; d0 += kWarp) {
    const int d = d0 + lane;
    float acc = d < HS ? o[d] : 0.0f;
#pragma unroll 8
    for (int j = 0; j < kTile; ++j) {
      const float wj = __shfl_sync(0xffffffffu, w, j);
      if (d < HS)
        acc = fmaf(wj, tile[j * (HS + 1) + d], acc);
    }
    if (d < HS)
      o[d] = acc;
  }
}

/// Shared memory of the row kernels: a [kTile][HS] block of rows and a
/// [kTile][HS + 1] tile (padded: lane l reads row l).
size_t row_kernel_smem(int HS) {
  return (size_t(kTile) * HS + size_t(kTile) * (HS + 1)) * sizeof(float);
}

/// Of the key kernel: four [kTile][HS] blocks and two [kTile][kTile].
size_t key_kernel_smem(int HS) {
  return (4 * size_t(kTile) * HS + 2 * size_t(kTile) * kTile) * sizeof(float);
}

template <class K> void allow_smem(K *kernel, size_t bytes) {
  if (bytes > kDefaultSmem)
    cudaCheck(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

//===----------------------------------------------------------------------===//
// Forward (training and decoding)
//===----------------------------------------------------------------------===//

// out is (B,Tq,NH*HS); att holds rows (B,NH,Tq) of att_ld floats: the
// probabilities, zero at masked keys below zero_len; q is viewed by query
// head, k and v by KV head. Grid (ceil(Tq/32), NH, B), kThreads threads,
// row_kernel_smem(HS) bytes. Query row tq is at position p0 + tq.
template <class TQ, class TK, class TV, class TO>
__global__ void __launch_bounds__(kThreads)
    attention_forward_kernel(TO *out, float *att, size_t att_ld, int zero_len,
                             View<const TQ> q, View<const TK> k,
                             View<const TV> v, Fresh fresh, const int *pos,
                             Geometry g) {
  extern __shared__ float smem[];
  const int HS = g.HS;
  float *qo = smem;                // [kTile][HS]: queries, then outputs
  float *tile = smem + kTile * HS; // [kTile][HS + 1]: keys, then values
  const int b = int(blockIdx.z), h = int(blockIdx.y);
  const int t0 = int(blockIdx.x) * kTile;
  const int warp = int(threadIdx.x) / kWarp, lane = int(threadIdx.x) % kWarp;
  const int kvh = kv_head(g, h);
  const int p0 = pos ? *pos : 0;
  const int t_end = imin(t0 + kTile, g.Tq);

  // The block's keys: ranges only move right as t grows. Tiles start at a
  // multiple of 32 whatever the block, so lane l holds s = l mod 32.
  int klo, khi, unused;
  key_range(g, p0 + t0, klo, unused);
  key_range(g, p0 + t_end - 1, unused, khi);
  const int s_begin = klo / kTile * kTile;

  int lo[kRowsPerWarp], hi[kRowsPerWarp];
  float mx[kRowsPerWarp];
  float *arow[kRowsPerWarp];
  uint64_t dbase[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int tq = t0 + warp * kRowsPerWarp + r;
    lo[r] = 0;
    hi[r] = 0;
    mx[r] = -INFINITY;
    arow[r] = nullptr;
    dbase[r] = 0;
    if (tq < g.Tq) {
      key_range(g, p0 + tq, lo[r], hi[r]);
      arow[r] = att + ((size_t(b) * g.NH + h) * g.Tq + tq) * att_ld;
      if (g.drop_p > 0.0f)
        dbase[r] = drop_row_base(g, b, h, p0 + tq);
      // Masked probabilities are 0 (all of them for a row without keys).
      for (int s = lane; s < zero_len; s += kWarp)
        if (s < lo[r] || s >= hi[r])
          arow[r][s] = 0.0f;
    }
  }

  load_rows(qo, HS, q, b, t0, g.Tq, h, HS);
  __syncthreads();
  float *qw = qo + warp * kRowsPerWarp * HS; // this warp's rows

  // Scaled scores into att. Each (t, s) of att is written and read back by
  // one thread only (lane s mod 32 of t's warp), so no barrier orders them.
  for (int s0 = s_begin; s0 < khi; s0 += kTile) {
    __syncthreads(); // the previous tile's readers are done
    load_rows(tile, HS + 1, k, b, s0, khi, kvh, HS, fresh.k, p0 + fresh.offset,
              size_t(g.KVH) * HS);
    __syncthreads();
    bool any = false;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r)
      any |= s0 < hi[r] && s0 + kTile > lo[r];
    if (!any)
      continue;
    float acc[kRowsPerWarp];
    row_dots(acc, qw, tile, lane, HS);
    const int s = s0 + lane;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r)
      if (s >= lo[r] && s < hi[r]) {
        const float sc = acc[r] * g.scale;
        arow[r][s] = sc;
        mx[r] = fmaxf(mx[r], sc);
      }
  }

  // Softmax of each row in fp32.
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    if (lo[r] >= hi[r])
      continue; // warp-uniform
    const float m = warp_max(mx[r]);
    float sum = 0.0f;
    for (int s = s_begin + lane; s < khi; s += kTile)
      if (s >= lo[r] && s < hi[r]) {
        const float e = expf(arow[r][s] - m);
        arow[r][s] = e;
        sum += e;
      }
    const float inv = 1.0f / warp_sum(sum);
    for (int s = s_begin + lane; s < khi; s += kTile)
      if (s >= lo[r] && s < hi[r])
        arow[r][s] *= inv;
  }

  // out = sum over s of drop(p_s) v_s; the queries' rows become the
  // outputs' (lane l owns columns l mod 32 of its warp's rows).
  __syncwarp();
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r)
    for (int d = lane; d < HS; d += kWarp)
      qw[r * HS + d] = 0.0f;
  for (int s0 = s_begin; s0 < khi; s0 += kTile) {
    __syncthreads();
    load_rows(tile, HS + 1, v, b, s0, khi, kvh, HS);
    __syncthreads();
    const int s = s0 + lane;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      if (s0 >= hi[r] || s0 + kTile <= lo[r])
        continue; // warp-uniform: no key of this tile
      float w = 0.0f;
      if (s >= lo[r] && s < hi[r]) {
        w = arow[r][s];
        if (g.drop_p > 0.0f)
          w *= drop_factor(g, dbase[r] + uint64_t(s));
      }
      weighted_rows(qw + r * HS, tile, w, lane, HS);
    }
  }

#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int tq = t0 + warp * kRowsPerWarp + r;
    if (tq >= g.Tq)
      continue;
    TO *o =
        out + (size_t(b) * g.Tq + tq) * (size_t(g.NH) * HS) + size_t(h) * HS;
    for (int d = lane; d < HS; d += kWarp)
      o[d] = from_float<TO>(qw[r * HS + d]);
  }
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

// Pass 1, per query row. dout, dq are (B,T,NH*HS) (dq as its view says);
// att, dpre are (B,NH,T,T) fp32; k, v are viewed by KV head. For the keys
// s of query t:
//   datt[s] = drop(dout[t] . v[s]),  D = sum_s att[t,s] * datt[s]
//   dpre[t,s] = att[t,s] * (datt[s] - D) * scale
//   dq[t] (+)= sum_s dpre[t,s] k[s]            (skipped when dq is null)
// Grid (ceil(T/32), NH, B), kThreads threads, row_kernel_smem(HS) bytes.
template <class TK, class TV, class TD, class TDQ>
__global__ void __launch_bounds__(kThreads)
    attention_backward_query_kernel(View<TDQ> dq, bool dq_accumulates,
                                    float *dpre, View<const TD> dout,
                                    View<const TK> k, View<const TV> v,
                                    const float *att, Geometry g) {
  extern __shared__ float smem[];
  const int HS = g.HS, T = g.Tq;
  float *go = smem;                // [kTile][HS]: dout rows, then dq rows
  float *tile = smem + kTile * HS; // [kTile][HS + 1]: values, then keys
  const int b = int(blockIdx.z), h = int(blockIdx.y);
  const int t0 = int(blockIdx.x) * kTile;
  const int warp = int(threadIdx.x) / kWarp, lane = int(threadIdx.x) % kWarp;
  const int kvh = kv_head(g, h);
  const int t_end = imin(t0 + kTile, T);

  int klo, khi, unused;
  key_range(g, t0, klo, unused);
  key_range(g, t_end - 1, unused, khi);
  const int s_begin = klo / kTile * kTile;

  int lo[kRowsPerWarp], hi[kRowsPerWarp];
  const float *arow[kRowsPerWarp];
  float *prow[kRowsPerWarp];
  uint64_t dbase[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int tq = t0 + warp * kRowsPerWarp + r;
    lo[r] = 0;
    hi[r] = 0;
    arow[r] = nullptr;
    prow[r] = nullptr;
    dbase[r] = 0;
    if (tq < T) {
      key_range(g, tq, lo[r], hi[r]);
      const size_t row = ((size_t(b) * g.NH + h) * T + tq) * T;
      arow[r] = att + row;
      prow[r] = dpre + row;
      if (g.drop_p > 0.0f)
        dbase[r] = drop_row_base(g, b, h, tq);
    }
  }

  load_rows(go, HS, dout, b, t0, T, h, HS);
  __syncthreads();
  float *gw = go + warp * kRowsPerWarp * HS;

  // datt into dpre, and each lane's part of D. As in the forward, each
  // (t, s) of dpre belongs to one thread.
  float part[kRowsPerWarp];
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r)
    part[r] = 0.0f;
  for (int s0 = s_begin; s0 < khi; s0 += kTile) {
    __syncthreads();
    load_rows(tile, HS + 1, v, b, s0, khi, kvh, HS);
    __syncthreads();
    bool any = false;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r)
      any |= s0 < hi[r] && s0 + kTile > lo[r];
    if (!any)
      continue;
    float acc[kRowsPerWarp];
    row_dots(acc, gw, tile, lane, HS);
    const int s = s0 + lane;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r)
      if (s >= lo[r] && s < hi[r]) {
        float d = acc[r];
        if (g.drop_p > 0.0f)
          d *= drop_factor(g, dbase[r] + uint64_t(s));
        part[r] += arow[r][s] * d;
        prow[r][s] = d;
      }
  }

  // Through the softmax and the scaled dot products.
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    if (lo[r] >= hi[r])
      continue; // warp-uniform
    const float D = warp_sum(part[r]);
    for (int s = s_begin + lane; s < khi; s += kTile)
      if (s >= lo[r] && s < hi[r])
        prow[r][s] = arow[r][s] * (prow[r][s] - D) * g.scale;
  }

  if (!dq.base)
    return; // the whole block: dpre is all pass 2 needs

  __syncwarp();
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r)
    for (int d = lane; d < HS; d += kWarp)
      gw[r * HS + d] = 0.0f;
  for (int s0 = s_begin; s0 < khi; s0 += kTile) {
    __syncthreads();
    load_rows(tile, HS + 1, k, b, s0, khi, kvh, HS);
    __syncthreads();
    const int s = s0 + lane;
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; ++r) {
      if (s0 >= hi[r] || s0 + kTile <= lo[r])
        continue; // warp-uniform
      const float w = s >= lo[r] && s < hi[r] ? prow[r][s] : 0.0f;
      weighted_rows(gw + r * HS, tile, w, lane, HS);
    }
  }

#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int tq = t0 + warp * kRowsPerWarp + r;
    if (tq >= T)
      continue;
    TDQ *o = dq.at(b, tq, h, HS);
    for (int d = lane; d < HS; d += kWarp)
      store(o + d, gw[r * HS + d], dq_accumulates);
  }
}

// Pass 2, per tile of 32 keys of one KV head. dk, dv are viewed by KV
// head; q by query head; dout is (B,T,NH*HS); att, dpre are (B,NH,T,T).
// Over the group's query heads h in order and the queries t that see s:
//   dk[s] (+)= sum dpre[t,s] q[t]       dv[s] += sum drop(att[t,s]) dout[t]
// Either may be null. Grid (ceil(T/32), KVH, B), kThreads threads,
// key_kernel_smem(HS) bytes.
template <class TQ, class TD, class TDK, class TDV>
__global__ void __launch_bounds__(kThreads)
    attention_backward_key_kernel(View<TDK> dk, bool dk_accumulates,
                                  View<TDV> dv, const float *dpre,
                                  View<const TQ> q, View<const TD> dout,
                                  const float *att, Geometry g) {
  extern __shared__ float smem[];
  const int HS = g.HS, T = g.Tq;
  float *qt = smem;             // [kTile][HS]: queries t0 + j
  float *gt = qt + kTile * HS;  // [kTile][HS]: their output gradients
  float *dka = gt + kTile * HS; // [kTile][HS]: dk of keys s0 + r
  float *dva = dka + kTile * HS;
  float *pw = dva + kTile * HS; // [kTile][kTile]: dpre[t0 + j][s0 + c]
  float *aw = pw + kTile * kTile;
  const int b = int(blockIdx.z), kvh = int(blockIdx.y);
  const int s0 = int(blockIdx.x) * kTile;
  const int warp = int(threadIdx.x) / kWarp, lane = int(threadIdx.x) % kWarp;
  const bool want_k = dk.base != nullptr, want_v = dv.base != nullptr;

  // Queries that see any key of the block; each pair is checked below.
  int tlo, thi, unused;
  query_range(g, s0, tlo, unused);
  query_range(g, imin(s0 + kTile, T) - 1, unused, thi);

  // Lane l owns columns l mod 32 of its warp's rows of dka and dva.
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int sr = warp * kRowsPerWarp + r;
    for (int d = lane; d < HS; d += kWarp) {
      dka[sr * HS + d] = 0.0f;
      dva[sr * HS + d] = 0.0f;
    }
  }

  for (int h = 0; h < g.NH; ++h) {
    if (kv_head(g, h) != kvh)
      continue; // block-uniform
    const size_t head = (size_t(b) * g.NH + h) * T;
    for (int t0 = tlo; t0 < thi; t0 += kTile) {
      __syncthreads(); // the previous tile's readers are done
      if (want_k)
        load_rows(qt, HS, q, b, t0, T, h, HS);
      if (want_v)
        load_rows(gt, HS, dout, b, t0, T, h, HS);
      for (int e = int(threadIdx.x); e < kTile * kTile; e += int(blockDim.x)) {
        const int j = e / kTile, c = e % kTile, t = t0 + j, s = s0 + c;
        float pv = 0.0f, av = 0.0f;
        if (t < T && s < T) {
          int lo, hi;
          key_range(g, t, lo, hi);
          if (s >= lo && s < hi) {
            const size_t idx = (head + t) * T + s;
            if (want_k)
              pv = dpre[idx];
            if (want_v) {
              av = att[idx];
              if (g.drop_p > 0.0f)
                av *= drop_factor(g, drop_row_base(g, b, h, t) + uint64_t(s));
            }
          }
        }
        pw[e] = pv;
        aw[e] = av;
      }
      __syncthreads();
#pragma unroll
      for (int r = 0; r < kRowsPerWarp; ++r) {
        const int sr = warp * kRowsPerWarp + r;
        if (s0 + sr >= T)
          continue;
        for (int d = lane; d < HS; d += kWarp) {
          if (want_k) {
            float a = dka[sr * HS + d];
            for (int j = 0; j < kTile; ++j)
              a = fmaf(pw[j * kTile + sr], qt[j * HS + d], a);
            dka[sr * HS + d] = a;
          }
          if (want_v) {
            float a = dva[sr * HS + d];
            for (int j = 0; j < kTile; ++j)
              a = fmaf(aw[j * kTile + sr], gt[j * HS + d], a);
            dva[sr * HS + d] = a;
          }
        }
      }
    }
  }

#pragma unroll
  for (int r = 0; r < kRowsPerWarp; ++r) {
    const int sr = warp * kRowsPerWarp + r, s = s0 + sr;
    if (s >= T)
      continue;
    for (int d = lane; d < HS; d += kWarp) {
      if (want_k)
        store(dk.at(b, s, kvh, HS) + d, dka[sr * HS + d], dk_accumulates);
      if (want_v)
        store(dv.at(b, s, kvh, HS) + d, dva[sr * HS + d], true);
    }
  }
}

//===----------------------------------------------------------------------===//
// Rotary position embedding, KV-cache rows
//===----------------------------------------------------------------------===//

/// cos and sin of pair i (of R/2) at position p: computed in double and
/// rounded to float once, the values of the CPU's table.
__device__ __forceinline__ void rope_angle(double theta, int R, int i, int p,
                                           float &c, float &s) {
  const double inv_freq = pow(theta, -2.0 * i / R);
  const double a = double(p) * inv_freq;
  c = float(cos(a));
  s = float(sin(a));
}

// dst (rows, heads*HS) fp32 = the rows of src (row r at src + r*src_stride),
// each head's pairs (x[i], x[i+R/2]), i < R/2, turned by position
// (*pos or 0) + offset + r % Tq; dimensions [R, HS) are copied. One thread
// per pair or copied dimension. The products are rounded apart (no FMA),
// so the forward and decoding rotate a row to the same bits.
template <class T>
__global__ void rope_rotate_kernel(float *dst, const T *src, size_t src_stride,
                                   int rows, int Tq, int heads, int HS, int R,
                                   double theta, const int *pos, int offset) {
  const int half = R / 2, per_head = HS - half;
  const int p0 = (pos ? *pos : 0) + offset;
  const int64_t n = int64_t(rows) * heads * per_head;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int p = int(e % per_head);
    const int64_t rh = e / per_head;
    const int hh = int(rh % heads);
    const int64_t r = rh / heads;
    const T *x = src + size_t(r) * src_stride + size_t(hh) * HS;
    float *y = dst + (size_t(r) * heads + hh) * HS;
    if (p < half) {
      float c, s;
      rope_angle(theta, R, p, p0 + int(r % Tq), c, s);
      const float a = to_float(x[p]), bb = to_float(x[p + half]);
      y[p] = __fsub_rn(__fmul_rn(a, c), __fmul_rn(bb, s));
      y[p + half] = __fadd_rn(__fmul_rn(bb, c), __fmul_rn(a, s));
    } else {
      y[p + half] = to_float(x[p + half]); // dimension p + half in [R, HS)
    }
  }
}

// dst (row r at dst + r*dst_stride, heads*HS wide) += src (rows, heads*HS)
// fp32 turned back by position r % Tq: the adjoint of rope_rotate_kernel,
// (dy[i] cos + dy[i+R/2] sin, dy[i+R/2] cos - dy[i] sin).
template <class T>
__global__ void
rope_rotate_back_kernel(T *dst, size_t dst_stride, const float *src, int rows,
                        int Tq, int heads, int HS, int R, double theta) {
  const int half = R / 2, per_head = HS - half;
  const int64_t n = int64_t(rows) * heads * per_head;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int p = int(e % per_head);
    const int64_t rh = e / per_head;
    const int hh = int(rh % heads);
    const int64_t r = rh / heads;
    const float *dy = src + (size_t(r) * heads + hh) * HS;
    T *dx = dst + size_t(r) * dst_stride + size_t(hh) * HS;
    if (p < half) {
      float c, s;
      rope_angle(theta, R, p, int(r % Tq), c, s);
      const float a = dy[p], bb = dy[p + half];
      store(dx + p, __fadd_rn(__fmul_rn(a, c), __fmul_rn(bb, s)), true);
      store(dx + p + half, __fsub_rn(__fmul_rn(bb, c), __fmul_rn(a, s)), true);
    } else {
      store(dx + p + half, dy[p + half], true);
    }
  }
}

// kcache, vcache are (B,capacity,Ckv); k, v rows (B) are strided. Writes
// row *pos + offset of each sequence: the key (krot, fp32, when rotated)
// and the value. A row before 0 (lagged, position 0) is not written.
template <class T>
__global__ void kv_append_kernel(T *kcache, T *vcache, const T *k, size_t ks,
                                 const float *krot, const T *v, size_t vs,
                                 const int *pos, int offset, int B, int Ckv,
                                 int capacity) {
  const int p = *pos + offset;
  if (p < 0 || p >= capacity)
    return;
  const int64_t n = int64_t(B) * Ckv;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int b = int(e / Ckv), c = int(e % Ckv);
    const size_t at = (size_t(b) * capacity + p) * Ckv + c;
    kcache[at] =
        krot ? from_float<T>(krot[size_t(b) * Ckv + c]) : k[size_t(b) * ks + c];
    vcache[at] = v[size_t(b) * vs + c];
  }
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

/// An empty training call: nothing to do. Decoding ignores cfg.T.
bool empty(const AttentionConfig &cfg) {
  return cfg.B == 0 || cfg.T == 0 || cfg.NH == 0 || cfg.HS == 0;
}
bool empty_decode(const AttentionConfig &cfg) {
  return cfg.B == 0 || cfg.NH == 0 || cfg.HS == 0;
}

Geometry geometry(const AttentionConfig &cfg, int Tq, int Tk,
                  AttentionMask mask, bool dropout) {
  Geometry g;
  g.B = cfg.B;
  g.Tq = Tq;
  g.NH = cfg.NH;
  g.HS = cfg.HS;
  g.KVH = cfg.kv_heads();
  g.head_offset = cfg.head_offset;
  g.global_heads = cfg.global_heads();
  g.kv_replicated = cfg.kv_replicated;
  g.mask = mask;
  g.window = cfg.window;
  g.Tk = Tk;
  g.scale = 1.0f / std::sqrt(float(cfg.HS)); // as the CPU rounds it
  if (dropout && cfg.dropout.p > 0.0f) {
    g.drop_p = cfg.dropout.p;
    g.drop_scale = 1.0f / (1.0f - cfg.dropout.p);
    g.drop_seed = cfg.dropout.seed;
    g.drop_stream = dropout_stream(cfg.dropout.key, cfg.dropout.step);
  }
  g.batch_offset = cfg.batch_offset;
  g.T = cfg.T;
  return g;
}

unsigned query_tiles(int T) {
  return unsigned((int64_t(T) + kTile - 1) / kTile);
}

template <class TQ, class TK, class TV, class TO>
void launch_forward(const Launch &l, unsigned tiles, TO *out, float *att,
                    size_t att_ld, int zero_len, View<const TQ> q,
                    View<const TK> k, View<const TV> v, Fresh fresh,
                    const int *pos, const Geometry &g) {
  const size_t smem = row_kernel_smem(g.HS);
  auto *kernel = attention_forward_kernel<TQ, TK, TV, TO>;
  allow_smem(kernel, smem);
  kernel<<<dim3(tiles, unsigned(g.NH), unsigned(g.B)), kThreads, smem,
           l.stream>>>(out, att, att_ld, zero_len, q, k, v, fresh, pos, g);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class TK, class TV, class TD, class TDQ>
void launch_backward_query(const Launch &l, View<TDQ> dq, bool dq_accumulates,
                           float *dpre, View<const TD> dout, View<const TK> k,
                           View<const TV> v, const float *att,
                           const Geometry &g) {
  const size_t smem = row_kernel_smem(g.HS);
  auto *kernel = attention_backward_query_kernel<TK, TV, TD, TDQ>;
  allow_smem(kernel, smem);
  kernel<<<dim3(query_tiles(g.Tq), unsigned(g.NH), unsigned(g.B)), kThreads,
           smem, l.stream>>>(dq, dq_accumulates, dpre, dout, k, v, att, g);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class TQ, class TD, class TDK, class TDV>
void launch_backward_key(const Launch &l, View<TDK> dk, bool dk_accumulates,
                         View<TDV> dv, const float *dpre, View<const TQ> q,
                         View<const TD> dout, const float *att,
                         const Geometry &g) {
  const size_t smem = key_kernel_smem(g.HS);
  auto *kernel = attention_backward_key_kernel<TQ, TD, TDK, TDV>;
  allow_smem(kernel, smem);
  kernel<<<dim3(query_tiles(g.Tq), unsigned(g.KVH), unsigned(g.B)), kThreads,
           smem, l.stream>>>(dk, dk_accumulates, dv, dpre, q, dout, att, g);
  TPC_CUDA_LAUNCH_CHECK();
}

/// dst (rows, heads*HS) fp32 = src rows rotated; see rope_rotate_kernel.
template <class T>
void rope_rotate(const Launch &l, float *dst, const T *src, size_t src_stride,
                 int rows, int Tq, int heads, const AttentionConfig &cfg,
                 const int *pos, int offset) {
  const int R = rope_dims(cfg);
  const size_t n = size_t(rows) * size_t(heads) * size_t(cfg.HS - R / 2);
  if (n == 0)
    return;
  rope_rotate_kernel<T><<<grid_for(n), kThreads, 0, l.stream>>>(
      dst, src, src_stride, rows, Tq, heads, cfg.HS, R, cfg.rope.theta, pos,
      offset);
  TPC_CUDA_LAUNCH_CHECK();
}

/// dst rows += src (fp32) rotated back; see rope_rotate_back_kernel.
template <class T>
void rope_rotate_back(const Launch &l, T *dst, size_t dst_stride,
                      const float *src, int rows, int Tq, int heads,
                      const AttentionConfig &cfg) {
  const int R = rope_dims(cfg);
  const size_t n = size_t(rows) * size_t(heads) * size_t(cfg.HS - R / 2);
  if (n == 0)
    return;
  rope_rotate_back_kernel<T><<<grid_for(n), kThreads, 0, l.stream>>>(
      dst, dst_stride, src, rows, Tq, heads, cfg.HS, R, cfg.rope.theta);
  TPC_CUDA_LAUNCH_CHECK();
}

/// The training forward over q (row stride qs), k (ks) and v (vs), each
/// (B,T,·): rotates q and k into scratch first when RoPE is on.
template <class T>
void training_forward(const Launch &l, T *out, float *att, const T *q,
                      size_t qs, const T *k, size_t ks, const T *v, size_t vs,
                      const AttentionConfig &cfg, AttentionMask mask) {
  const int B = cfg.B, Tt = cfg.T;
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  const size_t rows = size_t(B) * Tt, T_ = size_t(Tt);
  const Geometry g = geometry(cfg, Tt, Tt, mask, true);
  const View<const T> vv{v, T_ * vs, vs};
  const unsigned tiles = query_tiles(Tt);
  if (rope_on(cfg)) {
    char *base = static_cast<char *>(
        l.scratch->get(region(rows * C) + region(rows * Ckv)));
    float *qr = reinterpret_cast<float *>(base);
    float *kr = reinterpret_cast<float *>(base + region(rows * C));
    rope_rotate(l, qr, q, qs, B * Tt, Tt, cfg.NH, cfg, nullptr, 0);
    rope_rotate(l, kr, k, ks, B * Tt, Tt, cfg.kv_heads(), cfg, nullptr, 0);
    launch_forward<float, float, T, T>(
        l, tiles, out, att, T_, Tt, View<const float>{qr, T_ * C, C},
        View<const float>{kr, T_ * Ckv, Ckv}, vv, Fresh{}, nullptr, g);
  } else {
    launch_forward<T, T, T, T>(
        l, tiles, out, att, T_, Tt, View<const T>{q, T_ * qs, qs},
        View<const T>{k, T_ * ks, ks}, vv, Fresh{}, nullptr, g);
  }
}

/// The training backward; gradients dq (row stride dqs), dk (dks), dv
/// (dvs) accumulate and may be null.
template <class T>
void training_backward(const Launch &l, T *dq, size_t dqs, T *dk, size_t dks,
                       T *dv, size_t dvs, const T *dout, const T *q, size_t qs,
                       const T *k, size_t ks, const T *v, size_t vs,
                       const float *att, const AttentionConfig &cfg,
                       AttentionMask mask) {
  if (!dq && !dk && !dv)
    return;
  const int B = cfg.B, Tt = cfg.T, NH = cfg.NH, KVH = cfg.kv_heads();
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  const size_t rows = size_t(B) * Tt, T_ = size_t(Tt);
  const bool rope = rope_on(cfg), need_dpre = dq || dk;

  // One scratch block: dpre, then with RoPE the rotated q and k and the
  // gradients with respect to them.
  const size_t n_dpre = need_dpre ? size_t(B) * NH * T_ * T_ : 0;
  const size_t n_q = rope ? rows * C : 0, n_k = rope ? rows * Ckv : 0;
  const size_t n_dq = rope && dq ? rows * C : 0;
  const size_t n_dk = rope && dk ? rows * Ckv : 0;
  const size_t bytes =
      region(n_dpre) + region(n_q) + region(n_k) + region(n_dq) + region(n_dk);
  char *base = bytes ? static_cast<char *>(l.scratch->get(bytes)) : nullptr;
  auto take = [&base](size_t n) -> float * {
    if (!n)
      return nullptr;
    float *p = reinterpret_cast<float *>(base);
    base += region(n);
    return p;
  };
  float *dpre = take(n_dpre);
  float *qr = take(n_q), *kr = take(n_k);
  float *dqr = take(n_dq), *dkr = take(n_dk);

  const Geometry g = geometry(cfg, Tt, Tt, mask, true);
  const View<const T> dov{dout, T_ * C, C};
  const View<const T> vv{v, T_ * vs, vs};
  const View<T> dvv{dv, T_ * dvs, dvs};
  if (rope) {
    rope_rotate(l, qr, q, qs, B * Tt, Tt, NH, cfg, nullptr, 0);
    rope_rotate(l, kr, k, ks, B * Tt, Tt, KVH, cfg, nullptr, 0);
    const View<const float> qv{qr, T_ * C, C}, kv{kr, T_ * Ckv, Ckv};
    // The rotated gradients are written whole, then turned back into dq
    // and dk with one rounding.
    if (need_dpre)
      launch_backward_query<float, T, T, float>(
          l, View<float>{dqr, T_ * C, C}, false, dpre, dov, kv, vv, att, g);
    if (dk || dv)
      launch_backward_key<float, T, float, T>(
          l, View<float>{dkr, T_ * Ckv, Ckv}, false, dvv, dpre, qv, dov, att,
          g);
    if (dq)
      rope_rotate_back(l, dq, dqs, dqr, B * Tt, Tt, NH, cfg);
    if (dk)
      rope_rotate_back(l, dk, dks, dkr, B * Tt, Tt, KVH, cfg);
  } else {
    const View<const T> qv{q, T_ * qs, qs}, kv{k, T_ * ks, ks};
    if (need_dpre)
      launch_backward_query<T, T, T, T>(l, View<T>{dq, T_ * dqs, dqs}, true,
                                        dpre, dov, kv, vv, att, g);
    if (dk || dv)
      launch_backward_key<T, T, T, T>(l, View<T>{dk, T_ * dks, dks}, true, dvv,
                                      dpre, qv, dov, att, g);
  }
}

/// One decoding position: q (B rows, stride qs), k (ks), v (vs) of the
/// current call; caches (B,capacity,Ckv). The key and value go to row
/// *pos + key_offset of the caches, before the attention when
/// `append_first`, after it otherwise; `fresh`: the attention reads that
/// key in fp32 rather than from the cache (as the CPU reads its widened
/// cache). The queries and keys are rotated at their own positions.
template <class T>
void decode_core(const Launch &l, T *out, T *kcache, T *vcache, const T *q,
                 size_t qs, const T *k, size_t ks, const T *v, size_t vs,
                 const int *pos, int capacity, const AttentionConfig &cfg,
                 AttentionMask mask, int key_offset, bool append_first,
                 bool fresh) {
  const int B = cfg.B, NH = cfg.NH, KVH = cfg.kv_heads();
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  const bool rope = rope_on(cfg);

  // Probabilities (B,NH,capacity), then with RoPE the rotated q and k.
  const size_t n_p = size_t(B) * NH * size_t(capacity);
  const size_t n_q = rope ? size_t(B) * C : 0, n_k = rope ? size_t(B) * Ckv : 0;
  char *base = static_cast<char *>(
      l.scratch->get(region(n_p) + region(n_q) + region(n_k)));
  float *prob = reinterpret_cast<float *>(base);
  float *qr = rope ? reinterpret_cast<float *>(base + region(n_p)) : nullptr;
  float *kr = rope ? reinterpret_cast<float *>(base + region(n_p) + region(n_q))
                   : nullptr;
  if (rope) {
    rope_rotate(l, qr, q, qs, B, 1, NH, cfg, pos, 0);
    rope_rotate(l, kr, k, ks, B, 1, KVH, cfg, pos, key_offset);
  }

  auto append = [&] {
    const size_t n = size_t(B) * Ckv;
    kv_append_kernel<T><<<grid_for(n), kThreads, 0, l.stream>>>(
        kcache, vcache, k, ks, kr, v, vs, pos, key_offset, B, int(Ckv),
        capacity);
    TPC_CUDA_LAUNCH_CHECK();
  };
  if (append_first)
    append();

  // The forward's kernel on one query row at position *pos.
  const Geometry g = geometry(cfg, 1, capacity, mask, false);
  const size_t cache_stride = size_t(capacity) * Ckv;
  const View<const T> kc{kcache, cache_stride, Ckv},
      vc{vcache, cache_stride, Ckv};
  const Fresh f{rope && fresh ? kr : nullptr, key_offset};
  if (rope)
    launch_forward<float, T, T, T>(l, 1, out, prob, size_t(capacity), 0,
                                   View<const float>{qr, C, 0}, kc, vc, f, pos,
                                   g);
  else
    launch_forward<T, T, T, T>(l, 1, out, prob, size_t(capacity), 0,
                               View<const T>{q, qs, 0}, kc, vc, f, pos, g);

  if (!append_first)
    append();
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

template <class T>
void attention_forward(const Launch &l, T *out, float *att, const T *qkv,
                       const AttentionConfig &cfg) {
  if (empty(cfg))
    return;
  check_attention(cfg, AttentionCall::Forward);
  const size_t C = size_t(cfg.C()), stride = 3 * C;
  training_forward(l, out, att, qkv, stride, qkv + C, stride, qkv + 2 * C,
                   stride, cfg, cfg.mask);
}

template <class T>
void attention_backward(const Launch &l, T *dqkv, const T *dout, const T *qkv,
                        const float *att, const AttentionConfig &cfg) {
  if (empty(cfg))
    return;
  check_attention(cfg, AttentionCall::Backward);
  if (!dqkv)
    return;
  const size_t C = size_t(cfg.C()), stride = 3 * C;
  training_backward(l, dqkv, stride, dqkv + C, stride, dqkv + 2 * C, stride,
                    dout, qkv, stride, qkv + C, stride, qkv + 2 * C, stride,
                    att, cfg, cfg.mask);
}

template <class T>
void cross_attention_forward(const Launch &l, T *out, float *att, const T *q,
                             const T *kv, const AttentionConfig &cfg) {
  if (empty(cfg))
    return;
  check_attention(cfg, AttentionCall::CrossForward);
  const size_t C = size_t(cfg.C());
  training_forward(l, out, att, q, C, kv, 2 * C, kv + C, 2 * C, cfg,
                   AttentionMask::StrictlyEarlier);
}

template <class T>
void cross_attention_backward(const Launch &l, T *dq, T *dkv, const T *dout,
                              const T *q, const T *kv, const float *att,
                              const AttentionConfig &cfg) {
  if (empty(cfg))
    return;
  check_attention(cfg, AttentionCall::CrossBackward);
  const size_t C = size_t(cfg.C());
  training_backward(l, dq, C, dkv, 2 * C, dkv ? dkv + C : nullptr, 2 * C, dout,
                    q, C, kv, 2 * C, kv + C, 2 * C, att, cfg,
                    AttentionMask::StrictlyEarlier);
}

template <class T>
void decode_attention_forward(const Launch &l, T *out, T *kcache, T *vcache,
                              const T *qkv, const int *pos, int capacity,
                              const AttentionConfig &cfg) {
  if (empty_decode(cfg))
    return;
  check_decode(cfg, capacity, DecodeCall::Self);
  const size_t C = size_t(cfg.C()), stride = 3 * C;
  decode_core(l, out, kcache, vcache, qkv, stride, qkv + C, stride, qkv + 2 * C,
              stride, pos, capacity, cfg, AttentionMask::Causal, 0, true, true);
}

template <class T>
void decode_cross_attention_forward(const Launch &l, T *out, T *kcache,
                                    T *vcache, const T *q, const T *kv,
                                    const int *pos, int capacity,
                                    const AttentionConfig &cfg, bool lagged) {
  if (empty_decode(cfg))
    return;
  check_decode(cfg, capacity, DecodeCall::Cross);
  const size_t C = size_t(cfg.C());
  // Lagged: kv is position *pos - 1's, written first and attended to;
  // otherwise the attention covers [lo, *pos) and kv joins at *pos after.
  decode_core(l, out, kcache, vcache, q, C, kv, 2 * C, kv + C, 2 * C, pos,
              capacity, cfg, AttentionMask::StrictlyEarlier, lagged ? -1 : 0,
              lagged, lagged);
}

template <class T>
void gqa_attention_forward(const Launch &l, T *out, float *att, const T *q,
                           const T *k, const T *v, const AttentionConfig &cfg) {
  if (empty(cfg))
    return;
  check_attention(cfg, AttentionCall::GqaForward);
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  training_forward(l, out, att, q, C, k, Ckv, v, Ckv, cfg, cfg.mask);
}

template <class T>
void gqa_attention_backward(const Launch &l, T *dq, T *dk, T *dv, const T *dout,
                            const T *q, const T *k, const T *v,
                            const float *att, const AttentionConfig &cfg) {
  if (empty(cfg))
    return;
  check_attention(cfg, AttentionCall::GqaBackward);
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  training_backward(l, dq, C, dk, Ckv, dv, Ckv, dout, q, C, k, Ckv, v, Ckv, att,
                    cfg, cfg.mask);
}

template <class T>
void decode_gqa_attention_forward(const Launch &l, T *out, T *kcache, T *vcache,
                                  const T *q, const T *k, const T *v,
                                  const int *pos, int capacity,
                                  const AttentionConfig &cfg) {
  if (empty_decode(cfg))
    return;
  check_decode(cfg, capacity, DecodeCall::Gqa);
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  decode_core(l, out, kcache, vcache, q, C, k, Ckv, v, Ckv, pos, capacity, cfg,
              AttentionMask::Causal, 0, true, true);
}

#define TPC_INSTANTIATE_ATTENTION(T)                                           \
  template void attention_forward<T>(const Launch &, T *, float *, const T *,  \
                                     const AttentionConfig &);                 \
  template void attention_backward<T>(const Launch &, T *, const T *,          \
                                      const T *, const float *,                \
                                      const AttentionConfig &);                \
  template void cross_attention_forward<T>(const Launch &, T *, float *,       \
                                           const T *, const T *,               \
                                           const AttentionConfig &);           \
  template void cross_attention_backward<T>(                                   \
      const Launch &, T *, T *, const T *, const T *, const T *,               \
      const float *, const AttentionConfig &);                                 \
  template void decode_attention_forward<T>(const Launch &, T *, T *, T *,     \
                                            const T *, const int *, int,       \
                                            const AttentionConfig &);          \
  template void decode_cross_attention_forward<T>(                             \
      const Launch &, T *, T *, T *, const T *, const T *, const int *, int,   \
      const AttentionConfig &, bool);                                          \
  template void gqa_attention_forward<T>(const Launch &, T *, float *,         \
                                         const T *, const T *, const T *,      \
                                         const AttentionConfig &);             \
  template void gqa_attention_backward<T>(                                     \
      const Launch &, T *, T *, T *, const T *, const T *, const T *,          \
      const T *, const float *, const AttentionConfig &);                      \
  template void decode_gqa_attention_forward<T>(                               \
      const Launch &, T *, T *, T *, const T *, const T *, const T *,          \
      const int *, int, const AttentionConfig &);

TPC_INSTANTIATE_ATTENTION(float)
TPC_INSTANTIATE_ATTENTION(__nv_bfloat16)
TPC_INSTANTIATE_ATTENTION(__half)

#undef TPC_INSTANTIATE_ATTENTION

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

template <class T>
void CudaKernels<T>::attention_forward(void *out, float *att, const void *qkv,
                                       const AttentionConfig &cfg) const {
  cuda::attention_forward<T>(l_, t(out), att, t(qkv), cfg);
}

template <class T>
void CudaKernels<T>::attention_backward(void *dqkv, const void *dout,
                                        const void *qkv, const float *att,
                                        const AttentionConfig &cfg) const {
  cuda::attention_backward<T>(l_, t(dqkv), t(dout), t(qkv), att, cfg);
}

template <class T>
void CudaKernels<T>::cross_attention_forward(void *out, float *att,
                                             const void *q, const void *kv,
                                             const AttentionConfig &cfg) const {
  cuda::cross_attention_forward<T>(l_, t(out), att, t(q), t(kv), cfg);
}

template <class T>
void CudaKernels<T>::cross_attention_backward(
    void *dq, void *dkv, const void *dout, const void *q, const void *kv,
    const float *att, const AttentionConfig &cfg) const {
  cuda::cross_attention_backward<T>(l_, t(dq), t(dkv), t(dout), t(q), t(kv),
                                    att, cfg);
}

template <class T>
void CudaKernels<T>::decode_attention_forward(
    void *out, void *kcache, void *vcache, const void *qkv, const int *pos,
    int capacity, const AttentionConfig &cfg) const {
  cuda::decode_attention_forward<T>(l_, t(out), t(kcache), t(vcache), t(qkv),
                                    pos, capacity, cfg);
}

template <class T>
void CudaKernels<T>::decode_cross_attention_forward(
    void *out, void *kcache, void *vcache, const void *q, const void *kv,
    const int *pos, int capacity, const AttentionConfig &cfg,
    bool lagged) const {
  cuda::decode_cross_attention_forward<T>(l_, t(out), t(kcache), t(vcache),
                                          t(q), t(kv), pos, capacity, cfg,
                                          lagged);
}

template <class T>
void CudaKernels<T>::gqa_attention_forward(void *out, float *att, const void *q,
                                           const void *k, const void *v,
                                           const AttentionConfig &cfg) const {
  cuda::gqa_attention_forward<T>(l_, t(out), att, t(q), t(k), t(v), cfg);
}

template <class T>
void CudaKernels<T>::gqa_attention_backward(void *dq, void *dk, void *dv,
                                            const void *dout, const void *q,
                                            const void *k, const void *v,
                                            const float *att,
                                            const AttentionConfig &cfg) const {
  cuda::gqa_attention_backward<T>(l_, t(dq), t(dk), t(dv), t(dout), t(q), t(k),
                                  t(v), att, cfg);
}

template <class T>
void CudaKernels<T>::decode_gqa_attention_forward(
    void *out, void *kcache, void *vcache, const void *q, const void *k,
    const void *v, const int *pos, int capacity,
    const AttentionConfig &cfg) const {
  cuda::decode_gqa_attention_forward<T>(l_, t(out), t(kcache), t(vcache), t(q),
                                        t(k), t(v), pos, capacity, cfg);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::attention_forward(                             \
      void *, float *, const void *, const AttentionConfig &) const;           \
  template void CudaKernels<T>::attention_backward(                            \
      void *, const void *, const void *, const float *,                       \
      const AttentionConfig &) const;                                          \
  template void CudaKernels<T>::cross_attention_forward(                       \
      void *, float *, const void *, const void *, const AttentionConfig &)    \
      const;                                                                   \
  template void CudaKernels<T>::cross_attention_backward(                      \
      void *, void *, const void *, const void *, const void *, const float *, \
      const AttentionConfig &) const;                                          \
  template void CudaKernels<T>::decode_attention_forward(                      \
      void *, void *, void *, const void *, const int *, int,                  \
      const AttentionConfig &) const;                                          \
  template void CudaKernels<T>::decode_cross_attention_forward(                \
      void *, void *, void *, const void *, const void *, const int *, int,    \
      const AttentionConfig &, bool) const;                                    \
  template void CudaKernels<T>::gqa_attention_forward(                         \
      void *, float *, const void *, const void *, const void *,               \
      const AttentionConfig &) const;                                          \
  template void CudaKernels<T>::gqa_attention_backward(                        \
      void *, void *, void *, const void *, const void *, const void *,        \
      const void *, const float *, const AttentionConfig &) const;             \
  template void CudaKernels<T>::decode_gqa_attention_forward(                  \
      void *, void *, void *, const void *, const void *, const void *,        \
      const int *, int, const AttentionConfig &) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
