//===- Storage.h - How kernels read and write a storage type ----*- C++ -*-===//
//
// A tensor's elements are f32, bf16 or f16; kernels compute in fp32. A
// storage type says how an element becomes fp32 (exactly) and how an fp32
// result is rounded back (once, to nearest even). Kernels templated on it
// convert as they load and store, instead of widening a whole tensor into
// an fp32 copy first; the fp32 loops that do not are given widened views
// (In, Out) by the kernel table.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_STORAGE_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_STORAGE_H

#include "runtime/backend/ElementType.h"
#include "runtime/util/Float16.h"

#include "runtime/backends/cpu/HostMemory.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
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

//===----------------------------------------------------------------------===//
// Widened views
//===----------------------------------------------------------------------===//

/// An fp32 buffer of a widened view. Unlike a std::vector it does not
/// zero what it grows into: every view writes all of its elements first.
struct WideBuffer {
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data;
  size_t capacity = 0;
};

/// The buffers of the views are kept for the next call: a training step
/// widens the same large tensors (the logits) every time, and a fresh
/// allocation of that size costs its page faults again on every call, more
/// than the kernel itself. One pool per thread; a view takes the smallest
/// free buffer that holds n floats (or a new one) and gives it back when it
/// ends.
WideBuffer take_wide(size_t n);
void give_wide(WideBuffer b);

/// dst (fp32) = src (storage type S), n elements.
template <class S> void widen(float *dst, const void *src, size_t n);
/// dst (storage type S) = src (fp32) rounded, n elements.
template <class S> void narrow(void *dst, const float *src, size_t n);

/// An fp32 view of n elements of storage type S: the tensor itself for
/// f32, a widened copy otherwise. Null stays null.
template <class S> class In {
public:
  In(const void *p, size_t n) {
    if constexpr (kIsF32<S>) {
      ptr_ = static_cast<const float *>(p);
    } else if (p) {
      buf_ = take_wide(n);
      widen<S>(buf_.data.get(), p, n);
      ptr_ = buf_.data.get();
    }
  }
  ~In() {
    if (ptr_ && !kIsF32<S>)
      give_wide(std::move(buf_));
  }
  In(const In &) = delete;
  In &operator=(const In &) = delete;
  operator const float *() const { return ptr_; }

private:
  const float *ptr_ = nullptr;
  WideBuffer buf_;
};

/// A writable fp32 view of n elements of storage type S, rounded back into
/// the tensor when it goes out of scope. `accumulates`: the kernel adds to
/// the tensor, so the view starts from its values.
template <class S> class Out {
public:
  Out(void *p, size_t n, bool accumulates) : dst_(p), n_(n) {
    if constexpr (kIsF32<S>) {
      ptr_ = static_cast<float *>(p);
    } else if (p) {
      buf_ = take_wide(n);
      float *buf = buf_.data.get();
      if (accumulates)
        widen<S>(buf, p, n);
      else
        zero_in_blocks(buf, n * sizeof(float));
      ptr_ = buf;
    }
  }
  ~Out() {
    if constexpr (!kIsF32<S>) {
      if (!dst_)
        return;
      narrow<S>(dst_, buf_.data.get(), n_);
      give_wide(std::move(buf_));
    }
  }
  Out(const Out &) = delete;
  Out &operator=(const Out &) = delete;
  operator float *() const { return ptr_; }

private:
  void *dst_;
  size_t n_;
  float *ptr_ = nullptr;
  WideBuffer buf_;
};

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_STORAGE_H
