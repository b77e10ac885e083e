//===- AttentionTest.cpp - Self- and cross-attention ----------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/util/Philox.h"

#include "TestUtil.h"

#include <functional>

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {

/// Plain-loop attention: q, k, v read by accessor, mask by predicate.
/// Dropout (if any) is applied with the documented keying.
std::vector<float>
naive_attention(int B, int T, int NH, int HS,
                const std::function<float(int, int, int, int)> &q,
                const std::function<float(int, int, int, int)> &k,
                const std::function<float(int, int, int, int)> &v,
                const std::function<bool(int, int)> &allowed,
                const DropoutParams &d = {}, int head_offset = 0,
                int nh_global = 0) {
  int C = NH * HS;
  int gh = nh_global ? nh_global : NH;
  std::vector<float> out(B * T * C, 0.0f);
  uint64_t stream = dropout_stream(d.key, d.step);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        std::vector<double> w(T, 0.0);
        double mx = -1e30, sum = 0;
        bool any = false;
        for (int s = 0; s < T; ++s)
          if (allowed(t, s)) {
            double dot = 0;
            for (int i = 0; i < HS; ++i)
              dot += double(q(b, t, h, i)) * k(b, s, h, i);
            w[s] = dot / std::sqrt(double(HS));
            mx = std::max(mx, w[s]);
            any = true;
          }
        if (!any)
          continue;
        for (int s = 0; s < T; ++s)
          if (allowed(t, s))
            sum += (w[s] = std::exp(w[s] - mx));
        for (int s = 0; s < T; ++s) {
          if (!allowed(t, s))
            continue;
          double p = w[s] / sum;
          if (d.p > 0) {
            uint64_t gi =
                ((uint64_t(b) * gh + head_offset + h) * T + t) * T + s;
            p = philox_uniform(d.seed, stream, gi) >= d.p ? p / (1 - d.p) : 0;
          }
          for (int i = 0; i < HS; ++i)
            out[(b * T + t) * C + h * HS + i] += float(p * v(b, s, h, i));
        }
      }
  return out;
}

const int B = 2, T = 7, NH = 2, HS = 3, C = NH * HS;

AttentionConfig config(AttentionMask mask, int window, float p = 0.0f) {
  AttentionConfig cfg;
  cfg.B = B;
  cfg.T = T;
  cfg.NH = NH;
  cfg.HS = HS;
  cfg.mask = mask;
  cfg.window = window;
  cfg.dropout = DropoutParams{p, 99, 4, fnv1a64("h.0.attn.dropout")};
  return cfg;
}

std::vector<float> run_self(const std::vector<float> &qkv,
                            const AttentionConfig &cfg) {
  std::vector<float> out(B * T * C), att(B * NH * T * T);
  attention_forward(out.data(), att.data(), qkv.data(), cfg);
  return out;
}

} // namespace

TEST(Attention, SelfForwardMatchesReference) {
  auto qkv = random_vector(B * T * 3 * C, 1);
  auto get = [&](int part) {
    return [&, part](int b, int t, int h, int i) {
      return qkv[(b * T + t) * 3 * C + part * C + h * HS + i];
    };
  };
  struct Case {
    AttentionMask mask;
    int window;
    std::function<bool(int, int)> allowed;
  };
  std::vector<Case> cases{
      {AttentionMask::Causal, 0, [](int t, int s) { return s <= t; }},
      {AttentionMask::Causal, 3,
       [](int t, int s) { return s <= t && s > t - 3; }},
      {AttentionMask::Bidirectional, 0, [](int, int) { return true; }},
      {AttentionMask::Bidirectional, 2,
       [](int t, int s) { return std::abs(t - s) < 2; }},
  };
  for (const Case &c : cases) {
    auto expect =
        naive_attention(B, T, NH, HS, get(0), get(1), get(2), c.allowed);
    expect_close(run_self(qkv, config(c.mask, c.window)), expect, 1e-5f, 1e-5f,
                 "window " + std::to_string(c.window));
  }
  // With dropout on the probabilities.
  auto expect = naive_attention(
      B, T, NH, HS, get(0), get(1), get(2), [](int t, int s) { return s <= t; },
      config(AttentionMask::Causal, 0, 0.3f).dropout);
  expect_close(run_self(qkv, config(AttentionMask::Causal, 0, 0.3f)), expect,
               1e-5f, 1e-5f, "dropout");
}

