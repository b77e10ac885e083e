//===- Embedding.cu - Token and position embeddings ------------*- CUDA -*-===//
//
// The token embedding (optionally vocab-parallel: ids this rank does not own
// give zero rows) and the learned position embedding, forward and backward,
// as runtime/backends/cpu/kernels/Embedding.cpp defines them. The lookups
// run one block per token row. The token embedding's backward scatters rows
// by id, and repeated ids collide, so it adds with fp32 atomics: straight
// into an fp32 table; for a 16-bit one, into fp32 sums of the rows the
// batch touches, which a last pass adds to the table with one rounding. Its
// work and scratch grow with the tokens, never with the vocabulary: a hash
// table of twice the tokens' slots finds each touched row's sum. The
// position embedding's backward sums over the batch with one thread per
// (t, c), in the CPU's order, and needs neither atomics nor scratch.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"

#include <algorithm>
#include <type_traits>

namespace tpc::cuda {
namespace {

/// Threads of a block that walks one row of C channels: a multiple of the
/// warp, no more than C needs, at most kThreads.
unsigned row_threads(int C) {
  int t = (C + kWarp - 1) / kWarp * kWarp;
  return unsigned(std::min(t, kThreads));
}

/// Blocks for one block per row, capped; the kernels loop over the rest.
unsigned row_blocks(size_t rows) {
  const size_t cap = size_t(1) << 20;
  return unsigned(std::min(rows, cap));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

// out is (N,C), ids is (N), wte is (vlocal,C) holding global rows
// [vstart, vstart+vlocal); an id outside them gives a zero row
template <class T>
__global__ void embedding_forward_kernel(T *out, const int *ids, const T *wte,
                                         size_t N, int C, int vstart,
                                         int vlocal) {
  for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
    int row = ids[n] - vstart;
    T *o = out + n * C;
    if (row >= 0 && row < vlocal) {
      const T *w = wte + size_t(row) * C;
      for (int c = threadIdx.x; c < C; c += blockDim.x)
        o[c] = w[c];
    } else {
      for (int c = threadIdx.x; c < C; c += blockDim.x)
        o[c] = from_float<T>(0.0f);
    }
  }
}

// acc is (vlocal,C) fp32, dout is (N,C), ids is (N): acc[ids[n] - vstart]
// += dout[n] for the owned ids
__global__ void embedding_backward_kernel(float *acc, const float *dout,
                                          const int *ids, size_t N, int C,
                                          int vstart, int vlocal) {
  for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
    int row = ids[n] - vstart;
    if (row < 0 || row >= vlocal)
      continue;
    float *a = acc + size_t(row) * C;
    const float *g = dout + n * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
      atomicAdd(a + c, g[c]);
  }
}

/// The rows of a 16-bit table that one backward touches, and their fp32
/// sums. An open-addressing hash table of `mask` + 1 slots (a power of two,
/// at least twice the tokens) holds in keys[h] the table row of slot h, -1
/// for an empty one; slot_of[n] is token n's slot, -1 for an id this rank
/// does not own; row_of[h] is slot h's row of `sums` (C floats each), and
/// key_of[j] the table row of sums row j; *rows counts the sums rows.
struct TouchedRows {
  int *keys, *row_of, *slot_of, *key_of, *rows;
  float *sums;
  unsigned mask;
};

// ids is (N): gives each owned id a slot and, the first time an id is
// seen, a zeroed row of sums. One block per token; thread 0 probes.
__global__ void touched_rows_kernel(TouchedRows t, const int *ids, size_t N,
                                    int C, int vstart, int vlocal) {
  __shared__ int fresh; // the sums row this block zeros, or -1
  for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
    if (threadIdx.x == 0) {
      fresh = -1;
      int row = ids[n] - vstart, h = -1;
      if (row >= 0 && row < vlocal) {
        // Fewer distinct ids than slots: the probe ends.
        h = int(unsigned(row) * 2654435761u & t.mask);
        for (;;) {
          int prev = atomicCAS(t.keys + h, -1, row);
          if (prev == -1) {
            fresh = atomicAdd(t.rows, 1);
            t.row_of[h] = fresh;
            t.key_of[fresh] = row;
            break;
          }
          if (prev == row)
            break;
          h = int(unsigned(h + 1) & t.mask);
        }
      }
      t.slot_of[n] = h;
    }
    __syncthreads();
    if (fresh >= 0)
      for (int c = threadIdx.x; c < C; c += blockDim.x)
        t.sums[size_t(fresh) * C + c] = 0.0f;
    __syncthreads(); // fresh is read before the next token sets it
  }
}

