//===- ElementwiseTest.cpp - GELU, tanh, residual, scale, weighted sum ----===//

#include "runtime/backend/Backend.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

#include <cstring>
#include <iterator>

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

namespace {

/// The spacing of type t's values at |x| (f32, bf16 or f16; subnormals'
/// spacing below the normal range).
double spacing(ElementType t, double x) {
  const int mant = t == ElementType::BF16 ? 7 : t == ElementType::F16 ? 10 : 23;
  const int emin = t == ElementType::F16 ? -14 : -126;
  int e;
  std::frexp(x, &e);
  return std::ldexp(1.0, std::max(e - 1, emin) - mant);
}

/// Values of storage type t on the host, which is the CPU backend's memory.
class Stored {
public:
  Stored(ElementType t, const std::vector<float> &v)
      : t_(t), bytes_(v.size() * element_size(t)) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (t_ == ElementType::F32) {
        std::memcpy(&bytes_[i * 4], &v[i], 4);
        continue;
      }
      uint16_t h =
          t_ == ElementType::BF16 ? f32_to_bf16(v[i]) : f32_to_f16(v[i]);
      std::memcpy(&bytes_[i * 2], &h, 2);
    }
  }
  void *data() { return bytes_.data(); }
  size_t size() const { return bytes_.size() / element_size(t_); }
  float operator[](size_t i) const {
    float f;
    uint16_t h;
    if (t_ == ElementType::F32) {
      std::memcpy(&f, &bytes_[i * 4], 4);
      return f;
    }
    std::memcpy(&h, &bytes_[i * 2], 2);
    return t_ == ElementType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
  }

private:
  ElementType t_;
  std::vector<unsigned char> bytes_;
};

/// Inputs where tanh is 1 or -1 in float (beyond |x| = 9.1), up to the
/// infinities.
const float kSaturating[] = {10.0f, -10.0f, 20.0f, -20.0f, 88.5f,    -88.5f,
                             1e4f,  -1e4f,  3e38f, -3e38f, INFINITY, -INFINITY};

} // namespace

// Within half an ulp of float (and double's own error) of tanh in double:
// one rounding, and the exact values at zero, tiny and saturated inputs.
TEST(Tanh, ForwardMatchesTanh) {
  auto x = random_vector(1000, 40, 3.0f);
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-40f, 1e-4f, -0.5f, 0.625f, 9.0f})
    x.push_back(v);
  x.insert(x.end(), std::begin(kSaturating), std::end(kSaturating));
  x.push_back(NAN);
  std::vector<float> y(x.size());
  tanh_forward(y.data(), x.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(y[i]));
      continue;
    }
    const double ref = std::tanh(double(x[i]));
    EXPECT_LE(std::fabs(y[i] - ref),
              0.5 * spacing(ElementType::F32, ref) + 1e-15 * std::fabs(ref))
        << "x " << x[i] << ": " << y[i] << ", tanh " << ref;
  }
  for (float v : kSaturating) {
    float out;
    tanh_forward(&out, &v, 1);
    EXPECT_EQ(out, v > 0 ? 1.0f : -1.0f) << "x " << v;
  }
  float zeros[2] = {0.0f, -0.0f}, signs[2];
  tanh_forward(signs, zeros, 2);
  EXPECT_FALSE(std::signbit(signs[0]));
  EXPECT_TRUE(std::signbit(signs[1]));
}

