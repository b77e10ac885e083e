//===- Emulator.h - CUDA's thread model on the host -------------*- C++ -*-===//
//
// Enough of CUDA for the kernels of runtime/backends/cuda/kernels to compile
// as host C++ and run on a machine without a GPU: the keywords, the built-in
// variables, the storage types, the intrinsics and runtime calls the kernels
// use, and a launch that runs a grid. convert.py rewrites each launch and
// shared-memory declaration of a .cu file into calls of this header; the
// kernels, Common.cuh and Kernels.h are otherwise compiled as they are, and
// the CUDA headers they include resolve here.
//
// Each CUDA thread of a block is a fiber, a user-level thread with a stack
// of its own, so the kernels' indexing, reductions and barriers run for
// real: __syncthreads is a block barrier, a warp shuffle is a rendezvous of
// the lanes its mask names, shared memory is one allocation per block
// (filled with 0xff bytes, a NaN, so that a read of a value no thread wrote
// shows), and blocks run one after another. A thread runs until it waits,
// then the next one in thread order, up from thread 0 or down from the
// last (Emulator.cpp says why fibers and not OS threads): the same
// schedule on every run, with the first warp as far ahead of the others as
// the block barriers allow, which turns a missing barrier into a wrong
// result rather than a rare one. What the hardware leaves
// undefined fails the launch, with a message: a shuffle whose mask names
// lanes that do not exist or have returned, or that reads a lane outside
// its mask; lanes that meet with overlapping but different masks; a block
// whose live threads all wait (a deadlock); an invalid launch
// configuration; too much shared memory. All state is kept per launch and
// per block.
//
// What it cannot check: real warp scheduling (lanes do not run in
// lockstep here, so code that relies on implicit warp synchrony passes or
// fails by the schedule above, not the device's), memory coalescing, bank
// conflicts and speed, the device's math library (expf, logf and tanhf are
// glibc's here, and nvcc contracts a * b + c into an FMA where the host
// compiler is told not to), register and launch-bounds limits, and races
// between blocks or streams, which running blocks in sequence hides.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_TEST_CUDA_EMU_EMULATOR_H
#define TPC_TEST_CUDA_EMU_EMULATOR_H

#include "runtime/util/Float16.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

//===----------------------------------------------------------------------===//
// Keywords
//===----------------------------------------------------------------------===//

#define __global__
#define __device__
#define __host__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// __shared__ stays undefined: convert.py rewrites every declaration.

// CUDA's names live in a namespace of their own, visible everywhere by the
// using-directive below: a CUDA build links the toolkit's runtime and the
// real device code into the same program, and the same names at global
// scope would share the mangled symbols of the toolkit's inline host
// functions (__float2half_rn, dim3's constructor, ...), which the linker
// merges.
namespace tpc_emu::cuda_api {

//===----------------------------------------------------------------------===//
// Built-in variables
//===----------------------------------------------------------------------===//

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

// Set by the emulator in each thread it runs a kernel on.
inline thread_local uint3 threadIdx{0, 0, 0};
inline thread_local uint3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
constexpr int warpSize = 32;

// The storage types, on the runtime's conversions (runtime/util/Float16.h),
// which round to nearest, ties to even, and overflow to infinity, as the
// device's _rn intrinsics do; a NaN stays a quiet NaN (the device's is
// canonical; nothing here reads payloads).
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : __x(tpc::f32_to_bf16(f)) {}
  operator float() const { return tpc::bf16_to_f32(__x); }
};

struct __half {
  unsigned short __x;
  __half() = default;
  __half(float f) : __x(tpc::f32_to_f16(f)) {}
  operator float() const { return tpc::f16_to_f32(__x); }
};