TEST(Attention, SavedProbabilitiesAreRowStochastic) {
  auto qkv = random_vector(B * T * 3 * C, 2);
  std::vector<float> out(B * T * C), att(B * NH * T * T);
  attention_forward(out.data(), att.data(), qkv.data(),
                    config(AttentionMask::Causal, 0));
  for (int r = 0; r < B * NH * T; ++r) {
    int t = r % T;
    double sum = 0;
    for (int s = 0; s < T; ++s) {
      if (s > t) {
        EXPECT_EQ(att[r * T + s], 0.0f);
      }
      sum += att[r * T + s];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5);
  }
}

// Heads split over tp ranks (each rank holds [q|k|v] of its heads) give the
// columns of the unsplit output, dropout included.
TEST(Attention, HeadSplitMatchesUnsplitWithDropout) {
  const int nh = 4, hs = 2, c = nh * hs;
  auto qkv = random_vector(B * T * 3 * c, 3);
  AttentionConfig full = config(AttentionMask::Causal, 0, 0.4f);
  full.NH = nh;
  full.HS = hs;
  std::vector<float> out(B * T * c), att(B * nh * T * T);
  attention_forward(out.data(), att.data(), qkv.data(), full);
  for (int tp : {2, 4}) {
    int nl = nh / tp, cl = nl * hs;
    for (int r = 0; r < tp; ++r) {
      std::vector<float> local(B * T * 3 * cl);
      for (int n = 0; n < B * T; ++n)
        for (int part = 0; part < 3; ++part)
          for (int j = 0; j < cl; ++j)
            local[n * 3 * cl + part * cl + j] =
                qkv[n * 3 * c + part * c + r * cl + j];
      AttentionConfig cfg = full;
      cfg.NH = nl;
      cfg.head_offset = r * nl;
      cfg.nh_global = nh;
      std::vector<float> lo(B * T * cl), la(B * nl * T * T);
      attention_forward(lo.data(), la.data(), local.data(), cfg);
      for (int n = 0; n < B * T; ++n)
        for (int j = 0; j < cl; ++j)
          ASSERT_EQ(lo[n * cl + j], out[n * c + r * cl + j])
              << "tp=" << tp << " rank=" << r;
    }
  }
}

// Data-parallel ranks (each with B/dp sequences) draw the masks of their own
// global sequences: together they give the single-rank output.
TEST(Attention, BatchSplitMatchesUnsplitWithDropout) {
  auto qkv = random_vector(B * T * 3 * C, 12);
  AttentionConfig full = config(AttentionMask::Causal, 0, 0.4f);
  auto expect = run_self(qkv, full);
  for (int r = 0; r < B; ++r) {
    AttentionConfig cfg = full;
    cfg.B = 1;
    cfg.batch_offset = r;
    std::vector<float> part(qkv.begin() + r * T * 3 * C,
                            qkv.begin() + (r + 1) * T * 3 * C);
    std::vector<float> out(T * C), att(NH * T * T);
    attention_forward(out.data(), att.data(), part.data(), cfg);
    expect_close(out,
                 std::vector<float>(expect.begin() + r * T * C,
                                    expect.begin() + (r + 1) * T * C),
                 0, 0, "dp rank " + std::to_string(r));
  }
  // Without the offset the second sequence would reuse the first's masks.
  AttentionConfig same = full;
  same.B = 1;
  std::vector<float> part(qkv.begin() + T * 3 * C, qkv.end());
  std::vector<float> out(T * C), att(NH * T * T);
  attention_forward(out.data(), att.data(), part.data(), same);
  EXPECT_NE(out, std::vector<float>(expect.begin() + T * C, expect.end()));
}

TEST(Attention, SelfBackwardMatchesFiniteDifferences) {
  for (auto [mask, window, p] :
       {std::tuple{AttentionMask::Causal, 0, 0.0f},
        std::tuple{AttentionMask::Causal, 3, 0.3f},
        std::tuple{AttentionMask::Bidirectional, 2, 0.0f}}) {
    AttentionConfig cfg = config(mask, window, p);
    auto qkv = random_vector(B * T * 3 * C, 4);
    auto dy = random_vector(B * T * C, 5);
    std::vector<float> out(B * T * C), att(B * NH * T * T);
    auto objective = [&] {
      attention_forward(out.data(), att.data(), qkv.data(), cfg);
      return weighted(out, dy);
    };
    objective();
    std::vector<float> dqkv(qkv.size(), 0.0f);
    attention_backward(dqkv.data(), dy.data(), qkv.data(), att.data(), cfg);
    expect_grad_close(dqkv, numeric_grad(qkv, objective, 1e-2f), 5e-3,
                      "window " + std::to_string(window) +
                          " p=" + std::to_string(p));
  }
}

