//===- Blas.h - cuBLASLt matmuls with cached plans --------------*- C++ -*-===//
//
// Row-major GEMMs on cuBLASLt (column-major) by computing C^T = B^T A^T.
// The first call of a shape creates its descriptors, layouts and the
// heuristic's algorithm; later calls of the shape reuse them, so a training
// step asks the heuristic nothing. One 32 MiB workspace serves all calls,
// which run in order on the compute stream. Strided batches (attention's
// per-head products) share one plan and run one matmul per member: the
// loaded cuBLASLt table (Libraries.h) has no cublasLtMatrixLayoutSetAttribute
// for the layouts' batch count and offsets.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_BLAS_H
#define TPC_RUNTIME_BACKENDS_CUDA_BLAS_H

#include "runtime/backend/ElementType.h"
#include "runtime/backends/cuda/MemoryTally.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

namespace tpc::cuda {

class Blas {
public:
  /// The workspace counts in `tally` when there is one.
  Blas(cudaStream_t stream, bool tf32, MemoryTally *tally = nullptr);
  ~Blas();
  Blas(const Blas &) = delete;
  Blas &operator=(const Blas &) = delete;

  /// Row-major C (M,N) = alpha * op(A) op(B) + beta * C [+ bias (N)], A, B,
  /// C and bias of `type`, fp32 accumulation and scalars. op(A) is (M,K):
  /// A is stored (K,M) when trans_a. A bias is added before the single
  /// rounding of C. Returns false, having done nothing, when cuBLASLt has
  /// no algorithm for the bias epilogue of this shape (the caller then adds
  /// the bias another way); throws when it has none at all.
  bool gemm(ElementType type, bool trans_a, bool trans_b, int M, int N, int K,
            float alpha, const void *A, int lda, const void *B, int ldb,
            float beta, void *C, int ldc, const void *bias = nullptr);

  /// `batch` GEMMs as gemm's, without a bias: member i reads A + i *
  /// stride_a and B + i * stride_b and writes C + i * stride_c (strides in
  /// elements). A and B are of `type`; C of `c_type`, which is `type` or
  /// F32 (fp32 results of 16-bit operands, rounded once). Throws when
  /// cuBLASLt has no algorithm.
  void gemm_batched(ElementType type, ElementType c_type, bool trans_a,
                    bool trans_b, int M, int N, int K, float alpha,
                    const void *A, int lda, int64_t stride_a, const void *B,
                    int ldb, int64_t stride_b, float beta, void *C, int ldc,
                    int64_t stride_c, int batch);

private:
  struct Plan;
  /// A strided batch: the count and A's, B's and C's strides in elements
  /// (1, 0, 0, 0 for one GEMM).
  struct Batch {
    int count = 1;
    int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  };
  using Key = std::tuple<int, int, bool, bool, int, int, int, int, int, int,
                         bool, int, bool, int, int64_t, int64_t, int64_t>;
  Key key_of(ElementType type, ElementType c_type, bool trans_a, bool trans_b,
             int M, int N, int K, int lda, int ldb, int ldc, bool bias,
             uint32_t align, const Batch &batch) const;
  /// Null when the heuristic has no algorithm for the key.
  Plan *plan(const Key &key);

  cudaStream_t stream_;
  bool tf32_;
  MemoryTally *tally_;
  cublasLtHandle_t handle_ = nullptr;
  void *workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

} // namespace tpc::cuda

#endif // TPC_RUNTIME_BACKENDS_CUDA_BLAS_H