// dout is (N,C): each owned token's row added to its id's sums row.
template <class T>
__global__ void sum_touched_rows_kernel(TouchedRows t, const T *dout, size_t N,
                                        int C) {
  for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
    int h = t.slot_of[n];
    if (h < 0)
      continue;
    float *s = t.sums + size_t(t.row_of[h]) * C;
    const T *g = dout + n * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
      atomicAdd(s + c, to_float(g[c]));
  }
}

// dwte is (vlocal,C): each touched row += its sums row, rounded once. At
// most N rows; the blocks stop at *rows.
template <class T>
__global__ void add_touched_rows_kernel(T *dwte, TouchedRows t, size_t N,
                                        int C) {
  const size_t rows = size_t(*t.rows);
  for (size_t j = blockIdx.x; j < rows && j < N; j += gridDim.x) {
    T *d = dwte + size_t(t.key_of[j]) * C;
    const float *s = t.sums + j * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
      d[c] = from_float<T>(to_float(d[c]) + s[c]);
  }
}

// out, inp are (B,T,C), wpe is (>= offset+T, C); out may alias inp.
// offset: a device int, null meaning 0
template <class T>
__global__ void position_embedding_forward_kernel(T *out, const T *inp,
                                                  const T *wpe,
                                                  const int *offset,
                                                  size_t rows, int T_, int C) {
  const int64_t first = offset ? *offset : 0;
  for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    int t = int(r % size_t(T_));
    const T *p = wpe + size_t(first + t) * C;
    const T *x = inp + r * C;
    T *o = out + r * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
      o[c] = from_float<T>(to_float(x[c]) + to_float(p[c]));
  }
}

