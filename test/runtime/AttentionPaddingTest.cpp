//===- AttentionPaddingTest.cpp - Attention with a key padding mask -------===//
//
// Grouped attention with key lengths (BERT's padding mask) against a
// straightforward masked reference, and its backward against finite
// differences, with and without saved probabilities.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

#include <cmath>
#include <limits>

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {
const int B = 3, T = 7, NH = 4, HS = 8, C = NH * HS;

AttentionConfig padded_config(const std::vector<int> &lengths, int kvh = NH,
                              float p = 0.0f) {
  AttentionConfig cfg;
  cfg.B = B;
  cfg.T = T;
  cfg.NH = NH;
  cfg.HS = HS;
  cfg.KVH = kvh;
  cfg.mask = AttentionMask::Bidirectional;
  cfg.dropout = DropoutParams{p, 11, 2, 0x5eedull};
  cfg.key_lengths = lengths.data();
  return cfg;
}

struct Qkv {
  std::vector<float> q, k, v;
};
Qkv inputs(const AttentionConfig &cfg, uint32_t seed) {
  size_t rows = size_t(B) * T;
  return {random_vector(rows * cfg.C(), seed),
          random_vector(rows * cfg.C_kv(), seed + 1),
          random_vector(rows * cfg.C_kv(), seed + 2)};
}

std::vector<float> forward(const Qkv &x, const AttentionConfig &cfg,
                           std::vector<float> *att = nullptr) {
  std::vector<float> out(size_t(B) * T * C);
  if (att)
    att->assign(size_t(B) * NH * T * T, 0.0f);
  gqa_attention_forward(out.data(), att ? att->data() : nullptr, x.q.data(),
                        x.k.data(), x.v.data(), cfg);
  return out;
}

/// Scores plus -inf at the padded keys, softmax, weighted values: the
/// additive mask Hugging Face's BertSelfAttention applies, in double.
std::vector<float> masked_reference(const Qkv &x, const AttentionConfig &cfg,
                                    const std::vector<int> &lengths) {
  const int KVH = cfg.kv_heads(), Ckv = cfg.C_kv(), group = NH / KVH;
  std::vector<float> out(size_t(B) * T * C, 0.0f);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        std::vector<double> w(T);
        double mx = -std::numeric_limits<double>::infinity();
        for (int s = 0; s < T; ++s) {
          double dot = 0.0;
          for (int i = 0; i < HS; ++i)
            dot += double(x.q[(b * T + t) * C + h * HS + i]) *
                   x.k[(b * T + s) * Ckv + (h / group) * HS + i];
          w[s] = s < lengths[b] ? dot / std::sqrt(double(HS))
                                : -std::numeric_limits<double>::infinity();
          mx = std::max(mx, w[s]);
        }
        if (std::isinf(mx))
          continue; // no real key: zeros
        double sum = 0.0;
        for (double &e : w)
          sum += (e = std::exp(e - mx));
        for (int i = 0; i < HS; ++i) {
          double acc = 0.0;
          for (int s = 0; s < T; ++s)
            acc += w[s] / sum * x.v[(b * T + s) * Ckv + (h / group) * HS + i];
          out[(b * T + t) * C + h * HS + i] = float(acc);
        }
      }
  return out;
}
} // namespace

TEST(PaddedAttention, ForwardMatchesMaskedReference) {
  for (int kvh : {NH, 2})
    for (const std::vector<int> &lengths :
         {std::vector<int>{7, 4, 1}, std::vector<int>{3, 7, 0}}) {
      AttentionConfig cfg = padded_config(lengths, kvh);
      Qkv x = inputs(cfg, 7);
      std::vector<float> att;
      auto out = forward(x, cfg, &att);
      std::string what = "KVH " + std::to_string(kvh) + " lengths " +
                         std::to_string(lengths[0]) + "," +
                         std::to_string(lengths[1]) + "," +
                         std::to_string(lengths[2]);
      expect_close(out, masked_reference(x, cfg, lengths), 1e-5f, 1e-5f, what);
      // Without saved probabilities the result is the same, bit for bit.
      EXPECT_EQ(forward(x, cfg), out) << what;
      // The padded keys get no probability.
      for (int b = 0; b < B; ++b)
        for (int h = 0; h < NH; ++h)
          for (int t = 0; t < T; ++t)
            for (int s = lengths[b]; s < T; ++s)
              ASSERT_EQ(att[((size_t(b) * NH + h) * T + t) * T + s], 0.0f)
                  << what;
      for (float e : out)
        ASSERT_TRUE(std::isfinite(e)) << what;
    }
}

