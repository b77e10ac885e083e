//===- AttentionTest.cpp - Self- and cross-attention ----------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"
#include "runtime/util/Philox.h"

#include "TestUtil.h"

#include <functional>

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {

/// An operand's element (b, t, head, i), in double.
using Accessor = std::function<double(int, int, int, int)>;

/// Plain-loop attention: q, k, v read by accessor, mask by predicate.
/// Dropout (if any) is applied with the documented keying. Query head h
/// reads key and value head h / group (grouped-query attention).
std::vector<float> naive_attention(int B, int T, int NH, int HS,
                                   const Accessor &q, const Accessor &k,
                                   const Accessor &v,
                                   const std::function<bool(int, int)> &allowed,
                                   const DropoutParams &d = {},
                                   int head_offset = 0, int nh_global = 0,
                                   int group = 1) {
  int C = NH * HS;
  int gh = nh_global ? nh_global : NH;
  std::vector<double> out(B * T * C, 0.0);
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
              dot += q(b, t, h, i) * k(b, s, h / group, i);
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
            out[(b * T + t) * C + h * HS + i] += p * v(b, s, h / group, i);
        }
      }
  return std::vector<float>(out.begin(), out.end());
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
  // The last case rotates 2 of each head's 3 dimensions (RoPE).
  for (auto [mask, window, p, theta] :
       {std::tuple{AttentionMask::Causal, 0, 0.0f, 0.0},
        std::tuple{AttentionMask::Causal, 3, 0.3f, 0.0},
        std::tuple{AttentionMask::Bidirectional, 2, 0.0f, 0.0},
        std::tuple{AttentionMask::Causal, 3, 0.2f, 1e4}}) {
    AttentionConfig cfg = config(mask, window, p);
    cfg.rope = RopeParams{theta, theta > 0.0 ? 2 : 0};
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
                          " p=" + std::to_string(p) +
                          " theta=" + std::to_string(theta));
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

//===----------------------------------------------------------------------===//
// Grouped-query attention with rotary position embeddings: separate q (B,T,C)
// and k, v (B,T,KVH*HS).
//===----------------------------------------------------------------------===//

namespace {
const int GB = 2, GT = 7, GNH = 4, GHS = 8, GC = GNH * GHS;
const double kTheta = 10000.0;

AttentionConfig gqa_config(int kvh, AttentionMask mask, int window,
                           float p = 0.0f, double theta = 0.0, int dims = 0) {
  AttentionConfig cfg;
  cfg.B = GB;
  cfg.T = GT;
  cfg.NH = GNH;
  cfg.HS = GHS;
  cfg.KVH = kvh;
  cfg.mask = mask;
  cfg.window = window;
  cfg.dropout = DropoutParams{p, 17, 3, fnv1a64("h.1.attn.dropout")};
  cfg.rope = RopeParams{theta, dims};
  return cfg;
}

struct Qkv {
  std::vector<float> q, k, v;
};
Qkv gqa_inputs(const AttentionConfig &cfg, uint32_t seed) {
  size_t rows = size_t(cfg.B) * cfg.T;
  return {random_vector(rows * cfg.C(), seed),
          random_vector(rows * cfg.C_kv(), seed + 1),
          random_vector(rows * cfg.C_kv(), seed + 2)};
}

std::vector<float> run_gqa(const Qkv &x, const AttentionConfig &cfg,
                           std::vector<float> *att_out = nullptr) {
  std::vector<float> out(size_t(cfg.B) * cfg.T * cfg.C()),
      att(size_t(cfg.B) * cfg.NH * cfg.T * cfg.T);
  gqa_attention_forward(out.data(), att.data(), x.q.data(), x.k.data(),
                        x.v.data(), cfg);
  if (att_out)
    *att_out = att;
  return out;
}

/// Element (b, t, head, i) of a (B,T,heads*HS) tensor, rotated in double as
/// RoPE does at position t when theta > 0.
Accessor rotated(const std::vector<float> &x, int T, int heads, int HS,
                 double theta, int dims) {
  const int R = dims ? dims : HS, half = R / 2;
  return
      [&x, T, heads, HS, theta, R, half](int b, int t, int h, int i) -> double {
        const float *row = &x[(size_t(b) * T + t) * heads * HS + h * HS];
        if (theta <= 0.0 || i >= R)
          return row[i];
        int pair = i < half ? i : i - half;
        double angle = t * std::pow(theta, -2.0 * pair / R);
        double c = std::cos(angle), s = std::sin(angle);
        return i < half ? row[i] * c - double(row[i + half]) * s
                        : row[i] * c + double(row[i - half]) * s;
      };
}

std::vector<float> gqa_reference(const Qkv &x, const AttentionConfig &cfg,
                                 const std::function<bool(int, int)> &allowed) {
  int kvh = cfg.kv_heads();
  return naive_attention(
      cfg.B, cfg.T, cfg.NH, cfg.HS,
      rotated(x.q, cfg.T, cfg.NH, cfg.HS, cfg.rope.theta, cfg.rope.dims),
      rotated(x.k, cfg.T, kvh, cfg.HS, cfg.rope.theta, cfg.rope.dims),
      rotated(x.v, cfg.T, kvh, cfg.HS, 0.0, 0), allowed, cfg.dropout,
      cfg.head_offset, cfg.nh_global, cfg.NH / kvh);
}

std::function<bool(int, int)> allowed_keys(AttentionMask mask, int window) {
  if (mask == AttentionMask::Causal)
    return [window](int t, int s) {
      return s <= t && (window == 0 || s > t - window);
    };
  return [window](int t, int s) {
    return window == 0 || std::abs(t - s) < window;
  };
}
} // namespace

