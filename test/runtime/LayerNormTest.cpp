//===- LayerNormTest.cpp - Layer normalisation ----------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

#include <algorithm>

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {
// Two whole sixteens of channels and a tail: the row sums take both paths.
const int N = 7 * 2, C = 40;

std::vector<float> reference(const std::vector<float> &x,
                             const std::vector<float> &w,
                             const std::vector<float> &b, double eps = 1e-5) {
  std::vector<float> out(N * C);
  for (int n = 0; n < N; ++n) {
    double m = 0, v = 0;
    for (int c = 0; c < C; ++c)
      m += x[n * C + c];
    m /= C;
    for (int c = 0; c < C; ++c)
      v += (x[n * C + c] - m) * (x[n * C + c] - m);
    v /= C;
    for (int c = 0; c < C; ++c)
      out[n * C + c] =
          float((x[n * C + c] - m) / std::sqrt(v + eps) * w[c] + b[c]);
  }
  return out;
}
} // namespace

TEST(LayerNorm, ForwardMatchesReference) {
  auto x = random_vector(N * C, 1, 2.0f);
  for (int i = 0; i < N * C; ++i)
    x[i] += 5.0f; // a large mean must not cost precision
  auto w = random_vector(C, 2), b = random_vector(C, 3);
  std::vector<float> out(N * C), mean(N), rstd(N);
  layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(),
                    b.data(), N, C);
  expect_close(out, reference(x, w, b), 1e-5f, 1e-5f);
}

// The caller's epsilon: BERT's 1e-12, and one large enough to matter.
TEST(LayerNorm, ForwardTakesTheEpsilon) {
  auto x = random_vector(N * C, 5, 0.1f), w = random_vector(C, 6),
       b = random_vector(C, 7);
  for (double eps : {1e-12, 0.5}) {
    std::vector<float> out(N * C), mean(N), rstd(N);
    layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(),
                      b.data(), N, C, float(eps));
    expect_close(out, reference(x, w, b, eps), 1e-5f, 1e-5f);
  }
}

TEST(LayerNorm, BackwardMatchesFiniteDifferences) {
  auto x = random_vector(N * C, 4), w = random_vector(C, 5),
       b = random_vector(C, 6), dy = random_vector(N * C, 7);
  std::vector<float> out(N * C), mean(N), rstd(N);
  auto objective = [&] {
    layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(),
                      b.data(), N, C);
    return weighted(out, dy);
  };
  objective();
  // Start from non-zero gradients: backward must accumulate.
  std::vector<float> dx(N * C, 0.5f), dw(C, 0.5f), db(C, 0.5f);
  layernorm_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(),
                     w.data(), mean.data(), rstd.data(), N, C);
  for (auto &v : dx)
    v -= 0.5f;
  for (auto &v : dw)
    v -= 0.5f;
  for (auto &v : db)
    v -= 0.5f;
  expect_grad_close(dx, numeric_grad(x, objective), 2e-3, "dinp");
  expect_grad_close(dw, numeric_grad(w, objective), 2e-3, "dweight");
  expect_grad_close(db, numeric_grad(b, objective), 2e-3, "dbias");
}

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

namespace {
/// out = x / sqrt(mean(x^2) + eps) * w in double; rstd per row.
std::vector<float> rms_reference(const std::vector<float> &x,
                                 const std::vector<float> &w, double eps,
                                 std::vector<double> *rstd = nullptr) {
  std::vector<float> out(N * C);
  for (int n = 0; n < N; ++n) {
    double ss = 0;
    for (int c = 0; c < C; ++c)
      ss += double(x[n * C + c]) * x[n * C + c];
    double s = 1.0 / std::sqrt(ss / C + eps);
    if (rstd)
      rstd->push_back(s);
    for (int c = 0; c < C; ++c)
      out[n * C + c] = float(x[n * C + c] * s * w[c]);
  }
  return out;
}
} // namespace

TEST(RmsNorm, ForwardMatchesReference) {
  auto x = random_vector(N * C, 11, 2.0f), w = random_vector(C, 12);
  for (int i = 0; i < C; ++i)
    x[3 * C + i] *= 1e-3f; // a row small against eps
  for (float eps : {1e-6f, 1e-5f, 0.25f}) {
    std::vector<float> out(N * C), rstd(N);
    std::vector<double> want_rstd;
    rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
    expect_close(out, rms_reference(x, w, eps, &want_rstd), 1e-5f, 1e-5f,
                 "eps " + std::to_string(eps));
    for (int n = 0; n < N; ++n)
      EXPECT_NEAR(rstd[n], want_rstd[n], 1e-5 * want_rstd[n]) << "eps " << eps;
  }
}