// dwpe is (T,C), dout is (B,T,C) seen as (B, T*C): dwpe += the sum over b,
// one thread per column, summed in fp32 in b order and rounded once
template <class T>
__global__ void position_embedding_backward_kernel(T *dwpe, const T *dout,
                                                   int B, size_t TC) {
  for (size_t i = first_index(); i < TC; i += grid_stride()) {
    float acc = 0.0f;
    for (int b = 0; b < B; ++b)
      acc += to_float(dout[size_t(b) * TC + i]);
    dwpe[i] = from_float<T>(to_float(dwpe[i]) + acc);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

template <class T>
void embedding_forward(const Launch &l, T *out, const int *ids, const T *wte,
                       int B, int T_, int C, int vstart, int vlocal) {
  if (B <= 0 || T_ <= 0 || C <= 0)
    return;
  size_t N = size_t(B) * size_t(T_);
  embedding_forward_kernel<<<row_blocks(N), row_threads(C), 0, l.stream>>>(
      out, ids, wte, N, C, vstart, vlocal);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void embedding_backward(const Launch &l, T *dwte, const T *dout, const int *ids,
                        int B, int T_, int C, int vstart, int vlocal) {
  if (!dwte || B <= 0 || T_ <= 0 || C <= 0 || vlocal <= 0)
    return;
  size_t N = size_t(B) * size_t(T_);
  if constexpr (std::is_same_v<T, float>) {
    embedding_backward_kernel<<<row_blocks(N), row_threads(C), 0, l.stream>>>(
        dwte, dout, ids, N, C, vstart, vlocal);
    TPC_CUDA_LAUNCH_CHECK();
  } else {
    // A 16-bit table cannot take atomics without rounding every token's
    // contribution: sum the touched rows in fp32 first.
    size_t slots = 2;
    while (slots < 2 * N)
      slots *= 2;
    const size_t bytes = region<int>(1) + 2 * region<int>(slots) +
                         2 * region<int>(N) + region<float>(N * size_t(C));
    char *base = static_cast<char *>(l.scratch->get(bytes));
    auto take = [&](size_t region_bytes) {
      char *p = base;
      base += region_bytes;
      return p;
    };
    TouchedRows t;
    t.rows = reinterpret_cast<int *>(take(region<int>(1)));
    t.keys = reinterpret_cast<int *>(take(region<int>(slots)));
    t.row_of = reinterpret_cast<int *>(take(region<int>(slots)));
    t.slot_of = reinterpret_cast<int *>(take(region<int>(N)));
    t.key_of = reinterpret_cast<int *>(take(region<int>(N)));
    t.sums = reinterpret_cast<float *>(take(region<float>(N * size_t(C))));
    t.mask = unsigned(slots - 1);
    cudaCheck(cudaMemsetAsync(t.rows, 0, sizeof(int), l.stream));
    cudaCheck(cudaMemsetAsync(t.keys, 0xff, slots * sizeof(int), l.stream));
    const unsigned blocks = row_blocks(N), threads = row_threads(C);
    touched_rows_kernel<<<blocks, threads, 0, l.stream>>>(t, ids, N, C, vstart,
                                                          vlocal);
    TPC_CUDA_LAUNCH_CHECK();
    sum_touched_rows_kernel<T><<<blocks, threads, 0, l.stream>>>(t, dout, N, C);
    TPC_CUDA_LAUNCH_CHECK();
    add_touched_rows_kernel<T><<<blocks, threads, 0, l.stream>>>(dwte, t, N, C);
    TPC_CUDA_LAUNCH_CHECK();
  }
}

template <class T>
void position_embedding_forward(const Launch &l, T *out, const T *inp,
                                const T *wpe, const int *offset, int B, int T_,
                                int C) {
  if (B <= 0 || T_ <= 0 || C <= 0)
    return;
  size_t rows = size_t(B) * size_t(T_);
  position_embedding_forward_kernel<<<row_blocks(rows), row_threads(C), 0,
                                      l.stream>>>(out, inp, wpe, offset, rows,
                                                  T_, C);
  TPC_CUDA_LAUNCH_CHECK();
}

template <class T>
void position_embedding_backward(const Launch &l, T *dwpe, const T *dout, int B,
                                 int T_, int C) {
  if (!dwpe || B <= 0 || T_ <= 0 || C <= 0)
    return;
  size_t TC = size_t(T_) * size_t(C);
  position_embedding_backward_kernel<<<grid_for(TC), kThreads, 0, l.stream>>>(
      dwpe, dout, B, TC);
  TPC_CUDA_LAUNCH_CHECK();
}

#define TPC_INSTANTIATE_EMBEDDING(T)                                           \
  template void embedding_forward<T>(const Launch &, T *, const int *,         \
                                     const T *, int, int, int, int, int);      \
  template void embedding_backward<T>(const Launch &, T *, const T *,          \
                                      const int *, int, int, int, int, int);   \
  template void position_embedding_forward<T>(                                 \
      const Launch &, T *, const T *, const T *, const int *, int, int, int);  \
  template void position_embedding_backward<T>(const Launch &, T *, const T *, \
                                               int, int, int);

TPC_INSTANTIATE_EMBEDDING(float)
TPC_INSTANTIATE_EMBEDDING(__nv_bfloat16)
TPC_INSTANTIATE_EMBEDDING(__half)

#undef TPC_INSTANTIATE_EMBEDDING

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

template <class T>
void CudaKernels<T>::embedding_forward(void *out, const int *ids,
                                       const void *wte, int B, int T_, int C,
                                       int vstart, int vlocal) const {
  cuda::embedding_forward<T>(l_, t(out), ids, t(wte), B, T_, C, vstart, vlocal);
}

template <class T>
void CudaKernels<T>::embedding_backward(void *dwte, const void *dout,
                                        const int *ids, int B, int T_, int C,
                                        int vstart, int vlocal) const {
  cuda::embedding_backward<T>(l_, t(dwte), t(dout), ids, B, T_, C, vstart,
                              vlocal);
}

template <class T>
void CudaKernels<T>::position_embedding_forward(void *out, const void *inp,
                                                const void *wpe,
                                                const int *offset, int B,
                                                int T_, int C) const {
  cuda::position_embedding_forward<T>(l_, t(out), t(inp), t(wpe), offset, B, T_,
                                      C);
}

template <class T>
void CudaKernels<T>::position_embedding_backward(void *dwpe, const void *dout,
                                                 int B, int T_, int C) const {
  cuda::position_embedding_backward<T>(l_, t(dwpe), t(dout), B, T_, C);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::embedding_forward(                             \
      void *, const int *, const void *, int, int, int, int, int) const;       \
  template void CudaKernels<T>::embedding_backward(                            \
      void *, const void *, const int *, int, int, int, int, int) const;       \
  template void CudaKernels<T>::position_embedding_forward(                    \
      void *, const void *, const void *, const int *, int, int, int) const;   \
  template void CudaKernels<T>::position_embedding_backward(                   \
      void *, const void *, int, int, int) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
