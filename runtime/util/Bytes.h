//===- Bytes.h - Sizes in bytes as people read them -------------*- C++ -*-===//
//
// The one spelling of a size in bytes for the runtime's messages and
// reports: tenths of a GiB or MiB, or whole bytes below a MiB. LLVM-free and
// header-only, so that every library of the runtime (and the compiler) can
// use it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_UTIL_BYTES_H
#define TPC_RUNTIME_UTIL_BYTES_H

#include <cmath>
#include <cstdio>
#include <string>

namespace tpc {

/// The unit of format_bytes: the largest that fits, or MiB whatever the
/// size, for figures compared side by side.
enum class ByteUnit { Largest, MiB };

/// `bytes` with one decimal in GiB or MiB ("1.5 GiB", "0.3 MiB"), or as
/// whole bytes ("512 bytes") when the largest unit that fits is neither.
inline std::string format_bytes(double bytes,
                                ByteUnit unit = ByteUnit::Largest) {
  constexpr double kMiB = double(1 << 20), kGiB = double(1 << 30);
  char text[64];
  if (unit == ByteUnit::MiB || (bytes >= kMiB && bytes < kGiB))
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / kMiB);
  else if (bytes >= kGiB)
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / kGiB);
  else
    std::snprintf(text, sizeof text, "%lld bytes", std::llround(bytes));
  return text;
}

} // namespace tpc

#endif // TPC_RUNTIME_UTIL_BYTES_H
