//===- Blas.cpp - cuBLASLt matmuls with cached plans ----------------------===//

#include "runtime/backends/cuda/Blas.h"
#include "runtime/backends/cuda/CudaCheck.h"
#include "runtime/backends/cuda/Libraries.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tpc::cuda {
namespace {

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

cudaDataType_t data_type(ElementType t) {
  switch (t) {
  case ElementType::F32:
    return CUDA_R_32F;
  case ElementType::BF16:
    return CUDA_R_16BF;
  case ElementType::F16:
    return CUDA_R_16F;
  case ElementType::I32:
    break;
  }
  throw std::invalid_argument("cuBLASLt GEMMs take f32, bf16 or f16, not " +
                              std::string(element_type_name(t)));
}

/// The largest power of two up to 256 that divides the address.
uint32_t alignment(const void *p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  uint32_t align = 256;
  while (align > 1 && a % align)
    align /= 2;
  return align;
}

} // namespace

struct Blas::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};

  ~Plan() {
    const CublasLtApi &api = cublaslt();
    if (desc)
      api.desc_destroy(desc);
    for (cublasLtMatrixLayout_t l : {a, b, c})
      if (l)
        api.layout_destroy(l);
  }
};

Blas::Blas(cudaStream_t stream, bool tf32, MemoryTally *tally)
    : stream_(stream), tf32_(tf32), tally_(tally) {
  cublasCheck(cublaslt().create(&handle_));
  cudaCheck(cudaMalloc(&workspace_, kWorkspaceBytes));
  workspace_bytes_ = kWorkspaceBytes;
  if (tally_)
    tally_->allocated(workspace_, workspace_bytes_);
}

Blas::~Blas() {
  plans_.clear();
  if (workspace_) {
    cudaStreamSynchronize(stream_);
    cudaFree(workspace_);
    if (tally_)
      tally_->freed(workspace_);
  }
  if (handle_)
    cublaslt().destroy(handle_);
}

// Key: type, C's type, trans_a, trans_b, M, N, K, lda, ldb, ldc, bias, the
// operands' common alignment, tf32, the batch count and its three strides.
Blas::Key Blas::key_of(ElementType type, ElementType c_type, bool trans_a,
                       bool trans_b, int M, int N, int K, int lda, int ldb,
                       int ldc, bool bias, uint32_t align,
                       const Batch &batch) const {
  return std::make_tuple(int(type), int(c_type), trans_a, trans_b, M, N, K, lda,
                         ldb, ldc, bias, int(align),
                         tf32_ && type == ElementType::F32, batch.count,
                         batch.stride_a, batch.stride_b, batch.stride_c);
}

Blas::Plan *Blas::plan(const Key &key) {
  auto it = plans_.find(key);
  if (it != plans_.end())
    return it->second.get();
  const CublasLtApi &api = cublaslt();
  auto [t, ct, trans_a, trans_b, M, N, K, lda, ldb, ldc, bias, align, tf32,
        count, stride_a, stride_b, stride_c] = key;
  ElementType type = ElementType(t);
  cudaDataType_t dt = data_type(type), c_dt = data_type(ElementType(ct));
  auto p = std::make_unique<Plan>();

  cublasComputeType_t compute = type == ElementType::F32 && tf32
                                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                    : CUBLAS_COMPUTE_32F;
  cublasCheck(api.desc_create(&p->desc, compute, CUDA_R_32F));
  // Column-major: C^T (N,M) = op(B)^T (N,K) . op(A)^T (K,M). The stored
  // row-major B seen column-major is B^T already, so B goes first with
  // B's transposition, then A with A's.
  cublasOperation_t op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasCheck(api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_first,
                           sizeof(op_first)));
  cublasCheck(api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_second,
                           sizeof(op_second)));
  if (bias) {
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    cublasCheck(api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                             sizeof(epilogue)));
    cudaDataType_t bias_type = dt;
    cublasCheck(api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                             &bias_type, sizeof(bias_type)));
  }
  // Stored extents, column-major: the first operand is (N,K) or, stored
  // transposed, (K,N); the second (K,M) or (M,K).
  cublasCheck(
      api.layout_create(&p->a, dt, trans_b ? K : N, trans_b ? N : K, ldb));
  cublasCheck(
      api.layout_create(&p->b, dt, trans_a ? M : K, trans_a ? K : M, lda));
  cublasCheck(api.layout_create(&p->c, c_dt, N, M, ldc));
  if (count > 1) {
    // One call for the batch: each layout steps by its operand's stride
    // (the first operand is B, the second A).
    int32_t members = count;
    for (auto [layout, stride] :
         {std::make_pair(p->a, stride_b), std::make_pair(p->b, stride_a),
          std::make_pair(p->c, stride_c)}) {
      int64_t offset = stride;
      cublasCheck(api.layout_set(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                 &members, sizeof(members)));
      cublasCheck(api.layout_set(layout,
                                 CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                 &offset, sizeof(offset)));
    }
  }

  cublasLtMatmulPreference_t pref = nullptr;
  cublasCheck(api.pref_create(&pref));
  uint64_t ws = workspace_bytes_;
  uint32_t a32 = uint32_t(align);
  cublasStatus_t st = api.pref_set(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  for (auto attr : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    if (st == CUBLAS_STATUS_SUCCESS)
      st = api.pref_set(pref, attr, &a32, sizeof(a32));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = api.heuristic(handle_, p->desc, p->a, p->b, p->c, p->c, pref, 1,
                       &result, &found);
  api.pref_destroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    // Remembered, so that the heuristic is asked once per shape.
    plans_.emplace(key, nullptr);
    return nullptr;
  }
  p->algo = result.algo;
  return plans_.emplace(key, std::move(p)).first->second.get();
}

