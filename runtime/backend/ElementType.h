//===- ElementType.h - Element types of device tensors ----------*- C++ -*-===//
//
// The storage types a kernel table is keyed by. Reduced-precision storage
// (bf16, f16) always computes and accumulates in fp32: a kernel widens on
// load and rounds once on store.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_ELEMENTTYPE_H
#define TPC_RUNTIME_BACKEND_ELEMENTTYPE_H

#include <cstddef>
#include <cstdint>

namespace tpc {

enum class ElementType : uint8_t { F32, BF16, F16, I32 };

inline size_t element_size(ElementType d) {
  return d == ElementType::BF16 || d == ElementType::F16 ? 2 : 4;
}

inline const char *element_type_name(ElementType d) {
  switch (d) {
  case ElementType::F32:
    return "f32";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F16:
    return "f16";
  case ElementType::I32:
    return "i32";
  }
  return "?";
}

/// The floating-point storage types, in the order kernel tables list them.
constexpr ElementType kFloatElementTypes[] = {
    ElementType::F32, ElementType::BF16, ElementType::F16};

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_ELEMENTTYPE_H
