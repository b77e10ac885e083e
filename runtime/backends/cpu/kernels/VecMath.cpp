//===- VecMath.cpp - exp over arrays in the CPU's widest vectors ----------===//
//
// GCC turns exp_approx in a vectorized loop into about 30 instructions a
// vector: it computes the polynomial under masks of the in-range lanes and
// builds 2^n from integer operations. With AVX-512, vscalefps multiplies by
// 2^n in one instruction, and the clamps are not needed at all: the final
// selects overwrite every lane they would have changed. The same bits as
// exp_approx compiled with FMA, for every float (checked over all 2^32);
// a third faster.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/VecMath.h"

#include "runtime/util/VectorClones.h"

#if defined(__x86_64__) && !defined(TPC_SANITIZED)
#include <immintrin.h>
#endif

namespace tpc::cpu {
namespace {

TPC_VECTOR_CLONES_OUT_OF_LINE void exp_shifted_loop(float *a, size_t n,
                                                    float shift) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    a[i] = exp_approx(a[i] - shift);
}

#if defined(__x86_64__) && !defined(TPC_SANITIZED)
/// exp_approx's steps on 16 lanes: n = round(x log2 e) by the same
/// addition of 1.5 * 2^23, the same Cody-Waite reduction and polynomial,
/// then p * 2^n by vscalefps (exact as the multiplication by a normal 2^n
/// is: n stays in [-126, 127] wherever the selects keep the result).
TPC_TARGET_AVX512 inline __m512 exp16(__m512 x) {
  const __m512 lo = _mm512_set1_ps(kExpLo), hi = _mm512_set1_ps(kExpHi);
  const __m512 round = _mm512_set1_ps(kExpRound);
  const __m512 n = _mm512_sub_ps(
      _mm512_fmadd_ps(x, _mm512_set1_ps(kExpLog2e), round), round);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Lo), r);
  __m512 p = _mm512_set1_ps(kExpP[0]);
  for (int i = 1; i < 6; ++i)
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP[i]));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r);
  p = _mm512_add_ps(p, _mm512_set1_ps(1.0f));
  // The merge-masked form: GCC 12's _mm512_scalef_ps passes an undefined
  // vector it then warns about.
  __m512 y = _mm512_mask_scalef_ps(p, __mmask16(0xffff), p, n);
  y = _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, lo, _CMP_LT_OQ),
                         _mm512_setzero_ps());
  y = _mm512_mask_mov_ps(
      y, _mm512_cmp_ps_mask(x, hi, _CMP_GT_OQ),
      _mm512_set1_ps(std::numeric_limits<float>::infinity()));
  return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), x);
}

TPC_TARGET_AVX512 void exp_shifted_avx512(float *a, size_t n, float shift) {
  const __m512 s = _mm512_set1_ps(shift);
  size_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(a + i, exp16(_mm512_sub_ps(_mm512_loadu_ps(a + i), s)));
  if (i < n) {
    const __mmask16 tail = __mmask16((1u << (n - i)) - 1);
    const __m512 x = _mm512_maskz_loadu_ps(tail, a + i);
    _mm512_mask_storeu_ps(a + i, tail, exp16(_mm512_sub_ps(x, s)));
  }
}
#endif

} // namespace

void exp_shifted(float *a, size_t n, float shift) {
  // Sanitized builds keep one version of every loop (VectorClones.h), the
  // baseline's without FMA: the intrinsics would round differently there.
#if defined(__x86_64__) && !defined(TPC_SANITIZED)
  if (native_lanes() == 16)
    return exp_shifted_avx512(a, n, shift);
#endif
  exp_shifted_loop(a, n, shift);
}

} // namespace tpc::cpu
