//===- Embedding.cu - Token and position embeddings ------------*- CUDA -*-===//
//
// The token embedding (optionally vocab-parallel: ids this rank does not own
// give zero rows) and the learned position embedding, forward and backward,
// as runtime/backends/cpu/kernels/Embedding.cpp defines them. The lookups
// run one block per token row. The token embedding's backward scatters rows
// by id, and repeated ids collide, so it adds with fp32 atomics: straight
// into an fp32 table, into an fp32 scratch copy for a 16-bit one, which a
// second pass adds to the table with one rounding. The position
// embedding's backward sums over the batch with one thread per (t, c),
// in the CPU's order, and needs neither atomics nor scratch.
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
template <class T>
__global__ void embedding_backward_kernel(float *acc, const T *dout,
                                          const int *ids, size_t N, int C,
                                          int vstart, int vlocal) {
  for (size_t n = blockIdx.x; n < N; n += gridDim.x) {
    int row = ids[n] - vstart;
    if (row < 0 || row >= vlocal)
      continue;
    float *a = acc + size_t(row) * C;
    const T *g = dout + n * C;
    for (int c = threadIdx.x; c < C; c += blockDim.x)
      atomicAdd(a + c, to_float(g[c]));
  }
}

// dwte, acc are (n): dwte += acc, rounded once. Entries no token reached
// are left as they are (the CPU only touches owned rows).
template <class T>
__global__ void add_scratch_kernel(T *dwte, const float *acc, size_t n) {
  for (size_t i = first_index(); i < n; i += grid_stride()) {
    float a = acc[i];
    if (a != 0.0f)
      dwte[i] = from_float<T>(to_float(dwte[i]) + a);
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
    // contribution: sum in fp32 first.
    size_t n = size_t(vlocal) * size_t(C);
    auto *acc = static_cast<float *>(l.scratch->get(n * sizeof(float)));
    cudaCheck(cudaMemsetAsync(acc, 0, n * sizeof(float), l.stream));
    embedding_backward_kernel<<<row_blocks(N), row_threads(C), 0, l.stream>>>(
        acc, dout, ids, N, C, vstart, vlocal);
    TPC_CUDA_LAUNCH_CHECK();
    add_scratch_kernel<<<grid_for(n), kThreads, 0, l.stream>>>(dwte, acc, n);
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
