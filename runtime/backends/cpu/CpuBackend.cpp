//===- CpuBackend.cpp - Backend on OpenMP threads and OpenBLAS ------------===//
//
// The device (host memory, calls that complete before they return), the
// GEMM library of each kernel table (oneDNN or OpenBLAS) and the backend
// object. The tables' entries are defined beside their kernels
// (kernels/*.cpp, CpuKernels.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuBackend.h"
#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/HostMemory.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#ifdef TPC_HAVE_DNNL
#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#endif

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

namespace tpc {
namespace {

using cpu::BF16Storage;
using cpu::CpuKernels;
using cpu::F16Storage;
using cpu::F32Storage;
using cpu::kSkinnyRows;

#ifdef TPC_HAVE_DNNL
constexpr bool kHaveDnnl = true;
#else
constexpr bool kHaveDnnl = false;
#endif

std::string dnnl_library() {
#ifdef TPC_HAVE_DNNL
  return cpu::DnnlGemm::library();
#else
  return "";
#endif
}

/// The kernel oneDNN picks for a 1024^3 GEMM of `type`, for `info`.
std::string dnnl_kernel([[maybe_unused]] ElementType type) {
#ifdef TPC_HAVE_DNNL
  cpu::DnnlGemm g(type == ElementType::BF16 ? cpu::DnnlGemm::Type::BF16
                                            : cpu::DnnlGemm::Type::F32);
  return g.implementation(false, false, 1024, 1024, 1024, 1.0f, 1024, 1024,
                          0.0f, 1024);
#else
  return "";
#endif
}

/// Whether the f32 (or bf16) table runs its GEMMs on oneDNN under `choice`.
bool dnnl_runs(CpuGemm choice) {
  return kHaveDnnl && choice != CpuGemm::OpenBlas;
}

/// Whether the f32 table keeps only its skinny GEMMs (fewer than
/// kSkinnyRows result rows: decoding's) on oneDNN under `choice`. fp32 GEMMs
/// of a GPT-2 124M step (tpc-bench-gemm, 2 threads): oneDNN's AVX-512
/// kernels at 1.6x OpenBLAS's AVX2 (Haswell) ones on an AMD Zen 4;
/// OpenBLAS's AVX-512 (SkylakeX) ones at 1.4x oneDNN's on an Intel Xeon with
/// AMX, where oneDNN falls to 130-150 GFLOP/s on the MLP's GEMMs. There
/// oneDNN still wins below 32 rows (1024 x 3072 x 768 at 4 rows: 2.3x;
/// decoding GPT-2 124M: 2.0x).
bool skinny_only(CpuGemm choice, ElementType dtype) {
  return dnnl_runs(choice) && choice == CpuGemm::Auto &&
         dtype == ElementType::F32 && cpu::openblas_runs_avx512();
}

} // namespace

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

void *CpuDevice::alloc(size_t bytes) { return cpu::host_alloc(bytes); }

void CpuDevice::free(void *ptr) { std::free(ptr); }

void CpuDevice::copy_host_to_device(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuDevice::copy_device_to_host(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuDevice::copy_device_to_device(void *dst, const void *src,
                                      size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(dst),
             b = reinterpret_cast<uintptr_t>(src);
  if (a < b + bytes && b < a + bytes) {
    std::memmove(dst, src, bytes); // overlapping: in order, on one thread
    return;
  }
  cpu::copy_in_blocks(dst, src, bytes);
}
void CpuDevice::zero(void *ptr, size_t bytes) {
  cpu::zero_in_blocks(ptr, bytes);
}

Event CpuDevice::create_event() {
  // Calls complete before they return: an event has nothing to mark, but a
  // caller may test it against null.
  static char marker;
  return &marker;
}

//===----------------------------------------------------------------------===//
// Kernel tables and the backend
//===----------------------------------------------------------------------===//

template <class S>
cpu::CpuKernels<S>::CpuKernels(bool dnnl, bool skinny_only)
    : skinny_only_(skinny_only) {
#ifdef TPC_HAVE_DNNL
  if (!dnnl)
    return;
  if constexpr (kIsF32<S>)
    dnnl_ = std::make_unique<DnnlGemm>(DnnlGemm::Type::F32);
  else if constexpr (kIsBF16<S>)
    dnnl_ = std::make_unique<DnnlGemm>(DnnlGemm::Type::BF16);
#else
  (void)dnnl;
#endif
}

template <class S> cpu::CpuKernels<S>::~CpuKernels() = default;

CpuBackend::CpuBackend(CpuGemm gemm) : gemm_(gemm) {
  if (gemm == CpuGemm::OneDnn && !kHaveDnnl)
    throw std::invalid_argument(
        "--cpu-gemm onednn: this build has no oneDNN (install libdnnl-dev "
        "and ocl-icd-opencl-dev, then reconfigure and rebuild), or use "
        "--cpu-gemm auto or openblas");
  f32_ = std::make_unique<CpuKernels<F32Storage>>(
      dnnl_runs(gemm), skinny_only(gemm, ElementType::F32));
  bf16_ = std::make_unique<CpuKernels<BF16Storage>>(dnnl_runs(gemm), false);
  f16_ = std::make_unique<CpuKernels<F16Storage>>(false, false);
}

std::string CpuBackend::gemm_library(ElementType dtype) const {
  if (dtype != ElementType::F32 && dtype != ElementType::BF16)
    return cpu::openblas_library() + ", operands widened to fp32";
  if (skinny_only(gemm_, dtype))
    return cpu::openblas_library() + "; below " + std::to_string(kSkinnyRows) +
           " rows on " + dnnl_library();
  return dnnl_runs(gemm_) ? dnnl_library() : cpu::openblas_library();
}

std::string CpuBackend::describe(CpuGemm gemm) {
  CpuBackend backend(gemm);
  std::string text;
  for (ElementType t :
       {ElementType::F32, ElementType::BF16, ElementType::F16}) {
    text += std::string("cpu gemms    ") + element_type_name(t) + " on " +
            backend.gemm_library(t);
    if (t != ElementType::F16 && dnnl_runs(gemm) && !skinny_only(gemm, t))
      text += " (" + dnnl_kernel(t) + " at 1024^3)";
    text += "\n";
  }
  return text;
}

CpuBackend::~CpuBackend() = default;

const Kernels *CpuBackend::kernels(ElementType dtype) const {
  return table_for(dtype, f32_.get(), bf16_.get(), f16_.get());
}

} // namespace tpc
