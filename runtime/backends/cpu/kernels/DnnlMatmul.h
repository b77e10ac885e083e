//===- DnnlMatmul.h - fp32 and bf16 GEMMs through oneDNN --------*- C++ -*-===//
//
// The fp32 and bf16 kernel tables' GEMMs, on oneDNN's matmul primitives.
// fp32: where OpenBLAS runs only AVX2 kernels, oneDNN's AVX-512 ones are
// about 1.6 times faster (CpuGemm in backend/Backend.h says which library
// runs). bf16: bf16 operands go to the CPU's bf16 dot-product instructions
// or AMX tiles as they are, instead of being widened for an fp32 sgemm;
// products and sums are fp32 and each result is rounded to bf16 once, as
// the Kernels interface asks. Products with op(A) transposed (weight
// gradients) run on copies of the operands (bf16) or of B (fp32) reordered
// into oneDNN's blocked layouts, tall ones in row chunks, and bf16 products
// deeper than 16384 in depth chunks summed in fp32 (DnnlMatmul.cpp). Only built
// with oneDNN (TPC_HAVE_DNNL); the header has no oneDNN types in it.
//
// oneDNN picks an implementation per shape when its primitive is created.
// Where the best it has is a reference one (a CPU without AVX-512, say) a
// call returns false having written nothing, and the caller takes its fp32
// path instead.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_DNNLMATMUL_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_DNNLMATMUL_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace tpc::cpu {

/// One oneDNN CPU engine and stream, and the matmul primitives created on
/// them for one element type, one per shape (oneDNN's advice: primitive
/// creation costs far more than a small GEMM). Tensors are float (F32) or
/// uint16_t bf16 bit patterns (BF16). Calls may come from several threads;
/// they run one at a time.
class DnnlGemm {
public:
  enum class Type { F32, BF16 };
  explicit DnnlGemm(Type type);
  ~DnnlGemm();
  DnnlGemm(const DnnlGemm &) = delete;
  DnnlGemm &operator=(const DnnlGemm &) = delete;

  /// Row-major C (M,N) = alpha * op(A) (M,K) * op(B) (K,N) + beta * C, as
  /// cblas_sgemm; C is not read when beta is 0.
  bool gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
            const void *A, int lda, const void *B, int ldb, float beta,
            void *C, int ldc);

  /// The matmul kernels of cpu/kernels/Kernels.h: out (N,OC)
  /// = inp (N,C) . weight (C,OC) (weight^T with weight (OC,C) when
  /// transposed) + bias (OC, may be null).
  bool matmul_forward(void *out, const void *inp, const void *weight,
                      const void *bias, int N, int C, int OC, bool transposed);
  /// dinp, dweight, dbias accumulate, or are written when not
  /// `accumulate`; null ones are skipped.
  bool matmul_backward(void *dinp, void *dweight, void *dbias, const void *dout,
                       const void *inp, const void *weight, int N, int C,
                       int OC, bool transposed, bool accumulate);

  /// oneDNN's name for the implementation gemm() would run for this call
  /// ("brg:avx512_core_bf16", say), "ref:..." for one it declines; for
  /// benchmarks and tests.
  std::string implementation(bool trans_a, bool trans_b, int M, int N, int K,
                             float alpha, int lda, int ldb, float beta,
                             int ldc);
  /// Primitives created so far.
  size_t cached_primitives() const;
  /// "oneDNN 2.6.3, OpenMP threads": the library loaded and its CPU
  /// threading, which must be our OpenMP for the two to share the cores.
  static std::string library();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_DNNLMATMUL_H
