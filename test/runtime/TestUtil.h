//===- TestUtil.h - Helpers for the runtime tests ---------------*- C++ -*-===//

#ifndef TPC_TEST_RUNTIME_TESTUTIL_H
#define TPC_TEST_RUNTIME_TESTUTIL_H

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace tpc::test {

inline std::vector<float> random_vector(size_t n, uint32_t seed,
                                        float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(gen);
  return v;
}

/// Expects |a - b| <= atol + rtol * |b| elementwise; reports the first miss.
inline void expect_close(const std::vector<float> &a,
                         const std::vector<float> &b, float atol, float rtol,
                         const std::string &what = "") {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    float tol = atol + rtol * std::fabs(b[i]);
    if (!(std::fabs(a[i] - b[i]) <= tol)) {
      ADD_FAILURE() << what << ": element " << i << " is " << a[i]
                    << ", expected " << b[i] << " (tolerance " << tol << ")";
      return;
    }
  }
}

/// Central-difference derivative of f (a scalar function of the buffer x)
/// with respect to every element of x, in double.
inline std::vector<double> numeric_grad(std::vector<float> &x,
                                        const std::function<double()> &f,
                                        float h = 1e-2f) {
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float saved = x[i];
    x[i] = saved + h;
    double fp = f();
    x[i] = saved - h;
    double fm = f();
    x[i] = saved;
    g[i] = (fp - fm) / (2.0 * double(h));
  }
  return g;
}

/// Expects analytic ~ numeric within atol + rtol * max|numeric|.
inline void expect_grad_close(const std::vector<float> &analytic,
                              const std::vector<double> &numeric, double rtol,
                              const std::string &what) {
  ASSERT_EQ(analytic.size(), numeric.size()) << what;
  double scale = 1e-3;
  for (double v : numeric)
    scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < numeric.size(); ++i) {
    double err = std::fabs(double(analytic[i]) - numeric[i]);
    if (err > rtol * scale) {
      ADD_FAILURE() << what << ": gradient element " << i << " is "
                    << analytic[i] << ", finite differences give " << numeric[i]
                    << " (scale " << scale << ")";
      return;
    }
  }
}

/// Sum of w[i] * y[i]: a scalar objective with a random direction, so that
/// d(objective)/dy = w.
inline double weighted(const std::vector<float> &y,
                       const std::vector<float> &w) {
  double s = 0.0;
  for (size_t i = 0; i < y.size(); ++i)
    s += double(y[i]) * w[i];
  return s;
}

/// A fresh directory for one test's files.
inline std::filesystem::path temp_dir() {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tpc-test-" + std::to_string(::getpid()) + "-" +
                               info->test_suite_name() + "-" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

} // namespace tpc::test

#endif // TPC_TEST_RUNTIME_TESTUTIL_H
