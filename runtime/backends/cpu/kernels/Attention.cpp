//===- Attention.cpp - Self- and cross-attention --------------------------===//
//
// One implementation serves both: self-attention reads q, k and v from the
// fused qkv (B,T,3C); cross-attention reads q (B,T,C) and k, v from kv
// (B,T,2C). Only the rows' strides and the mask differ. The softmax runs in
// fp32; probabilities are saved (B,NH,T,T) for backward, dropout masks are
// drawn again from their keys.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Dropout.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc::cpu {
namespace {

/// Rows of one operand: row (b, t), head h starts at
/// base + (b*T + t) * stride + h * HS.
struct Rows {
  const float *base;
  size_t stride;
};
struct MutRows {
  float *base;
  size_t stride;
};

/// Keys [lo, hi) that query t sees.
void key_range(AttentionMask mask, int window, int T, int t, int &lo, int &hi) {
  switch (mask) {
  case AttentionMask::Causal:
    lo = window > 0 ? std::max(0, t - window + 1) : 0;
    hi = t + 1;
    return;
  case AttentionMask::Bidirectional:
    lo = window > 0 ? std::max(0, t - window + 1) : 0;
    hi = window > 0 ? std::min(T, t + window) : T;
    return;
  case AttentionMask::StrictlyEarlier:
    lo = window > 0 ? std::max(0, t - window) : 0;
    hi = t;
    return;
  }
}

void check_config(const AttentionConfig &cfg, const char *op) {
  if (cfg.B <= 0 || cfg.T <= 0 || cfg.NH <= 0 || cfg.HS <= 0 ||
      cfg.window < 0 || cfg.head_offset < 0 || cfg.batch_offset < 0 ||
      cfg.head_offset + cfg.NH > cfg.global_heads())
    throw std::invalid_argument(
        std::string(op) + ": bad configuration B=" + std::to_string(cfg.B) +
        " T=" + std::to_string(cfg.T) + " NH=" + std::to_string(cfg.NH) +
        " HS=" + std::to_string(cfg.HS) +
        " window=" + std::to_string(cfg.window) + " heads [" +
        std::to_string(cfg.head_offset) + ", " +
        std::to_string(cfg.head_offset + cfg.NH) + ") of " +
        std::to_string(cfg.global_heads()));
  check_dropout(cfg.dropout);
}

/// Global index of probability (b, h, t, 0) for dropout: the same for a
/// sequence and head whichever rank computes it.
uint64_t dropout_row_base(const AttentionConfig &cfg, int b, int h, int t) {
  uint64_t gh = uint64_t(cfg.global_heads());
  uint64_t gb = uint64_t(cfg.batch_offset) + uint64_t(b);
  return ((gb * gh + uint64_t(cfg.head_offset + h)) * cfg.T + t) *
         uint64_t(cfg.T);
}

void attention_core_forward(float *out, float *att, Rows q, Rows k, Rows v,
                            const AttentionConfig &cfg, AttentionMask mask) {
  const int B = cfg.B, T = cfg.T, NH = cfg.NH, HS = cfg.HS, C = cfg.C();
  const float scale = 1.0f / std::sqrt(float(HS));
  const DropoutDraw draw(cfg.dropout);
#pragma omp parallel for collapse(3) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        const float *qt = q.base + (size_t(b) * T + t) * q.stride + h * HS;
        float *arow = att + ((size_t(b) * NH + h) * T + t) * T;
        float *o = out + (size_t(b) * T + t) * C + h * HS;
        int lo, hi;
        key_range(mask, cfg.window, T, t, lo, hi);
        for (int s = 0; s < T; ++s)
          arow[s] = 0.0f;
        for (int i = 0; i < HS; ++i)
          o[i] = 0.0f;
        if (lo >= hi)
          continue;

        float maxv = -std::numeric_limits<float>::infinity();
        for (int s = lo; s < hi; ++s) {
          const float *ks = k.base + (size_t(b) * T + s) * k.stride + h * HS;
          float dot = 0.0f;
          for (int i = 0; i < HS; ++i)
            dot += qt[i] * ks[i];
          dot *= scale;
          arow[s] = dot;
          maxv = std::max(maxv, dot);
        }
        float sum = 0.0f;
        for (int s = lo; s < hi; ++s) {
          float e = std::exp(arow[s] - maxv);
          arow[s] = e;
          sum += e;
        }
        float inv = 1.0f / sum;
        for (int s = lo; s < hi; ++s)
          arow[s] *= inv;

        uint64_t base = dropout_row_base(cfg, b, h, t);
        for (int s = lo; s < hi; ++s) {
          float p = arow[s];
          if (draw.enabled()) {
            if (!draw.keep(base + s))
              continue;
            p *= draw.scale;
          }
          const float *vs = v.base + (size_t(b) * T + s) * v.stride + h * HS;
          for (int i = 0; i < HS; ++i)
            o[i] += p * vs[i];
        }
      }
}

