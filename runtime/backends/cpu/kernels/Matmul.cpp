//===- Matmul.cpp - GEMMs through OpenBLAS --------------------------------===//
//
// Everything row-major. Weights are stored [in, out] as in Hugging Face
// GPT-2's Conv1D; the tied output layer reads wte [V, C] transposed. The
// kernel table's GEMMs run on oneDNN instead where CpuBackend.cpp chose it
// and it takes the call (DnnlMatmul.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#ifdef TPC_HAVE_DNNL
#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#endif

#include <cblas.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace tpc::cpu {

void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
          const float *A, int lda, const float *B, int ldb, float beta,
          float *C, int ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda, B,
              ldb, beta, C, ldc);
}

void gemm_strided_batched(bool trans_a, bool trans_b, int M, int N, int K,
                          float alpha, const float *A, int lda,
                          int64_t stride_a, const float *B, int ldb,
                          int64_t stride_b, float beta, float *C, int ldc,
                          int64_t stride_c, int batch) {
  // OpenBLAS threads each call itself; running the batch on OpenMP threads as
  // well would oversubscribe the cores.
  for (int i = 0; i < batch; ++i)
    gemm(trans_a, trans_b, M, N, K, alpha, A + i * stride_a, lda,
         B + i * stride_b, ldb, beta, C + i * stride_c, ldc);
}

/// out (N,OC) = bias broadcast over rows; returns the beta for the GEMM that
/// follows.
static float init_with_bias(float *out, const float *bias, int N, int OC) {
  if (!bias)
    return 0.0f;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o)
      out[size_t(n) * OC + o] = bias[o];
  return 1.0f;
}

void matmul_forward(float *out, const float *inp, const float *weight,
                    const float *bias, int N, int C, int OC) {
  float beta = init_with_bias(out, bias, N, OC);
  gemm(false, false, N, OC, C, 1.0f, inp, C, weight, OC, beta, out, OC);
}

void matmul_backward(float *dinp, float *dweight, float *dbias,
                     const float *dout, const float *inp, const float *weight,
                     int N, int C, int OC, bool accumulate) {
  float beta = accumulate ? 1.0f : 0.0f;
  if (dinp) // (N,C) += dout (N,OC) . weight^T
    gemm(false, true, N, C, OC, 1.0f, dout, OC, weight, OC, beta, dinp, C);
  if (dweight) // (C,OC) += inp^T . dout
    gemm(true, false, C, OC, N, 1.0f, inp, C, dout, OC, beta, dweight, OC);
  if (dbias)
    column_sum_accumulate(dbias, dout, N, OC);
}

void matmul_nt_forward(float *out, const float *inp, const float *weight,
                       const float *bias, int N, int C, int OC) {
  float beta = init_with_bias(out, bias, N, OC);
  gemm(false, true, N, OC, C, 1.0f, inp, C, weight, C, beta, out, OC);
}

void matmul_nt_backward(float *dinp, float *dweight, float *dbias,
                        const float *dout, const float *inp,
                        const float *weight, int N, int C, int OC,
                        bool accumulate) {
  float beta = accumulate ? 1.0f : 0.0f;
  if (dinp) // (N,C) += dout (N,OC) . weight (OC,C)
    gemm(false, false, N, C, OC, 1.0f, dout, OC, weight, C, beta, dinp, C);
  if (dweight) // (OC,C) += dout^T . inp
    gemm(true, false, OC, C, N, 1.0f, dout, OC, inp, C, beta, dweight, C);
  if (dbias)
    column_sum_accumulate(dbias, dout, N, OC);
}

static std::string openblas_core() {
  const char *name = openblas_get_corename();
  return name ? name : "";
}

bool openblas_runs_avx512() {
  std::string core = openblas_core();
  std::transform(core.begin(), core.end(), core.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return core == "skylakex" || core == "cooperlake" || core == "sapphirerapids";
}

std::string openblas_library() {
  // openblas_get_config(): "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...".
  const char *config = openblas_get_config();
  std::string text = config ? config : "OpenBLAS";
  size_t space = text.find(' ', text.find(' ') + 1);
  return text.substr(0, space) + " (" + openblas_core() + " kernels)";
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::gemm(bool trans_a, bool trans_b, int M, int N, int K,
                         float alpha, const void *A, int lda, const void *B,
                         int ldb, float beta, void *C, int ldc) const {
#ifdef TPC_HAVE_DNNL
  if (dnnl_ && takes(M) &&
      dnnl_->gemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C,
                  ldc))
    return;
#endif
  // Row-major extents of the stored operands.
  size_t a = sz(trans_a ? K : M) * lda, b = sz(trans_b ? N : K) * ldb,
         c = sz(M) * ldc;
  In<S> a_(A, a), b_(B, b);
  Out<S> c_(C, c, beta != 0.0f);
  cpu::gemm(trans_a, trans_b, M, N, K, alpha, a_, lda, b_, ldb, beta, c_, ldc);
}

template <class S>
void CpuKernels<S>::matmul_forward(void *out, const void *inp,
                                   const void *weight, const void *bias, int N,
                                   int C, int OC, bool transposed) const {
#ifdef TPC_HAVE_DNNL
  if (dnnl_ && takes(N) &&
      dnnl_->matmul_forward(out, inp, weight, bias, N, C, OC, transposed))
    return;
#endif
  In<S> x(inp, sz(N) * C), w(weight, sz(C) * OC), b(bias, OC);
  Out<S> o(out, sz(N) * OC, false);
  if (transposed)
    cpu::matmul_nt_forward(o, x, w, b, N, C, OC);
  else
    cpu::matmul_forward(o, x, w, b, N, C, OC);
}

template <class S>
void CpuKernels<S>::matmul_backward(void *dinp, void *dweight, void *dbias,
                                    const void *dout, const void *inp,
                                    const void *weight, int N, int C, int OC,
                                    bool transposed, bool accumulate) const {
#ifdef TPC_HAVE_DNNL
  if (dnnl_ && takes(N) &&
      dnnl_->matmul_backward(dinp, dweight, dbias, dout, inp, weight, N, C, OC,
                             transposed, accumulate))
    return;
#endif
  In<S> d(dout, sz(N) * OC), x(inp, sz(N) * C), w(weight, sz(C) * OC);
  // Written f32 results are their own views and the GEMMs write them (beta
  // 0); the bias's column sums add to a zeroed one. The fp32 views of
  // 16-bit results start zeroed when the results are written.
  if (!accumulate && kIsF32<S> && dbias)
    zero_in_blocks(dbias, size_t(OC) * sizeof(float));
  Out<S> dx(dinp, sz(N) * C, accumulate), dw(dweight, sz(C) * OC, accumulate),
      db(dbias, OC, accumulate);
  bool add = accumulate || !kIsF32<S>;
  if (transposed)
    cpu::matmul_nt_backward(dx, dw, db, d, x, w, N, C, OC, add);
  else
    cpu::matmul_backward(dx, dw, db, d, x, w, N, C, OC, add);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void CpuKernels<S>::gemm(bool, bool, int, int, int, float,          \
                                    const void *, int, const void *, int,      \
                                    float, void *, int) const;                 \
  template void CpuKernels<S>::matmul_forward(void *, const void *,            \
                                              const void *, const void *, int, \
                                              int, int, bool) const;           \
  template void CpuKernels<S>::matmul_backward(                                \
      void *, void *, void *, const void *, const void *, const void *, int,   \
      int, int, bool, bool) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
