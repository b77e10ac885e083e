//===- GlobalIndex.cpp - Local-to-global element indices ------------------===//
//
// Slice geometry shared by initialisation, dropout and checkpoint loading.
//
//===----------------------------------------------------------------------===//

#include "runtime/util/GlobalIndex.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace tpc {

std::string shape_string(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << "]";
  return os.str();
}

SliceSpec SliceSpec::split(const std::vector<int64_t> &global_shape, int dim,
                           int rank, int parts, int64_t blocks) {
  if (dim < 0 || dim >= int(global_shape.size()))
    throw std::invalid_argument("SliceSpec::split: dim " + std::to_string(dim) +
                                " is outside shape " +
                                shape_string(global_shape));
  if (parts <= 0 || rank < 0 || rank >= parts || blocks <= 0 ||
      global_shape[dim] % (blocks * parts) != 0)
    throw std::invalid_argument(
        "SliceSpec::split: dimension " + std::to_string(dim) + " of " +
        shape_string(global_shape) + " cannot be cut into " +
        std::to_string(blocks) + " block(s) of " + std::to_string(parts) +
        " equal parts (rank " + std::to_string(rank) + ")");
  int64_t length = global_shape[dim] / blocks / parts;
  return SliceSpec{dim, rank * length, length, blocks};
}

GlobalIndexMap::GlobalIndexMap(const std::vector<int64_t> &global_shape,
                               const SliceSpec &slice) {
  if (slice.dim < 0) {
    length = 0;
    return;
  }
  if (slice.dim >= int(global_shape.size()))
    throw std::invalid_argument("slice dim " + std::to_string(slice.dim) +
                                " is outside shape " +
                                shape_string(global_shape));
  int64_t g = global_shape[slice.dim];
  if (slice.blocks <= 0 || g % slice.blocks != 0 || slice.length <= 0 ||
      slice.offset < 0 || slice.offset + slice.length > g / slice.blocks)
    throw std::invalid_argument(
        "slice [" + std::to_string(slice.offset) + ", " +
        std::to_string(slice.offset + slice.length) + ") of " +
        std::to_string(slice.blocks) + " block(s) does not fit dimension " +
        std::to_string(slice.dim) + " of shape " + shape_string(global_shape));
  inner = 1;
  for (size_t d = slice.dim + 1; d < global_shape.size(); ++d)
    inner *= uint64_t(global_shape[d]);
  global_dim = uint64_t(g);
  block_size = uint64_t(g / slice.blocks);
  offset = uint64_t(slice.offset);
  length = uint64_t(slice.length);
}

std::vector<int64_t> local_shape(const std::vector<int64_t> &global_shape,
                                 const SliceSpec &slice) {
  std::vector<int64_t> shape = global_shape;
  if (slice.dim >= 0) {
    GlobalIndexMap check(global_shape, slice); // validates
    (void)check;
    shape[slice.dim] = slice.blocks * slice.length;
  }
  return shape;
}

uint64_t local_num_elements(const std::vector<int64_t> &global_shape,
                            const SliceSpec &slice) {
  uint64_t n = 1;
  for (int64_t d : local_shape(global_shape, slice))
    n *= uint64_t(d);
  return n;
}

} // namespace tpc
