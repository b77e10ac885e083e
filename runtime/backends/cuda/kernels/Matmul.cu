//===- Matmul.cu - GEMMs and linear layers on cuBLASLt --------------------===//
//
// The GEMMs run on cuBLASLt (Blas.h) with fp32 accumulation; a linear
// layer's bias rides the GEMM's epilogue, so the output is rounded once as
// on the CPU. The bias gradient is a column sum of dout, added to dbias with
// a single rounding. When the columns alone give every multiprocessor a few
// blocks (a vocabulary-sized bias), each block sums whole columns and adds
// them to dbias itself, with no scratch; otherwise blocks sum chunks of rows
// into fp32 partials, at most a few per multiprocessor and column block
// whatever the width, and a second pass adds them up.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/Blas.h"
#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/kernels/Common.cuh"

#include <algorithm>

namespace tpc::cuda {
namespace {

constexpr int kColumns = 32, kRows = 8;

// dout is (N,OC); partial is (chunks,OC): chunk c sums rows
// [c * rows_per_chunk, (c + 1) * rows_per_chunk). Without partial (one
// chunk): dbias (OC) += the sums, rounded once.
template <class T>
__global__ void column_partial_sums(float *partial, T *dbias, const T *dout,
                                    int N, int OC, int rows_per_chunk) {
  __shared__ float sums[kRows][kColumns];
  int col = blockIdx.x * kColumns + threadIdx.x;
  int chunk = blockIdx.y;
  int first = chunk * rows_per_chunk;
  int last = min(N, first + rows_per_chunk);
  float s = 0.0f;
  if (col < OC)
    for (int n = first + int(threadIdx.y); n < last; n += kRows)
      s += to_float(dout[size_t(n) * OC + col]);
  sums[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && col < OC) {
    float total = 0.0f;
    for (int r = 0; r < kRows; ++r)
      total += sums[r][threadIdx.x];
    if (partial)
      partial[size_t(chunk) * OC + col] = total;
    else
      dbias[col] = from_float<T>(to_float(dbias[col]) + total);
  }
}

// dbias (OC) += sum over chunks of partial (chunks,OC).
template <class T>
__global__ void add_column_sums(T *dbias, const float *partial, int chunks,
                                int OC) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= OC)
    return;
  float s = 0.0f;
  for (int c = 0; c < chunks; ++c)
    s += partial[size_t(c) * OC + col];
  dbias[col] = from_float<T>(to_float(dbias[col]) + s);
}

template <class T>
void column_sum_accumulate(const Launch &l, T *dbias, const T *dout, int N,
                           int OC) {
  if (N <= 0 || OC <= 0)
    return;
  int column_blocks = (OC + kColumns - 1) / kColumns;
  // Enough chunks to give every multiprocessor a few blocks.
  int want = std::max(1, 4 * l.sm_count / column_blocks);
  int rows_per_chunk = std::max(kRows, (N + want - 1) / want);
  int chunks = (N + rows_per_chunk - 1) / rows_per_chunk;
  const dim3 grid(column_blocks, chunks), block(kColumns, kRows);
  if (chunks == 1) {
    column_partial_sums<T>
        <<<grid, block, 0, l.stream>>>(nullptr, dbias, dout, N, OC, N);
    TPC_CUDA_LAUNCH_CHECK();
    return;
  }
  // chunks * column_blocks <= 4 * sm_count: a bounded scratch.
  auto *partial = static_cast<float *>(
      l.scratch->get(size_t(chunks) * size_t(OC) * sizeof(float)));
  column_partial_sums<T><<<grid, block, 0, l.stream>>>(partial, dbias, dout, N,
                                                       OC, rows_per_chunk);
  TPC_CUDA_LAUNCH_CHECK();
  add_column_sums<T><<<(OC + kThreads - 1) / kThreads, kThreads, 0, l.stream>>>(
      dbias, partial, chunks, OC);
  TPC_CUDA_LAUNCH_CHECK();
}

// out (N,OC) = bias (OC) in every row.
template <class T>
__global__ void broadcast_rows(T *out, const T *bias, size_t rows, int OC) {
  size_t n = rows * size_t(OC);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = bias[i % size_t(OC)];
}

} // namespace

template <class T>
void gemm(const Launch &l, bool trans_a, bool trans_b, int M, int N, int K,
          float alpha, const T *A, int lda, const T *B, int ldb, float beta,
          T *C, int ldc) {
  l.blas->gemm(element_type_of<T>(), trans_a, trans_b, M, N, K, alpha, A, lda,
               B, ldb, beta, C, ldc);
}

