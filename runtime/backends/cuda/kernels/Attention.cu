//===- Attention.cu - Self, cross and grouped-query attention --*- CUDA -*-===//
//
// The nine attention launchers of the kernel table, with the semantics of
// runtime/backends/cpu/kernels/Attention.cpp: the same key ranges per mask
// and window, zero outputs for a query with no keys, probabilities (when
// asked for) saved before dropout and zero where masked, probability
// dropout keyed by the global sequence and head, and RoPE by rotate-half
// with angles computed in double and rounded once.
//
// Training runs on tensor cores, as llm.c does: q, k and v are copied
// head-major into scratch of the storage type T (q and k rotated there when
// RoPE is on), and per (sequence, KV head) strided-batched cuBLASLt GEMMs
// in T with fp32 accumulation take S = scale q k^T for the KV head's group
// of query heads at once ((n T, HS) by (HS, T)). A fused kernel per row
// masks S (and the padding keys of a key padding mask, which grouped
// attention may have), takes its softmax in fp32 and writes the
// probabilities P back in T, dropped for O = P v. Scratch: q, k, v, P
// (B,NH,T,T) and O in T.
// The backward saves nothing from the forward: it recomputes P
// (Kernels::attention_recomputes), takes dP = dout v^T, a fused row
// kernel turns it into dS = P (drop(dP) - sum P drop(dP)) and P into its
// dropped values, and dv = P^T dout, dq = scale dS k, dk = scale dS^T q
// come out of GEMMs summed over the group's heads into fp32 head-major
// scratch, turned back by RoPE and added to the gradients with one
// rounding. Its scratch adds dout, dS (B,NH,T,T) in T and the fp32
// gradients: two (B,NH,T,T) tensors of T in all, where the scalar kernels
// kept two of fp32.
//
// Decoding runs one block per (sequence, head, tile of 32 queries): the
// queries sit in shared memory while tiles of 32 keys, then of 32 values,
// stream through it; lane l of a warp holds the keys s = l mod 32. With
// RoPE on, q and k are rotated into fp32 scratch first.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/KernelChecks.h"
#include "runtime/backends/cuda/Blas.h"
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
  // Training's key padding mask, (B) i32 on the device: sequence b sees
  // keys below key_lengths[b] only. Null: every key is real.
  const int *key_lengths = nullptr;
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

