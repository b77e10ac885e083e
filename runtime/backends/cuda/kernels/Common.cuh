//===- Common.cuh - What the CUDA kernels share ----------------*- CUDA -*-===//
//
// Loads that widen a storage type to fp32 and stores that round once,
// warp and block reductions, grid sizes, grid-stride loops, scratch
// regions and the launch check. Included by the kernel files only (device
// code).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_KERNELS_COMMON_CUH
#define TPC_RUNTIME_BACKENDS_CUDA_KERNELS_COMMON_CUH

#include "runtime/backends/cuda/CudaCheck.h"
#include "runtime/backends/cuda/kernels/Kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tpc::cuda {

//===----------------------------------------------------------------------===//
// Storage types
//===----------------------------------------------------------------------===//

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

/// x rounded to T, to nearest, ties to even (as the CPU tables round).
template <class T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

constexpr int kWarp = 32;

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int o = kWarp / 2; o > 0; o /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

/// The sum over the block, returned to every thread. blockDim.x must be a
/// multiple of 32 (at most 1024); every thread of the block must call it.
/// `shared` holds 32 floats, reusable after the call returns.
__device__ __forceinline__ float block_sum(float v, float *shared) {
  int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  int warps = blockDim.x / kWarp;
  v = warp_sum(v);
  __syncthreads(); // an earlier call's readers are done with `shared`
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  v = lane < warps ? shared[lane] : 0.0f;
  return warp_sum(v);
}
__device__ __forceinline__ float block_max(float v, float *shared) {
  int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  int warps = blockDim.x / kWarp;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  v = lane < warps ? shared[lane] : -INFINITY;
  return warp_max(v);
}

/// The same in double, for sums the CPU kernels take in double.
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = kWarp / 2; o > 0; o /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
/// `shared` holds 32 doubles.
__device__ __forceinline__ double block_sum(double v, double *shared) {
  int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  int warps = blockDim.x / kWarp;
  v = warp_sum(v);
  __syncthreads();
  if (lane == 0)
    shared[warp] = v;
  __syncthreads();
  v = lane < warps ? shared[lane] : 0.0;
  return warp_sum(v);
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

constexpr int kThreads = 256;

/// This thread's first element and the step between its elements in a
/// grid-stride loop over one element per thread.
__device__ __forceinline__ size_t first_index() {
  return size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ size_t grid_stride() {
  return size_t(gridDim.x) * blockDim.x;
}

/// Blocks of `threads` for one thread per element of n, capped so that a
/// grid-stride loop covers the rest.
inline unsigned grid_for(size_t n, int threads = kThreads) {
  size_t blocks = (n + size_t(threads) - 1) / size_t(threads);
  const size_t cap = size_t(1) << 20;
  return unsigned(blocks < cap ? (blocks ? blocks : 1) : cap);
}

/// Bytes of a scratch region of n elements of E, rounded up so that the
/// region after it starts 256-byte aligned.
template <class E = float> inline size_t region(size_t n) {
  return (n * sizeof(E) + 255) / 256 * 256;
}

} // namespace tpc::cuda

/// After a launch: throws if it failed (bad configuration, no device).
#define TPC_CUDA_LAUNCH_CHECK() cudaCheck(cudaGetLastError())

#endif // TPC_RUNTIME_BACKENDS_CUDA_KERNELS_COMMON_CUH