namespace {

[[noreturn]] void no_algorithm(ElementType type, int M, int N, int K, int lda,
                               int ldb, int ldc, uint32_t align) {
  throw std::runtime_error(
      "cuBLASLt has no algorithm for a " +
      std::string(element_type_name(type)) + " GEMM of M " + std::to_string(M) +
      ", N " + std::to_string(N) + ", K " + std::to_string(K) + " (lda " +
      std::to_string(lda) + ", ldb " + std::to_string(ldb) + ", ldc " +
      std::to_string(ldc) + ", operands aligned to " + std::to_string(align) +
      " bytes)");
}

} // namespace

bool Blas::gemm(ElementType type, bool trans_a, bool trans_b, int M, int N,
                int K, float alpha, const void *A, int lda, const void *B,
                int ldb, float beta, void *C, int ldc, const void *bias) {
  if (M <= 0 || N <= 0)
    return true;
  if (K <= 0) {
    // Nothing to multiply: C = beta * C (+ bias), which the layers never
    // ask for with K = 0 except as an empty product onto C.
    if (beta == 1.0f && !bias)
      return true;
    throw std::invalid_argument(
        "a GEMM with K = 0 only accumulates onto C (beta 1, no bias)");
  }
  uint32_t align = alignment(A);
  for (const void *p : {B, static_cast<const void *>(C), bias})
    if (p)
      align = std::min(align, alignment(p));
  const Key key = key_of(type, type, trans_a, trans_b, M, N, K, lda, ldb, ldc,
                         bias != nullptr, align, Batch());
  Plan *p = plan(key);
  if (!p) {
    if (bias)
      return false;
    no_algorithm(type, M, N, K, lda, ldb, ldc, align);
  }
  const CublasLtApi &api = cublaslt();
  if (bias)
    cublasCheck(api.desc_set(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                             sizeof(bias)));
  cublasCheck(api.matmul(handle_, p->desc, &alpha, B, p->a, A, p->b, &beta, C,
                         p->c, C, p->c, &p->algo, workspace_, workspace_bytes_,
                         stream_));
  return true;
}

void Blas::gemm_batched(ElementType type, ElementType c_type, bool trans_a,
                        bool trans_b, int M, int N, int K, float alpha,
                        const void *A, int lda, int64_t stride_a, const void *B,
                        int ldb, int64_t stride_b, float beta, void *C, int ldc,
                        int64_t stride_c, int batch) {
  if (c_type != type && c_type != ElementType::F32)
    throw std::invalid_argument("a batched GEMM writes its operands' type or "
                                "f32, not " +
                                std::string(element_type_name(c_type)));
  if (batch <= 0 || M <= 0 || N <= 0 || K <= 0)
    return;
  const size_t size = element_size(type), c_size = element_size(c_type);
  // Every member's operands share the first one's alignment when the
  // strides keep it.
  uint32_t align = std::min({alignment(A), alignment(B), alignment(C)});
  if (batch > 1)
    for (size_t bytes : {size_t(stride_a) * size, size_t(stride_b) * size,
                         size_t(stride_c) * c_size})
      align = std::min(align, alignment(reinterpret_cast<const void *>(bytes)));
  Batch strided;
  if (batch > 1)
    strided = Batch{batch, stride_a, stride_b, stride_c};
  const Key key = key_of(type, c_type, trans_a, trans_b, M, N, K, lda, ldb, ldc,
                         false, align, strided);
  Plan *p = plan(key);
  if (!p)
    no_algorithm(type, M, N, K, lda, ldb, ldc, align);
  cublasCheck(cublaslt().matmul(handle_, p->desc, &alpha, B, p->a, A, p->b,
                                &beta, C, p->c, C, p->c, &p->algo, workspace_,
                                workspace_bytes_, stream_));
}

} // namespace tpc::cuda
