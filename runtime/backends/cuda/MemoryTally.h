//===- MemoryTally.h - The device memory a backend holds --------*- C++ -*-===//
//
// What the CUDA backend has allocated on its device (the compiler's arenas,
// parameters, messages' staging, the launchers' scratch, cuBLASLt's
// workspace) and the most it has held at once: the training log's memory
// figure on a GPU, as PyTorch's max_memory_allocated is. Memory the CUDA
// context, cuBLASLt or NCCL take for themselves is not the backend's and
// not counted. Plain C++, so that it is tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_MEMORYTALLY_H
#define TPC_RUNTIME_BACKENDS_CUDA_MEMORYTALLY_H

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <unordered_map>

namespace tpc::cuda {

class MemoryTally {
public:
  /// `ptr` now holds `bytes` (a null `ptr` holds nothing).
  void allocated(const void *ptr, size_t bytes) {
    if (!ptr)
      return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, fresh] = sizes_.emplace(ptr, bytes);
    if (!fresh) { // freed outside the tally, and handed out again
      in_use_ -= it->second;
      it->second = bytes;
    }
    in_use_ += bytes;
    peak_ = std::max(peak_, in_use_);
  }
  /// `ptr` was freed; a pointer the tally does not hold is ignored.
  void freed(const void *ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(ptr);
    if (it == sizes_.end())
      return;
    in_use_ -= it->second;
    sizes_.erase(it);
  }
  /// Bytes held now, and the most held at once so far.
  size_t in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_use_;
  }
  size_t peak() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_;
  }

private:
  mutable std::mutex mutex_;
  std::unordered_map<const void *, size_t> sizes_;
  size_t in_use_ = 0, peak_ = 0;
};

} // namespace tpc::cuda

#endif // TPC_RUNTIME_BACKENDS_CUDA_MEMORYTALLY_H
