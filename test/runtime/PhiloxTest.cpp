//===- PhiloxTest.cpp - Counter-based generator and initialisation --------===//

#include "runtime/util/Philox.h"

#include "TestUtil.h"

#include <cmath>
#include <cstring>

using namespace tpc;

// Known-answer vectors of Random123 (kat_vectors, philox4x32_10).
TEST(Philox, KnownAnswers) {
  Philox4 r = philox4x32_10(Philox4{{0, 0, 0, 0}}, 0, 0);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[1], 0xe169c58du);
  EXPECT_EQ(r.v[2], 0xbc57ac4cu);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);

  r = philox4x32_10(
      Philox4{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
      0xffffffffu, 0xffffffffu);
  EXPECT_EQ(r.v[0], 0x408f276du);
  EXPECT_EQ(r.v[1], 0x41c83b0eu);
  EXPECT_EQ(r.v[2], 0xa20bc7c6u);
  EXPECT_EQ(r.v[3], 0x6d5451fdu);

  r = philox4x32_10(
      Philox4{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
      0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(r.v[0], 0xd16cfe09u);
  EXPECT_EQ(r.v[1], 0x94fdccebu);
  EXPECT_EQ(r.v[2], 0x5001e420u);
  EXPECT_EQ(r.v[3], 0x24126ea1u);
}

TEST(Philox, Fnv1a64) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_NE(fnv1a64("h.0.attn.c_attn.weight"),
            fnv1a64("h.1.attn.c_attn.weight"));
}

TEST(Philox, UniformStatistics) {
  const int n = 200000;
  double sum = 0, sumsq = 0;
  float lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    float u = philox_uniform(7, 11, i);
    sum += u;
    sumsq += double(u) * u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  double mean = sum / n, var = sumsq / n - mean * mean;
  EXPECT_GE(lo, 0.0f);
  EXPECT_LT(hi, 1.0f);
  EXPECT_NEAR(mean, 0.5, 0.005);
  EXPECT_NEAR(var, 1.0 / 12.0, 0.002);
}

TEST(Philox, NormalStatistics) {
  const int n = 200000;
  double sum = 0, sumsq = 0, sum4 = 0;
  int beyond2 = 0;
  for (int i = 0; i < n; ++i) {
    double z = philox_normal(1234, fnv1a64("wte.weight"), i);
    ASSERT_TRUE(std::isfinite(z));
    sum += z;
    sumsq += z * z;
    sum4 += z * z * z * z;
    beyond2 += std::fabs(z) > 2.0;
  }
  double mean = sum / n, var = sumsq / n - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.01);
  EXPECT_NEAR(var, 1.0, 0.015);
  EXPECT_NEAR(sum4 / n, 3.0, 0.1);                 // kurtosis of a normal
  EXPECT_NEAR(double(beyond2) / n, 0.0455, 0.003); // P(|z| > 2)
}

TEST(Philox, StreamsAndSeedsDiffer) {
  int same_stream = 0, same_seed = 0;
  for (int i = 0; i < 1000; ++i) {
    same_stream += philox_uniform(1, 2, i) == philox_uniform(1, 3, i);
    same_seed += philox_uniform(1, 2, i) == philox_uniform(2, 2, i);
  }
  EXPECT_LT(same_stream, 5);
  EXPECT_LT(same_seed, 5);
}

TEST(Philox, InitNormalMatchesStd) {
  std::vector<int64_t> shape{64, 96};
  std::vector<float> w(64 * 96);
  init_normal(w.data(), shape, SliceSpec::whole(), 42, "h.0.mlp.c_fc.weight",
              0.0f, 0.02f);
  double sum = 0, sumsq = 0;
  for (float x : w) {
    sum += x;
    sumsq += double(x) * x;
  }
  double mean = sum / w.size();
  EXPECT_NEAR(mean, 0.0, 0.002);
  EXPECT_NEAR(std::sqrt(sumsq / w.size() - mean * mean), 0.02, 0.001);
}

/// Every split of the global tensor gets exactly the global tensor's values
/// at its positions: scattering all ranks' slices rebuilds it bit for bit.
static void check_slices_rebuild(const std::vector<int64_t> &shape, int dim,
                                 int64_t blocks) {
  uint64_t n = local_num_elements(shape, SliceSpec::whole());
  std::vector<float> full(n);
  init_normal(full.data(), shape, SliceSpec::whole(), 5, "p", 0.0f, 1.0f);
  for (int tp : {1, 2, 4}) {
    std::vector<float> rebuilt(n, NAN);
    for (int rank = 0; rank < tp; ++rank) {
      SliceSpec s = SliceSpec::split(shape, dim, rank, tp, blocks);
      std::vector<float> local(local_num_elements(shape, s));
      EXPECT_EQ(local.size(), n / tp);
      init_normal(local.data(), shape, s, 5, "p", 0.0f, 1.0f);
      GlobalIndexMap map(shape, s);
      for (uint64_t i = 0; i < local.size(); ++i)
        rebuilt[map(i)] = local[i];
    }
    EXPECT_EQ(0, std::memcmp(rebuilt.data(), full.data(), n * sizeof(float)))
        << "tp=" << tp << " dim=" << dim << " blocks=" << blocks;
  }
}

TEST(Philox, SlicesRebuildTheFullTensor) {
  check_slices_rebuild({12, 36}, 1, 3); // c_attn weight [C, 3C]
  check_slices_rebuild({36}, 0, 3);     // c_attn bias [3C]
  check_slices_rebuild({12, 48}, 1, 1); // c_fc weight, column parallel
  check_slices_rebuild({48, 12}, 0, 1); // c_proj weight, row parallel
  check_slices_rebuild({4, 8, 12}, 1, 1);
}

TEST(Philox, ColumnSliceLayout) {
  // Rank 1 of 2 of a [2, 12] tensor in 3 blocks holds columns 2,3 | 6,7 |
  // 10,11 of each row.
  std::vector<int64_t> shape{2, 12};
  GlobalIndexMap map(shape, SliceSpec::split(shape, 1, 1, 2, 3));
  std::vector<uint64_t> expect{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23};
  for (size_t i = 0; i < expect.size(); ++i)
    EXPECT_EQ(map(i), expect[i]);
  EXPECT_EQ(local_shape(shape, SliceSpec::split(shape, 1, 1, 2, 3)),
            (std::vector<int64_t>{2, 6}));
}

TEST(Philox, BadSlicesThrow) {
  std::vector<int64_t> shape{12, 10};
  EXPECT_THROW(SliceSpec::split(shape, 1, 0, 4, 1), std::invalid_argument);
  EXPECT_THROW(SliceSpec::split(shape, 2, 0, 2, 1), std::invalid_argument);
  EXPECT_THROW(GlobalIndexMap(shape, SliceSpec{0, 10, 4, 1}),
               std::invalid_argument);
}
