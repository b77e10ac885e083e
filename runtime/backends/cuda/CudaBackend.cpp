//===- CudaBackend.cpp - Backend on an NVIDIA GPU -------------------------===//
//
// The device (memory, the two streams, events), the scratch buffer of the
// launchers, and the kernel tables, which only forward to the launchers of
// kernels/*.cu with the table's storage type.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/cuda/Blas.h"
#include "runtime/backends/cuda/CudaCheck.h"
#include "runtime/backends/cuda/Libraries.h"
#include "runtime/backends/cuda/kernels/Kernels.h"

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
             std::to_string(CUDART_VERSION / 1000) + " runtime needs "
             "(update the driver)";
    }
    return "no NVIDIA driver is installed (libcuda.so.1 cannot be loaded)";
  }
  if (err == cudaErrorNoDevice)
    return "no CUDA device is visible (check CUDA_VISIBLE_DEVICES)";
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) +
         ")";
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
        "device " + std::to_string(ordinal) + " does not exist; this machine "
        "has " + std::to_string(count) + " (--device 0 to " +
        std::to_string(count - 1) + ", or set CUDA_VISIBLE_DEVICES)"));
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
  return p;
}

void CudaDevice::free(void *ptr) {
  if (ptr)
    cudaCheck(cudaFree(ptr));
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
    cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice,
                              compute_));
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
  if (ptr_)
    cudaFreeAsync(ptr_, stream_);
}

void *Scratch::get(size_t bytes) {
  if (bytes <= bytes_)
    return ptr_;
  // Grow by a quarter more than asked, so that a few growing calls do not
  // each reallocate; in stream order, after the calls that used the old one.
  size_t grown = std::max(bytes, bytes_ + bytes_ / 4);
  grown = (grown + 255) / 256 * 256;
  if (ptr_)
    cudaCheck(cudaFreeAsync(ptr_, stream_));
  ptr_ = nullptr;
  bytes_ = 0;
  cudaError_t err = cudaMallocAsync(&ptr_, grown, stream_);
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw std::bad_alloc();
  }
  cudaCheck(err);
  bytes_ = grown;
  return ptr_;
}

} // namespace cuda

//===----------------------------------------------------------------------===//
// Kernel tables
//===----------------------------------------------------------------------===//

namespace {

template <class T> class CudaKernels final : public Kernels {
public:
  explicit CudaKernels(const cuda::Launch &l) : l_(l) {}

  ElementType dtype() const override;

  static T *t(void *p) { return static_cast<T *>(p); }
  static const T *t(const void *p) { return static_cast<const T *>(p); }

  void fill(void *out, float value, size_t n) const override {
    cuda::fill<T>(l_, t(out), value, n);
  }
  void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
            const void *A, int lda, const void *B, int ldb, float beta, void *C,
            int ldc) const override {
    cuda::gemm<T>(l_, trans_a, trans_b, M, N, K, alpha, t(A), lda, t(B), ldb,
                  beta, t(C), ldc);
  }

  void embedding_forward(void *out, const int *ids, const void *wte, int B,
                         int T_, int C, int vstart, int vlocal) const override {
    cuda::embedding_forward<T>(l_, t(out), ids, t(wte), B, T_, C, vstart,
                               vlocal);
  }
  void embedding_backward(void *dwte, const void *dout, const int *ids, int B,
                          int T_, int C, int vstart,
                          int vlocal) const override {
    cuda::embedding_backward<T>(l_, t(dwte), t(dout), ids, B, T_, C, vstart,
                                vlocal);
  }
  void position_embedding_forward(void *out, const void *inp, const void *wpe,
                                  const int *offset, int B, int T_,
                                  int C) const override {
    cuda::position_embedding_forward<T>(l_, t(out), t(inp), t(wpe), offset, B,
                                        T_, C);
  }
  void position_embedding_backward(void *dwpe, const void *dout, int B, int T_,
                                   int C) const override {
    cuda::position_embedding_backward<T>(l_, t(dwpe), t(dout), B, T_, C);
  }