// The backward pass takes the forward's output: its gradient is that of the
// forward's values (finite differences) and dout * (1 - tanh(x)^2).
TEST(Tanh, BackwardMatchesFiniteDifferencesAndClosedForm) {
  auto x = random_vector(37, 41, 2.0f), dy = random_vector(37, 42);
  std::vector<float> y(37), dx(37, 0.0f);
  auto objective = [&] {
    tanh_forward(y.data(), x.data(), x.size());
    return weighted(y, dy);
  };
  objective();
  tanh_backward(dx.data(), y.data(), dy.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double t = std::tanh(double(x[i])), ref = dy[i] * (1.0 - t * t);
    // y's rounding moves 1 - y^2 by up to 2^-24 near saturation.
    EXPECT_NEAR(dx[i], ref, 1e-6 * std::fabs(ref) + 1.2e-7 * std::fabs(dy[i]))
        << "x " << x[i];
  }
  expect_grad_close(dx, numeric_grad(x, objective, 1e-3f), 2e-3, "tanh");

  // Saturated: a zero gradient, no NaN, whatever dout is.
  const size_t k = std::size(kSaturating);
  std::vector<float> sy(k), sd(k, 3e38f), sdx(k, 0.5f);
  tanh_forward(sy.data(), kSaturating, k);
  tanh_backward(sdx.data(), sy.data(), sd.data(), k, /*accumulate=*/true);
  for (size_t i = 0; i < k; ++i)
    EXPECT_EQ(sdx[i], 0.5f) << "x " << kSaturating[i];
  tanh_backward(sdx.data(), sy.data(), sd.data(), k, /*accumulate=*/false);
  for (size_t i = 0; i < k; ++i)
    EXPECT_EQ(sdx[i], 0.0f) << "x " << kSaturating[i];
}

// Accumulating adds to dinp; writing gives what is added to zeros, bit for
// bit, whatever dinp held (with zero and negative zero upstream gradients).
TEST(Tanh, AccumulatesOrWrites) {
  const size_t n = 1000;
  auto x = random_vector(n, 43, 3.0f), dy = random_vector(n, 44),
       base = random_vector(n, 45);
  for (size_t i = 0; i < n; i += 7)
    dy[i] = i % 2 ? -0.0f : 0.0f;
  std::vector<float> y(n);
  tanh_forward(y.data(), x.data(), n);
  std::vector<float> added(n, 0.0f), written(n, 123.0f), onto = base;
  tanh_backward(added.data(), y.data(), dy.data(), n, /*accumulate=*/true);
  tanh_backward(written.data(), y.data(), dy.data(), n, /*accumulate=*/false);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(std::signbit(written[i]), std::signbit(added[i])) << i;
  EXPECT_EQ(written, added);
  tanh_backward(onto.data(), y.data(), dy.data(), n, /*accumulate=*/true);
  std::vector<float> sum(n);
  for (size_t i = 0; i < n; ++i)
    sum[i] = base[i] + added[i];
  expect_close(onto, sum, 1e-7f, 1e-6f, "accumulated");
}

// Every storage type's table, against tanh in double of the stored inputs:
// the forward within half an ulp of the storage type and one of float (the
// float result is rounded again), the backward within half an ulp of the
// storage type of dout * (1 - y^2) (+ the old dinp) from the stored values.
TEST(Tanh, EveryStorageTypeRoundsOnce) {
  std::unique_ptr<Backend> be = make_backend("cpu");
  const size_t n = 1000;
  auto xv = random_vector(n, 46, 3.0f);
  std::copy(std::begin(kSaturating), std::end(kSaturating), xv.begin());
  const auto dv = random_vector(n, 47), bv = random_vector(n, 48);
  for (ElementType t : kFloatElementTypes) {
    SCOPED_TRACE(element_type_name(t));
    const Kernels &k = *be->kernels(t);
    Stored x(t, xv), y(t, std::vector<float>(n)), dy(t, dv), base(t, bv);
    k.tanh_forward(y.data(), x.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const double ref = std::tanh(double(x[i]));
      ASSERT_LE(std::fabs(y[i] - ref),
                0.5 * spacing(t, ref) + spacing(ElementType::F32, ref))
          << "x " << x[i] << ": " << y[i] << ", tanh " << ref;
    }
    for (bool accumulate : {true, false}) {
      Stored dx(t, bv);
      k.tanh_backward(dx.data(), y.data(), dy.data(), n, accumulate);
      for (size_t i = 0; i < n; ++i) {
        const double old = accumulate ? base[i] : 0.0,
                     term = dy[i] * (1.0 - double(y[i]) * y[i]),
                     ref = old + term;
        ASSERT_LE(std::fabs(dx[i] - ref),
                  0.5 * spacing(t, ref) +
                      1e-6 * (std::fabs(old) + std::fabs(term)))
            << "accumulate " << accumulate << ", element " << i;
      }
    }
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