// inp is (N,C), weight is (C,OC) or, transposed, (OC,C); out is (N,OC).
template <class T>
void matmul_forward(const Launch &l, T *out, const T *inp, const T *weight,
                    const T *bias, int N, int C, int OC, bool transposed) {
  ElementType t = element_type_of<T>();
  int ldw = transposed ? C : OC;
  if (l.blas->gemm(t, false, transposed, N, OC, C, 1.0f, inp, C, weight, ldw,
                   0.0f, out, OC, bias))
    return;
  // No bias epilogue for this shape: start from the bias in every row and
  // accumulate onto it, as the CPU does; still one rounding.
  size_t n = size_t(N) * size_t(OC);
  broadcast_rows<T>
      <<<grid_for(n), kThreads, 0, l.stream>>>(out, bias, size_t(N), OC);
  TPC_CUDA_LAUNCH_CHECK();
  l.blas->gemm(t, false, transposed, N, OC, C, 1.0f, inp, C, weight, ldw, 1.0f,
               out, OC);
}

template <class T>
void matmul_backward(const Launch &l, T *dinp, T *dweight, T *dbias,
                     const T *dout, const T *inp, const T *weight, int N, int C,
                     int OC, bool transposed) {
  ElementType t = element_type_of<T>();
  if (!transposed) {
    if (dinp) // (N,C) += dout (N,OC) . weight^T
      l.blas->gemm(t, false, true, N, C, OC, 1.0f, dout, OC, weight, OC, 1.0f,
                   dinp, C);
    if (dweight) // (C,OC) += inp^T . dout
      l.blas->gemm(t, true, false, C, OC, N, 1.0f, inp, C, dout, OC, 1.0f,
                   dweight, OC);
  } else {
    if (dinp) // (N,C) += dout (N,OC) . weight (OC,C)
      l.blas->gemm(t, false, false, N, C, OC, 1.0f, dout, OC, weight, C, 1.0f,
                   dinp, C);
    if (dweight) // (OC,C) += dout^T . inp
      l.blas->gemm(t, true, false, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f,
                   dweight, C);
  }
  if (dbias)
    column_sum_accumulate(l, dbias, dout, N, OC);
}

#define TPC_INSTANTIATE(T)                                                     \
  template void gemm<T>(const Launch &, bool, bool, int, int, int, float,      \
                        const T *, int, const T *, int, float, T *, int);      \
  template void matmul_forward<T>(const Launch &, T *, const T *, const T *,   \
                                  const T *, int, int, int, bool);             \
  template void matmul_backward<T>(const Launch &, T *, T *, T *, const T *,   \
                                   const T *, const T *, int, int, int, bool);
TPC_INSTANTIATE(float)
TPC_INSTANTIATE(__nv_bfloat16)
TPC_INSTANTIATE(__half)
#undef TPC_INSTANTIATE

//===----------------------------------------------------------------------===//
// Kernel table entries (CudaKernels.h)
//===----------------------------------------------------------------------===//

template <class T>
void CudaKernels<T>::gemm(bool trans_a, bool trans_b, int M, int N, int K,
                          float alpha, const void *A, int lda, const void *B,
                          int ldb, float beta, void *C, int ldc) const {
  cuda::gemm<T>(l_, trans_a, trans_b, M, N, K, alpha, t(A), lda, t(B), ldb,
                beta, t(C), ldc);
}

template <class T>
void CudaKernels<T>::matmul_forward(void *out, const void *inp,
                                    const void *weight, const void *bias, int N,
                                    int C, int OC, bool transposed) const {
  cuda::matmul_forward<T>(l_, t(out), t(inp), t(weight), t(bias), N, C, OC,
                          transposed);
}

template <class T>
void CudaKernels<T>::matmul_backward(void *dinp, void *dweight, void *dbias,
                                     const void *dout, const void *inp,
                                     const void *weight, int N, int C, int OC,
                                     bool transposed, bool accumulate) const {
  // Written results start from zeros on the stream; the GEMMs and the
  // bias's column sums then add, as when accumulating.
  if (!accumulate)
    for (auto [p, n] :
         {std::pair{dinp, size_t(N) * C}, std::pair{dweight, size_t(C) * OC},
          std::pair{dbias, size_t(OC)}})
      if (p)
        cudaCheck(cudaMemsetAsync(p, 0, n * sizeof(T), l_.stream));
  cuda::matmul_backward<T>(l_, t(dinp), t(dweight), t(dbias), t(dout), t(inp),
                           t(weight), N, C, OC, transposed);
}

#define TPC_INSTANTIATE_ENTRIES(T)                                             \
  template void CudaKernels<T>::gemm(bool, bool, int, int, int, float,         \
                                     const void *, int, const void *, int,     \
                                     float, void *, int) const;                \
  template void CudaKernels<T>::matmul_forward(void *, const void *,           \
                                               const void *, const void *,     \
                                               int, int, int, bool) const;     \
  template void CudaKernels<T>::matmul_backward(                               \
      void *, void *, void *, const void *, const void *, const void *, int,   \
      int, int, bool, bool) const;
TPC_INSTANTIATE_ENTRIES(float)
TPC_INSTANTIATE_ENTRIES(__nv_bfloat16)
TPC_INSTANTIATE_ENTRIES(__half)
#undef TPC_INSTANTIATE_ENTRIES

} // namespace tpc::cuda
