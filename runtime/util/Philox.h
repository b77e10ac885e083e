//===- Philox.h - Counter-based random numbers ------------------*- C++ -*-===//
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11). A random value is a pure function of (seed, stream, index): no
// generator state, so every rank can produce the values of any element of a
// global tensor without producing the others. Streams name what the numbers
// are for (a parameter name, a dropout op and step).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_UTIL_PHILOX_H
#define TPC_RUNTIME_UTIL_PHILOX_H

#include "runtime/util/GlobalIndex.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tpc {

struct Philox4 {
  uint32_t v[4];
};

/// One Philox4x32-10 block for a 128-bit counter and a 64-bit key.
TPC_HOST_DEVICE inline Philox4 philox4x32_10(Philox4 ctr, uint32_t k0,
                                             uint32_t k1) {
  const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(M0) * ctr.v[0];
    uint64_t p1 = uint64_t(M1) * ctr.v[2];
    uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    ctr = Philox4{{hi1 ^ ctr.v[1] ^ k0, lo1, hi0 ^ ctr.v[3] ^ k1, lo0}};
    k0 += W0;
    k1 += W1;
  }
  return ctr;
}

/// The block holding the random words for `block` of (seed, stream).
TPC_HOST_DEVICE inline Philox4 philox_block(uint64_t seed, uint64_t stream,
                                            uint64_t block) {
  Philox4 ctr{{uint32_t(block), uint32_t(block >> 32), uint32_t(stream),
               uint32_t(stream >> 32)}};
  return philox4x32_10(ctr, uint32_t(seed), uint32_t(seed >> 32));
}

/// 24 random bits as a float in [0, 1).
TPC_HOST_DEVICE inline float uint32_to_uniform(uint32_t x) {
  return float(x >> 8) * (1.0f / 16777216.0f);
}

/// Uniform in [0, 1) for element `index`. Four consecutive elements share
/// one Philox block.
TPC_HOST_DEVICE inline float philox_uniform(uint64_t seed, uint64_t stream,
                                            uint64_t index) {
  Philox4 r = philox_block(seed, stream, index >> 2);
  return uint32_to_uniform(r.v[index & 3]);
}

/// Standard normal for element `index` (Box-Muller). Elements 2k and 2k+1
/// are the cosine and sine halves of one pair of uniforms.
TPC_HOST_DEVICE inline float philox_normal(uint64_t seed, uint64_t stream,
                                           uint64_t index) {
  Philox4 r = philox_block(seed, stream, index >> 1);
  unsigned lane = unsigned(index & 1) * 2;
  // u1 in (0, 1] keeps the logarithm finite.
  float u1 = float((r.v[lane] >> 8) + 1) * (1.0f / 16777216.0f);
  float u2 = uint32_to_uniform(r.v[lane + 1]);
  float radius = std::sqrt(-2.0f * std::log(u1));
  float theta = 6.2831853071795864769f * u2;
  return (index & 1) ? radius * std::sin(theta) : radius * std::cos(theta);
}

/// splitmix64 finaliser: spreads the bits of a 64-bit value.
TPC_HOST_DEVICE inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The stream of a dropout op at a training step. A new step gives new
/// masks; the op key keeps different ops apart.
TPC_HOST_DEVICE inline uint64_t dropout_stream(uint64_t key, uint64_t step) {
  return mix64(key ^ mix64(step));
}

/// FNV-1a, 64-bit: the stream id of a named thing (a parameter, an op).
uint64_t fnv1a64(const std::string &s);

/// Fills the local slice `slice` of a global tensor of shape `global_shape`
/// with N(mean, std^2) samples keyed by (seed, fnv1a64(name), global index):
/// any split of the tensor gets exactly the values of the whole tensor.
/// `out` holds local_num_elements(global_shape, slice) floats.
void init_normal(float *out, const std::vector<int64_t> &global_shape,
                 const SliceSpec &slice, uint64_t seed, const std::string &name,
                 float mean, float std);

/// As init_normal, uniform in [low, high).
void init_uniform(float *out, const std::vector<int64_t> &global_shape,
                  const SliceSpec &slice, uint64_t seed,
                  const std::string &name, float low, float high);

/// Fills `out` with `value` (zeros for biases, ones for LayerNorm gains).
void init_constant(float *out, size_t n, float value);

} // namespace tpc

#endif // TPC_RUNTIME_UTIL_PHILOX_H
