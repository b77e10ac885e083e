//===- EmbeddingTest.cpp - Token and position embeddings ------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {
const int B = 2, T = 7, C = 12, V = 13;
const std::vector<int> kIds{0, 3, 12, 3, 5, 7, 3, 11, 1, 12, 2, 0, 9, 3};
} // namespace

TEST(Embedding, ForwardMatchesLookup) {
  auto wte = random_vector(V * C, 1);
  std::vector<float> out(B * T * C);
  embedding_forward(out.data(), kIds.data(), wte.data(), B, T, C, 0, V);
  for (int n = 0; n < B * T; ++n)
    for (int c = 0; c < C; ++c)
      ASSERT_EQ(out[n * C + c], wte[kIds[n] * C + c]);
}

TEST(Embedding, VocabParallelSumsToFull) {
  // Vocabulary padded to 16 and split over 4 ranks; summing the ranks'
  // outputs (the all-reduce) gives the unsplit lookup.
  const int Vp = 16;
  auto wte = random_vector(Vp * C, 2);
  std::vector<float> full(B * T * C);
  embedding_forward(full.data(), kIds.data(), wte.data(), B, T, C, 0, Vp);
  for (int tp : {2, 4}) {
    int vl = Vp / tp;
    std::vector<float> sum(B * T * C, 0.0f), part(B * T * C);
    for (int r = 0; r < tp; ++r) {
      embedding_forward(part.data(), kIds.data(), wte.data() + r * vl * C, B, T,
                        C, r * vl, vl);
      for (size_t i = 0; i < sum.size(); ++i)
        sum[i] += part[i];
    }
    expect_close(sum, full, 0, 0, "tp=" + std::to_string(tp));
  }
}

TEST(Embedding, BackwardScattersWithRepeats) {
  auto dout = random_vector(B * T * C, 3);
  auto dwte = random_vector(V * C, 4);
  std::vector<double> expect(dwte.begin(), dwte.end());
  for (int n = 0; n < B * T; ++n)
    for (int c = 0; c < C; ++c)
      expect[kIds[n] * C + c] += dout[n * C + c];
  embedding_backward(dwte.data(), dout.data(), kIds.data(), B, T, C, 0, V);
  for (size_t i = 0; i < expect.size(); ++i)
    ASSERT_NEAR(dwte[i], expect[i], 1e-5) << i;
}

TEST(Embedding, VocabParallelBackwardOwnsRows) {
  const int vl = 4, vstart = 4; // rank 1 of a 16-row vocabulary
  auto dout = random_vector(B * T * C, 5);
  std::vector<float> dwte(vl * C, 0.0f);
  embedding_backward(dwte.data(), dout.data(), kIds.data(), B, T, C, vstart,
                     vl);
  std::vector<float> expect(vl * C, 0.0f);
  for (int n = 0; n < B * T; ++n)
    if (kIds[n] >= vstart && kIds[n] < vstart + vl)
      for (int c = 0; c < C; ++c)
        expect[(kIds[n] - vstart) * C + c] += dout[n * C + c];
  expect_close(dwte, expect, 1e-6f, 1e-6f);
}

TEST(Embedding, PositionForwardBackward) {
  auto inp = random_vector(B * T * C, 6);
  auto wpe = random_vector((T + 3) * C, 7); // table longer than T
  std::vector<float> out(B * T * C);
  position_embedding_forward(out.data(), inp.data(), wpe.data(), B, T, C);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c) {
        int i = (b * T + t) * C + c;
        ASSERT_EQ(out[i], inp[i] + wpe[t * C + c]);
      }
  // In place.
  position_embedding_forward(inp.data(), inp.data(), wpe.data(), B, T, C);
  expect_close(inp, out, 0, 0, "in place");

  auto dout = random_vector(B * T * C, 8);
  std::vector<float> dwpe(T * C, 1.0f), expect(T * C, 1.0f);
  for (int b = 0; b < B; ++b)
    for (int i = 0; i < T * C; ++i)
      expect[i] += dout[b * T * C + i];
  position_embedding_backward(dwpe.data(), dout.data(), B, T, C);
  expect_close(dwpe, expect, 1e-6f, 1e-6f);
}
