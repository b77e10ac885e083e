//===- VecMathTest.cpp - The vectorizable exp and tanh --------------------===//
//
// exp_approx against exp in double over its whole range, every ulp step
// near 0 and a dense sweep elsewhere; its special values; tanh_approx in
// absolute terms, as GELU uses it. The loops call the functions as the
// kernels do: inside a vectorized loop of a function compiled in clones for
// the CPU's vector width. exp_shifted against exp_approx bit for bit, in
// the widest vectors and below them.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/VecMath.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace tpc::cpu;

namespace {

TPC_VECTOR_CLONES
void exp_all(float *y, const float *x, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    y[i] = exp_approx(x[i]);
}

TPC_VECTOR_CLONES
void tanh_all(float *y, const float *x, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    y[i] = tanh_approx(x[i]);
}

std::vector<float> exp_of(const std::vector<float> &x) {
  std::vector<float> y(x.size());
  exp_all(y.data(), x.data(), x.size());
  return y;
}
std::vector<float> tanh_of(const std::vector<float> &x) {
  std::vector<float> y(x.size());
  tanh_all(y.data(), x.data(), x.size());
  return y;
}

/// Caps the vectors exp_shifted runs on, for the life of the object.
struct LanesCap {
  explicit LanesCap(int lanes) { max_vector_lanes = lanes; }
  ~LanesCap() { max_vector_lanes = 16; }
};

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

/// Distance in units in the last place of the float nearest `want`.
double ulps(float got, double want) {
  float w = float(want);
  double ulp = std::nextafter(w, std::numeric_limits<float>::infinity()) - w;
  return std::fabs(got - want) / ulp;
}

} // namespace

TEST(VecMath, ExpWithinTwoUlpOverItsRange) {
  std::vector<float> x;
  for (double v = -87.3; v <= 88.0; v += 1.0 / 1024)
    x.push_back(float(v));
  // Near zero, a relative step of 2^-12 samples every exponent.
  for (float v = -1.0f / 1024; v < 1.0f / 1024;
       v = std::nextafter(v, 1.0f) + std::fabs(v) * 0x1p-12f)
    x.push_back(v);
  std::vector<float> y = exp_of(x);
  double worst = 0;
  float at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double e = ulps(y[i], std::exp(double(x[i])));
    if (e > worst) {
      worst = e;
      at = x[i];
    }
  }
  EXPECT_LE(worst, 2.0) << "at x = " << at;
}

TEST(VecMath, ExpSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {0.0f, -0.0f, 1.0f, -inf, -1000.0f, -87.5f,
                          89.0f, 1000.0f, inf,  std::nanf("")};
  std::vector<float> y = exp_of(x);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_LE(ulps(y[2], std::exp(1.0)), 2.0);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_EQ(y[5], 0.0f);
  EXPECT_EQ(y[6], inf);
  EXPECT_EQ(y[7], inf);
  EXPECT_EQ(y[8], inf);
  EXPECT_TRUE(std::isnan(y[9]));
  // One at a time (the scalar code of decoding's tails) alike.
  for (size_t i = 0; i < x.size(); ++i) {
    volatile float xi = x[i];
    const float yi = exp_approx(xi);
    EXPECT_TRUE(yi == y[i] || (std::isnan(yi) && std::isnan(y[i])))
        << "at x = " << x[i];
  }
}

TEST(VecMath, TanhWithinAbsoluteRounding) {
  std::vector<float> x;
  for (double v = -20; v <= 20; v += 1.0 / 4096)
    x.push_back(float(v));
  x.push_back(std::numeric_limits<float>::infinity());
  x.push_back(-std::numeric_limits<float>::infinity());
  std::vector<float> y = tanh_of(x);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_LE(std::fabs(y[i] - std::tanh(double(x[i]))), std::ldexp(1.0, -22))
        << "at x = " << x[i];
  EXPECT_TRUE(std::isnan(tanh_approx(std::nanf(""))));
}

TEST(VecMath, ExpShiftedIsExpApproxBitForBit) {
  const float inf = std::numeric_limits<float>::infinity();
  // Every 509th bit pattern (all exponents, both signs, NaNs), the edges of
  // the range and the special values.
  std::vector<float> x;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 509) {
    const uint32_t b = uint32_t(u);
    float f;
    std::memcpy(&f, &b, sizeof f);
    x.push_back(f);
  }
  for (float edge : {kExpLo, kExpHi, -88.72283f, 88.72283f})
    for (float f = edge, step = 0; step < 64; ++step) {
      x.push_back(f);
      x.push_back(-f);
      f = std::nextafter(f, 0.0f);
    }
  for (float f : {0.0f, -0.0f, inf, -inf, std::nanf(""), -std::nanf("")})
    x.push_back(f);
  for (int lanes : {16, 8, 4}) {
    LanesCap cap(lanes);
    for (float shift : {0.0f, 1.5f, -3.25f}) {
      std::vector<float> arg(x.size());
      for (size_t i = 0; i < x.size(); ++i)
        arg[i] = x[i] - shift;
      const std::vector<float> want = exp_of(arg);
      // Lengths that leave every tail of a 16-lane vector.
      for (size_t n : {x.size(), size_t(0), size_t(1), size_t(15), size_t(17),
                       size_t(31), size_t(40)}) {
        std::vector<float> got(x.begin(), x.begin() + n);
        exp_shifted(got.data(), n, shift);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(bits_of(got[i]), bits_of(want[i]))
              << "x = " << x[i] << ", shift " << shift << ", " << lanes
              << " lanes, n = " << n;
      }
    }
  }
}