// KVH = NH (or 0) is the fused kernel on [q | k | v], with or without RoPE:
// the same output, probabilities and gradients, bit for bit.
TEST(GqaAttention, MultiHeadEqualsFusedAttention) {
  for (int kvh : {0, GNH})
    for (auto [mask, window, p, dims] :
         {std::tuple{AttentionMask::Causal, 0, 0.0f, -1},
          std::tuple{AttentionMask::Causal, 3, 0.3f, -1},
          std::tuple{AttentionMask::Bidirectional, 2, 0.2f, -1},
          std::tuple{AttentionMask::Causal, 0, 0.0f, 0},
          std::tuple{AttentionMask::Causal, 2, 0.3f, GHS / 2}}) {
      std::string what = "KVH " + std::to_string(kvh) + " window " +
                         std::to_string(window) + " rope dims " +
                         std::to_string(dims);
      AttentionConfig cfg = gqa_config(kvh, mask, window, p,
                                       dims < 0 ? 0.0 : kTheta,
                                       dims < 0 ? 0 : dims);
      AttentionConfig fused = cfg;
      fused.KVH = 0;
      Qkv x = gqa_inputs(cfg, 20);
      std::vector<float> qkv(GB * GT * 3 * GC);
      for (int n = 0; n < GB * GT; ++n)
        for (int j = 0; j < GC; ++j) {
          qkv[n * 3 * GC + j] = x.q[n * GC + j];
          qkv[n * 3 * GC + GC + j] = x.k[n * GC + j];
          qkv[n * 3 * GC + 2 * GC + j] = x.v[n * GC + j];
        }
      std::vector<float> out(GB * GT * GC), att(GB * GNH * GT * GT), gatt;
      attention_forward(out.data(), att.data(), qkv.data(), fused);
      EXPECT_EQ(run_gqa(x, cfg, &gatt), out) << what;
      EXPECT_EQ(gatt, att) << what;

      auto dy = random_vector(GB * GT * GC, 23);
      std::vector<float> dqkv(qkv.size(), 0.0f), dq(x.q.size(), 0.0f),
          dk(x.k.size(), 0.0f), dv(x.v.size(), 0.0f);
      attention_backward(dqkv.data(), dy.data(), qkv.data(), att.data(), fused);
      gqa_attention_backward(dq.data(), dk.data(), dv.data(), dy.data(),
                             x.q.data(), x.k.data(), x.v.data(), att.data(),
                             cfg);
      for (int n = 0; n < GB * GT; ++n)
        for (int j = 0; j < GC; ++j) {
          ASSERT_EQ(dq[n * GC + j], dqkv[n * 3 * GC + j]) << what;
          ASSERT_EQ(dk[n * GC + j], dqkv[n * 3 * GC + GC + j]) << what;
          ASSERT_EQ(dv[n * GC + j], dqkv[n * 3 * GC + 2 * GC + j]) << what;
        }
    }
}

TEST(GqaAttention, GroupedForwardMatchesReference) {
  for (int kvh : {2, 1})
    for (auto [mask, window, p] :
         {std::tuple{AttentionMask::Causal, 0, 0.0f},
          std::tuple{AttentionMask::Causal, 3, 0.0f},
          std::tuple{AttentionMask::Bidirectional, 0, 0.0f},
          std::tuple{AttentionMask::Bidirectional, 2, 0.0f},
          std::tuple{AttentionMask::Causal, 0, 0.3f}}) {
      AttentionConfig cfg = gqa_config(kvh, mask, window, p);
      Qkv x = gqa_inputs(cfg, 30);
      expect_close(run_gqa(x, cfg),
                   gqa_reference(x, cfg, allowed_keys(mask, window)), 1e-5f,
                   1e-5f,
                   "KVH " + std::to_string(kvh) + " window " +
                       std::to_string(window) + " p " + std::to_string(p));
    }
}

TEST(GqaAttention, RopeForwardMatchesReference) {
  for (int kvh : {GNH, 2, 1})
    for (int dims : {GHS, GHS / 2, 0})
      for (auto [mask, window] : {std::pair{AttentionMask::Causal, 0},
                                  std::pair{AttentionMask::Bidirectional, 3}}) {
        AttentionConfig cfg = gqa_config(kvh, mask, window, 0.0f, kTheta, dims);
        Qkv x = gqa_inputs(cfg, 40);
        std::string what = "KVH " + std::to_string(kvh) + " dims " +
                           std::to_string(dims) + " window " +
                           std::to_string(window);
        auto out = run_gqa(x, cfg);
        expect_close(out, gqa_reference(x, cfg, allowed_keys(mask, window)),
                     1e-5f, 1e-5f, what);
        // The rotation matters: without it the result is another one.
        AttentionConfig plain = cfg;
        plain.rope = {};
        EXPECT_NE(out, run_gqa(x, plain)) << what;
      }
}

TEST(GqaAttention, BackwardMatchesFiniteDifferences) {
  struct Case {
    int kvh;
    AttentionMask mask;
    int window;
    float p;
    int dims;
  };
  for (const Case &c : {Case{2, AttentionMask::Causal, 0, 0.0f, GHS},
                        Case{1, AttentionMask::Causal, 3, 0.3f, GHS / 2},
                        Case{2, AttentionMask::Bidirectional, 2, 0.2f, GHS},
                        Case{GNH, AttentionMask::Causal, 0, 0.0f, GHS / 2}}) {
    AttentionConfig cfg =
        gqa_config(c.kvh, c.mask, c.window, c.p, kTheta, c.dims);
    std::string what = "KVH " + std::to_string(c.kvh) + " window " +
                       std::to_string(c.window) + " p " + std::to_string(c.p) +
                       " dims " + std::to_string(c.dims);
    Qkv x = gqa_inputs(cfg, 50);
    auto dy = random_vector(GB * GT * GC, 53);
    std::vector<float> out, att;
    auto objective = [&] {
      out = run_gqa(x, cfg, &att);
      return weighted(out, dy);
    };
    objective();
    // Backward accumulates: start from 0.5 and take it off again.
    std::vector<float> dq(x.q.size(), 0.5f), dk(x.k.size(), 0.5f),
        dv(x.v.size(), 0.5f);
    gqa_attention_backward(dq.data(), dk.data(), dv.data(), dy.data(),
                           x.q.data(), x.k.data(), x.v.data(), att.data(), cfg);
    for (auto *g : {&dq, &dk, &dv})
      for (float &e : *g)
        e -= 0.5f;
    // Gradients asked for alone are the same.
    std::vector<float> dv_only(x.v.size(), 0.0f);
    gqa_attention_backward(nullptr, nullptr, dv_only.data(), dy.data(),
                           x.q.data(), x.k.data(), x.v.data(), att.data(), cfg);
    std::vector<float> dq_only(x.q.size(), 0.0f);
    gqa_attention_backward(dq_only.data(), nullptr, nullptr, dy.data(),
                           x.q.data(), x.k.data(), x.v.data(), att.data(), cfg);
    expect_grad_close(dq, numeric_grad(x.q, objective), 5e-3, what + " dq");
    expect_grad_close(dk, numeric_grad(x.k, objective), 5e-3, what + " dk");
    expect_grad_close(dv, numeric_grad(x.v, objective), 5e-3, what + " dv");
    expect_close(dv_only, dv, 1e-6f, 1e-5f, what + " dv alone");
    expect_close(dq_only, dq, 1e-6f, 1e-5f, what + " dq alone");
  }
}

