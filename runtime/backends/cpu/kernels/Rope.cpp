//===- Rope.cpp - Rotary position embedding of the CPU attention ----------===//
//
// Per-thread tables of cos and sin by position and pair, grown as longer
// sequences come; the rotation of a row and its transpose for gradients.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Rope.h"
#include "runtime/backend/KernelChecks.h"
#include "runtime/util/VectorClones.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace tpc::cpu::attn {
namespace {

/// cos and sin of the angles of positions [0, rows): R/2 per position,
/// position t's pair i at [t * R/2 + i].
struct RopeTable {
  double theta = 0.0;
  int R = 0;
  int rows = 0;
  std::vector<float> cos, sin;
};

/// The table of (theta, R) with at least `rows` positions, kept between
/// calls (per thread) and grown as needed. Every entry depends on its
/// position and pair alone, computed in double and rounded to float once,
/// so a table grown by decoding holds the values the forward rotated with.
const RopeTable &rope_table(double theta, int R, int rows) {
  thread_local std::vector<RopeTable> tables;
  RopeTable *t = nullptr;
  for (RopeTable &x : tables)
    if (x.theta == theta && x.R == R)
      t = &x;
  if (!t) {
    if (tables.size() >= 8) // a few models' worth; drop the oldest
      tables.erase(tables.begin());
    tables.push_back(RopeTable{theta, R, 0, {}, {}});
    t = &tables.back();
  }
  if (t->rows < rows) {
    const int half = R / 2;
    t->cos.resize(size_t(rows) * half);
    t->sin.resize(size_t(rows) * half);
    for (int i = 0; i < half; ++i) {
      const double inv_freq = std::pow(theta, -2.0 * i / R);
      for (int p = t->rows; p < rows; ++p) {
        const double angle = double(p) * inv_freq;
        t->cos[size_t(p) * half + i] = float(std::cos(angle));
        t->sin[size_t(p) * half + i] = float(std::sin(angle));
      }
    }
    t->rows = rows;
  }
  return *t;
}

/// dst = the `heads` heads (HS apart) of one row of src, each rotated by
/// one position's angles cs, sn (R/2 each): the pair (x[i], x[i+R/2])
/// turns to (x[i] cos - x[i+R/2] sin, x[i+R/2] cos + x[i] sin), dimensions
/// [R, HS) are copied. Out of line, so that the forward and decoding rotate
/// a row with the same instructions and agree bit for bit.
TPC_VECTOR_CLONES_OUT_OF_LINE void rope_rotate(float *dst, const float *src,
                                               int heads, int HS, int R,
                                               const float *cs,
                                               const float *sn) {
  const int half = R / 2;
  for (int hh = 0; hh < heads; ++hh) {
    const float *x = src + size_t(hh) * HS;
    float *y = dst + size_t(hh) * HS;
#pragma omp simd
    for (int i = 0; i < half; ++i) {
      const float a = x[i], b = x[i + half];
      y[i] = a * cs[i] - b * sn[i];
      y[i + half] = b * cs[i] + a * sn[i];
    }
    for (int i = R; i < HS; ++i)
      y[i] = x[i];
  }
}

/// dst += the transpose of rope_rotate applied to src (a gradient with
/// respect to the rotated row, turned back): (dy[i] cos + dy[i+R/2] sin,
/// dy[i+R/2] cos - dy[i] sin).
TPC_VECTOR_CLONES
void rope_rotate_back_add(float *dst, const float *src, int heads, int HS,
                          int R, const float *cs, const float *sn) {
  const int half = R / 2;
  for (int hh = 0; hh < heads; ++hh) {
    const float *dy = src + size_t(hh) * HS;
    float *dx = dst + size_t(hh) * HS;
#pragma omp simd
    for (int i = 0; i < half; ++i) {
      const float a = dy[i], b = dy[i + half];
      dx[i] += a * cs[i] + b * sn[i];
      dx[i + half] += b * cs[i] - a * sn[i];
    }
    for (int i = R; i < HS; ++i)
      dx[i] += dy[i];
  }
}

} // namespace

void rope_rows(MutRows dst, Rows src, int heads, bool back,
               const AttentionConfig &cfg) {
  const int R = rope_dims(cfg), half = R / 2, T = cfg.T;
  const RopeTable &table = rope_table(cfg.rope.theta, R, T);
  const float *cs = table.cos.data(), *sn = table.sin.data();
  const int64_t rows = int64_t(cfg.B) * T;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const size_t t = size_t(r % T) * half;
    float *y = dst.base + r * dst.stride;
    const float *x = src.base + r * src.stride;
    if (back)
      rope_rotate_back_add(y, x, heads, cfg.HS, R, cs + t, sn + t);
    else
      rope_rotate(y, x, heads, cfg.HS, R, cs + t, sn + t);
  }
}

float *operand_buffer(int slot, size_t n) {
  thread_local std::vector<float> buf[4];
  if (buf[slot].size() < n)
    buf[slot].resize(n);
  return buf[slot].data();
}

std::pair<Rows, Rows> scored(Rows q, Rows k, const AttentionConfig &cfg) {
  if (!rope_on(cfg))
    return {q, k};
  const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C()),
               Ckv = size_t(cfg.C_kv());
  float *qrot = operand_buffer(0, rows * C);
  float *krot = operand_buffer(1, rows * Ckv);
  rope_rows({qrot, C}, q, cfg.NH, false, cfg);
  rope_rows({krot, Ckv}, k, cfg.kv_heads(), false, cfg);
  return {Rows{qrot, C}, Rows{krot, Ckv}};
}

std::pair<Rows, Rows> scored_at(Rows q, Rows k, int pos,
                                const AttentionConfig &cfg) {
  if (!rope_on(cfg))
    return {q, k};
  // Position pos's row of the table the forward rotates with.
  const int R = rope_dims(cfg), half = R / 2;
  const RopeTable &table = rope_table(cfg.rope.theta, R, pos + 1);
  const float *cs = table.cos.data() + size_t(pos) * half;
  const float *sn = table.sin.data() + size_t(pos) * half;
  const size_t C = size_t(cfg.C()), Ckv = size_t(cfg.C_kv());
  float *qrot = operand_buffer(0, size_t(cfg.B) * C);
  float *krot = operand_buffer(1, size_t(cfg.B) * Ckv);
  for (int b = 0; b < cfg.B; ++b) {
    rope_rotate(qrot + b * C, q.base + b * q.stride, cfg.NH, cfg.HS, R, cs, sn);
    rope_rotate(krot + b * Ckv, k.base + b * k.stride, cfg.kv_heads(), cfg.HS,
                R, cs, sn);
  }
  return {Rows{qrot, C}, Rows{krot, Ckv}};
}

} // namespace tpc::cpu::attn
