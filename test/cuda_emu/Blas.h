//===- Blas.h - A host stand-in for the cuBLASLt GEMMs ----------*- C++ -*-===//
//
// The emulator builds Matmul.cu against this class instead of
// runtime/backends/cuda/Blas.h (a generated runtime/backends/cuda/Blas.h
// ahead on the include path forwards here): cuBLASLt does not run on the
// host. It computes what Blas.h promises, row-major C (M,N) = alpha op(A)
// op(B) + beta C [+ bias (N)] with fp32 sums and one rounding, by naive
// loops, so that the test can check what Matmul.cu and Attention.cu ask of
// cuBLASLt (the operands, transpositions, leading dimensions and batch
// strides) and the kernels they run around the GEMMs. It says nothing about
// cuBLASLt itself.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_TEST_CUDA_EMU_BLAS_H
#define TPC_TEST_CUDA_EMU_BLAS_H

#include "runtime/backend/ElementType.h"

#include <cstdint>

namespace tpc::cuda {

class Blas {
public:
  /// As Blas.h's gemm; returns false, having done nothing, for a call with
  /// a bias when `bias_epilogue` is off, as cuBLASLt's heuristic may.
  bool gemm(ElementType type, bool trans_a, bool trans_b, int M, int N, int K,
            float alpha, const void *A, int lda, const void *B, int ldb,
            float beta, void *C, int ldc, const void *bias = nullptr);
  /// As Blas.h's gemm_batched: one naive GEMM per member.
  void gemm_batched(ElementType type, ElementType c_type, bool trans_a,
                    bool trans_b, int M, int N, int K, float alpha,
                    const void *A, int lda, int64_t stride_a, const void *B,
                    int ldb, int64_t stride_b, float beta, void *C, int ldc,
                    int64_t stride_c, int batch);

  /// Whether the bias epilogue is available.
  bool bias_epilogue = true;
  /// GEMMs computed (a batched call counts once), and calls declined for
  /// their bias.
  int calls = 0, declined = 0;
};

} // namespace tpc::cuda

#endif // TPC_TEST_CUDA_EMU_BLAS_H