// Decoding positions 0..T-1 one at a time gives the forward's rows bit for
// bit: the same rotation table, the same rotation code and the same
// softmax; the cache holds the rotated keys and the values as given.
TEST(GqaAttention, DecodeMatchesForwardBitForBit) {
  for (auto [kvh, window, dims] :
       {std::tuple{2, 3, 0}, std::tuple{1, 0, GHS / 2}, std::tuple{GNH, 2, GHS},
        std::tuple{2, 0, GHS / 2}}) {
    std::string what = "KVH " + std::to_string(kvh) + " window " +
                       std::to_string(window) + " dims " + std::to_string(dims);
    AttentionConfig cfg =
        gqa_config(kvh, AttentionMask::Causal, window, 0.0f, kTheta, dims);
    Qkv x = gqa_inputs(cfg, 60);
    auto full = run_gqa(x, cfg);
    const int Ckv = cfg.C_kv(), capacity = GT + 3;
    AttentionConfig step = cfg;
    step.T = 1;
    std::vector<float> kcache(GB * capacity * Ckv, -7.0f), vcache = kcache;
    std::vector<float> q(GB * GC), k(GB * Ckv), v(GB * Ckv), o(GB * GC);
    for (int t = 0; t < GT; ++t) {
      for (int b = 0; b < GB; ++b) {
        std::copy_n(&x.q[(b * GT + t) * GC], GC, &q[b * GC]);
        std::copy_n(&x.k[(b * GT + t) * Ckv], Ckv, &k[b * Ckv]);
        std::copy_n(&x.v[(b * GT + t) * Ckv], Ckv, &v[b * Ckv]);
      }
      decode_gqa_attention_forward(o.data(), kcache.data(), vcache.data(),
                                   q.data(), k.data(), v.data(), t, capacity,
                                   step);
      for (int b = 0; b < GB; ++b)
        for (int j = 0; j < GC; ++j)
          ASSERT_EQ(o[b * GC + j], full[(b * GT + t) * GC + j])
              << what << " position " << t << " sequence " << b;
    }
    Accessor rk = rotated(x.k, GT, kvh, GHS, kTheta, dims);
    for (int b = 0; b < GB; ++b)
      for (int p = 0; p < capacity; ++p)
        for (int j = 0; j < Ckv; ++j) {
          float kc = kcache[(b * capacity + p) * Ckv + j],
                vc = vcache[(b * capacity + p) * Ckv + j];
          if (p >= GT) {
            ASSERT_EQ(kc, -7.0f);
            ASSERT_EQ(vc, -7.0f);
            continue;
          }
          ASSERT_EQ(vc, x.v[(b * GT + p) * Ckv + j]);
          ASSERT_NEAR(kc, rk(b, p, j / GHS, j % GHS), 1e-5) << what;
        }
  }
}

// Heads split over tp ranks: each rank holds its query heads and the KV heads
// they read (replicated when there are more ranks than KV heads). Dropout is
// keyed by the global query head, so the ranks' columns are the unsplit
// output's; with whole groups per rank the gradients are too.
TEST(GqaAttention, HeadSplitKeepsDropoutKeyedByGlobalHead) {
  const int kvh = 2, group = GNH / kvh, hs = GHS;
  AttentionConfig full =
      gqa_config(kvh, AttentionMask::Causal, 0, 0.4f, kTheta, 0);
  Qkv x = gqa_inputs(full, 70);
  std::vector<float> att;
  auto out = run_gqa(x, full, &att);
  auto dy = random_vector(GB * GT * GC, 73);
  std::vector<float> dq(x.q.size(), 0.0f), dk(x.k.size(), 0.0f),
      dv(x.v.size(), 0.0f);
  gqa_attention_backward(dq.data(), dk.data(), dv.data(), dy.data(), x.q.data(),
                         x.k.data(), x.v.data(), att.data(), full);
  const int Ckv = kvh * hs;
  for (int tp : {2, 4}) {
    const int nl = GNH / tp, cl = nl * hs;
    for (int r = 0; r < tp; ++r) {
      const int kv0 = r * nl / group; // the KV head of the rank's heads
      AttentionConfig cfg = full;
      cfg.NH = nl;
      cfg.KVH = 1;
      cfg.head_offset = r * nl;
      cfg.nh_global = GNH;
      Qkv local;
      std::vector<float> ldy(GB * GT * cl);
      for (int n = 0; n < GB * GT; ++n) {
        for (int j = 0; j < cl; ++j) {
          local.q.push_back(x.q[n * GC + r * cl + j]);
          ldy[n * cl + j] = dy[n * GC + r * cl + j];
        }
        for (int j = 0; j < hs; ++j) {
          local.k.push_back(x.k[n * Ckv + kv0 * hs + j]);
          local.v.push_back(x.v[n * Ckv + kv0 * hs + j]);
        }
      }
      std::vector<float> latt;
      auto lo = run_gqa(local, cfg, &latt);
      for (int n = 0; n < GB * GT; ++n)
        for (int j = 0; j < cl; ++j)
          ASSERT_EQ(lo[n * cl + j], out[n * GC + r * cl + j])
              << "tp=" << tp << " rank=" << r;
      std::vector<float> ldq(local.q.size(), 0.0f), ldk(local.k.size(), 0.0f),
          ldv(local.v.size(), 0.0f);
      gqa_attention_backward(ldq.data(), ldk.data(), ldv.data(), ldy.data(),
                             local.q.data(), local.k.data(), local.v.data(),
                             latt.data(), cfg);
      for (int n = 0; n < GB * GT; ++n) {
        for (int j = 0; j < cl; ++j)
          ASSERT_EQ(ldq[n * cl + j], dq[n * GC + r * cl + j])
              << "tp=" << tp << " rank=" << r;
        if (nl == group) // a whole group: its dk and dv are the rank's own
          for (int j = 0; j < hs; ++j) {
            ASSERT_EQ(ldk[n * hs + j], dk[n * Ckv + kv0 * hs + j]);
            ASSERT_EQ(ldv[n * hs + j], dv[n * Ckv + kv0 * hs + j]);
          }
      }
      // Keyed by the local head instead, rank 1 would draw rank 0's masks.
      if (r > 0) {
        AttentionConfig unkeyed = cfg;
        unkeyed.head_offset = 0;
        unkeyed.nh_global = 0;
        EXPECT_NE(run_gqa(local, unkeyed), lo) << "tp=" << tp;
      }
    }
  }
}

