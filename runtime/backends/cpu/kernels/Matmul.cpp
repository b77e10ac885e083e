//===- Matmul.cpp - GEMMs through OpenBLAS --------------------------------===//
//
// Everything row-major. Weights are stored [in, out] as in Hugging Face
// GPT-2's Conv1D; the tied output layer reads wte [V, C] transposed.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cblas.h>

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
                     int N, int C, int OC) {
  if (dinp) // (N,C) += dout (N,OC) . weight^T
    gemm(false, true, N, C, OC, 1.0f, dout, OC, weight, OC, 1.0f, dinp, C);
  if (dweight) // (C,OC) += inp^T . dout
    gemm(true, false, C, OC, N, 1.0f, inp, C, dout, OC, 1.0f, dweight, OC);
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
                        const float *weight, int N, int C, int OC) {
  if (dinp) // (N,C) += dout (N,OC) . weight (OC,C)
    gemm(false, false, N, C, OC, 1.0f, dout, OC, weight, C, 1.0f, dinp, C);
  if (dweight) // (OC,C) += dout^T . inp
    gemm(true, false, OC, C, N, 1.0f, dout, OC, inp, C, 1.0f, dweight, C);
  if (dbias)
    column_sum_accumulate(dbias, dout, N, OC);
}

} // namespace tpc::cpu
