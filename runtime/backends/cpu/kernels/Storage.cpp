//===- Storage.cpp - Widened views of 16-bit tensors ----------------------===//

#include "runtime/backends/cpu/kernels/Storage.h"
#include "runtime/util/VectorClones.h"

#include <algorithm>
#include <vector>

namespace tpc::cpu {
namespace {

class WidePool {
public:
  WideBuffer take(size_t n) {
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i)
      if (free_[i].capacity >= n &&
          (best == free_.size() || free_[i].capacity < free_[best].capacity))
        best = i;
    WideBuffer b;
    if (best < free_.size()) {
      b = std::move(free_[best]);
      free_.erase(free_.begin() + std::ptrdiff_t(best));
    } else if (!free_.empty()) {
      free_.pop_back(); // none is large enough: replace the newest
    }
    if (b.capacity < n) {
      b.data.reset(static_cast<float *>(host_alloc(n * sizeof(float))));
      b.capacity = n;
    }
    return b;
  }
  void give(WideBuffer b) {
    if (free_.size() < kMaxFree)
      free_.push_back(std::move(b));
  }

private:
  static constexpr size_t kMaxFree = 16;
  std::vector<WideBuffer> free_;
};

WidePool &wide_pool() {
  thread_local WidePool pool;
  return pool;
}

/// Elements per parallel task of the conversions.
constexpr size_t kConvertChunk = 65536;

TPC_VECTOR_CLONES
void widen_bf16_chunk(float *dst, const uint16_t *src, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    dst[i] = bf16_to_f32(src[i]);
}

TPC_VECTOR_CLONES
void narrow_bf16_chunk(uint16_t *dst, const float *src, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32_to_bf16(src[i]);
}

} // namespace

WideBuffer take_wide(size_t n) { return wide_pool().take(n); }

void give_wide(WideBuffer b) { wide_pool().give(std::move(b)); }

template <class S> void widen(float *dst, const void *p, size_t n) {
  const auto *src = static_cast<const typename S::type *>(p);
  size_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
#pragma omp parallel for if (chunks > 1)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kConvertChunk, k = std::min(kConvertChunk, n - i);
    if constexpr (kIsBF16<S>)
      widen_bf16_chunk(dst + i, src + i, k);
    else
      for (size_t j = i; j < i + k; ++j)
        dst[j] = S::load(src[j]);
  }
}

template <class S> void narrow(void *p, const float *src, size_t n) {
  auto *dst = static_cast<typename S::type *>(p);
  size_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
#pragma omp parallel for if (chunks > 1)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kConvertChunk, k = std::min(kConvertChunk, n - i);
    if constexpr (kIsBF16<S>)
      narrow_bf16_chunk(dst + i, src + i, k);
    else
      for (size_t j = i; j < i + k; ++j)
        dst[j] = S::store(src[j]);
  }
}

#define TPC_INSTANTIATE(S)                                                     \
  template void widen<S>(float *, const void *, size_t);                       \
  template void narrow<S>(void *, const float *, size_t);
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
