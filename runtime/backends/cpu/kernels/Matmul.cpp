//===- Matmul.cpp - GEMMs through OpenBLAS --------------------------------===//
//
// Everything row-major. Weights are stored [in, out] as in Hugging Face
// GPT-2's Conv1D; the tied output layer reads wte [V, C] transposed.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

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
                          float alpha, const float *A, int lda, int64_t stride_a,
                          const float *B, int ldb, int64_t stride_b, float beta,
                          float *C, int ldc, int64_t stride_c, int batch) {
  // OpenBLAS threads each call itself; running the batch on OpenMP threads as
  // well would oversubscribe the cores.
  for (int i = 0; i < batch; ++i)
    gemm(trans_a, trans_b, M, N, K, alpha, A + i * stride_a, lda, B + i * stride_b,
         ldb, beta, C + i * stride_c, ldc);
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

} // namespace tpc::cpu