// tp = 4 over 2 KV heads: each rank keeps both KV heads (kv_replicated) and
// its one query head reads the KV head of its global index. Forward and dq
// equal the unsplit op's columns bit for bit; the ranks' dk and dv sum to its.
TEST(GqaAttention, ReplicatedKvHeadsMatchTheUnsplitOp) {
  const int kvh = 2, hs = GHS, tp = 4, nl = GNH / tp, cl = nl * hs;
  AttentionConfig full =
      gqa_config(kvh, AttentionMask::Causal, 0, 0.3f, kTheta, 0);
  Qkv x = gqa_inputs(full, 90);
  std::vector<float> att;
  auto out = run_gqa(x, full, &att);
  auto dy = random_vector(GB * GT * GC, 93);
  std::vector<float> dq(x.q.size(), 0.0f), dk(x.k.size(), 0.0f),
      dv(x.v.size(), 0.0f);
  gqa_attention_backward(dq.data(), dk.data(), dv.data(), dy.data(), x.q.data(),
                         x.k.data(), x.v.data(), att.data(), full);
  std::vector<float> sum_dk(dk.size(), 0.0f), sum_dv(dv.size(), 0.0f);
  for (int r = 0; r < tp; ++r) {
    AttentionConfig cfg = full;
    cfg.NH = nl;
    cfg.KVH = kvh;
    cfg.kv_replicated = true;
    cfg.head_offset = r * nl;
    cfg.nh_global = GNH;
    Qkv local;
    local.k = x.k;
    local.v = x.v;
    std::vector<float> ldy(GB * GT * cl);
    for (int n = 0; n < GB * GT; ++n)
      for (int j = 0; j < cl; ++j) {
        local.q.push_back(x.q[n * GC + r * cl + j]);
        ldy[n * cl + j] = dy[n * GC + r * cl + j];
      }
    std::vector<float> latt;
    auto lo = run_gqa(local, cfg, &latt);
    for (int n = 0; n < GB * GT; ++n)
      for (int j = 0; j < cl; ++j)
        ASSERT_EQ(lo[n * cl + j], out[n * GC + r * cl + j]) << "rank " << r;
    std::vector<float> ldq(local.q.size(), 0.0f), ldk(x.k.size(), 0.0f),
        ldv(x.v.size(), 0.0f);
    gqa_attention_backward(ldq.data(), ldk.data(), ldv.data(), ldy.data(),
                           local.q.data(), local.k.data(), local.v.data(),
                           latt.data(), cfg);
    for (int n = 0; n < GB * GT; ++n)
      for (int j = 0; j < cl; ++j)
        ASSERT_EQ(ldq[n * cl + j], dq[n * GC + r * cl + j]) << "rank " << r;
    for (size_t i = 0; i < dk.size(); ++i) {
      sum_dk[i] += ldk[i];
      sum_dv[i] += ldv[i];
    }
  }
  for (size_t i = 0; i < dk.size(); ++i) {
    EXPECT_NEAR(sum_dk[i], dk[i], 1e-6f + 1e-5f * std::fabs(dk[i]));
    EXPECT_NEAR(sum_dv[i], dv[i], 1e-6f + 1e-5f * std::fabs(dv[i]));
  }
  // Without kv_replicated one local query head cannot form a group over two
  // KV heads: refused rather than read by its local index.
  AttentionConfig local_map = full;
  local_map.NH = nl;
  local_map.KVH = kvh;
  local_map.head_offset = 3 * nl;
  local_map.nh_global = GNH;
  EXPECT_THROW(run_gqa(x, local_map), std::invalid_argument);
}

TEST(GqaAttention, BadConfigurationThrows) {
  AttentionConfig ok = gqa_config(2, AttentionMask::Causal, 0, 0.0f, kTheta);
  Qkv x = gqa_inputs(gqa_config(GNH, AttentionMask::Causal, 0), 80);
  auto forward = [&](const AttentionConfig &cfg) { run_gqa(x, cfg); };
  EXPECT_NO_THROW(forward(ok));
  AttentionConfig bad = ok;
  bad.KVH = 3; // 4 query heads do not split into groups over 3
  EXPECT_THROW(forward(bad), std::invalid_argument);
  bad.KVH = -1;
  EXPECT_THROW(forward(bad), std::invalid_argument);
  bad = ok;
  bad.rope.dims = 3; // odd
  EXPECT_THROW(forward(bad), std::invalid_argument);
  bad.rope.dims = GHS + 2; // wider than a head
  EXPECT_THROW(forward(bad), std::invalid_argument);
  bad.rope.dims = 0;
  bad.rope.theta = -1.0;
  EXPECT_THROW(forward(bad), std::invalid_argument);
  bad = ok;
  bad.mask = AttentionMask::StrictlyEarlier;
  EXPECT_THROW(forward(bad), std::invalid_argument);
  // The fused kernels take no KV groups; RoPE they do, with the same checks.
  std::vector<float> qkv(GB * GT * 3 * GC), out(GB * GT * GC),
      att(GB * GNH * GT * GT);
  AttentionConfig fused = gqa_config(2, AttentionMask::Causal, 0);
  EXPECT_THROW(attention_forward(out.data(), att.data(), qkv.data(), fused),
               std::invalid_argument);
  fused = gqa_config(0, AttentionMask::Causal, 0, 0.0f, kTheta);
  EXPECT_NO_THROW(attention_forward(out.data(), att.data(), qkv.data(), fused));
  fused.rope.dims = GHS + 2;
  EXPECT_THROW(attention_forward(out.data(), att.data(), qkv.data(), fused),
               std::invalid_argument);
}

//===----------------------------------------------------------------------===//
// Rotary positions in the fused self-attention and in cross-attention
// (StagFormer with RoPE): query t and key s turn by their own positions.
//===----------------------------------------------------------------------===//

namespace {
/// q (B,T,C) and kv (B,T,2C) of cross-attention, and kv's two halves apart
/// for the reference.
struct CrossInputs {
  std::vector<float> q, kv, k, v;
};
CrossInputs cross_inputs(uint32_t seed) {
  CrossInputs x;
  x.q = random_vector(GB * GT * GC, seed);
  x.kv = random_vector(GB * GT * 2 * GC, seed + 1);
  x.k.resize(GB * GT * GC);
  x.v.resize(GB * GT * GC);
  for (int n = 0; n < GB * GT; ++n)
    for (int j = 0; j < GC; ++j) {
      x.k[n * GC + j] = x.kv[n * 2 * GC + j];
      x.v[n * GC + j] = x.kv[n * 2 * GC + GC + j];
    }
  return x;
}

std::vector<float> run_cross(const CrossInputs &x, const AttentionConfig &cfg,
                             std::vector<float> *att_out = nullptr) {
  std::vector<float> out(GB * GT * GC), att(GB * GNH * GT * GT);
  cross_attention_forward(out.data(), att.data(), x.q.data(), x.kv.data(), cfg);
  if (att_out)
    *att_out = att;
  return out;
}
} // namespace