  void layernorm_forward(void *out, float *mean, float *rstd, const void *inp,
                         const void *weight, const void *bias, int N,
                         int C) const override {
    cuda::layernorm_forward<T>(l_, t(out), mean, rstd, t(inp), t(weight),
                               t(bias), N, C);
  }
  void layernorm_backward(void *dinp, void *dweight, void *dbias,
                          const void *dout, const void *inp, const void *weight,
                          const float *mean, const float *rstd, int N,
                          int C) const override {
    cuda::layernorm_backward<T>(l_, t(dinp), t(dweight), t(dbias), t(dout),
                                t(inp), t(weight), mean, rstd, N, C);
  }
  void rmsnorm_forward(void *out, float *rstd, const void *inp,
                       const void *weight, int N, int C,
                       float eps) const override {
    cuda::rmsnorm_forward<T>(l_, t(out), rstd, t(inp), t(weight), N, C, eps);
  }
  void rmsnorm_backward(void *dinp, void *dweight, const void *dout,
                        const void *inp, const void *weight, const float *rstd,
                        int N, int C) const override {
    cuda::rmsnorm_backward<T>(l_, t(dinp), t(dweight), t(dout), t(inp),
                              t(weight), rstd, N, C);
  }

  void matmul_forward(void *out, const void *inp, const void *weight,
                      const void *bias, int N, int C, int OC,
                      bool transposed) const override {
    cuda::matmul_forward<T>(l_, t(out), t(inp), t(weight), t(bias), N, C, OC,
                            transposed);
  }
  void matmul_backward(void *dinp, void *dweight, void *dbias, const void *dout,
                       const void *inp, const void *weight, int N, int C,
                       int OC, bool transposed,
                       bool accumulate) const override {
    // Written results start from zeros on the stream; the GEMMs and the
    // bias's column sums then add, as when accumulating.
    if (!accumulate)
      for (auto [p, n] :
           {std::pair{dinp, size_t(N) * C}, std::pair{dweight, size_t(C) * OC},
            std::pair{dbias, size_t(OC)}})
        if (p)
          cudaCheck(cudaMemsetAsync(p, 0, n * sizeof(T), l_.stream));
    cuda::matmul_backward<T>(l_, t(dinp), t(dweight), t(dbias), t(dout),
                             t(inp), t(weight), N, C, OC, transposed);
  }

  void gelu_forward(void *out, const void *inp, size_t n) const override {
    cuda::gelu_forward<T>(l_, t(out), t(inp), n);
  }
  void gelu_backward(void *dinp, const void *inp, const void *dout, size_t n,
                     bool accumulate) const override {
    // A written result starts from zeros on the stream, then accumulates.
    if (!accumulate && dinp)
      cudaCheck(cudaMemsetAsync(dinp, 0, n * sizeof(T), l_.stream));
    cuda::gelu_backward<T>(l_, t(dinp), t(inp), t(dout), n);
  }
  void swiglu_forward(void *out, const void *gate, const void *up,
                      size_t n) const override {
    cuda::swiglu_forward<T>(l_, t(out), t(gate), t(up), n);
  }
  void swiglu_backward(void *dgate, void *dup, const void *dout,
                       const void *gate, const void *up,
                       size_t n) const override {
    cuda::swiglu_backward<T>(l_, t(dgate), t(dup), t(dout), t(gate), t(up), n);
  }
  void residual_forward(void *out, const void *a, const void *b,
                        size_t n) const override {
    cuda::residual_forward<T>(l_, t(out), t(a), t(b), n);
  }
  void cast(void *out, ElementType to, const void *inp,
            size_t n) const override {
    cuda::cast<T>(l_, out, to, t(inp), n);
  }
  void scale_forward(void *out, const void *inp, float s,
                     size_t n) const override {
    cuda::scale_forward<T>(l_, t(out), t(inp), s, n);
  }
  void weighted_sum_forward(void *out, const void *const *xs, const void *alpha,
                            int k, size_t n) const override {
    cuda::weighted_sum_forward<T>(l_, t(out),
                                  reinterpret_cast<const T *const *>(xs),
                                  t(alpha), k, n);
  }
  void weighted_sum_backward(void *const *dxs, void *dalpha, const void *dout,
                             const void *const *xs, const void *alpha, int k,
                             size_t n) const override {
    cuda::weighted_sum_backward<T>(l_, reinterpret_cast<T *const *>(dxs),
                                   t(dalpha), t(dout),
                                   reinterpret_cast<const T *const *>(xs),
                                   t(alpha), k, n);
  }
  void dropout_forward(void *out, const void *inp, size_t n,
                       const DropoutParams &d,
                       const GlobalIndexMap &map) const override {
    cuda::dropout_forward<T>(l_, t(out), t(inp), n, d, map);
  }

