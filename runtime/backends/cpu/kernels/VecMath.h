//===- VecMath.h - exp and tanh that vectorize ------------------*- C++ -*-===//
//
// libm's expf and tanhf are calls the compiler cannot vectorize (glibc's
// vector variants need -ffast-math), and they were a tenth of a training
// step. These are branch-free, so a loop over them becomes vector code:
// Cody and Waite's range reduction and Cephes' degree-6 polynomial for
// exp (within 2 ulp of exp), tanh from exp. Kernels compile their loops in
// clones for each vector width (runtime/util/VectorClones.h).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_VECMATH_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_VECMATH_H

#include "runtime/util/VectorClones.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tpc::cpu {

//===----------------------------------------------------------------------===//
// Kernels on vector types
//
// A kernel written on GCC's vector types (float vector_size(4 * W)) must
// take W from the instruction set it is compiled for: a vector wider than
// the target's registers compiles to code that moves it through memory a
// piece at a time. Under target_clones every clone would get the same W
// (with W = 16, the AVX2 clone of attention ran 6x slower than per-row
// loops). on_native_lanes<F>(args...) calls F::run<W>(args...) compiled
// for AVX-512 with W = 16, for AVX2 with FMA with W = 8, or for the
// baseline with W = 4, whichever the CPU has. F::run and what it calls are
// inlined (always_inline), so that all of it is compiled for the target.
//===----------------------------------------------------------------------===//

#if defined(__x86_64__)
#define TPC_TARGET_AVX512                                                      \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")))
#define TPC_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define TPC_TARGET_AVX512
#define TPC_TARGET_AVX2
#endif

/// The float lanes of the widest vectors this CPU runs: 16 (AVX-512), 8
/// (AVX2 with FMA) or 4.
inline int cpu_lanes() {
#if defined(__x86_64__)
  static const int lanes =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("avx512dq") &&
              __builtin_cpu_supports("avx512vl") &&
              __builtin_cpu_supports("fma")
          ? 16
      : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 8
                                                                        : 4;
  return lanes;
#else
  return 4;
#endif
}

/// At most this many lanes for on_native_lanes: tests lower it to run every
/// width on one machine.
inline std::atomic<int> max_vector_lanes{16};

/// The lanes on_native_lanes runs with.
inline int native_lanes() {
  return std::min(cpu_lanes(),
                  max_vector_lanes.load(std::memory_order_relaxed));
}

template <class F, class... A>
TPC_TARGET_AVX512 void run_lanes16(const A &...a) {
  F::template run<16>(a...);
}
template <class F, class... A> TPC_TARGET_AVX2 void run_lanes8(const A &...a) {
  F::template run<8>(a...);
}
template <class F, class... A> void run_lanes4(const A &...a) {
  F::template run<4>(a...);
}

template <class F, class... A> void on_native_lanes(const A &...a) {
  switch (native_lanes()) {
  case 16:
    run_lanes16<F>(a...);
    return;
  case 8:
    run_lanes8<F>(a...);
    return;
  default:
    run_lanes4<F>(a...);
  }
}

// exp_approx's constants: its range, the rounding constant 1.5 * 2^23, ln 2
// in two parts (Cody and Waite) and Cephes' polynomial, highest degree first.
inline constexpr float kExpLo = -87.33654475f, kExpHi = 88.0f;
inline constexpr float kExpLog2e = 1.44269504088896341f;
inline constexpr float kExpRound = 12582912.0f;
inline constexpr float kExpLn2Hi = 0.693359375f, kExpLn2Lo = -2.12194440e-4f;
inline constexpr float kExpP[6] = {1.9875691500e-4f, 1.3981999507e-3f,
                                   8.3334519073e-3f, 4.1665795894e-2f,
                                   1.6666665459e-1f, 5.0000001201e-1f};

/// e^x. NaN stays NaN; below -87.34 (where e^x leaves the normal floats)
/// the result is 0, above 88 (e^88 = 1.65e38, a little before expf
/// overflows) +inf.
inline float exp_approx(float x) {
  // Clamped so that a NaN becomes kExpLo (its comparisons are false): the
  // integer conversion below stays defined with one select fewer than a
  // clamp that keeps the NaN and a test for it (the vector code of this
  // function is 10% faster; every float gives the same bits).
  float xc = x > kExpLo ? x : kExpLo;
  xc = xc < kExpHi ? xc : kExpHi;
  // n = the integer nearest x log2(e): adding and subtracting 1.5 * 2^23
  // rounds a float of magnitude below 2^22 to an integer in any vector
  // width, where floorf is a call.
  float n = (xc * kExpLog2e + kExpRound) - kExpRound;
  float r = xc - n * kExpLn2Hi - n * kExpLn2Lo;
  float p = kExpP[0];
  for (int i = 1; i < 6; ++i)
    p = p * r + kExpP[i];
  p = p * r * r + r + 1.0f;
  int32_t bits = (int32_t(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float y = p * scale;
  y = x < kExpLo ? 0.0f : y;
  y = x > kExpHi ? std::numeric_limits<float>::infinity() : y;
  return x == x ? y : x;
}

/// a[i] = exp_approx(a[i] - shift) for i < n, bit for bit, in the widest
/// vectors the CPU has (VecMath.cpp: with AVX-512 a third faster than a
/// vectorized loop over exp_approx). Kernels whose loops spend most of their
/// time in exp gather its arguments in a block and call this.
void exp_shifted(float *a, size_t n, float shift);

/// The floats a kernel gathers for one exp_shifted call: 2 KiB, in L1.
inline constexpr size_t kExpBlock = 512;

/// tanh(x) from e = e^2x: 1 - 2 / (e + 1).
inline float tanh_from_exp2x(float e) { return 1.0f - 2.0f / (e + 1.0f); }

/// tanh(x) = 1 - 2 / (e^2x + 1): within 2^-23 of tanh in absolute terms
/// (what GELU needs, which adds it to 1), not in relative terms near 0.
inline float tanh_approx(float x) {
  return tanh_from_exp2x(exp_approx(2.0f * x));
}

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_VECMATH_H
