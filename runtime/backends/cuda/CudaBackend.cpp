//===- CudaBackend.cpp - Backend on an NVIDIA GPU -------------------------===//
//
// The device (memory, the two streams, events), the scratch buffer of the
// launchers, cuBLASLt for the GEMMs, and the backend. The kernel tables'
// entries are defined beside their launchers (kernels/*.cu, CudaKernels.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/cuda/Blas.h"
#include "runtime/backends/cuda/CudaCheck.h"
#include "runtime/backends/cuda/CudaKernels.h"
#include "runtime/backends/cuda/Libraries.h"
#include "runtime/util/Bytes.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tpc {

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

namespace {

std::string no_device(const std::string &why) {
  return "the CUDA backend cannot run here: " + why +
         ". Run on a machine with an NVIDIA GPU and its driver, or use "
         "--backend cpu";
}

/// Why cudaGetDeviceCount failed, in the user's terms.
std::string no_device_reason(cudaError_t err) {
  if (err == cudaErrorInsufficientDriver) {
    // The runtime says so both when the driver is too old and when there
    // is none at all.
    if (void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
      dlclose(h);
      return "the NVIDIA driver is older than this build's CUDA " +
             std::to_string(CUDART_VERSION / 1000) +
             " runtime needs "
             "(update the driver)";
    }
    return "no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)";
  }
  if (err == cudaErrorNoDevice)
    return "no CUDA device is visible (check CUDA_VISIBLE_DEVICES)";
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) +
         ")";
}

int device_ordinal(const BackendOptions &options) {
  return options.device >= 0 ? options.device : local_rank_from_environment();
}

} // namespace

CudaDevice::CudaDevice(int ordinal) : ordinal_(ordinal) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw BackendUnavailable(no_device(no_device_reason(err)));
  }
  if (count == 0)
    throw BackendUnavailable(no_device("no CUDA device is visible"));
  if (ordinal < 0 || ordinal >= count)
    throw BackendUnavailable(no_device(
        "device " + std::to_string(ordinal) +
        " does not exist; this machine "
        "has " +
        std::to_string(count) + " (--device 0 to " + std::to_string(count - 1) +
        ", or set CUDA_VISIBLE_DEVICES)"));
  cudaCheck(cudaSetDevice(ordinal));
  cudaCheck(cudaGetDeviceProperties(&prop_, ordinal));
  cudaCheck(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
  cudaCheck(cudaStreamCreateWithFlags(&collective_, cudaStreamNonBlocking));
  cudaCheck(cudaMallocHost(&staging_.host, kSlots * kSlotBytes));
  for (cudaEvent_t &e : staging_.done)
    cudaCheck(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
}

CudaDevice::~CudaDevice() {
  // Destructors must not throw: errors here are the job's end anyway.
  cudaDeviceSynchronize();
  for (cudaEvent_t e : staging_.done)
    if (e)
      cudaEventDestroy(e);
  if (staging_.host)
    cudaFreeHost(staging_.host);
  if (compute_)
    cudaStreamDestroy(compute_);
  if (collective_)
    cudaStreamDestroy(collective_);
}

std::string CudaDevice::name() const {
  return "cuda:" + std::to_string(ordinal_) + " (" + prop_.name + ")";
}

void *CudaDevice::alloc(size_t bytes) {
  void *p = nullptr;
  cudaError_t err = cudaMalloc(&p, std::max<size_t>(bytes, 1));
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError(); // not sticky: clear it for the next call
    throw std::bad_alloc();
  }
  cudaCheck(err);
  tally_.allocated(p, bytes);
  return p;
}

void CudaDevice::free(void *ptr) {
  if (!ptr)
    return;
  cudaCheck(cudaFree(ptr));
  tally_.freed(ptr);
}

void CudaDevice::copy_host_to_device(void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return;
  if (bytes <= kSlotBytes) {
    // The interface promises that src has been read on return: it has, into
    // the slot, whose copy then runs in stream order.
    int slot = staging_.next;
    staging_.next = (slot + 1) % kSlots;
    cudaCheck(cudaEventSynchronize(staging_.done[slot]));
    char *host = static_cast<char *>(staging_.host) + size_t(slot) * kSlotBytes;
    std::memcpy(host, src, bytes);
    cudaCheck(
        cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, compute_));
    cudaCheck(cudaEventRecord(staging_.done[slot], compute_));
    return;
  }
  // Large copies (weights at start) from pageable memory: the wait keeps
  // the promise whatever the source is.
  cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, compute_));
  cudaCheck(cudaStreamSynchronize(compute_));
}

void CudaDevice::copy_device_to_host(void *dst, const void *src, size_t bytes) {
  if (!bytes)
    return;
  cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, compute_));
  cudaCheck(cudaStreamSynchronize(compute_));
}

void CudaDevice::copy_device_to_device(void *dst, const void *src,
                                       size_t bytes) {
  if (bytes)
    cudaCheck(
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, compute_));
}

void CudaDevice::zero(void *ptr, size_t bytes) {
  if (bytes)
    cudaCheck(cudaMemsetAsync(ptr, 0, bytes, compute_));
}

