//===- Backend.h - A device and its kernel tables ---------------*- C++ -*-===//
//
// A backend is one device (runtime/backend/Device.h: memory, copies,
// streams, events) and a table of kernels per storage type
// (runtime/backend/Kernels.h). The executor picks the table of an op's
// element type once, when it prepares a program; nothing is chosen per
// call. Collectives on the backend's buffers come from make_collectives
// (runtime/backend/Collectives.h).
//
// runtime/exec/README.md says how to add a backend.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_BACKEND_H
#define TPC_RUNTIME_BACKEND_BACKEND_H

#include "runtime/backend/Device.h"
#include "runtime/backend/ElementType.h"
#include "runtime/backend/Kernels.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc {

class Backend {
public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual Device &device() = 0;
  /// The kernels for tensors stored as `dtype`; null when this backend has
  /// none.
  virtual const Kernels *kernels(ElementType dtype) const = 0;

  // The device's memory calls and the fp32 GEMM, for callers that need only
  // those (the sgemm probe of tpc-run, tests).
  void *alloc(size_t bytes) { return device().alloc(bytes); }
  void free(void *ptr) { device().free(ptr); }
  void copy_host_to_device(void *dst, const void *src, size_t bytes) {
    device().copy_host_to_device(dst, src, bytes);
  }
  void copy_device_to_host(void *dst, const void *src, size_t bytes) {
    device().copy_device_to_host(dst, src, bytes);
  }
  void copy_device_to_device(void *dst, const void *src, size_t bytes) {
    device().copy_device_to_device(dst, src, bytes);
  }
  void zero(void *ptr, size_t bytes) { device().zero(ptr, bytes); }
  void synchronize() { device().synchronize(); }
  void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
            const float *A, int lda, const float *B, int ldb, float beta,
            float *C, int ldc) {
    kernels(ElementType::F32)
        ->gemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
  }
};

/// The library that runs the CPU backend's fp32 and bf16 GEMMs. Auto:
/// bf16 on oneDNN (the CPU's bf16 dot products or AMX tiles); fp32 on
/// OpenBLAS where it runs its AVX-512 kernels (but for GEMMs of fewer than
/// 32 result rows, decoding's, where oneDNN stays faster), else on oneDNN
/// (whose AVX-512 kernels beat OpenBLAS's AVX2 ones). Without oneDNN in the
/// build, or where it has only a reference kernel for a shape, OpenBLAS runs
/// them.
enum class CpuGemm { Auto, OneDnn, OpenBlas };

/// What `tpc-run --backend` may choose beyond the name.
struct BackendOptions {
  int device = -1;   // a GPU's ordinal; -1: the process's local rank
  bool tf32 = false; // fp32 GEMMs on TF32 tensor cores (GPUs)
  CpuGemm cpu_gemm = CpuGemm::Auto;
};

/// A backend this build has that cannot run here: no device, no driver,
/// or a library it needs is missing. The message says which and why.
class BackendUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A backend's table for `dtype` among its f32, bf16 and f16 tables; null
/// for i32, which has none.
inline const Kernels *table_for(ElementType dtype, const Kernels *f32,
                                const Kernels *bf16, const Kernels *f16) {
  switch (dtype) {
  case ElementType::F32:
    return f32;
  case ElementType::BF16:
    return bf16;
  case ElementType::F16:
    return f16;
  case ElementType::I32:
    break;
  }
  return nullptr;
}

/// The names of the backends this build has ("cpu" first).
std::vector<std::string> backend_names();

/// The backend called `name`; throws std::invalid_argument naming the
/// backends this build has, BackendUnavailable when it cannot run here.
std::unique_ptr<Backend> make_backend(const std::string &name,
                                      const BackendOptions &options = {});

/// Lines for `tpc-run info` about the devices `name` would run on (for
/// cuda: the GPU, its memory, the driver, cuBLASLt and NCCL, or why there
/// is none; for the CPU: the libraries that run its GEMMs). Throws
/// std::invalid_argument as make_backend for a name this build does not have.
std::string describe_backend(const std::string &name,
                             const BackendOptions &options = {});

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_BACKEND_H