void attention_core_backward(MutRows dq, MutRows dk, MutRows dv,
                             const float *dout, Rows q, Rows k, Rows v,
                             const float *att, const AttentionConfig &cfg,
                             AttentionMask mask) {
  const int B = cfg.B, T = cfg.T, NH = cfg.NH, HS = cfg.HS, C = cfg.C();
  const float scale = 1.0f / std::sqrt(float(HS));
  const DropoutDraw draw(cfg.dropout);
  // Each (b, h) owns its columns of dq, dk and dv: no two tasks write the
  // same element.
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      std::vector<float> datt(T);
      for (int t = 0; t < T; ++t) {
        int lo, hi;
        key_range(mask, cfg.window, T, t, lo, hi);
        if (lo >= hi)
          continue;
        const float *arow = att + ((size_t(b) * NH + h) * T + t) * T;
        const float *go = dout + (size_t(b) * T + t) * C + h * HS;
        uint64_t base = dropout_row_base(cfg, b, h, t);

        // Through out = sum_s drop(p_s) v_s.
        float dot_pd = 0.0f; // sum_s p_s * dp_s, for the softmax backward
        for (int s = lo; s < hi; ++s) {
          float m = 1.0f;
          if (draw.enabled())
            m = draw.keep(base + s) ? draw.scale : 0.0f;
          const float *vs = v.base + (size_t(b) * T + s) * v.stride + h * HS;
          float dp = 0.0f;
          for (int i = 0; i < HS; ++i)
            dp += go[i] * vs[i];
          datt[s] = dp * m;
          dot_pd += arow[s] * datt[s];
          if (dv.base && m != 0.0f) {
            float *dvs = dv.base + (size_t(b) * T + s) * dv.stride + h * HS;
            float w = arow[s] * m;
            for (int i = 0; i < HS; ++i)
              dvs[i] += w * go[i];
          }
        }

        // Through the softmax and the scaled dot products.
        const float *qt = q.base + (size_t(b) * T + t) * q.stride + h * HS;
        float *dqt = dq.base
                         ? dq.base + (size_t(b) * T + t) * dq.stride + h * HS
                         : nullptr;
        for (int s = lo; s < hi; ++s) {
          float dpre = arow[s] * (datt[s] - dot_pd) * scale;
          const float *ks = k.base + (size_t(b) * T + s) * k.stride + h * HS;
          if (dqt)
            for (int i = 0; i < HS; ++i)
              dqt[i] += dpre * ks[i];
          if (dk.base) {
            float *dks = dk.base + (size_t(b) * T + s) * dk.stride + h * HS;
            for (int i = 0; i < HS; ++i)
              dks[i] += dpre * qt[i];
          }
        }
      }
    }
}

/// One query row per (b, h) against cached keys and values [lo, hi) of
/// (B,P,C) caches; the arithmetic follows attention_core_forward step for
/// step, so a decoded position gives the full forward's result.
void decode_core_forward(float *out, const float *kcache, const float *vcache,
                         Rows q, int lo, int hi, int capacity,
                         const AttentionConfig &cfg) {
  const int B = cfg.B, NH = cfg.NH, HS = cfg.HS, C = cfg.C();
  const float scale = 1.0f / std::sqrt(float(HS));
#pragma omp parallel for collapse(2) schedule(static)
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      const float *qt = q.base + size_t(b) * q.stride + h * HS;
      float *o = out + size_t(b) * C + h * HS;
      for (int i = 0; i < HS; ++i)
        o[i] = 0.0f;
      if (lo >= hi)
        continue;
      std::vector<float> arow(size_t(hi - lo));
      const size_t row0 = size_t(b) * capacity;
      float maxv = -std::numeric_limits<float>::infinity();
      for (int s = lo; s < hi; ++s) {
        const float *ks = kcache + (row0 + s) * C + h * HS;
        float dot = 0.0f;
        for (int i = 0; i < HS; ++i)
          dot += qt[i] * ks[i];
        dot *= scale;
        arow[s - lo] = dot;
        maxv = std::max(maxv, dot);
      }
      float sum = 0.0f;
      for (int s = lo; s < hi; ++s) {
        float e = std::exp(arow[s - lo] - maxv);
        arow[s - lo] = e;
        sum += e;
      }
      float inv = 1.0f / sum;
      for (int s = lo; s < hi; ++s) {
        float p = arow[s - lo] * inv;
        const float *vs = vcache + (row0 + s) * C + h * HS;
        for (int i = 0; i < HS; ++i)
          o[i] += p * vs[i];
      }
    }
}

