//===- ElementwiseTest.cpp - GELU, residual, scale, weighted sum ----------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

TEST(Gelu, ForwardMatchesFormula) {
  auto x = random_vector(37, 1, 3.0f);
  std::vector<float> y(37);
  gelu_forward(y.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    double ref =
        0.5 * v *
        (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    EXPECT_NEAR(y[i], ref, 1e-6 + 1e-6 * std::fabs(ref));
  }
  // Known values of GPT-2's gelu.
  float in[3] = {0.0f, 1.0f, -1.0f}, out[3];
  gelu_forward(out, in, 3);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_NEAR(out[1], 0.8411920f, 1e-6);
  EXPECT_NEAR(out[2], -0.1588080f, 1e-6);
}

TEST(Gelu, BackwardMatchesFiniteDifferences) {
  auto x = random_vector(37, 2, 2.0f), dy = random_vector(37, 3);
  std::vector<float> y(37), dx(37, 0.0f);
  auto objective = [&] {
    gelu_forward(y.data(), x.data(), x.size());
    return weighted(y, dy);
  };
  gelu_backward(dx.data(), x.data(), dy.data(), x.size());
  expect_grad_close(dx, numeric_grad(x, objective, 1e-3f), 2e-3, "gelu");
}

// Written (not accumulated), the gradient is the one added to a zeroed
// buffer, bit for bit, whatever the buffer held: fp32 and bf16, with zero
// and negative upstream gradients (whose -0 products become +0 either way).
TEST(Gelu, WrittenGradientIsTheOneAddedToZeros) {
  const size_t n = 1000;
  auto x = random_vector(n, 4, 3.0f), dy = random_vector(n, 5);
  for (size_t i = 0; i < n; i += 7)
    dy[i] = i % 2 ? -0.0f : 0.0f;
  std::vector<float> added(n, 0.0f), written(n, 123.0f);
  gelu_backward(added.data(), x.data(), dy.data(), n, /*accumulate=*/true);
  gelu_backward(written.data(), x.data(), dy.data(), n, /*accumulate=*/false);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(std::signbit(written[i]), std::signbit(added[i])) << i;
  EXPECT_EQ(written, added);

  std::vector<uint16_t> xb(n), db(n), addb(n, 0), writeb(n, 0x4000);
  for (size_t i = 0; i < n; ++i) {
    xb[i] = f32_to_bf16(x[i]);
    db[i] = f32_to_bf16(dy[i]);
  }
  gelu_backward<BF16Storage>(addb.data(), xb.data(), db.data(), n, true);
  gelu_backward<BF16Storage>(writeb.data(), xb.data(), db.data(), n, false);
  EXPECT_EQ(writeb, addb);
}

TEST(GeluExact, ForwardMatchesErf) {
  auto x = random_vector(37, 11, 4.0f);
  std::vector<float> y(37);
  gelu_exact_forward(y.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i], ref = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(y[i], ref, 1e-6 + 1e-6 * std::fabs(ref));
  }
  // torch.nn.functional.gelu(x) (approximate='none') at 1 and -1.
  float in[3] = {0.0f, 1.0f, -1.0f}, out[3];
  gelu_exact_forward(out, in, 3);
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_NEAR(out[1], 0.8413447f, 1e-6);
  EXPECT_NEAR(out[2], -0.1586553f, 1e-6);
}

TEST(GeluExact, BackwardMatchesFiniteDifferences) {
  auto x = random_vector(37, 12, 3.0f), dy = random_vector(37, 13);
  std::vector<float> y(37), dx(37, 0.0f);
  auto objective = [&] {
    gelu_exact_forward(y.data(), x.data(), x.size());
    return weighted(y, dy);
  };
  gelu_exact_backward(dx.data(), x.data(), dy.data(), x.size());
  expect_grad_close(dx, numeric_grad(x, objective, 1e-3f), 2e-3, "gelu exact");
}

TEST(GeluExact, WrittenGradientIsTheOneAddedToZeros) {
  const size_t n = 1000;
  auto x = random_vector(n, 14, 3.0f), dy = random_vector(n, 15);
  std::vector<float> added(n, 0.0f), written(n, 123.0f);
  gelu_exact_backward(added.data(), x.data(), dy.data(), n, true);
  gelu_exact_backward(written.data(), x.data(), dy.data(), n, false);
  EXPECT_EQ(written, added);
  std::vector<uint16_t> xb(n), db(n), addb(n, 0), writeb(n, 0x4000), yb(n);
  for (size_t i = 0; i < n; ++i) {
    xb[i] = f32_to_bf16(x[i]);
    db[i] = f32_to_bf16(dy[i]);
  }
  gelu_exact_backward<BF16Storage>(addb.data(), xb.data(), db.data(), n, true);
  gelu_exact_backward<BF16Storage>(writeb.data(), xb.data(), db.data(), n,
                                   false);
  EXPECT_EQ(writeb, addb);
  // bf16 storage rounds the fp32 result once.
  gelu_exact_forward<BF16Storage>(yb.data(), xb.data(), n);
  for (size_t i = 0; i < n; ++i) {
    float v = bf16_to_f32(xb[i]);
    ASSERT_EQ(yb[i], f32_to_bf16(0.5f * v * (1.0f + std::erf(v * 0.70710678f))))
        << i;
  }
}

