//===- DropoutTest.cpp - Counter-based dropout ----------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/util/Philox.h"

#include "TestUtil.h"

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {
DropoutParams params(float p, uint64_t step = 3) {
  return DropoutParams{p, 1234, step, fnv1a64("h.0.mlp.dropout")};
}
} // namespace

TEST(Dropout, RateAndScaling) {
  const size_t n = 100000;
  std::vector<float> x(n, 1.0f), y(n);
  std::vector<uint8_t> mask(n);
  dropout_forward(y.data(), mask.data(), x.data(), n, params(0.1f));
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) {
    kept += mask[i];
    EXPECT_EQ(y[i], mask[i] ? 1.0f / 0.9f : 0.0f);
  }
  EXPECT_NEAR(double(kept) / n, 0.9, 0.005);
}

TEST(Dropout, ZeroProbabilityIsIdentity) {
  auto x = random_vector(17, 1);
  std::vector<float> y(17);
  dropout_forward(y.data(), nullptr, x.data(), 17, params(0.0f));
  expect_close(y, x, 0, 0);
  EXPECT_THROW(dropout_forward(y.data(), nullptr, x.data(), 17, params(1.0f)),
               std::invalid_argument);
}

TEST(Dropout, StepsAndKeysGiveNewMasks) {
  const size_t n = 1000;
  std::vector<float> x(n, 1.0f), a(n), b(n), c(n);
  dropout_forward(a.data(), nullptr, x.data(), n, params(0.5f, 1));
  dropout_forward(b.data(), nullptr, x.data(), n, params(0.5f, 2));
  DropoutParams other = params(0.5f, 1);
  other.key = fnv1a64("h.1.mlp.dropout");
  dropout_forward(c.data(), nullptr, x.data(), n, other);
  int same_ab = 0, same_ac = 0;
  for (size_t i = 0; i < n; ++i) {
    same_ab += a[i] == b[i];
    same_ac += a[i] == c[i];
  }
  EXPECT_LT(same_ab, 600);
  EXPECT_LT(same_ac, 600);
}

// A split op (e.g. dropout on a column-parallel activation [N, 4C]) draws on
// each rank exactly the mask of its global slice.
TEST(Dropout, SliceMasksAreSlicesOfTheFullMask) {
  const std::vector<int64_t> shape{7, 24};
  const size_t n = 7 * 24;
  std::vector<float> x(n, 1.0f), full(n);
  std::vector<uint8_t> full_mask(n);
  dropout_forward(full.data(), full_mask.data(), x.data(), n, params(0.3f));
  for (int blocks : {1, 3})
    for (int tp : {1, 2, 4}) {
      for (int r = 0; r < tp; ++r) {
        SliceSpec s = SliceSpec::split(shape, 1, r, tp, blocks);
        GlobalIndexMap map(shape, s);
        size_t nl = local_num_elements(shape, s);
        std::vector<float> xl(nl, 1.0f), yl(nl);
        std::vector<uint8_t> ml(nl);
        dropout_forward(yl.data(), ml.data(), xl.data(), nl, params(0.3f), map);
        for (size_t i = 0; i < nl; ++i)
          ASSERT_EQ(ml[i], full_mask[map(i)])
              << "tp=" << tp << " rank=" << r << " blocks=" << blocks;
      }
    }
}

TEST(Dropout, BackwardUsesTheSameMask) {
  const size_t n = 301;
  auto x = random_vector(n, 2), g = random_vector(n, 3);
  std::vector<float> y(n);
  std::vector<uint8_t> mask(n);
  dropout_forward(y.data(), mask.data(), x.data(), n, params(0.25f));
  std::vector<float> d_saved(n, 1.0f), d_drawn(n, 1.0f);
  dropout_backward(d_saved.data(), mask.data(), g.data(), n, params(0.25f));
  dropout_backward(d_drawn.data(), nullptr, g.data(), n, params(0.25f));
  expect_close(d_saved, d_drawn, 0, 0);
  for (size_t i = 0; i < n; ++i)
    EXPECT_NEAR(d_saved[i], 1.0f + (mask[i] ? g[i] / 0.75f : 0.0f), 1e-6);
}