TEST(RotaryAttention, CrossForwardMatchesReference) {
  for (auto [window, dims] : {std::pair{0, 0}, std::pair{2, GHS / 2}}) {
    AttentionConfig cfg = gqa_config(0, AttentionMask::StrictlyEarlier, window,
                                     0.0f, kTheta, dims);
    CrossInputs x = cross_inputs(90);
    auto allowed = [window = window](int t, int s) {
      return s < t && (window == 0 || s >= t - window);
    };
    auto expect = naive_attention(
        GB, GT, GNH, GHS, rotated(x.q, GT, GNH, GHS, kTheta, dims),
        rotated(x.k, GT, GNH, GHS, kTheta, dims),
        rotated(x.v, GT, GNH, GHS, 0.0, 0), allowed);
    std::string what =
        "window " + std::to_string(window) + " dims " + std::to_string(dims);
    auto out = run_cross(x, cfg);
    expect_close(out, expect, 1e-5f, 1e-5f, what);
    AttentionConfig plain = cfg;
    plain.rope = {};
    EXPECT_NE(out, run_cross(x, plain)) << what;
  }
}

TEST(RotaryAttention, CrossBackwardMatchesFiniteDifferences) {
  for (auto [window, p, dims] :
       {std::tuple{0, 0.0f, 0}, std::tuple{3, 0.25f, GHS / 2}}) {
    AttentionConfig cfg = gqa_config(0, AttentionMask::StrictlyEarlier, window,
                                     p, kTheta, dims);
    CrossInputs x = cross_inputs(91);
    auto dy = random_vector(GB * GT * GC, 93);
    std::vector<float> out, att;
    auto objective = [&] {
      out = run_cross(x, cfg, &att);
      return weighted(out, dy);
    };
    objective();
    std::vector<float> dq(x.q.size(), 0.0f), dkv(x.kv.size(), 0.0f);
    cross_attention_backward(dq.data(), dkv.data(), dy.data(), x.q.data(),
                             x.kv.data(), att.data(), cfg);
    std::string what =
        "window " + std::to_string(window) + " dims " + std::to_string(dims);
    expect_grad_close(dq, numeric_grad(x.q, objective), 5e-3, what + " dq");
    expect_grad_close(dkv, numeric_grad(x.kv, objective), 5e-3, what + " dkv");
  }
}

// Decoding with RoPE rotates at pos with the forward's table and code: the
// decoded rows are the forward's bit for bit, for self- and cross-attention.
TEST(RotaryAttention, DecodeMatchesForwardBitForBit) {
  for (auto [window, dims] : {std::pair{0, 0}, std::pair{2, GHS / 2}}) {
    std::string what =
        "window " + std::to_string(window) + " dims " + std::to_string(dims);
    const int capacity = GT + 2;
    AttentionConfig self =
        gqa_config(0, AttentionMask::Causal, window, 0.0f, kTheta, dims);
    AttentionConfig cross = self;
    cross.mask = AttentionMask::StrictlyEarlier;
    auto qkv = random_vector(GB * GT * 3 * GC, 96);
    CrossInputs x = cross_inputs(97);
    std::vector<float> full_self(GB * GT * GC), att(GB * GNH * GT * GT);
    attention_forward(full_self.data(), att.data(), qkv.data(), self);
    auto full_cross = run_cross(x, cross);

    AttentionConfig step_self = self, step_cross = cross;
    step_self.T = step_cross.T = 1;
    std::vector<float> ks(GB * capacity * GC), vs = ks, kx = ks, vx = ks;
    std::vector<float> qkv1(GB * 3 * GC), q1(GB * GC), kv1(GB * 2 * GC),
        o(GB * GC);
    for (int t = 0; t < GT; ++t) {
      for (int b = 0; b < GB; ++b) {
        std::copy_n(&qkv[(b * GT + t) * 3 * GC], 3 * GC, &qkv1[b * 3 * GC]);
        std::copy_n(&x.q[(b * GT + t) * GC], GC, &q1[b * GC]);
        std::copy_n(&x.kv[(b * GT + t) * 2 * GC], 2 * GC, &kv1[b * 2 * GC]);
      }
      decode_attention_forward(o.data(), ks.data(), vs.data(), qkv1.data(), t,
                               capacity, step_self);
      for (int b = 0; b < GB; ++b)
        for (int j = 0; j < GC; ++j)
          ASSERT_EQ(o[b * GC + j], full_self[(b * GT + t) * GC + j])
              << what << " self, position " << t;
      decode_cross_attention_forward(o.data(), kx.data(), vx.data(), q1.data(),
                                     kv1.data(), t, capacity, step_cross);
      for (int b = 0; b < GB; ++b)
        for (int j = 0; j < GC; ++j)
          ASSERT_EQ(o[b * GC + j], full_cross[(b * GT + t) * GC + j])
              << what << " cross, position " << t;
    }
  }
}

// A lagged decode cross-attention receives position t - 1's k and v with
// position t's query (recurrent decoding knows a token's final activation
// only after its step): it writes them at t - 1, rotated there under RoPE,
// and attends over [0, t) including them, which is the forward's row t bit
// for bit, as the unlagged op that got them one call earlier.
TEST(RotaryAttention, LaggedDecodeCrossMatchesForwardBitForBit) {
  for (auto [window, dims] :
       {std::pair{0, 0}, std::pair{2, 0}, std::pair{0, GHS / 2},
        std::pair{3, GHS / 2}}) {
    std::string what =
        "window " + std::to_string(window) + " dims " + std::to_string(dims);
    const int capacity = GT + 1;
    AttentionConfig cross = gqa_config(0, AttentionMask::StrictlyEarlier,
                                       window, 0.0f, kTheta, dims);
    CrossInputs x = cross_inputs(98);
    auto full = run_cross(x, cross);
    AttentionConfig step = cross;
    step.T = 1;
    // -7: what the cache held before, which position t must not see.
    std::vector<float> kx(GB * capacity * GC, -7.0f), vx = kx;
    std::vector<float> q1(GB * GC), kv1(GB * 2 * GC, 0.0f), o(GB * GC);
    for (int t = 0; t < GT; ++t) {
      for (int b = 0; b < GB; ++b) {
        std::copy_n(&x.q[(b * GT + t) * GC], GC, &q1[b * GC]);
        if (t > 0)
          std::copy_n(&x.kv[(b * GT + t - 1) * 2 * GC], 2 * GC,
                      &kv1[b * 2 * GC]);
      }
      decode_cross_attention_forward(o.data(), kx.data(), vx.data(), q1.data(),
                                     kv1.data(), t, capacity, step,
                                     /*lagged=*/true);
      for (int b = 0; b < GB; ++b)
        for (int j = 0; j < GC; ++j)
          ASSERT_EQ(o[b * GC + j], full[(b * GT + t) * GC + j])
              << what << ", position " << t;
    }
    // Position t's own k and v never entered the cache.
    for (int b = 0; b < GB; ++b)
      EXPECT_EQ(kx[(size_t(b) * capacity + GT - 1) * GC], -7.0f) << what;
  }
}

