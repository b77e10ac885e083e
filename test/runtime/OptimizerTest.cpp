//===- OptimizerTest.cpp - AdamW, SGD, gradient norm ----------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

#include <omp.h>

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

TEST(Optimizer, AdamWMatchesReference) {
  const size_t n = 37;
  auto param = random_vector(n, 1);
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  std::vector<double> rp(param.begin(), param.end()), rm(n, 0), rv(n, 0);
  AdamWParams p;
  p.lr = 1e-2f;
  p.beta1 = 0.9f;
  p.beta2 = 0.95f;
  p.eps = 1e-8f;
  p.weight_decay = 0.1f;
  p.grad_scale = 0.5f;
  for (int step = 1; step <= 3; ++step) {
    auto grad = random_vector(n, 10 + step);
    p.step = step;
    adamw_update(param.data(), grad.data(), m.data(), v.data(), n, p);
    for (size_t i = 0; i < n; ++i) {
      double g = grad[i] * 0.5;
      rm[i] = 0.9 * rm[i] + 0.1 * g;
      rv[i] = 0.95 * rv[i] + 0.05 * g * g;
      double mhat = rm[i] / (1 - std::pow(0.9, step));
      double vhat = rv[i] / (1 - std::pow(0.95, step));
      rp[i] -= 1e-2 * (mhat / (std::sqrt(vhat) + 1e-8) + 0.1 * rp[i]);
    }
  }
  for (size_t i = 0; i < n; ++i)
    EXPECT_NEAR(param[i], rp[i], 1e-5) << i;
}

TEST(Optimizer, SgdMomentumMatchesReference) {
  const size_t n = 23;
  auto param = random_vector(n, 2);
  std::vector<float> buf(n, 0.0f);
  std::vector<double> rp(param.begin(), param.end()), rb(n, 0);
  SgdParams p;
  p.lr = 0.1f;
  p.momentum = 0.9f;
  p.weight_decay = 0.01f;
  for (int step = 0; step < 3; ++step) {
    auto grad = random_vector(n, 20 + step);
    sgd_update(param.data(), grad.data(), buf.data(), n, p);
    for (size_t i = 0; i < n; ++i) {
      double g = grad[i] + 0.01 * rp[i];
      rb[i] = 0.9 * rb[i] + g;
      rp[i] -= 0.1 * rb[i];
    }
  }
  for (size_t i = 0; i < n; ++i)
    EXPECT_NEAR(param[i], rp[i], 1e-5) << i;

  // Without momentum no buffer is needed.
  auto q = random_vector(n, 3), g = random_vector(n, 4);
  auto q0 = q;
  sgd_update(q.data(), g.data(), nullptr, n, SgdParams{0.5f, 0.0f, 0.0f, 1.0f});
  for (size_t i = 0; i < n; ++i)
    EXPECT_FLOAT_EQ(q[i], q0[i] - 0.5f * g[i]);
}

TEST(Optimizer, SumOfSquares) {
  auto x = random_vector(1001, 5);
  double expect = 0;
  for (float v : x)
    expect += double(v) * v;
  EXPECT_NEAR(sum_of_squares(x.data(), x.size()), expect, 1e-9 * expect);
}

// Chunks are summed several at a time, in groups that depend on the thread
// count; the result must not.
TEST(Optimizer, SumOfSquaresDoesNotDependOnTheThreadCount) {
  const int before = omp_get_max_threads();
  for (size_t n : {size_t(5), size_t(16384), size_t(16384 * 11 + 123),
                   size_t(16384 * 16)}) {
    auto x = random_vector(n, 6);
    std::vector<uint16_t> h(n);
    double expect = 0, expect_bf16 = 0;
    for (size_t i = 0; i < n; ++i) {
      expect += double(x[i]) * x[i];
      h[i] = BF16Storage::store(x[i]);
      double b = BF16Storage::load(h[i]);
      expect_bf16 += b * b;
    }
    double first = 0, first_bf16 = 0;
    for (int threads : {1, 2, 3, 5}) {
      omp_set_num_threads(threads);
      double got = sum_of_squares(x.data(), n);
      double got_bf16 = sum_of_squares<BF16Storage>(h.data(), n);
      EXPECT_NEAR(got, expect, 1e-12 * expect) << n << " values";
      EXPECT_NEAR(got_bf16, expect_bf16, 1e-12 * expect_bf16) << n << " values";
      if (threads == 1) {
        first = got;
        first_bf16 = got_bf16;
      }
      EXPECT_EQ(got, first) << n << " values, " << threads << " threads";
      EXPECT_EQ(got_bf16, first_bf16)
          << n << " values, " << threads << " threads";
    }
  }
  omp_set_num_threads(before);
}
