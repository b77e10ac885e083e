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