//===----------------------------------------------------------------------===//
// Every vector width
//===----------------------------------------------------------------------===//

namespace {
/// Runs the attention kernels with at most `lanes` float lanes while alive.
struct LanesCap {
  explicit LanesCap(int lanes) { max_vector_lanes = lanes; }
  ~LanesCap() { max_vector_lanes = 16; }
};
} // namespace

// The shapes above are smaller than one vector. Here T = 75 keys take the
// score loops' chunks of 2 and 1 vectors and a scalar tail, HS = 53 =
// 3 * 16 + 5 the row loops' chunks and tails, and the 75 query rows blocks
// of 8 (or 4) and single rows, at each width the CPU has: forward against
// the reference, backward against central differences at sampled elements,
// and decoding against the forward bit for bit.
TEST(Attention, EveryVectorWidthOnVectorShapes) {
  const int b = 1, t = 75, nh = 2, hs = 53, c = nh * hs;
  AttentionConfig cfg;
  cfg.B = b;
  cfg.T = t;
  cfg.NH = nh;
  cfg.HS = hs;
  cfg.mask = AttentionMask::Causal;
  auto qkv = random_vector(size_t(b) * t * 3 * c, 31);
  auto dy = random_vector(size_t(b) * t * c, 32);
  auto get = [&](int part) {
    return [&, part](int bb, int tt, int h, int i) {
      return qkv[(bb * t + tt) * 3 * c + part * c + h * hs + i];
    };
  };
  auto expect = naive_attention(b, t, nh, hs, get(0), get(1), get(2),
                                [](int q, int s) { return s <= q; });
  for (int lanes : {16, 8, 4}) {
    if (lanes > cpu_lanes())
      continue;
    LanesCap cap(lanes);
    const std::string what = std::to_string(lanes) + " lanes";
    std::vector<float> out(size_t(b) * t * c), att(size_t(b) * nh * t * t);
    auto objective = [&] {
      attention_forward(out.data(), att.data(), qkv.data(), cfg);
      return weighted(out, dy);
    };
    objective();
    expect_close(out, expect, 1e-5f, 1e-5f, what + " forward");
    const std::vector<float> forward = out;

    std::vector<float> dqkv(qkv.size(), 0.0f);
    attention_backward(dqkv.data(), dy.data(), qkv.data(), att.data(), cfg);
    std::vector<float> analytic;
    std::vector<double> numeric;
    for (size_t i = 0; i < qkv.size(); i += 97) { // q, k and v alike
      const float saved = qkv[i], h = 1e-2f;
      qkv[i] = saved + h;
      const double up = objective();
      qkv[i] = saved - h;
      const double down = objective();
      qkv[i] = saved;
      analytic.push_back(dqkv[i]);
      numeric.push_back((up - down) / (2.0 * h));
    }
    expect_grad_close(analytic, numeric, 5e-3, what + " backward");

    AttentionConfig one = cfg;
    one.T = 1;
    const int capacity = t + 3;
    std::vector<float> kcache(size_t(b) * capacity * c), vcache = kcache;
    std::vector<float> o(size_t(b) * c);
    for (int pos = 0; pos < t; ++pos) {
      decode_attention_forward(o.data(), kcache.data(), vcache.data(),
                               &qkv[size_t(pos) * 3 * c], pos, capacity, one);
      for (int i = 0; i < c; ++i)
        ASSERT_EQ(o[i], forward[size_t(pos) * c + i])
            << what << " decoding position " << pos << " element " << i;
    }
  }
}

// The softmax subtracts each row's largest score before exponentiating:
// one key scores 160 (e^160 overflows a float) and the others 0. Put at
// every position, in a vector's every lane and in the scalar tail, at every
// width, it must be found, or its exponential overflows to inf and the
// output to NaN. Each query that sees it then returns its value.
TEST(Attention, SoftmaxFindsTheLargestScoreAtEveryPosition) {
  const int t = 75, hs = 16;
  AttentionConfig cfg;
  cfg.B = 1;
  cfg.T = t;
  cfg.NH = 1;
  cfg.HS = hs;
  cfg.mask = AttentionMask::Causal;
  for (int lanes : {16, 8, 4}) {
    if (lanes > cpu_lanes())
      continue;
    LanesCap cap(lanes);
    for (int top = 0; top < t; ++top) {
      std::vector<float> qkv(size_t(t) * 3 * hs, 0.0f);
      for (int s = 0; s < t; ++s)
        for (int i = 0; i < hs; ++i) {
          qkv[size_t(s) * 3 * hs + i] = 1.0f;                      // q
          qkv[size_t(s) * 3 * hs + hs + i] = s == top ? 40.0f : 0; // k
          qkv[size_t(s) * 3 * hs + 2 * hs + i] = float(s + i);     // v
        }
      std::vector<float> out(size_t(t) * hs);
      attention_forward(out.data(), nullptr, qkv.data(), cfg);
      for (int q = top; q < t; ++q)
        for (int i = 0; i < hs; ++i)
          ASSERT_NEAR(out[size_t(q) * hs + i], float(top + i), 1e-3f)
              << lanes << " lanes, largest score at key " << top << ", query "
              << q << ", element " << i;
    }
  }
}