inline float __bfloat162float(__nv_bfloat16 h) {
  return tpc::bf16_to_f32(h.__x);
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline float __half2float(__half h) { return tpc::f16_to_f32(h.__x); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __float2half(float f) { return __half(f); }

//===----------------------------------------------------------------------===//
// Math. <cmath> gives the global float functions (expf, logf, fmaxf, fmaf,
// ...); the device's extras and overloads follow. The _rn arithmetic is
// out of line so that no contraction can fuse it, as on the device.
//===----------------------------------------------------------------------===//

using std::isfinite;
using std::isinf;
using std::isnan;

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
__attribute__((noinline)) inline float __fadd_rn(float a, float b) {
  return a + b;
}
__attribute__((noinline)) inline float __fsub_rn(float a, float b) {
  return a - b;
}
__attribute__((noinline)) inline float __fmul_rn(float a, float b) {
  return a * b;
}
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }

template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic_v<A> &&
                                   std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> min(A a, B b) {
  using R = std::common_type_t<A, B>;
  return R(b) < R(a) ? R(b) : R(a);
}
template <class A, class B,
          class = std::enable_if_t<std::is_arithmetic_v<A> &&
                                   std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> max(A a, B b) {
  using R = std::common_type_t<A, B>;
  return R(a) < R(b) ? R(b) : R(a);
}

inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline int __float_as_int(float f) {
  int i;
  std::memcpy(&i, &f, 4);
  return i;
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline double __longlong_as_double(long long i) {
  double d;
  std::memcpy(&d, &i, 8);
  return d;
}
inline long long __double_as_longlong(double d) {
  long long i;
  std::memcpy(&i, &d, 8);
  return i;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x ? __builtin_clz(unsigned(x)) : 32; }

template <class T> inline T __ldg(const T *p) { return *p; }

//===----------------------------------------------------------------------===//
// Atomics: the host's, on device memory that is host memory.
//===----------------------------------------------------------------------===//

template <class T> inline T atomicAdd(T *p, T v) {
  return std::atomic_ref<T>(*p).fetch_add(v);
}
template <class T> inline T atomicSub(T *p, T v) {
  return std::atomic_ref<T>(*p).fetch_sub(v);
}
template <class T> inline T atomicExch(T *p, T v) {
  return std::atomic_ref<T>(*p).exchange(v);
}
template <class T> inline T atomicCAS(T *p, T expected, T desired) {
  std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired);
  return expected;
}
template <class T> inline T atomicMax(T *p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (old < v && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
template <class T> inline T atomicMin(T *p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (v < old && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
inline void __threadfence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}
inline void __threadfence_block() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

//===----------------------------------------------------------------------===//
// The runtime API the kernels call
//===----------------------------------------------------------------------===//

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchFailure = 719,
};
using cudaError = cudaError_t;

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

struct CUstream_st;
using cudaStream_t = CUstream_st *;

// The last error of this host thread, as the runtime keeps it.
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorName(cudaError_t err);
/// For an error the emulator raised, what went wrong and where.
const char *cudaGetErrorString(cudaError_t err);

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                            cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                       cudaMemcpyKind kind);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaDeviceSynchronize();

} // namespace tpc_emu::cuda_api

using namespace tpc_emu::cuda_api;

namespace tpc_emu {
/// Records a kernel's cudaFuncAttributeMaxDynamicSharedMemorySize.
cudaError_t set_function_attribute(const void *func, cudaFuncAttribute attr,
                                   int value);
} // namespace tpc_emu

//===----------------------------------------------------------------------===//
// Barriers, shuffles and shared memory (inside a kernel)
//===----------------------------------------------------------------------===//

namespace tpc_emu {

/// Bytes of one lane's value in a warp exchange.
constexpr size_t kSlotBytes = 16;

/// The block barrier; returns how many of the threads that arrived passed
/// a nonzero `vote`, and sets `arrived` to their number.
int block_barrier(int vote, int *arrived);

/// Rendezvous of the lanes named in `mask` (the caller among them): each
/// puts `size` bytes of `value`; `slots` gets every lane's, 32 of
/// kSlotBytes. `what` names the intrinsic for diagnostics.
void warp_exchange(uint32_t mask, const void *value, size_t size,
                   unsigned char (*slots)[kSlotBytes], const char *what);

/// The calling thread's lane.
unsigned lane_id();

/// Fails the launch from inside a kernel: the block is cancelled and the
/// message is the launch's error.
[[noreturn]] void device_error(const std::string &message);
[[noreturn]] void bad_shuffle_source(const char *what, int src);
[[noreturn]] void bad_shuffle_width(const char *what, int width);

/// This block's copy of the static __shared__ declaration `tag` names.
void *block_shared_bytes(const void *tag, size_t bytes, size_t align);
template <class A> A *block_shared(const void *tag) {
  return static_cast<A *>(block_shared_bytes(tag, sizeof(A), alignof(A)));
}
/// This block's dynamic shared memory (the launch's third argument).
void *dynamic_shared();

template <class T> T shuffle(uint32_t mask, T v, int src, const char *what) {
  static_assert(sizeof(T) <= kSlotBytes && std::is_trivially_copyable_v<T>,
                "a shuffled value is at most 16 bytes of plain data");
  unsigned char slots[32][kSlotBytes];
  warp_exchange(mask, &v, sizeof(T), slots, what);
  if (src < 0) // out of the lane's segment: its own value
    return v;
  if (!(mask >> src & 1u))
    bad_shuffle_source(what, src);
  T r;
  std::memcpy(&r, slots[src], sizeof(T));
  return r;
}

/// width must be a power of two in [1, 32].
inline void check_width(int width, const char *what) {
  if (width < 1 || width > 32 || (width & (width - 1)))
    bad_shuffle_width(what, width);
}

} // namespace tpc_emu

namespace tpc_emu::cuda_api {

template <class F>
cudaError_t cudaFuncSetAttribute(F *func, cudaFuncAttribute attr, int value) {
  return tpc_emu::set_function_attribute(reinterpret_cast<const void *>(func),
                                         attr, value);
}

inline void __syncthreads() {
  int arrived;
  tpc_emu::block_barrier(0, &arrived);
}
inline int __syncthreads_count(int p) {
  int arrived;
  return tpc_emu::block_barrier(p != 0, &arrived);
}
inline int __syncthreads_and(int p) {
  int arrived;
  return tpc_emu::block_barrier(p != 0, &arrived) == arrived;
}
inline int __syncthreads_or(int p) {
  int arrived;
  return tpc_emu::block_barrier(p != 0, &arrived) > 0;
}

inline void __syncwarp(unsigned mask = 0xffffffffu) {
  unsigned char slots[32][tpc_emu::kSlotBytes];
  char none = 0;
  tpc_emu::warp_exchange(mask, &none, 1, slots, "__syncwarp");
}

template <class T>
T __shfl_sync(unsigned mask, T v, int src, int width = warpSize) {
  tpc_emu::check_width(width, "__shfl_sync");
  const int lane = int(tpc_emu::lane_id());
  const int from = (lane & ~(width - 1)) + (src & (width - 1));
  return tpc_emu::shuffle(mask, v, from, "__shfl_sync");
}
template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = warpSize) {
  tpc_emu::check_width(width, "__shfl_xor_sync");
  const int lane = int(tpc_emu::lane_id());
  const int from = lane ^ lane_mask;
  // A lane may read earlier segments, never later ones.
  const bool later = from >= ((lane & ~(width - 1)) + width);
  return tpc_emu::shuffle(mask, v, later || from > 31 ? -1 : from,
                          "__shfl_xor_sync");
}
template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
  tpc_emu::check_width(width, "__shfl_down_sync");
  const int lane = int(tpc_emu::lane_id());
  const bool out = (lane & (width - 1)) + int(delta) >= width;
  return tpc_emu::shuffle(mask, v, out ? -1 : lane + int(delta),
                          "__shfl_down_sync");
}
template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = warpSize) {
  tpc_emu::check_width(width, "__shfl_up_sync");
  const int lane = int(tpc_emu::lane_id());
  const bool out = (lane & (width - 1)) < int(delta);
  return tpc_emu::shuffle(mask, v, out ? -1 : lane - int(delta),
                          "__shfl_up_sync");
}