// Whatever the padded positions hold, the real positions' outputs are the
// same: padding never influences real tokens.
TEST(PaddedAttention, PaddingDoesNotReachRealPositions) {
  std::vector<int> lengths = {5, 2, 7};
  AttentionConfig cfg = padded_config(lengths, 2);
  Qkv x = inputs(cfg, 21);
  auto out = forward(x, cfg);
  Qkv changed = x;
  for (int b = 0; b < B; ++b)
    for (int s = lengths[b]; s < T; ++s) {
      for (int j = 0; j < C; ++j)
        changed.q[(b * T + s) * C + j] += 3.0f;
      for (int j = 0; j < cfg.C_kv(); ++j) {
        changed.k[(b * T + s) * cfg.C_kv() + j] -= 5.0f;
        changed.v[(b * T + s) * cfg.C_kv() + j] += 7.0f;
      }
    }
  auto again = forward(changed, cfg);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < lengths[b]; ++t)
      for (int j = 0; j < C; ++j)
        ASSERT_EQ(again[(b * T + t) * C + j], out[(b * T + t) * C + j])
            << "b " << b << " t " << t;
  // Without lengths the padding does change them.
  AttentionConfig unmasked = cfg;
  unmasked.key_lengths = nullptr;
  EXPECT_NE(forward(changed, unmasked), forward(x, unmasked));
}

TEST(PaddedAttention, BackwardMatchesFiniteDifferences) {
  std::vector<int> lengths = {6, 3, 7};
  for (auto [kvh, p, saved] :
       {std::tuple{NH, 0.0f, true}, std::tuple{2, 0.0f, false},
        std::tuple{2, 0.25f, false}}) {
    AttentionConfig cfg = padded_config(lengths, kvh, p);
    std::string what = "KVH " + std::to_string(kvh) + " p " +
                       std::to_string(p) + (saved ? " saved" : " recomputed");
    Qkv x = inputs(cfg, 33);
    auto dy = random_vector(size_t(B) * T * C, 35);
    std::vector<float> att;
    // A copy: lambdas capture structured bindings only from C++20 on.
    const bool keep = saved;
    auto objective = [&] {
      return weighted(forward(x, cfg, keep ? &att : nullptr), dy);
    };
    objective();
    std::vector<float> dq(x.q.size(), 0.0f), dk(x.k.size(), 0.0f),
        dv(x.v.size(), 0.0f);
    gqa_attention_backward(dq.data(), dk.data(), dv.data(), dy.data(),
                           x.q.data(), x.k.data(), x.v.data(),
                           saved ? att.data() : nullptr, cfg);
    expect_grad_close(dq, numeric_grad(x.q, objective), 5e-3, what + " dq");
    expect_grad_close(dk, numeric_grad(x.k, objective), 5e-3, what + " dk");
    expect_grad_close(dv, numeric_grad(x.v, objective), 5e-3, what + " dv");
    // Padded keys and values get exactly zero.
    for (int b = 0; b < B; ++b)
      for (int s = lengths[b]; s < T; ++s)
        for (int j = 0; j < cfg.C_kv(); ++j) {
          ASSERT_EQ(dk[(b * T + s) * cfg.C_kv() + j], 0.0f) << what;
          ASSERT_EQ(dv[(b * T + s) * cfg.C_kv() + j], 0.0f) << what;
        }
  }
}