// A 16-bit cache holds each row rounded once and is read only where the
// attention looks: with keys and values that bf16 represents exactly, the
// bf16 cache decodes as the fp32 one bit for bit, and the rows past the
// position stay as they were.
TEST(Attention, DecodeWithBf16CacheMatchesFp32Cache) {
  const int b = 2, t = 40, nh = 2, hs = 53, c = nh * hs, capacity = t + 7;
  AttentionConfig one;
  one.B = b;
  one.T = 1;
  one.NH = nh;
  one.HS = hs;
  one.mask = AttentionMask::Causal;
  auto qkv = random_vector(size_t(b) * t * 3 * c, 41);
  for (float &x : qkv)
    x = bf16_to_f32(f32_to_bf16(x));
  const uint16_t sentinel = f32_to_bf16(-7.0f);
  std::vector<float> kf(size_t(b) * capacity * c), vf = kf;
  std::vector<uint16_t> kh(kf.size(), sentinel), vh = kh;
  std::vector<float> step(size_t(b) * 3 * c), of(size_t(b) * c),
      oh(size_t(b) * c);
  for (int pos = 0; pos < t; ++pos) {
    for (int bb = 0; bb < b; ++bb)
      std::copy_n(&qkv[(size_t(bb) * t + pos) * 3 * c], 3 * c,
                  &step[size_t(bb) * 3 * c]);
    decode_attention_forward(of.data(), kf.data(), vf.data(), step.data(), pos,
                             capacity, one);
    decode_attention_forward<BF16Storage>(oh.data(), kh.data(), vh.data(),
                                          step.data(), pos, capacity, one);
    ASSERT_EQ(of, oh) << "position " << pos;
  }
  for (int bb = 0; bb < b; ++bb)
    for (int p = 0; p < capacity; ++p)
      for (int i = 0; i < c; ++i) {
        const size_t at = (size_t(bb) * capacity + p) * c + i;
        if (p < t) {
          ASSERT_EQ(bf16_to_f32(kh[at]), kf[at]) << "key row " << p;
          ASSERT_EQ(bf16_to_f32(vh[at]), vf[at]) << "value row " << p;
        } else {
          ASSERT_EQ(kh[at], sentinel) << "key row " << p << " past the last";
          ASSERT_EQ(vh[at], sentinel) << "value row " << p << " past the last";
        }
      }
}

// Without a probabilities tensor (att null) the forward saves nothing and
// the backward recomputes each block of probabilities from q and k: the
// outputs and gradients of the saved path, bit for bit, for every kernel
// and option (masks, windows, dropout, RoPE, KV groups, missing gradients)
// at every vector width, on shapes that take the loops' chunks and tails.
TEST(Attention, RecomputedProbabilitiesGiveTheSavedResultsBitForBit) {
  const int b = 2, t = 37, nh = 4, hs = 22, c = nh * hs;
  auto config = [&](AttentionMask mask, int window, float p, double theta,
                    int kvh) {
    AttentionConfig cfg;
    cfg.B = b;
    cfg.T = t;
    cfg.NH = nh;
    cfg.HS = hs;
    cfg.KVH = kvh;
    cfg.mask = mask;
    cfg.window = window;
    cfg.dropout = DropoutParams{p, 5, 2, fnv1a64("h.3.attn.dropout")};
    cfg.rope = RopeParams{theta, 0};
    return cfg;
  };
  auto same = [](const std::vector<float> &x, const std::vector<float> &y,
                 const std::string &what) {
    ASSERT_EQ(x.size(), y.size()) << what;
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(x[i], y[i]) << what << " element " << i;
  };
  const size_t rows = size_t(b) * t, probs = rows * nh * t;
  auto dy = random_vector(rows * c, 71);
  for (int lanes : {16, 8, 4}) {
    if (lanes > cpu_lanes())
      continue;
    LanesCap cap(lanes);
    for (AttentionMask mask :
         {AttentionMask::Causal, AttentionMask::Bidirectional,
          AttentionMask::StrictlyEarlier})
      for (int window : {0, 5})
        for (float p : {0.0f, 0.25f})
          for (double theta : {0.0, 10000.0}) {
            const std::string what = std::to_string(lanes) + " lanes, mask " +
                                     std::to_string(int(mask)) + ", window " +
                                     std::to_string(window) + ", dropout " +
                                     std::to_string(p) + ", theta " +
                                     std::to_string(theta);
            std::vector<float> att(probs), out(rows * c), out0(rows * c);
            if (mask == AttentionMask::StrictlyEarlier) {
              AttentionConfig cfg = config(mask, window, p, theta, 0);
              auto q = random_vector(rows * c, 72);
              auto kv = random_vector(rows * 2 * c, 73);
              cross_attention_forward(out.data(), att.data(), q.data(),
                                      kv.data(), cfg);
              cross_attention_forward(out0.data(), nullptr, q.data(), kv.data(),
                                      cfg);
              same(out, out0, what + " cross forward");
              std::vector<float> dq(q.size(), 0.5f), dkv(kv.size(), 0.5f);
              std::vector<float> dq0 = dq, dkv0 = dkv;
              cross_attention_backward(dq.data(), dkv.data(), dy.data(),
                                       q.data(), kv.data(), att.data(), cfg);
              cross_attention_backward(dq0.data(), dkv0.data(), dy.data(),
                                       q.data(), kv.data(), nullptr, cfg);
              same(dq, dq0, what + " cross dq");
              same(dkv, dkv0, what + " cross dkv");
              continue;
            }
            AttentionConfig cfg = config(mask, window, p, theta, 0);
            auto qkv = random_vector(rows * 3 * c, 74);
            attention_forward(out.data(), att.data(), qkv.data(), cfg);
            attention_forward(out0.data(), nullptr, qkv.data(), cfg);
            same(out, out0, what + " forward");
            std::vector<float> dqkv(qkv.size(), 0.5f), dqkv0 = dqkv;
            attention_backward(dqkv.data(), dy.data(), qkv.data(), att.data(),
                               cfg);
            attention_backward(dqkv0.data(), dy.data(), qkv.data(), nullptr,
                               cfg);
            same(dqkv, dqkv0, what + " dqkv");

            // Two query heads per KV head, and the gradients one at a time.
            AttentionConfig g = config(mask, window, p, theta, 2);
            Qkv x = gqa_inputs(g, 75);
            gqa_attention_forward(out.data(), att.data(), x.q.data(),
                                  x.k.data(), x.v.data(), g);
            gqa_attention_forward(out0.data(), nullptr, x.q.data(), x.k.data(),
                                  x.v.data(), g);
            same(out, out0, what + " gqa forward");
            for (int only = -1; only < 3; ++only) {
              std::vector<float> d[2][3];
              for (auto &set : d) {
                set[0].assign(x.q.size(), 0.0f);
                set[1].assign(x.k.size(), 0.0f);
                set[2].assign(x.v.size(), 0.0f);
              }
              auto ptr = [&](int set, int i) {
                return only < 0 || only == i ? d[set][i].data() : nullptr;
              };
              gqa_attention_backward(ptr(0, 0), ptr(0, 1), ptr(0, 2), dy.data(),
                                     x.q.data(), x.k.data(), x.v.data(),
                                     att.data(), g);
              gqa_attention_backward(ptr(1, 0), ptr(1, 1), ptr(1, 2), dy.data(),
                                     x.q.data(), x.k.data(), x.v.data(),
                                     nullptr, g);
              for (int i = 0; i < 3; ++i)
                same(
                    d[0][i], d[1][i],
                    what + " gqa gradient " + std::to_string(i) + " of " +
                        (only < 0 ? std::string("all") : std::to_string(only)));
            }
          }
  }
}