TEST(CrossAttention, ForwardMatchesReference) {
  auto q = random_vector(B * T * C, 6), kv = random_vector(B * T * 2 * C, 7);
  auto qa = [&](int b, int t, int h, int i) {
    return q[(b * T + t) * C + h * HS + i];
  };
  auto ka = [&](int b, int t, int h, int i) {
    return kv[(b * T + t) * 2 * C + h * HS + i];
  };
  auto va = [&](int b, int t, int h, int i) {
    return kv[(b * T + t) * 2 * C + C + h * HS + i];
  };
  for (int window : {0, 2}) {
    auto allowed = [window](int t, int s) {
      return s < t && (window == 0 || s >= t - window);
    };
    AttentionConfig cfg = config(AttentionMask::Causal, window);
    std::vector<float> out(B * T * C, 7.0f), att(B * NH * T * T);
    cross_attention_forward(out.data(), att.data(), q.data(), kv.data(), cfg);
    expect_close(out, naive_attention(B, T, NH, HS, qa, ka, va, allowed), 1e-5f,
                 1e-5f, "window " + std::to_string(window));
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < C; ++j)
        EXPECT_EQ(out[b * T * C + j], 0.0f) << "query 0 has no keys";
  }
}

TEST(CrossAttention, BackwardMatchesFiniteDifferences) {
  for (auto [window, p] : {std::pair{0, 0.0f}, std::pair{2, 0.25f}}) {
    AttentionConfig cfg = config(AttentionMask::Causal, window, p);
    auto q = random_vector(B * T * C, 8), kv = random_vector(B * T * 2 * C, 9);
    auto dy = random_vector(B * T * C, 10);
    std::vector<float> out(B * T * C), att(B * NH * T * T);
    auto objective = [&] {
      cross_attention_forward(out.data(), att.data(), q.data(), kv.data(), cfg);
      return weighted(out, dy);
    };
    objective();
    std::vector<float> dq(q.size(), 0.0f), dkv(kv.size(), 0.0f);
    cross_attention_backward(dq.data(), dkv.data(), dy.data(), q.data(),
                             kv.data(), att.data(), cfg);
    for (int b = 0; b < B; ++b)
      for (int j = 0; j < C; ++j)
        EXPECT_EQ(dq[b * T * C + j], 0.0f) << "query 0 gets no gradient";
    std::string tag = "window " + std::to_string(window);
    expect_grad_close(dq, numeric_grad(q, objective), 5e-3, tag + " dq");
    expect_grad_close(dkv, numeric_grad(kv, objective), 5e-3, tag + " dkv");
  }
}

TEST(Attention, BadConfigurationThrows) {
  auto qkv = random_vector(B * T * 3 * C, 11);
  std::vector<float> out(B * T * C), att(B * NH * T * T);
  AttentionConfig cfg = config(AttentionMask::Causal, 0);
  cfg.head_offset = 1; // heads [1, 3) of 2
  EXPECT_THROW(attention_forward(out.data(), att.data(), qkv.data(), cfg),
               std::invalid_argument);
  cfg = config(AttentionMask::StrictlyEarlier, 0);
  EXPECT_THROW(attention_forward(out.data(), att.data(), qkv.data(), cfg),
               std::invalid_argument);
}

//===----------------------------------------------------------------------===//
// Decoding: one position per call over a KV cache.
//===----------------------------------------------------------------------===//

