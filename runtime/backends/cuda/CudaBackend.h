//===- CudaBackend.h - Backend on an NVIDIA GPU -----------------*- C++ -*-===//
//
// One GPU: device memory from cudaMalloc, a compute stream and a collective
// stream ordered with events, kernel tables for f32, bf16 and f16 storage
// (cuBLASLt GEMMs with fp32 accumulation, the kernels of kernels/*.cu) and
// NCCL collectives (NcclCollectives.h). Nothing here synchronizes with the
// host except the copies to it and synchronize(). The device keeps a tally
// of the memory the backend allocates (MemoryTally.h), whose peak is the
// training log's memory figure.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_CUDABACKEND_H
#define TPC_RUNTIME_BACKENDS_CUDA_CUDABACKEND_H

#include "runtime/backend/Backend.h"
#include "runtime/backends/cuda/MemoryTally.h"

#include <cuda_runtime.h>

#include <memory>
#include <string>

namespace tpc {
namespace cuda {
class Blas;
class Scratch;
} // namespace cuda

class CudaDevice final : public Device {
public:
  /// Makes `ordinal` the calling thread's device. Throws BackendUnavailable
  /// when there is no such device or no driver.
  explicit CudaDevice(int ordinal);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  std::string name() const override;
  void *alloc(size_t bytes) override;
  void free(void *ptr) override;
  std::optional<size_t> peak_allocated_bytes() const override {
    return tally_.peak();
  }
  void copy_host_to_device(void *dst, const void *src, size_t bytes) override;
  void copy_device_to_host(void *dst, const void *src, size_t bytes) override;
  void copy_device_to_device(void *dst, const void *src, size_t bytes) override;
  void zero(void *ptr, size_t bytes) override;
  void synchronize() override;
  Event create_event() override;
  void destroy_event(Event event) override;
  void record(Event event, Stream stream) override;
  void wait(Stream stream, Event event) override;

  int ordinal() const { return ordinal_; }
  cudaStream_t stream(Stream s) const {
    return s == Stream::Compute ? compute_ : collective_;
  }
  const cudaDeviceProp &properties() const { return prop_; }
  /// Free and total device memory now, in bytes.
  void memory(size_t &free_bytes, size_t &total_bytes) const;
  /// What the backend's allocations hold: alloc() counts in it, and so do
  /// the launchers' scratch and cuBLASLt's workspace.
  cuda::MemoryTally &tally() { return tally_; }

private:
  /// Small host-to-device copies (a step's tokens, targets and scalars) go
  /// through pinned staging slots, so that they return without waiting for
  /// the work already queued; a slot is reused once its copy has finished.
  struct Staging {
    void *host = nullptr; // pinned, kSlots * kSlotBytes
    cudaEvent_t done[8] = {};
    int next = 0;
  };
  static constexpr int kSlots = 8;
  static constexpr size_t kSlotBytes = size_t(1) << 20;

  int ordinal_;
  cudaDeviceProp prop_{};
  cudaStream_t compute_ = nullptr, collective_ = nullptr;
  Staging staging_;
  cuda::MemoryTally tally_;
};

class CudaBackend final : public Backend {
public:
  explicit CudaBackend(const BackendOptions &options);
  ~CudaBackend() override;
  std::string name() const override { return "cuda"; }
  Device &device() override { return device_; }
  CudaDevice &cuda_device() { return device_; }
  const Kernels *kernels(ElementType dtype) const override;
  const BackendOptions &options() const { return options_; }

private:
  BackendOptions options_;
  CudaDevice device_;
  std::unique_ptr<cuda::Scratch> scratch_;
  std::unique_ptr<cuda::Blas> blas_;
  std::unique_ptr<Kernels> f32_, bf16_, f16_;
};

/// The local rank of this process on its node from the launcher's
/// environment (Open MPI, MPICH, Slurm); 0 without one.
int local_rank_from_environment();

/// A line per fact for `tpc-run info`: the device, its memory, the driver
/// and runtime versions, cuBLASLt and NCCL; or why there is no device.
std::string describe_cuda(int ordinal);

} // namespace tpc

#endif // TPC_RUNTIME_BACKENDS_CUDA_CUDABACKEND_H