void CudaDevice::synchronize() {
  cudaCheck(cudaStreamSynchronize(collective_));
  cudaCheck(cudaStreamSynchronize(compute_));
}

Event CudaDevice::create_event() {
  cudaEvent_t e = nullptr;
  cudaCheck(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  return e;
}

void CudaDevice::destroy_event(Event event) {
  if (event)
    cudaEventDestroy(static_cast<cudaEvent_t>(event));
}

void CudaDevice::record(Event event, Stream s) {
  cudaCheck(cudaEventRecord(static_cast<cudaEvent_t>(event), stream(s)));
}

void CudaDevice::wait(Stream s, Event event) {
  cudaCheck(cudaStreamWaitEvent(stream(s), static_cast<cudaEvent_t>(event), 0));
}

void CudaDevice::memory(size_t &free_bytes, size_t &total_bytes) const {
  cudaCheck(cudaMemGetInfo(&free_bytes, &total_bytes));
}

//===----------------------------------------------------------------------===//
// Scratch
//===----------------------------------------------------------------------===//

namespace cuda {

Scratch::~Scratch() {
  if (!ptr_)
    return;
  cudaFreeAsync(ptr_, stream_);
  if (tally_)
    tally_->freed(ptr_);
}

void *Scratch::get(size_t bytes) {
  if (bytes <= bytes_)
    return ptr_;
  // Grow by a quarter more than asked, so that a few growing calls do not
  // each reallocate; in stream order, after the calls that used the old one.
  size_t grown = std::max(bytes, bytes_ + bytes_ / 4);
  grown = (grown + 255) / 256 * 256;
  if (ptr_) {
    cudaCheck(cudaFreeAsync(ptr_, stream_));
    if (tally_)
      tally_->freed(ptr_);
  }
  ptr_ = nullptr;
  bytes_ = 0;
  cudaError_t err = cudaMallocAsync(&ptr_, grown, stream_);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw std::bad_alloc();
  }
  cudaCheck(err);
  bytes_ = grown;
  if (tally_)
    tally_->allocated(ptr_, grown);
  return ptr_;
}

} // namespace cuda

//===----------------------------------------------------------------------===//
// Backend
//===----------------------------------------------------------------------===//

CudaBackend::CudaBackend(const BackendOptions &options)
    : options_(options), device_(device_ordinal(options)) {
  cudaStream_t compute = device_.stream(Stream::Compute);
  scratch_ = std::make_unique<cuda::Scratch>(compute, &device_.tally());
  try {
    blas_ =
        std::make_unique<cuda::Blas>(compute, options.tf32, &device_.tally());
  } catch (const std::exception &e) {
    throw BackendUnavailable(e.what());
  }
  cuda::Launch l;
  l.stream = compute;
  l.scratch = scratch_.get();
  l.blas = blas_.get();
  l.sm_count = std::max(1, device_.properties().multiProcessorCount);
  f32_ = std::make_unique<cuda::CudaKernels<float>>(l);
  bf16_ = std::make_unique<cuda::CudaKernels<__nv_bfloat16>>(l);
  f16_ = std::make_unique<cuda::CudaKernels<__half>>(l);
}

CudaBackend::~CudaBackend() {
  // The tables and cuBLASLt's plans go before the streams they use.
  f32_.reset();
  bf16_.reset();
  f16_.reset();
  cudaDeviceSynchronize();
  blas_.reset();
  scratch_.reset();
}

const Kernels *CudaBackend::kernels(ElementType dtype) const {
  return table_for(dtype, f32_.get(), bf16_.get(), f16_.get());
}

int local_rank_from_environment() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "SLURM_LOCALID", "LOCAL_RANK"})
    if (const char *v = std::getenv(name))
      return std::atoi(v);
  return 0;
}

std::string describe_cuda(int ordinal) {
  std::ostringstream os;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    os << "cuda: no device: "
       << no_device_reason(err != cudaSuccess ? err : cudaErrorNoDevice)
       << "\n";
    return os.str();
  }
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  if (ordinal < 0)
    ordinal = local_rank_from_environment();
  os << "cuda: " << count << " device" << (count == 1 ? "" : "s") << ", driver "
     << driver / 1000 << "." << driver % 1000 / 10 << ", runtime "
     << runtime / 1000 << "." << runtime % 1000 / 10 << "\n";
  cudaDeviceProp prop{};
  if (ordinal >= count ||
      cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
    os << "cuda: device " << ordinal << " does not exist\n";
    return os.str();
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaSetDevice(ordinal) == cudaSuccess)
    cudaMemGetInfo(&free_bytes, &total_bytes);
  os << "cuda: device " << ordinal << ": " << prop.name << ", sm_" << prop.major
     << prop.minor << ", " << prop.multiProcessorCount << " SMs, "
     << format_bytes(double(total_bytes)) << " ("
     << format_bytes(double(free_bytes)) << " free)\n";
  os << "cuda: " << cuda::cublaslt_description() << "\n";
  os << "cuda: " << cuda::nccl_description() << "\n";
  return os.str();
}

} // namespace tpc