TEST(Elementwise, ResidualAndScale) {
  auto a = random_vector(29, 4), b = random_vector(29, 5),
       g = random_vector(29, 6);
  std::vector<float> out(29), da(29, 1.0f), db(29, 2.0f);
  residual_forward(out.data(), a.data(), b.data(), 29);
  residual_backward(da.data(), db.data(), g.data(), 29);
  for (int i = 0; i < 29; ++i) {
    EXPECT_EQ(out[i], a[i] + b[i]);
    EXPECT_EQ(da[i], 1.0f + g[i]);
    EXPECT_EQ(db[i], 2.0f + g[i]);
  }
  std::vector<float> s(29), ds(29, 0.5f);
  scale_forward(s.data(), a.data(), -0.25f, 29);
  scale_backward(ds.data(), g.data(), -0.25f, 29);
  for (int i = 0; i < 29; ++i) {
    EXPECT_EQ(s[i], -0.25f * a[i]);
    EXPECT_EQ(ds[i], 0.5f + -0.25f * g[i]);
  }
}

TEST(Elementwise, WeightedSumForwardBackward) {
  const int k = 3, n = 31;
  std::vector<std::vector<float>> x;
  for (int j = 0; j < k; ++j)
    x.push_back(random_vector(n, 10 + j));
  std::vector<float> alpha{0.5f, -1.25f, 2.0f}, dy = random_vector(n, 20);
  std::vector<float> out(n);
  auto objective = [&] {
    const float *xs[k] = {x[0].data(), x[1].data(), x[2].data()};
    weighted_sum_forward(out.data(), xs, alpha.data(), k, n);
    return weighted(out, dy);
  };
  objective();
  for (int i = 0; i < n; ++i)
    EXPECT_NEAR(out[i], 0.5f * x[0][i] - 1.25f * x[1][i] + 2.0f * x[2][i],
                1e-5);

  std::vector<std::vector<float>> dx(k, std::vector<float>(n, 0.0f));
  std::vector<float> dalpha(k, 0.0f);
  float *dxs[k] = {dx[0].data(), dx[1].data(), dx[2].data()};
  const float *xs[k] = {x[0].data(), x[1].data(), x[2].data()};
  weighted_sum_backward(dxs, dalpha.data(), dy.data(), xs, alpha.data(), k, n);
  expect_grad_close(dalpha, numeric_grad(alpha, objective), 1e-3, "dalpha");
  for (int j = 0; j < k; ++j)
    expect_grad_close(dx[j], numeric_grad(x[j], objective), 1e-3,
                      "dx" + std::to_string(j));
}

namespace {
double silu_reference(double x) { return x / (1.0 + std::exp(-x)); }
} // namespace

TEST(SwiGlu, ForwardMatchesReference) {
  auto gate = random_vector(61, 30, 3.0f), up = random_vector(61, 31);
  // Far out on both sides the sigmoid saturates; nothing may overflow.
  for (float x : {100.0f, -100.0f, 88.5f, -88.5f, 1e4f, -1e4f, 3e38f, -3e38f})
    gate.push_back(x);
  while (up.size() < gate.size()) // |up| < 1: the product stays finite
    up.push_back(up.size() % 2 ? 0.5f : -0.75f);
  std::vector<float> y(gate.size());
  swiglu_forward(y.data(), gate.data(), up.data(), gate.size());
  for (size_t i = 0; i < gate.size(); ++i) {
    double ref = silu_reference(gate[i]) * up[i];
    ASSERT_TRUE(std::isfinite(y[i])) << "gate " << gate[i];
    EXPECT_NEAR(y[i], ref, 1e-6 + 2e-6 * std::fabs(ref)) << "gate " << gate[i];
  }
}

TEST(SwiGlu, BackwardMatchesFiniteDifferences) {
  auto gate = random_vector(37, 32, 3.0f), up = random_vector(37, 33),
       dy = random_vector(37, 34);
  std::vector<float> y(37), dgate(37, 0.5f), dup(37, 0.5f);
  auto objective = [&] {
    swiglu_forward(y.data(), gate.data(), up.data(), gate.size());
    return weighted(y, dy);
  };
  // Backward accumulates: start from 0.5 and take it off again.
  swiglu_backward(dgate.data(), dup.data(), dy.data(), gate.data(), up.data(),
                  gate.size());
  for (size_t i = 0; i < gate.size(); ++i) {
    dgate[i] -= 0.5f;
    dup[i] -= 0.5f;
  }
  expect_grad_close(dgate, numeric_grad(gate, objective, 1e-3f), 2e-3, "dgate");
  expect_grad_close(dup, numeric_grad(up, objective, 1e-3f), 2e-3, "dup");

  // Saturated gates: silu' is 1 far above zero and 0 far below, no NaN.
  float g[4] = {100.0f, -100.0f, 3e38f, -3e38f},
        u[4] = {2.0f, 2.0f, 1.0f, 1.0f}, d[4] = {1.0f, 1.0f, 1.0f, 1.0f},
        dg[4] = {}, du[4] = {};
  swiglu_backward(dg, du, d, g, u, 4);
  EXPECT_FLOAT_EQ(dg[0], 2.0f);
  EXPECT_EQ(dg[1], 0.0f);
  EXPECT_EQ(du[0], 100.0f);
  EXPECT_NEAR(du[1], 0.0f, 1e-30f);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(std::isfinite(dg[i])) << "gate " << g[i];
    EXPECT_TRUE(std::isfinite(du[i])) << "gate " << g[i];
  }
  // One gradient alone is the same.
  std::vector<float> dup_only(37, 0.0f);
  swiglu_backward(nullptr, dup_only.data(), dy.data(), gate.data(), up.data(),
                  gate.size());
  expect_close(dup_only, dup, 1e-6f, 1e-6f, "dup alone");
}