inline unsigned __ballot_sync(unsigned mask, int pred) {
  unsigned char slots[32][tpc_emu::kSlotBytes];
  const char p = pred != 0;
  tpc_emu::warp_exchange(mask, &p, 1, slots, "__ballot_sync");
  unsigned r = 0;
  for (int l = 0; l < 32; ++l)
    if ((mask >> l & 1u) && slots[l][0])
      r |= 1u << l;
  return r;
}
inline int __any_sync(unsigned mask, int pred) {
  return __ballot_sync(mask, pred) != 0;
}
inline int __all_sync(unsigned mask, int pred) {
  return __ballot_sync(mask, pred) == mask;
}

} // namespace tpc_emu::cuda_api

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

namespace tpc::cuda {
class Scratch; // Kernels.h
} // namespace tpc::cuda

namespace tpc_emu {

/// Runs `thread` as every thread of a grid, block after block. An invalid
/// configuration or a failure inside a block becomes this host thread's
/// last error (cudaGetLastError), with `where` in its message.
void run_grid(const char *where, dim3 grid, dim3 block, size_t shmem,
              const std::function<void()> &thread);

/// kernel<<<grid, block, shmem, stream>>>(args...): convert.py writes
/// launch(where, [&](auto... a) { kernel(a...); }, grid, block, shmem,
/// stream)(args...). The arguments are evaluated once, on the host, and
/// every thread calls the kernel with copies of them.
template <class K> class KernelLaunch {
public:
  KernelLaunch(const char *where, K kernel, dim3 grid, dim3 block, size_t shmem)
      : where_(where), kernel_(std::move(kernel)), grid_(grid), block_(block),
        shmem_(shmem) {}

  template <class... A> void operator()(A &&...args) const {
    const std::tuple<std::decay_t<A>...> params{std::forward<A>(args)...};
    run_grid(where_, grid_, block_, shmem_,
             [&] { std::apply(kernel_, params); });
  }

private:
  const char *where_;
  K kernel_;
  dim3 grid_, block_;
  size_t shmem_;
};

template <class K>
KernelLaunch<K> launch(const char *where, K kernel, dim3 grid, dim3 block,
                       size_t shmem = 0, cudaStream_t stream = nullptr) {
  (void)stream; // calls run in order, on the calling thread
  return KernelLaunch<K>(where, std::move(kernel), grid, block, shmem);
}

/// The order in which the threads of a block start, and the lanes of a
/// warp go on after a shuffle: up from thread 0 (the default) or down from
/// the last. Either lets the first warp run ahead of the others; a missing
/// barrier may show in one order only, so the tests run both. For the
/// calling host thread's launches.
enum class Schedule { Ascending, Descending };
void set_schedule(Schedule s);

/// The most bytes one get() of `scratch` asked for; 0 before any.
size_t largest_scratch_request(const tpc::cuda::Scratch &scratch);

/// Problems the emulator found outside a launch (a scratch buffer written
/// past its end), oldest first; clears them.
std::string take_host_errors();
/// Records one of them.
void host_error(const std::string &message);

} // namespace tpc_emu

#endif // TPC_TEST_CUDA_EMU_EMULATOR_H
