//===- GlobalIndex.h - Local-to-global element indices ----------*- C++ -*-===//
//
// A rank holds a slice of a global tensor. Everything keyed by element
// position (initial weights, dropout masks, checkpoint slices) uses the
// element's index in the *global* tensor, so results do not depend on how the
// tensor is split. SliceSpec says which slice a rank holds; GlobalIndexMap
// turns a local flat index into the global flat index.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_UTIL_GLOBALINDEX_H
#define TPC_RUNTIME_UTIL_GLOBALINDEX_H

#include <cstdint>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define TPC_HOST_DEVICE __host__ __device__
#else
#define TPC_HOST_DEVICE
#endif

namespace tpc {

/// The part of a global tensor that one rank holds.
///
/// dim < 0 means the whole tensor (replicated). Otherwise dimension `dim` of
/// the global tensor is cut into `blocks` equal blocks (3 for a fused QKV
/// weight, 1 otherwise) and the rank holds entries [offset, offset + length)
/// of every block, concatenated in block order.
struct SliceSpec {
  int dim = -1;
  int64_t offset = 0;
  int64_t length = 0;
  int64_t blocks = 1;

  static SliceSpec whole() { return {}; }
  /// Rank `rank` of `parts` equal parts along `dim`, within each of `blocks`.
  static SliceSpec split(const std::vector<int64_t> &global_shape, int dim,
                         int rank, int parts, int64_t blocks = 1);
};

/// Maps a local flat (row-major) index to the global flat index. Plain data so
/// that device code can use it too.
struct GlobalIndexMap {
  uint64_t inner = 1;      // product of global dims after `dim`
  uint64_t global_dim = 1; // global extent of `dim`
  uint64_t block_size = 1; // global_dim / blocks
  uint64_t offset = 0;
  uint64_t length = 1; // local entries per block; 0 means identity map
  /// Added to every index: where this tensor starts in a larger one whose
  /// outermost dimension is split further (data-parallel ranks' sequences).
  uint64_t base = 0;

  /// Identity: the local tensor is the global tensor.
  GlobalIndexMap() : length(0) {}
  /// Throws std::invalid_argument when the slice does not fit the shape.
  GlobalIndexMap(const std::vector<int64_t> &global_shape,
                 const SliceSpec &slice);

  TPC_HOST_DEVICE bool identity() const { return length == 0 && base == 0; }

  TPC_HOST_DEVICE uint64_t operator()(uint64_t local) const {
    if (length == 0)
      return base + local;
    uint64_t i = local % inner;
    uint64_t rest = local / inner;
    uint64_t local_dim = (global_dim / block_size) * length;
    uint64_t l = rest % local_dim;
    uint64_t o = rest / local_dim;
    uint64_t g = (l / length) * block_size + offset + l % length;
    return base + (o * global_dim + g) * inner + i;
  }
};

/// "[2,3]": for messages.
std::string shape_string(const std::vector<int64_t> &shape);

/// Number of elements of the local tensor described by (global_shape, slice).
uint64_t local_num_elements(const std::vector<int64_t> &global_shape,
                            const SliceSpec &slice);
/// The local tensor's shape.
std::vector<int64_t> local_shape(const std::vector<int64_t> &global_shape,
                                 const SliceSpec &slice);

} // namespace tpc

#endif // TPC_RUNTIME_UTIL_GLOBALINDEX_H