  void attention_forward(void *out, float *att, const void *qkv,
                         const AttentionConfig &cfg) const override {
    cuda::attention_forward<T>(l_, t(out), att, t(qkv), cfg);
  }
  void attention_backward(void *dqkv, const void *dout, const void *qkv,
                          const float *att,
                          const AttentionConfig &cfg) const override {
    cuda::attention_backward<T>(l_, t(dqkv), t(dout), t(qkv), att, cfg);
  }
  void cross_attention_forward(void *out, float *att, const void *q,
                               const void *kv,
                               const AttentionConfig &cfg) const override {
    cuda::cross_attention_forward<T>(l_, t(out), att, t(q), t(kv), cfg);
  }
  void cross_attention_backward(void *dq, void *dkv, const void *dout,
                                const void *q, const void *kv, const float *att,
                                const AttentionConfig &cfg) const override {
    cuda::cross_attention_backward<T>(l_, t(dq), t(dkv), t(dout), t(q), t(kv),
                                      att, cfg);
  }
  void decode_attention_forward(void *out, void *kcache, void *vcache,
                                const void *qkv, const int *pos, int capacity,
                                const AttentionConfig &cfg) const override {
    cuda::decode_attention_forward<T>(l_, t(out), t(kcache), t(vcache), t(qkv),
                                      pos, capacity, cfg);
  }
  void decode_cross_attention_forward(void *out, void *kcache, void *vcache,
                                      const void *q, const void *kv,
                                      const int *pos, int capacity,
                                      const AttentionConfig &cfg,
                                      bool lagged) const override {
    cuda::decode_cross_attention_forward<T>(l_, t(out), t(kcache), t(vcache),
                                            t(q), t(kv), pos, capacity, cfg,
                                            lagged);
  }
  void gqa_attention_forward(void *out, float *att, const void *q,
                             const void *k, const void *v,
                             const AttentionConfig &cfg) const override {
    cuda::gqa_attention_forward<T>(l_, t(out), att, t(q), t(k), t(v), cfg);
  }
  void gqa_attention_backward(void *dq, void *dk, void *dv, const void *dout,
                              const void *q, const void *k, const void *v,
                              const float *att,
                              const AttentionConfig &cfg) const override {
    cuda::gqa_attention_backward<T>(l_, t(dq), t(dk), t(dv), t(dout), t(q),
                                    t(k), t(v), att, cfg);
  }
  void decode_gqa_attention_forward(void *out, void *kcache, void *vcache,
                                    const void *q, const void *k, const void *v,
                                    const int *pos, int capacity,
                                    const AttentionConfig &cfg) const override {
    cuda::decode_gqa_attention_forward<T>(l_, t(out), t(kcache), t(vcache),
                                          t(q), t(k), t(v), pos, capacity,
                                          cfg);
  }

  // The backward kernel recomputes the rows' statistics: `stats` stays
  // unused.
  void crossentropy_forward(float *losses, float *totals, const void *logits,
                            const int *targets, int N, int V, int Vp,
                            int ignore_index, float *) const override {
    cuda::crossentropy_forward<T>(l_, losses, totals, t(logits), targets, N, V,
                                  Vp, ignore_index);
  }
  void crossentropy_backward(void *dlogits, const void *logits,
                             const int *targets, int N, int V, int Vp,
                             const float *dloss, int ignore_index,
                             const float *) const override {
    cuda::crossentropy_backward<T>(l_, t(dlogits), t(logits), targets, N, V,
                                   Vp, dloss, ignore_index);
  }
  void vocab_parallel_ce_max(float *row_max, const void *logits, int N, int Vl,
                             int vstart, int V) const override {
    cuda::vocab_parallel_ce_max<T>(l_, row_max, t(logits), N, Vl, vstart, V);
  }
  void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                const void *logits, const int *targets,
                                const float *row_max, int N, int Vl, int vstart,
                                int V, int ignore_index) const override {
    cuda::vocab_parallel_ce_sumexp<T>(l_, sumexp, target_logit, t(logits),
                                      targets, row_max, N, Vl, vstart, V,
                                      ignore_index);
  }
  void vocab_parallel_ce_loss(float *losses, float *totals,
                              const float *sumexp, const float *target_logit,
                              const float *row_max, const int *targets, int N,
                              int ignore_index) const override {
    cuda::vocab_parallel_ce_loss(l_, losses, totals, sumexp, target_logit,
                                 row_max, targets, N, ignore_index);
  }
  void vocab_parallel_ce_backward(void *dlogits, const void *logits,
                                  const int *targets, const float *row_max,
                                  const float *sumexp, int N, int Vl,
                                  int vstart, int V, const float *dloss,
                                  int ignore_index) const override {
    cuda::vocab_parallel_ce_backward<T>(l_, t(dlogits), t(logits), targets,
                                        row_max, sumexp, N, Vl, vstart, V,
                                        dloss, ignore_index);
  }
  void loss_outputs(float *loss, int32_t *count,
                    const float *totals) const override {
    cuda::loss_outputs(l_, loss, count, totals);
  }

  void accumulate(void *grad, ElementType grad_type, const void *x,
                  size_t n) const override {
    cuda::accumulate<T>(l_, grad, grad_type, t(x), n);
  }
  void sum_of_squares(float *out, const void *x, size_t n) const override {
    cuda::sum_of_squares<T>(l_, out, t(x), n);
  }
  void grad_norm(float *norm, float *scale, const float *sum_sq,
                 const float *inv_count, float max_norm) const override {
    cuda::grad_norm(l_, norm, scale, sum_sq, inv_count, max_norm);
  }
  void adamw_update(float *param, const void *grad, float *m, float *v,
                    size_t n, const AdamWParams &p, const OptimizerScalars &s,
                    const WorkingCopy &working) const override {
    cuda::adamw_update<T>(l_, param, t(grad), m, v, n, p, scalars(s));
    round_into(working, param, n);
  }
  void sgd_update(float *param, const void *grad, float *momentum_buf, size_t n,
                  const SgdParams &p, const OptimizerScalars &s,
                  const WorkingCopy &working) const override {
    cuda::sgd_update<T>(l_, param, t(grad), momentum_buf, n, p, scalars(s));
    round_into(working, param, n);
  }

