//===- LossTest.cpp - Cross-entropy, plain and vocab-parallel -------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {
const int N = 2 * 7, V = 13, Vp = 16;
// Row 4 is ignored; targets cover the first and last real column.
const std::vector<int> kTargets{0, 12, 5, 7, -1, 3, 9, 12, 1, 0, 11, 6, 2, 8};

double naive_loss(const std::vector<float> &logits, int ld, int n, int t) {
  double mx = -1e30, sum = 0;
  for (int v = 0; v < V; ++v)
    mx = std::max(mx, double(logits[n * ld + v]));
  for (int v = 0; v < V; ++v)
    sum += std::exp(logits[n * ld + v] - mx);
  return std::log(sum) + mx - logits[n * ld + t];
}

/// Logits (N,Vp) whose padding columns hold large values: they must not
/// count.
std::vector<float> padded_logits(uint32_t seed) {
  auto l = random_vector(N * Vp, seed, 3.0f);
  for (int n = 0; n < N; ++n)
    for (int v = V; v < Vp; ++v)
      l[n * Vp + v] = 50.0f;
  return l;
}
} // namespace

TEST(CrossEntropy, ForwardMatchesReference) {
  auto logits = padded_logits(1);
  std::vector<float> losses(N, -1.0f);
  LossSum r = crossentropy_forward(losses.data(), logits.data(),
                                   kTargets.data(), N, V, Vp);
  double sum = 0;
  for (int n = 0; n < N; ++n) {
    double expect =
        kTargets[n] < 0 ? 0.0 : naive_loss(logits, Vp, n, kTargets[n]);
    EXPECT_NEAR(losses[n], expect, 1e-5) << n;
    sum += expect;
  }
  EXPECT_NEAR(r.sum, sum, 1e-4);
  EXPECT_EQ(r.count, N - 1);
}

// Rows longer than the blocks the sum of exponentials runs in (512): two
// whole blocks and a part of one, padding after them.
TEST(CrossEntropy, LongRowsMatchReference) {
  const int n_rows = 3, v = 1300, vp = 1312;
  auto logits = random_vector(size_t(n_rows) * vp, 4, 8.0f);
  for (int n = 0; n < n_rows; ++n)
    for (int c = v; c < vp; ++c)
      logits[size_t(n) * vp + c] = 60.0f;
  const std::vector<int> targets{0, 777, v - 1};
  std::vector<float> losses(n_rows);
  crossentropy_forward(losses.data(), logits.data(), targets.data(), n_rows, v,
                       vp);
  for (int n = 0; n < n_rows; ++n) {
    const float *row = logits.data() + size_t(n) * vp;
    double mx = *std::max_element(row, row + v), sum = 0;
    for (int c = 0; c < v; ++c)
      sum += std::exp(double(row[c]) - mx);
    EXPECT_NEAR(losses[n], std::log(sum) + mx - row[targets[n]], 1e-5) << n;
  }
}

TEST(CrossEntropy, BackwardMatchesFiniteDifferences) {
  auto logits = padded_logits(2);
  const float scale = 1.0f / (N - 1);
  std::vector<float> dlogits(N * Vp, 123.0f); // written, not accumulated
  crossentropy_backward(dlogits.data(), logits.data(), kTargets.data(), N, V,
                        Vp, scale);
  auto objective = [&] {
    return crossentropy_forward(nullptr, logits.data(), kTargets.data(), N, V,
                                Vp)
               .sum *
           scale;
  };
  expect_grad_close(dlogits, numeric_grad(logits, objective, 1e-2f), 2e-3,
                    "dlogits");
  for (int n = 0; n < N; ++n)
    for (int v = 0; v < Vp; ++v)
      if (v >= V || kTargets[n] < 0) {
        EXPECT_EQ(dlogits[n * Vp + v], 0.0f);
      }
}

TEST(CrossEntropy, BadTargetThrows) {
  auto logits = padded_logits(3);
  std::vector<int> bad = kTargets;
  bad[3] = V; // a padding column is not a valid target
  try {
    crossentropy_forward(nullptr, logits.data(), bad.data(), N, V, Vp);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("target 13 at row 3"),
              std::string::npos)
        << e.what();
  }
}

// Megatron's vocab-parallel cross-entropy, with the all-reduces done by hand
// over simulated ranks, equals the unsplit kernel.
TEST(VocabParallelCrossEntropy, MatchesUnsplit) {
  auto logits = padded_logits(4);
  const float scale = 1.0f / (N - 1);
  std::vector<float> ref_losses(N), ref_d(N * Vp);
  LossSum ref = crossentropy_forward(ref_losses.data(), logits.data(),
                                     kTargets.data(), N, V, Vp);
  crossentropy_backward(ref_d.data(), logits.data(), kTargets.data(), N, V, Vp,
                        scale);

  for (int tp : {1, 2, 4}) {
    const int vl = Vp / tp;
    std::vector<std::vector<float>> local(tp, std::vector<float>(N * vl));
    for (int r = 0; r < tp; ++r)
      for (int n = 0; n < N; ++n)
        for (int j = 0; j < vl; ++j)
          local[r][n * vl + j] = logits[n * Vp + r * vl + j];

    std::vector<float> gmax(N, -INFINITY), part(N);
    for (int r = 0; r < tp; ++r) {
      vocab_parallel_ce_max(part.data(), local[r].data(), N, vl, r * vl, V);
      for (int n = 0; n < N; ++n)
        gmax[n] = std::max(gmax[n], part[n]);
    }
    std::vector<float> gsum(N, 0.0f), gtarget(N, 0.0f), ps(N), pt(N);
    for (int r = 0; r < tp; ++r) {
      vocab_parallel_ce_sumexp(ps.data(), pt.data(), local[r].data(),
                               kTargets.data(), gmax.data(), N, vl, r * vl, V);
      for (int n = 0; n < N; ++n) {
        gsum[n] += ps[n];
        gtarget[n] += pt[n];
      }
    }
    std::vector<float> losses(N);
    LossSum got =
        vocab_parallel_ce_loss(losses.data(), gsum.data(), gtarget.data(),
                               gmax.data(), kTargets.data(), N);
    std::string tag = "tp=" + std::to_string(tp);
    EXPECT_EQ(got.count, ref.count) << tag;
    EXPECT_NEAR(got.sum, ref.sum, 1e-6 * std::fabs(ref.sum)) << tag;
    expect_close(losses, ref_losses, 1e-6f, 1e-6f, tag + " losses");

    for (int r = 0; r < tp; ++r) {
      std::vector<float> d(N * vl, 99.0f);
      vocab_parallel_ce_backward(d.data(), local[r].data(), kTargets.data(),
                                 gmax.data(), gsum.data(), N, vl, r * vl, V,
                                 scale);
      std::vector<float> ref_slice(N * vl);
      for (int n = 0; n < N; ++n)
        for (int j = 0; j < vl; ++j)
          ref_slice[n * vl + j] = ref_d[n * Vp + r * vl + j];
      expect_close(d, ref_slice, 1e-7f, 1e-6f,
                   tag + " rank " + std::to_string(r) + " dlogits");
    }
  }
}