namespace {
/// Runs decode_attention_forward on positions 0..T-1 of a full qkv
/// (B,T,3C) with a cache of `capacity` >= T positions; returns out (B,T,C).
std::vector<float> decode_self(const std::vector<float> &qkv, int window,
                               int capacity) {
  AttentionConfig cfg = config(AttentionMask::Causal, window);
  cfg.T = 1;
  std::vector<float> kcache(B * capacity * C, -7.0f), vcache = kcache;
  std::vector<float> out(B * T * C), step(B * 3 * C), o(B * C);
  for (int t = 0; t < T; ++t) {
    for (int b = 0; b < B; ++b)
      std::copy_n(&qkv[(b * T + t) * 3 * C], 3 * C, &step[b * 3 * C]);
    decode_attention_forward(o.data(), kcache.data(), vcache.data(),
                             step.data(), t, capacity, cfg);
    for (int b = 0; b < B; ++b)
      std::copy_n(&o[b * C], C, &out[(b * T + t) * C]);
  }
  return out;
}

std::vector<float> decode_cross(const std::vector<float> &q,
                                const std::vector<float> &kv, int window,
                                int capacity) {
  AttentionConfig cfg = config(AttentionMask::StrictlyEarlier, window);
  cfg.T = 1;
  std::vector<float> kcache(B * capacity * C, -7.0f), vcache = kcache;
  std::vector<float> out(B * T * C), qs(B * C), kvs(B * 2 * C), o(B * C);
  for (int t = 0; t < T; ++t) {
    for (int b = 0; b < B; ++b) {
      std::copy_n(&q[(b * T + t) * C], C, &qs[b * C]);
      std::copy_n(&kv[(b * T + t) * 2 * C], 2 * C, &kvs[b * 2 * C]);
    }
    decode_cross_attention_forward(o.data(), kcache.data(), vcache.data(),
                                   qs.data(), kvs.data(), t, capacity, cfg);
    for (int b = 0; b < B; ++b)
      std::copy_n(&o[b * C], C, &out[(b * T + t) * C]);
  }
  return out;
}
} // namespace

TEST(Attention, DecodeMatchesReferenceAndFullForward) {
  auto qkv = random_vector(B * T * 3 * C, 11);
  auto get = [&](int part) {
    return [&, part](int b, int t, int h, int i) {
      return qkv[(b * T + t) * 3 * C + part * C + h * HS + i];
    };
  };
  for (int window : {0, 3}) {
    auto allowed = [window](int t, int s) {
      return s <= t && (window == 0 || s > t - window);
    };
    std::string what = "window " + std::to_string(window);
    auto decoded = decode_self(qkv, window, T + 5);
    expect_close(decoded,
                 naive_attention(B, T, NH, HS, get(0), get(1), get(2), allowed),
                 1e-5f, 1e-5f, what + " vs naive");
    // Position by position, the same arithmetic as the full causal kernel.
    expect_close(decoded, run_self(qkv, config(AttentionMask::Causal, window)),
                 1e-6f, 1e-6f, what + " vs attention_forward");
  }
}

TEST(Attention, DecodeCrossMatchesReferenceAndFullForward) {
  auto q = random_vector(B * T * C, 12), kv = random_vector(B * T * 2 * C, 13);
  for (int window : {0, 2}) {
    auto allowed = [window](int t, int s) {
      return s < t && (window == 0 || s >= t - window);
    };
    std::string what = "window " + std::to_string(window);
    auto decoded = decode_cross(q, kv, window, T);
    auto expect = naive_attention(
        B, T, NH, HS,
        [&](int b, int t, int h, int i) {
          return q[(b * T + t) * C + h * HS + i];
        },
        [&](int b, int t, int h, int i) {
          return kv[(b * T + t) * 2 * C + h * HS + i];
        },
        [&](int b, int t, int h, int i) {
          return kv[(b * T + t) * 2 * C + C + h * HS + i];
        },
        allowed);
    expect_close(decoded, expect, 1e-5f, 1e-5f, what + " vs naive");
    std::vector<float> full(B * T * C), att(B * NH * T * T);
    cross_attention_forward(full.data(), att.data(), q.data(), kv.data(),
                            config(AttentionMask::StrictlyEarlier, window));
    expect_close(decoded, full, 1e-6f, 1e-6f, what + " vs full");
    // Position 0 attends to nothing.
    for (int b = 0; b < B; ++b)
      for (int i = 0; i < C; ++i)
        EXPECT_EQ(decoded[(b * T) * C + i], 0.0f);
  }
}

TEST(Attention, DecodeRejectsPositionsOutsideTheCache) {
  AttentionConfig cfg = config(AttentionMask::Causal, 0);
  std::vector<float> cache(B * 4 * C), out(B * C), qkv(B * 3 * C);
  EXPECT_THROW(decode_attention_forward(out.data(), cache.data(), cache.data(),
                                        qkv.data(), 4, 4, cfg),
               std::invalid_argument);
  EXPECT_THROW(decode_attention_forward(out.data(), cache.data(), cache.data(),
                                        qkv.data(), -1, 4, cfg),
               std::invalid_argument);
}