TEST(RmsNorm, BackwardMatchesFiniteDifferences) {
  for (float eps : {1e-6f, 0.1f}) {
    auto x = random_vector(N * C, 13), w = random_vector(C, 14),
         dy = random_vector(N * C, 15);
    std::vector<float> out(N * C), rstd(N);
    auto objective = [&] {
      rmsnorm_forward(out.data(), rstd.data(), x.data(), w.data(), N, C, eps);
      return weighted(out, dy);
    };
    objective();
    // Start from non-zero gradients: backward must accumulate.
    std::vector<float> dx(N * C, 0.5f), dw(C, 0.5f);
    rmsnorm_backward(dx.data(), dw.data(), dy.data(), x.data(), w.data(),
                     rstd.data(), N, C);
    for (auto &v : dx)
      v -= 0.5f;
    for (auto &v : dw)
      v -= 0.5f;
    std::string what = "eps " + std::to_string(eps);
    expect_grad_close(dx, numeric_grad(x, objective), 2e-3, what + " dinp");
    expect_grad_close(dw, numeric_grad(w, objective), 2e-3, what + " dweight");
  }
}

//===----------------------------------------------------------------------===//
// A row alone
//===----------------------------------------------------------------------===//

// Decoding normalizes one row where the forward normalized a batch of them:
// a row must give the same bits alone, at another address, as in the batch.
TEST(Norms, RowAloneMatchesBatchBitForBit) {
  auto x = random_vector(N * C, 21), w = random_vector(C, 22),
       b = random_vector(C, 23), dy = random_vector(N * C, 24);
  std::vector<float> out(N * C), mean(N), rstd(N), dx(N * C, 0.25f);
  layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), w.data(),
                    b.data(), N, C);
  layernorm_backward(dx.data(), nullptr, nullptr, dy.data(), x.data(),
                     w.data(), mean.data(), rstd.data(), N, C);
  std::vector<float> rms_out(N * C), rms_rstd(N), rms_dx(N * C, 0.25f);
  rmsnorm_forward(rms_out.data(), rms_rstd.data(), x.data(), w.data(), N, C,
                  1e-5f);
  rmsnorm_backward(rms_dx.data(), nullptr, dy.data(), x.data(), w.data(),
                   rms_rstd.data(), N, C);
  for (int n : {0, 5, N - 1}) {
    // Copies one float past an aligned start, so the row's address differs
    // from the batch's in its alignment too.
    auto alone = [&](const std::vector<float> &v) {
      std::vector<float> r(C + 1);
      std::copy(v.begin() + n * C, v.begin() + (n + 1) * C, r.begin() + 1);
      return r;
    };
    auto xr = alone(x), dyr = alone(dy);
    std::vector<float> o(C + 1), dxr(C + 1, 0.25f), ro(C + 1),
        rdx(C + 1, 0.25f);
    float m = 0, s = 0, rs = 0;
    layernorm_forward(o.data() + 1, &m, &s, xr.data() + 1, w.data(), b.data(),
                      1, C);
    layernorm_backward(dxr.data() + 1, nullptr, nullptr, dyr.data() + 1,
                       xr.data() + 1, w.data(), &m, &s, 1, C);
    rmsnorm_forward(ro.data() + 1, &rs, xr.data() + 1, w.data(), 1, C, 1e-5f);
    rmsnorm_backward(rdx.data() + 1, nullptr, dyr.data() + 1, xr.data() + 1,
                     w.data(), &rs, 1, C);
    EXPECT_EQ(m, mean[n]) << "row " << n;
    EXPECT_EQ(s, rstd[n]) << "row " << n;
    EXPECT_EQ(rs, rms_rstd[n]) << "row " << n;
    for (int c = 0; c < C; ++c) {
      size_t i = size_t(n) * C + c;
      EXPECT_EQ(o[c + 1], out[i]) << "layernorm row " << n << " channel " << c;
      EXPECT_EQ(dxr[c + 1], dx[i]) << "layernorm dinp " << n << " " << c;
      EXPECT_EQ(ro[c + 1], rms_out[i]) << "rmsnorm row " << n << " " << c;
      EXPECT_EQ(rdx[c + 1], rms_dx[i]) << "rmsnorm dinp " << n << " " << c;
    }
  }
}