template <class K> void allow_smem(K *kernel, size_t bytes) {
  if (bytes > kDefaultSmem)
    cudaCheck(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

//===----------------------------------------------------------------------===//
// Decoding
//===----------------------------------------------------------------------===//

// out is (B,Tq,NH*HS); att holds rows (B,NH,Tq) of att_ld floats: the
// probabilities at the keys in range (scratch); q is viewed by query head,
// k and v by KV head. Grid (ceil(Tq/32), NH, B), kThreads threads,
// row_kernel_smem(HS) bytes. Query row tq is at position p0 + tq.
template <class TQ, class TK, class TV, class TO>
__global__ void __launch_bounds__(kThreads)
    attention_forward_kernel(TO *out, float *att, size_t att_ld,
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
// Training: the kernels around the GEMMs
//===----------------------------------------------------------------------===//

/// Turns pair element i of a head (of R rotated dimensions) at position p:
/// y[i] for x[i] and its partner x[i -/+ R/2], as rope_rotate_kernel does
/// (products rounded apart, no FMA). `back`: the adjoint rotation.
__device__ __forceinline__ float rope_element(float x, float partner, int i,
                                              int R, double theta, int p,
                                              bool back) {
  const int half = R / 2;
  float c, s;
  rope_angle(theta, R, i < half ? i : i - half, p, c, s);
  // Forward: y[i] = x c - x' s below half, x c + x' s above; back: the
  // signs swap.
  const bool minus = (i < half) != back;
  return minus ? __fsub_rn(__fmul_rn(x, c), __fmul_rn(partner, s))
               : __fadd_rn(__fmul_rn(x, c), __fmul_rn(partner, s));
}

/// Element e of a head-major (B, heads, T, HS) tensor: sequence b, head
/// hh, position t, dimension i; `row` is where the same element lies in
/// rows of `stride` elements (row b * T + t, head hh at hh * HS).
struct HeadElement {
  int b, hh, t, i;
  size_t row;
};
__device__ __forceinline__ HeadElement head_element(size_t e, int T, int heads,
                                                    int HS, size_t stride) {
  HeadElement x;
  x.i = int(e % HS);
  const size_t ht = e / HS;
  x.t = int(ht % T);
  const size_t bh = ht / T;
  x.hh = int(bh % heads);
  x.b = int(bh / heads);
  x.row = (size_t(x.b) * T + x.t) * stride + size_t(x.hh) * HS + x.i;
  return x;
}

/// The offset from dimension i (< R) to the other one of its RoPE pair.
__device__ __forceinline__ int rope_partner(int i, int R) {
  return i < R / 2 ? R / 2 : -(R / 2);
}

// dst (B, heads, T, HS) head-major = the rows of src (see HeadElement),
// turned by RoPE at position t over the first R dimensions when R > 0. One
// thread per element.
template <class E>
__global__ void to_heads_kernel(E *dst, const E *src, size_t src_stride, int B,
                                int T, int heads, int HS, int R, double theta) {
  const size_t n = size_t(B) * heads * T * HS;
  for (size_t e = first_index(); e < n; e += grid_stride()) {
    const HeadElement x = head_element(e, T, heads, HS, src_stride);
    float y = to_float(src[x.row]);
    if (x.i < R)
      y = rope_element(y, to_float(src[x.row + rope_partner(x.i, R)]), x.i, R,
                       theta, x.t, false);
    dst[e] = from_float<E>(y);
  }
}

// The inverse layout: rows of dst = src (B, heads, T, HS), or += with one
// rounding when `accumulate`, turned back by RoPE over the first R
// dimensions when R > 0.
template <class TS, class TD>
__global__ void from_heads_kernel(TD *dst, size_t dst_stride, bool accumulate,
                                  const TS *src, int B, int T, int heads,
                                  int HS, int R, double theta) {
  const size_t n = size_t(B) * heads * T * HS;
  for (size_t e = first_index(); e < n; e += grid_stride()) {
    const HeadElement x = head_element(e, T, heads, HS, dst_stride);
    float y = to_float(src[e]);
    if (x.i < R)
      y = rope_element(y, to_float(src[e + rope_partner(x.i, R)]), x.i, R,
                       theta, x.t, true);
    store(dst + x.row, y, accumulate);
  }
}

/// The warp's row (b, h, t) of a (B,NH,T,T) tensor, and its keys [lo, hi)
/// (the real ones, under a key padding mask); false past the last row (the
/// whole warp).
struct Row {
  int b, h, t, lo, hi;
  size_t index; // (b * NH + h) * T + t
};
__device__ __forceinline__ bool warp_row(const Geometry &g, Row &r) {
  const size_t row = first_index() / kWarp;
  const size_t rows = size_t(g.B) * g.NH * g.Tq;
  if (row >= rows)
    return false;
  r.index = row;
  r.t = int(row % g.Tq);
  const size_t bh = row / g.Tq;
  r.h = int(bh % g.NH);
  r.b = int(bh / g.NH);
  key_range(g, r.t, r.lo, r.hi);
  if (g.key_lengths)
    r.hi = imin(r.hi, imax(g.key_lengths[r.b], 0));
  return true;
}

// One warp per row of p (B,NH,T,T), which holds the scaled scores on entry
// (or, where `given` (fp32, same shape) is not null, is overwritten from
// its probabilities). The keys outside the row's range become 0, the
// others their softmax in fp32; att (fp32, may be null) gets those, and p
// gets them as they are or, with `drop`, dropped and scaled (what O = P V
// multiplies). kThreads threads a block.
template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_forward_kernel(T *p, float *att, const float *given, bool drop,
                           Geometry g) {
  Row r;
  if (!warp_row(g, r))
    return;
  const int lane = int(threadIdx.x) % kWarp, Tk = g.Tk;
  T *pr = p + r.index * Tk;
  float m = -INFINITY, inv = 0.0f;
  if (!given && r.lo < r.hi) {
    for (int s = r.lo + lane; s < r.hi; s += kWarp)
      m = fmaxf(m, to_float(pr[s]));
    m = warp_max(m);
    float sum = 0.0f;
    for (int s = r.lo + lane; s < r.hi; s += kWarp)
      sum += expf(to_float(pr[s]) - m);
    inv = 1.0f / warp_sum(sum);
  }
  const uint64_t base = drop ? drop_row_base(g, r.b, r.h, r.t) : 0;
  for (int s = lane; s < Tk; s += kWarp) {
    float x = 0.0f;
    if (s >= r.lo && s < r.hi)
      x = given ? given[r.index * Tk + s] : expf(to_float(pr[s]) - m) * inv;
    if (att)
      att[r.index * Tk + s] = x;
    if (drop && x != 0.0f)
      x *= drop_factor(g, base + uint64_t(s));
    pr[s] = from_float<T>(x);
  }
}

// One warp per row of p (B,NH,T,T), the probabilities before dropout
// (zero outside the row's keys). dp (may be null), the gradient of the
// dropped probabilities (dO V^T), becomes that of the scores before the
// scale: dS = P (dP - sum P dP) with dP = drop(dp), in fp32, rounded once.
// With `drop`, p becomes the dropped probabilities (what dV = P^T dO
// multiplies). kThreads threads a block.
template <class T>
__global__ void __launch_bounds__(kThreads)
    softmax_backward_kernel(T *p, T *dp, bool drop, Geometry g) {
  Row r;
  if (!warp_row(g, r))
    return;
  const int lane = int(threadIdx.x) % kWarp, Tk = g.Tk;
  T *pr = p + r.index * Tk;
  T *dr = dp ? dp + r.index * Tk : nullptr;
  const uint64_t base = drop ? drop_row_base(g, r.b, r.h, r.t) : 0;
  auto factor = [&](int s) {
    return drop ? drop_factor(g, base + uint64_t(s)) : 1.0f;
  };
  float D = 0.0f;
  if (dr) {
    float part = 0.0f;
    for (int s = r.lo + lane; s < r.hi; s += kWarp)
      part += to_float(pr[s]) * (to_float(dr[s]) * factor(s));
    D = warp_sum(part);
  }
  for (int s = lane; s < Tk; s += kWarp) {
    const bool in = s >= r.lo && s < r.hi;
    const float f = in ? factor(s) : 0.0f, pv = to_float(pr[s]);
    if (dr)
      dr[s] = from_float<T>(in ? pv * (to_float(dr[s]) * f - D) : 0.0f);
    if (drop)
      pr[s] = from_float<T>(pv * f);
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
  g.key_lengths = cfg.key_lengths;
  return g;
}

template <class TQ, class TK, class TV, class TO>
void launch_forward(const Launch &l, unsigned tiles, TO *out, float *att,
                    size_t att_ld, View<const TQ> q, View<const TK> k,
                    View<const TV> v, Fresh fresh, const int *pos,
                    const Geometry &g) {
  const size_t smem = row_kernel_smem(g.HS);
  auto *kernel = attention_forward_kernel<TQ, TK, TV, TO>;
  allow_smem(kernel, smem);
  kernel<<<dim3(tiles, unsigned(g.NH), unsigned(g.B)), kThreads, smem,
           l.stream>>>(out, att, att_ld, q, k, v, fresh, pos, g);
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

/// The query heads [h0, h0 + n) that read KV head kvh: rows (h, t) of a
/// group are consecutive in the head-major tensors.
struct Group {
  int h0, n, kvh;
};

/// Calls f(group, batch, q_step, kv_step) for each GEMM call: batched over
/// `batch` members, member i at group.h0 + i * q_step query heads and
/// group.kvh + i * kv_step KV heads. Without replicated KV heads every KV
/// head's group holds NH / KVH heads in order, so one call covers all
/// (sequence, KV head) pairs; with them, one call per group covers the
/// sequences.
template <class F> void for_groups(const AttentionConfig &cfg, F f) {
  const int B = cfg.B, NH = cfg.NH, KVH = cfg.kv_heads();
  if (!cfg.kv_replicated) {
    f(Group{0, NH / KVH, 0}, B * KVH, NH / KVH, 1);
    return;
  }
  const int per = cfg.global_heads() / KVH;
  for (int h = 0; h < NH;) {
    const int kvh = (cfg.head_offset + h) / per;
    int n = 1;
    while (h + n < NH && (cfg.head_offset + h + n) / per == kvh)
      ++n;
    f(Group{h, n, kvh}, B, NH, KVH);
    h += n;
  }
}

/// One launch of a kernel that runs a warp per (B,NH,T) row.
inline unsigned row_blocks(const AttentionConfig &cfg) {
  const size_t rows = size_t(cfg.B) * cfg.NH * cfg.T;
  return unsigned((rows + kThreads / kWarp - 1) / (kThreads / kWarp));
}

/// dst (B, heads, T, HS) = rows of src, rotated when RoPE is on and
/// `rotate`; see to_heads_kernel.
template <class T>
void to_heads(const Launch &l, T *dst, const T *src, size_t stride, int heads,
              const AttentionConfig &cfg, bool rotate) {
  const size_t n = size_t(cfg.B) * heads * cfg.T * cfg.HS;
  const int R = rotate && rope_on(cfg) ? rope_dims(cfg) : 0;
  to_heads_kernel<T><<<grid_for(n), kThreads, 0, l.stream>>>(
      dst, src, stride, cfg.B, cfg.T, heads, cfg.HS, R, cfg.rope.theta);
  TPC_CUDA_LAUNCH_CHECK();
}

/// Rows of dst (+)= src (B, heads, T, HS), turned back when RoPE is on and
/// `rotate`; see from_heads_kernel.
template <class TS, class TD>
void from_heads(const Launch &l, TD *dst, size_t stride, bool accumulate,
                const TS *src, int heads, const AttentionConfig &cfg,
                bool rotate) {
  const size_t n = size_t(cfg.B) * heads * cfg.T * cfg.HS;
  const int R = rotate && rope_on(cfg) ? rope_dims(cfg) : 0;
  from_heads_kernel<TS, TD><<<grid_for(n), kThreads, 0, l.stream>>>(
      dst, stride, accumulate, src, cfg.B, cfg.T, heads, cfg.HS, R,
      cfg.rope.theta);
  TPC_CUDA_LAUNCH_CHECK();
}

/// Carves one scratch block into 256-byte aligned regions.
class Regions {
public:
  explicit Regions(char *base) : base_(base) {}
  template <class E> E *take(size_t n) {
    if (!n)
      return nullptr;
    E *p = reinterpret_cast<E *>(base_);
    base_ += region<E>(n);
    return p;
  }

private:
  char *base_;
};

/// The operands of one training call in head-major scratch: q (B,NH,T,HS),
/// k and v (B,KVH,T,HS) of T, k and q rotated when RoPE is on, and the
/// scores (B,NH,T,T) of T.
template <class T> struct Heads {
  T *q = nullptr, *k = nullptr, *v = nullptr, *p = nullptr;
};

/// Elements of one head-major operand of `heads` heads, and of the scores.
inline size_t head_elements(const AttentionConfig &cfg, int heads) {
  return size_t(cfg.B) * heads * cfg.T * cfg.HS;
}
inline size_t score_elements(const AttentionConfig &cfg) {
  return size_t(cfg.B) * cfg.NH * cfg.T * cfg.T;
}

/// Bytes of a training forward's scratch: q, k, v, the scores and the
/// head-major output, all of T.
template <class T> size_t forward_scratch(const AttentionConfig &cfg) {
  const size_t nq = head_elements(cfg, cfg.NH),
               nk = head_elements(cfg, cfg.kv_heads());
  return region<T>(nq) + 2 * region<T>(nk) + region<T>(score_elements(cfg)) +
         region<T>(nq);
}

/// Head-major q, k, v and the softmax of the masked, scaled scores in
/// h.p: the probabilities of `given` (fp32, may be null) or of q k^T;
/// att (may be null) gets them in fp32; dropped when `drop`.
template <class T>
void probabilities(const Launch &l, const Heads<T> &h, float *att,
                   const float *given, bool drop, const T *q, size_t qs,
                   const T *k, size_t ks, const T *v, size_t vs,
                   const AttentionConfig &cfg, const Geometry &g) {
  const int Tt = cfg.T, HS = cfg.HS, KVH = cfg.kv_heads();
  const ElementType type = element_type_of<T>();
  to_heads(l, h.q, q, qs, cfg.NH, cfg, true);
  to_heads(l, h.k, k, ks, KVH, cfg, true);
  to_heads(l, h.v, v, vs, KVH, cfg, false);
  const int64_t TH = int64_t(Tt) * HS, TT = int64_t(Tt) * Tt;
  if (!given)
    for_groups(cfg, [&](Group gr, int batch, int qstep, int kvstep) {
      // S (n T, T) = scale q (n T, HS) k^T.
      l.blas->gemm_batched(type, type, false, true, gr.n * Tt, Tt, HS, g.scale,
                           h.q + gr.h0 * TH, HS, qstep * TH, h.k + gr.kvh * TH,
                           HS, kvstep * TH, 0.0f, h.p + gr.h0 * TT, Tt,
                           qstep * TT, batch);
    });
  softmax_forward_kernel<T>
      <<<row_blocks(cfg), kThreads, 0, l.stream>>>(h.p, att, given, drop, g);
  TPC_CUDA_LAUNCH_CHECK();
}

/// The training forward over q (row stride qs), k (ks) and v (vs), each
/// (B,T,·): out = drop(softmax(mask(scale q k^T))) v by GEMMs in T.
template <class T>
void training_forward(const Launch &l, T *out, float *att, const T *q,
                      size_t qs, const T *k, size_t ks, const T *v, size_t vs,
                      const AttentionConfig &cfg, AttentionMask mask) {
  const int Tt = cfg.T, HS = cfg.HS, KVH = cfg.kv_heads();
  const Geometry g = geometry(cfg, Tt, Tt, mask, true);
  Regions r(static_cast<char *>(l.scratch->get(forward_scratch<T>(cfg))));
  Heads<T> h;
  h.q = r.take<T>(head_elements(cfg, cfg.NH));
  h.k = r.take<T>(head_elements(cfg, KVH));
  h.v = r.take<T>(head_elements(cfg, KVH));
  h.p = r.take<T>(score_elements(cfg));
  T *o = r.take<T>(head_elements(cfg, cfg.NH));
  probabilities(l, h, att, nullptr, g.drop_p > 0.0f, q, qs, k, ks, v, vs, cfg,
                g);
  const ElementType type = element_type_of<T>();
  const int64_t TH = int64_t(Tt) * HS, TT = int64_t(Tt) * Tt;
  for_groups(cfg, [&](Group gr, int batch, int qstep, int kvstep) {
    // O (n T, HS) = drop(P) (n T, T) v.
    l.blas->gemm_batched(type, type, false, false, gr.n * Tt, HS, Tt, 1.0f,
                         h.p + gr.h0 * TT, Tt, qstep * TT, h.v + gr.kvh * TH,
                         HS, kvstep * TH, 0.0f, o + gr.h0 * TH, HS, qstep * TH,
                         batch);
  });
  from_heads(l, out, size_t(cfg.C()), false, o, cfg.NH, cfg, false);
}

/// The training backward; gradients dq (row stride dqs), dk (dks), dv
/// (dvs) accumulate and may be null. The probabilities are att's when it
/// is not null, else recomputed as the forward computes them.
template <class T>
void training_backward(const Launch &l, T *dq, size_t dqs, T *dk, size_t dks,
                       T *dv, size_t dvs, const T *dout, const T *q, size_t qs,
                       const T *k, size_t ks, const T *v, size_t vs,
                       const float *att, const AttentionConfig &cfg,
                       AttentionMask mask) {
  if (!dq && !dk && !dv)
    return;
  const int Tt = cfg.T, HS = cfg.HS, NH = cfg.NH, KVH = cfg.kv_heads();
  const bool need_ds = dq || dk;
  const Geometry g = geometry(cfg, Tt, Tt, mask, true);
  const bool drop = g.drop_p > 0.0f;

  // Scratch: q, k, v, P and dout head-major of T, dP (B,NH,T,T) of T
  // when dq or dk is asked for, and the fp32 head-major gradients asked
  // for.
  const size_t nq = head_elements(cfg, NH), nk = head_elements(cfg, KVH);
  const size_t bytes =
      region<T>(nq) + 2 * region<T>(nk) + region<T>(score_elements(cfg)) +
      region<T>(nq) + (need_ds ? region<T>(score_elements(cfg)) : 0) +
      (dq ? region<float>(nq) : 0) + (dk ? region<float>(nk) : 0) +
      (dv ? region<float>(nk) : 0);
  Regions r(static_cast<char *>(l.scratch->get(bytes)));
  Heads<T> h;
  h.q = r.take<T>(nq);
  h.k = r.take<T>(nk);
  h.v = r.take<T>(nk);
  h.p = r.take<T>(score_elements(cfg));
  T *dout_h = r.take<T>(nq);
  T *dp = need_ds ? r.take<T>(score_elements(cfg)) : nullptr;
  float *dq_h = dq ? r.take<float>(nq) : nullptr;
  float *dk_h = dk ? r.take<float>(nk) : nullptr;
  float *dv_h = dv ? r.take<float>(nk) : nullptr;

  probabilities(l, h, nullptr, att, false, q, qs, k, ks, v, vs, cfg, g);
  to_heads(l, dout_h, dout, size_t(cfg.C()), NH, cfg, false);
  // KV heads that no local query head reads get no gradient from the GEMMs.
  if (cfg.kv_replicated)
    for (float *d : {dk_h, dv_h})
      if (d)
        cudaCheck(cudaMemsetAsync(d, 0, nk * sizeof(float), l.stream));

  const ElementType type = element_type_of<T>();
  const int64_t TH = int64_t(Tt) * HS, TT = int64_t(Tt) * Tt;
  if (need_ds)
    for_groups(cfg, [&](Group gr, int batch, int qstep, int kvstep) {
      // dP (n T, T) = dout (n T, HS) v^T: the dropped probabilities'.
      l.blas->gemm_batched(type, type, false, true, gr.n * Tt, Tt, HS, 1.0f,
                           dout_h + gr.h0 * TH, HS, qstep * TH,
                           h.v + gr.kvh * TH, HS, kvstep * TH, 0.0f,
                           dp + gr.h0 * TT, Tt, qstep * TT, batch);
    });
  if (need_ds || drop) {
    softmax_backward_kernel<T>
        <<<row_blocks(cfg), kThreads, 0, l.stream>>>(h.p, dp, drop, g);
    TPC_CUDA_LAUNCH_CHECK();
  }
  for_groups(cfg, [&](Group gr, int batch, int qstep, int kvstep) {
    const int nT = gr.n * Tt;
    const T *p = h.p + gr.h0 * TT, *ds = dp ? dp + gr.h0 * TT : nullptr;
    // dv (T, HS) = drop(P)^T (T, n T) dout, summed over the group's heads.
    if (dv)
      l.blas->gemm_batched(type, ElementType::F32, true, false, Tt, HS, nT,
                           1.0f, p, Tt, qstep * TT, dout_h + gr.h0 * TH, HS,
                           qstep * TH, 0.0f, dv_h + gr.kvh * TH, HS,
                           kvstep * TH, batch);
    // dq (n T, HS) = scale dS k; dk (T, HS) = scale dS^T q.
    if (dq)
      l.blas->gemm_batched(type, ElementType::F32, false, false, nT, HS, Tt,
                           g.scale, ds, Tt, qstep * TT, h.k + gr.kvh * TH, HS,
                           kvstep * TH, 0.0f, dq_h + gr.h0 * TH, HS, qstep * TH,
                           batch);
    if (dk)
      l.blas->gemm_batched(type, ElementType::F32, true, false, Tt, HS, nT,
                           g.scale, ds, Tt, qstep * TT, h.q + gr.h0 * TH, HS,
                           qstep * TH, 0.0f, dk_h + gr.kvh * TH, HS,
                           kvstep * TH, batch);
  });
  if (dq)
    from_heads(l, dq, dqs, true, dq_h, NH, cfg, true);
  if (dk)
    from_heads(l, dk, dks, true, dk_h, KVH, cfg, true);
  if (dv)
    from_heads(l, dv, dvs, true, dv_h, KVH, cfg, false);
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

  // One query row at position *pos.
  const Geometry g = geometry(cfg, 1, capacity, mask, false);
  const size_t cache_stride = size_t(capacity) * Ckv;
  const View<const T> kc{kcache, cache_stride, Ckv},
      vc{vcache, cache_stride, Ckv};
  const Fresh f{rope && fresh ? kr : nullptr, key_offset};
  if (rope)
    launch_forward<float, T, T, T>(l, 1, out, prob, size_t(capacity),
                                   View<const float>{qr, C, 0}, kc, vc, f, pos,
                                   g);
  else
    launch_forward<T, T, T, T>(l, 1, out, prob, size_t(capacity),
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