/// Writes k and v rows (B,1,C) with row stride `stride` at position pos.
void decode_append(float *kcache, float *vcache, const float *k, const float *v,
                   size_t stride, int pos, int capacity,
                   const AttentionConfig &cfg) {
  const size_t C = size_t(cfg.C());
  for (int b = 0; b < cfg.B; ++b) {
    float *kd = kcache + (size_t(b) * capacity + pos) * C;
    float *vd = vcache + (size_t(b) * capacity + pos) * C;
    std::copy(k + size_t(b) * stride, k + size_t(b) * stride + C, kd);
    std::copy(v + size_t(b) * stride, v + size_t(b) * stride + C, vd);
  }
}

void check_decode(const AttentionConfig &cfg, int pos, int capacity,
                  const char *op) {
  if (cfg.B <= 0 || cfg.NH <= 0 || cfg.HS <= 0 || cfg.window < 0 ||
      capacity <= 0 || pos < 0 || pos >= capacity)
    throw std::invalid_argument(
        std::string(op) + ": bad configuration B=" + std::to_string(cfg.B) +
        " NH=" + std::to_string(cfg.NH) + " HS=" + std::to_string(cfg.HS) +
        " window=" + std::to_string(cfg.window) + " position " +
        std::to_string(pos) + " of capacity " + std::to_string(capacity));
}

} // namespace

void attention_forward(float *out, float *att, const float *qkv,
                       const AttentionConfig &cfg) {
  check_config(cfg, "attention_forward");
  if (cfg.mask == AttentionMask::StrictlyEarlier)
    throw std::invalid_argument(
        "attention_forward: the strictly-earlier mask is for cross-attention; "
        "use cross_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  attention_core_forward(out, att, {qkv, stride}, {qkv + C, stride},
                         {qkv + 2 * C, stride}, cfg, cfg.mask);
}

void attention_backward(float *dqkv, const float *dout, const float *qkv,
                        const float *att, const AttentionConfig &cfg) {
  check_config(cfg, "attention_backward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  attention_core_backward({dqkv, stride}, {dqkv + C, stride},
                          {dqkv + 2 * C, stride}, dout, {qkv, stride},
                          {qkv + C, stride}, {qkv + 2 * C, stride}, att, cfg,
                          cfg.mask);
}

void cross_attention_forward(float *out, float *att, const float *q,
                             const float *kv, const AttentionConfig &cfg) {
  check_config(cfg, "cross_attention_forward");
  size_t C = size_t(cfg.C());
  attention_core_forward(out, att, {q, C}, {kv, 2 * C}, {kv + C, 2 * C}, cfg,
                         AttentionMask::StrictlyEarlier);
}

void cross_attention_backward(float *dq, float *dkv, const float *dout,
                              const float *q, const float *kv, const float *att,
                              const AttentionConfig &cfg) {
  check_config(cfg, "cross_attention_backward");
  size_t C = size_t(cfg.C());
  attention_core_backward(
      {dq, C}, {dkv, 2 * C}, {dkv ? dkv + C : nullptr, 2 * C}, dout, {q, C},
      {kv, 2 * C}, {kv + C, 2 * C}, att, cfg, AttentionMask::StrictlyEarlier);
}

} // namespace tpc::cpu

namespace tpc::cpu {

void decode_attention_forward(float *out, float *kcache, float *vcache,
                              const float *qkv, int pos, int capacity,
                              const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_attention_forward");
  size_t C = size_t(cfg.C()), stride = 3 * C;
  decode_append(kcache, vcache, qkv + C, qkv + 2 * C, stride, pos, capacity,
                cfg);
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window + 1) : 0;
  decode_core_forward(out, kcache, vcache, {qkv, stride}, lo, pos + 1, capacity,
                      cfg);
}

void decode_cross_attention_forward(float *out, float *kcache, float *vcache,
                                    const float *q, const float *kv, int pos,
                                    int capacity, const AttentionConfig &cfg) {
  check_decode(cfg, pos, capacity, "decode_cross_attention_forward");
  size_t C = size_t(cfg.C());
  int lo = cfg.window > 0 ? std::max(0, pos - cfg.window) : 0;
  decode_core_forward(out, kcache, vcache, {q, C}, lo, pos, capacity, cfg);
  decode_append(kcache, vcache, kv, kv + C, 2 * C, pos, capacity, cfg);
}

} // namespace tpc::cpu
