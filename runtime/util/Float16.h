//===- Float16.h - bf16 and IEEE half conversions ---------------*- C++ -*-===//

#ifndef TPC_RUNTIME_UTIL_FLOAT16_H
#define TPC_RUNTIME_UTIL_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace tpc {

inline float bf16_to_f32(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Round to nearest even; NaN stays NaN (quiet). Branch-free, so that a
/// loop over it vectorizes.
inline uint16_t f32_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1)) >> 16;
  uint32_t nan = (bits >> 16) | 0x40;
  return uint16_t((bits & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

inline float f16_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) { // inf / nan
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else { // subnormal: normalise
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400) == 0);
    bits = sign | (uint32_t(112 - e) << 23) | ((mant & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Round to nearest even, overflow to inf.
inline uint16_t f32_to_f16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u)
    return sign | 0x7e00;
  if (abs >= 0x47800000u) // >= 65536: overflow (rounding handled below)
    return sign | 0x7c00;
  if (abs < 0x38800000u) { // below the smallest normal half: subnormal
    if (abs < 0x33000000u)
      return sign;
    uint32_t e = abs >> 23;
    uint32_t mant = (abs & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - e; // 14 + (112 - e) ... to 10-bit subnormal
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return uint16_t(sign | half);
  }
  uint32_t h = ((abs - 0x38000000u) >> 13);
  uint32_t rem = abs & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(sign | h); // a carry into the exponent rounds up correctly
}

} // namespace tpc

#endif // TPC_RUNTIME_UTIL_FLOAT16_H