namespace {

/// fp32 values rounded to storage type S, and their exact fp32 widening.
template <class S> struct Stored {
  std::vector<typename S::type> s;
  std::vector<float> f;
  Stored(size_t n, uint32_t seed) : s(n), f(n) {
    auto x = random_vector(n, seed);
    for (size_t i = 0; i < n; ++i)
      f[i] = S::load(s[i] = S::store(x[i]));
  }
  typename S::type *data() { return s.data(); }
  /// The fp32 result `wide` rounded to S, bit for bit equal to s?
  bool rounds_to(const std::vector<float> &wide) const {
    for (size_t i = 0; i < s.size(); ++i)
      if (S::store(wide[i]) != s[i])
        return false;
    return true;
  }
};

template <class S> void check_stored_attention() {
  const int b = 2, t = 37, nh = 4, hs = 22, c = nh * hs;
  const size_t rows = size_t(b) * t;
  for (int lanes : {16, 8, 4}) {
    if (lanes > cpu_lanes())
      continue;
    LanesCap cap(lanes);
    for (AttentionMask mask :
         {AttentionMask::Causal, AttentionMask::Bidirectional})
      for (int window : {0, 5})
        for (float p : {0.0f, 0.25f})
          for (bool save : {false, true}) {
            AttentionConfig cfg;
            cfg.B = b;
            cfg.T = t;
            cfg.NH = nh;
            cfg.HS = hs;
            cfg.mask = mask;
            cfg.window = window;
            cfg.dropout = DropoutParams{p, 5, 2, fnv1a64("h.1.attn.dropout")};
            const std::string what = std::to_string(lanes) + " lanes, mask " +
                                     std::to_string(int(mask)) + ", window " +
                                     std::to_string(window) + ", dropout " +
                                     std::to_string(p) +
                                     (save ? ", saved" : ", recomputed");
            std::vector<float> att(save ? rows * nh * t : 0);
            float *a = save ? att.data() : nullptr;

            // Fused self-attention; the gradient adds to what is there.
            Stored<S> qkv(rows * 3 * c, 81), dy(rows * c, 82),
                dqkv(rows * 3 * c, 83), out(rows * c, 84);
            std::vector<float> want(rows * c), dwant = dqkv.f;
            attention_forward(want.data(), a, qkv.f.data(), cfg);
            attention_forward<S>(out.data(), a, qkv.data(), cfg);
            ASSERT_TRUE(out.rounds_to(want)) << what << " forward";
            attention_backward(dwant.data(), dy.f.data(), qkv.f.data(), a, cfg);
            attention_backward<S>(dqkv.data(), dy.data(), qkv.data(), a, cfg);
            ASSERT_TRUE(dqkv.rounds_to(dwant)) << what << " backward";

            // Cross-attention.
            AttentionConfig x = cfg;
            x.mask = AttentionMask::StrictlyEarlier;
            Stored<S> q(rows * c, 85), kv(rows * 2 * c, 86), dq(rows * c, 87),
                dkv(rows * 2 * c, 88);
            std::vector<float> dqw = dq.f, dkvw = dkv.f;
            cross_attention_forward(want.data(), a, q.f.data(), kv.f.data(), x);
            cross_attention_forward<S>(out.data(), a, q.data(), kv.data(), x);
            ASSERT_TRUE(out.rounds_to(want)) << what << " cross forward";
            cross_attention_backward(dqw.data(), dkvw.data(), dy.f.data(),
                                     q.f.data(), kv.f.data(), a, x);
            cross_attention_backward<S>(dq.data(), dkv.data(), dy.data(),
                                        q.data(), kv.data(), a, x);
            ASSERT_TRUE(dq.rounds_to(dqw)) << what << " cross dq";
            ASSERT_TRUE(dkv.rounds_to(dkvw)) << what << " cross dkv";

            // Two query heads per KV head; each gradient may be left out.
            AttentionConfig g = cfg;
            g.KVH = 2;
            const size_t ckv = size_t(g.C_kv());
            Stored<S> k(rows * ckv, 89), v(rows * ckv, 90);
            gqa_attention_forward(want.data(), a, q.f.data(), k.f.data(),
                                  v.f.data(), g);
            gqa_attention_forward<S>(out.data(), a, q.data(), k.data(),
                                     v.data(), g);
            ASSERT_TRUE(out.rounds_to(want)) << what << " gqa forward";
            for (int only = -1; only < 3; ++only) {
              Stored<S> d[3] = {Stored<S>(rows * c, 91),
                                Stored<S>(rows * ckv, 92),
                                Stored<S>(rows * ckv, 93)};
              std::vector<float> w[3] = {d[0].f, d[1].f, d[2].f};
              auto on = [&](int i) { return only < 0 || only == i; };
              gqa_attention_backward(on(0) ? w[0].data() : nullptr,
                                     on(1) ? w[1].data() : nullptr,
                                     on(2) ? w[2].data() : nullptr, dy.f.data(),
                                     q.f.data(), k.f.data(), v.f.data(), a, g);
              gqa_attention_backward<S>(
                  on(0) ? d[0].data() : nullptr, on(1) ? d[1].data() : nullptr,
                  on(2) ? d[2].data() : nullptr, dy.data(), q.data(), k.data(),
                  v.data(), a, g);
              for (int i = 0; i < 3; ++i)
                ASSERT_TRUE(d[i].rounds_to(w[i]))
                    << what << " gqa gradient " << i << " of "
                    << (only < 0 ? std::string("all") : std::to_string(only));
            }
          }
  }

  // RoPE rotates fp32 copies: 16-bit tensors are refused, with the fix.
  AttentionConfig r;
  r.B = 1;
  r.T = 4;
  r.NH = 2;
  r.HS = 4;
  r.mask = AttentionMask::Causal;
  r.rope = RopeParams{10000.0, 0};
  Stored<S> qkv(size_t(r.T) * 3 * r.C(), 94), out(size_t(r.T) * r.C(), 95);
  try {
    attention_forward<S>(out.data(), nullptr, qkv.data(), r);
    FAIL() << "RoPE on 16-bit tensors was accepted";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("fp32 copies"), std::string::npos)
        << e.what();
  }
}

} // namespace

// 16-bit tensors are read as stored, a (sequence, head) at a time: the
// results are the fp32 kernels' on widened copies, rounded once.
TEST(Attention, Bf16TensorsGiveTheWidenedFp32ResultsBitForBit) {
  check_stored_attention<BF16Storage>();
}
TEST(Attention, F16TensorsGiveTheWidenedFp32ResultsBitForBit) {
  check_stored_attention<F16Storage>();
}
