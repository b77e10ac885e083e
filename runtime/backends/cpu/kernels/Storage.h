//===- Storage.h - How kernels read and write a storage type ----*- C++ -*-===//
//
// A tensor's elements are f32, bf16 or f16; kernels compute in fp32. A
// storage type says how an element becomes fp32 (exactly) and how an fp32
// result is rounded back (once, to nearest even). Kernels templated on it
// convert as they load and store, instead of widening a whole tensor into
// an fp32 copy first.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_STORAGE_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_STORAGE_H

#include "runtime/backend/ElementType.h"
#include "runtime/util/Float16.h"

#include <cstdint>
#include <type_traits>

namespace tpc::cpu {

struct F32Storage {
  using type = float;
  static constexpr ElementType dtype = ElementType::F32;
  static float load(float x) { return x; }
  static float store(float x) { return x; }
};
struct BF16Storage {
  using type = uint16_t;
  static constexpr ElementType dtype = ElementType::BF16;
  static float load(uint16_t h) { return bf16_to_f32(h); }
  static uint16_t store(float f) { return f32_to_bf16(f); }
};
struct F16Storage {
  using type = uint16_t;
  static constexpr ElementType dtype = ElementType::F16;
  static float load(uint16_t h) { return f16_to_f32(h); }
  static uint16_t store(float f) { return f32_to_f16(f); }
};

template <class S> constexpr bool kIsF32 = std::is_same_v<S, F32Storage>;
template <class S> constexpr bool kIsBF16 = std::is_same_v<S, BF16Storage>;

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_STORAGE_H