private:
  /// The working copy rounded from the updated master by the f32 cast, in a
  /// second kernel (a skipped step rewrites the same values).
  void round_into(const WorkingCopy &working, const float *master,
                  size_t n) const {
    if (working.data)
      cuda::cast<float>(l_, working.data, working.type, master, n);
  }
  static cuda::DeviceOptimizerScalars scalars(const OptimizerScalars &s) {
    return {s.lr, s.grad_scale, s.step};
  }

  cuda::Launch l_;
};

template <> ElementType CudaKernels<float>::dtype() const {
  return ElementType::F32;
}
template <> ElementType CudaKernels<__nv_bfloat16>::dtype() const {
  return ElementType::BF16;
}
template <> ElementType CudaKernels<__half>::dtype() const {
  return ElementType::F16;
}

int device_ordinal(const BackendOptions &options) {
  return options.device >= 0 ? options.device : local_rank_from_environment();
}

} // namespace

//===----------------------------------------------------------------------===//
// Backend
//===----------------------------------------------------------------------===//

CudaBackend::CudaBackend(const BackendOptions &options)
    : options_(options), device_(device_ordinal(options)) {
  cudaStream_t compute = device_.stream(Stream::Compute);
  scratch_ = std::make_unique<cuda::Scratch>(compute);
  try {
    blas_ = std::make_unique<cuda::Blas>(compute, options.tf32);
  } catch (const std::exception &e) {
    throw BackendUnavailable(e.what());
  }
  cuda::Launch l;
  l.stream = compute;
  l.scratch = scratch_.get();
  l.blas = blas_.get();
  l.sm_count = std::max(1, device_.properties().multiProcessorCount);
  f32_ = std::make_unique<CudaKernels<float>>(l);
  bf16_ = std::make_unique<CudaKernels<__nv_bfloat16>>(l);
  f16_ = std::make_unique<CudaKernels<__half>>(l);
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
  os << "cuda: " << count << " device" << (count == 1 ? "" : "s")
     << ", driver " << driver / 1000 << "." << driver % 1000 / 10
     << ", runtime " << runtime / 1000 << "." << runtime % 1000 / 10 << "\n";
  cudaDeviceProp prop{};
  if (ordinal >= count ||
      cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
    os << "cuda: device " << ordinal << " does not exist\n";
    return os.str();
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaSetDevice(ordinal) == cudaSuccess)
    cudaMemGetInfo(&free_bytes, &total_bytes);
  os << "cuda: device " << ordinal << ": " << prop.name << ", sm_"
     << prop.major << prop.minor << ", " << prop.multiProcessorCount
     << " SMs, " << (total_bytes >> 20) << " MiB (" << (free_bytes >> 20)
     << " MiB free)\n";
  os << "cuda: " << cuda::cublaslt_description() << "\n";
  os << "cuda: " << cuda::nccl_description() << "\n";
  return os.str();
}

} // namespace tpc
