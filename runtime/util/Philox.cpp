//===- Philox.cpp - Counter-based random numbers --------------------------===//
//
// Parameter initialisation from global element indices.
//
//===----------------------------------------------------------------------===//

#include "runtime/util/Philox.h"

#include <algorithm>

namespace tpc {

uint64_t fnv1a64(const std::string &s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

void init_normal(float *out, const std::vector<int64_t> &global_shape,
                 const SliceSpec &slice, uint64_t seed, const std::string &name,
                 float mean, float std) {
  GlobalIndexMap map(global_shape, slice);
  uint64_t n = local_num_elements(global_shape, slice);
  uint64_t stream = fnv1a64(name);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < int64_t(n); ++i)
    out[i] = mean + std * philox_normal(seed, stream, map(uint64_t(i)));
}

void init_uniform(float *out, const std::vector<int64_t> &global_shape,
                  const SliceSpec &slice, uint64_t seed,
                  const std::string &name, float low, float high) {
  GlobalIndexMap map(global_shape, slice);
  uint64_t n = local_num_elements(global_shape, slice);
  uint64_t stream = fnv1a64(name);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < int64_t(n); ++i)
    out[i] =
        low + (high - low) * philox_uniform(seed, stream, map(uint64_t(i)));
}

void init_constant(float *out, size_t n, float value) {
  std::fill(out, out + n, value);
}

} // namespace tpc
