//===- CpuBackend.h - Backend on OpenMP threads and OpenBLAS ----*- C++ -*-===//
//
// Device memory is host memory and every call runs to completion on the
// calling thread's OpenMP team, so streams and events have nothing to order
// and synchronize() nothing to wait for. Kernel tables for f32, bf16 and
// f16 storage: the bf16 and f16 tables widen their operands to fp32, run the
// fp32 kernel and round the results once. Built with oneDNN, the bf16 table's
// GEMMs (gemm, matmul_forward, matmul_backward) run oneDNN's bf16 matmul on
// the bf16 operands instead, with the same fp32 sums and single rounding
// (kernels/DnnlMatmul.h), and the f32 table's run on oneDNN or OpenBLAS,
// whichever CpuGemm picks.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
#define TPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H

#include "runtime/backend/Backend.h"

#include <memory>
#include <string>

namespace tpc {

class CpuDevice final : public Device {
public:
  std::string name() const override { return "cpu"; }
  void *alloc(size_t bytes) override;
  void free(void *ptr) override;
  void copy_host_to_device(void *dst, const void *src, size_t bytes) override;
  void copy_device_to_host(void *dst, const void *src, size_t bytes) override;
  void copy_device_to_device(void *dst, const void *src, size_t bytes) override;
  void zero(void *ptr, size_t bytes) override;
  void synchronize() override {}
  Event create_event() override;
  void destroy_event(Event) override {}
  void record(Event, Stream) override {}
  void wait(Stream, Event) override {}
};

class CpuBackend final : public Backend {
public:
  /// Throws std::invalid_argument for CpuGemm::OneDnn in a build without
  /// oneDNN.
  explicit CpuBackend(CpuGemm gemm = CpuGemm::Auto);
  ~CpuBackend() override;
  std::string name() const override { return "cpu"; }
  Device &device() override { return device_; }
  const Kernels *kernels(ElementType dtype) const override;

  /// The library that runs the GEMMs of `dtype`'s table ("oneDNN 2.6.3,
  /// OpenMP threads", "OpenBLAS 0.3.21 (SkylakeX kernels)").
  std::string gemm_library(ElementType dtype) const;
  /// `tpc-run info`'s lines: each table's GEMM library and oneDNN's kernel.
  static std::string describe(CpuGemm gemm);

private:
  CpuDevice device_;
  std::unique_ptr<Kernels> f32_, bf16_, f16_;
  CpuGemm gemm_;
};

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CPU_CPUBACKEND_H
