//===- Loss.cpp - Softmax cross-entropy, plain and vocab-parallel ---------===//
//
// Losses return a sum and a count, never a mean: the caller divides by the
// number of targets of the whole global batch, so micro-batches and DP ranks
// are weighted by their tokens. Padded vocabulary columns (added so that the
// vocabulary splits evenly) are treated as -inf.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace tpc::cpu {
namespace {

void check_targets(const char *op, const int *targets, int N, int V,
                   int ignore_index) {
  for (int n = 0; n < N; ++n) {
    int t = targets[n];
    if (t != ignore_index && (t < 0 || t >= V))
      throw std::invalid_argument(
          std::string(op) + ": target " + std::to_string(t) + " at row " +
          std::to_string(n) + " is outside the vocabulary [0, " +
          std::to_string(V) + ") and is not the ignore index " +
          std::to_string(ignore_index) +
          "; check the token file against the model's vocab_size");
  }
}

/// Columns [0, valid) of a row of this rank's logits are real vocabulary.
int valid_columns(int Vl, int vstart, int V) {
  int valid = V - vstart;
  return valid < 0 ? 0 : (valid > Vl ? Vl : valid);
}

struct RowStats {
  float max;
  float sumexp;
};

/// The largest of row[0, V).
TPC_VECTOR_CLONES
float row_max(const float *row, int V) {
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int v = 0; v < V; ++v)
    m = std::max(m, row[v]);
  return m;
}

/// The sum of e^(row[v] - m) over [0, V), in double.
TPC_VECTOR_CLONES
double sum_exp(const float *row, int V, float m) {
  double s = 0.0;
#pragma omp simd reduction(+ : s)
  for (int v = 0; v < V; ++v)
    s += exp_approx(row[v] - m);
  return s;
}

/// d[v] = softmax(row)[v] * scale over [0, V), given the row's max and
/// 1 / sum of exponentials.
TPC_VECTOR_CLONES
void softmax_scaled(float *d, const float *row, int V, float m, float inv,
                    float scale) {
#pragma omp simd
  for (int v = 0; v < V; ++v)
    d[v] = exp_approx(row[v] - m) * inv * scale;
}

RowStats row_stats(const float *row, int V) {
  float m = row_max(row, V);
  return {m, float(sum_exp(row, V, m))};
}

} // namespace

LossSum crossentropy_forward(float *losses, const float *logits,
                             const int *targets, int N, int V, int Vp,
                             int ignore_index) {
  if (V > Vp)
    throw std::invalid_argument("crossentropy_forward: vocab_size " +
                                std::to_string(V) + " exceeds the " +
                                std::to_string(Vp) + " logit columns");
  check_targets("crossentropy_forward", targets, N, V, ignore_index);
  double total = 0.0;
  int64_t count = 0;
#pragma omp parallel for reduction(+ : total, count) schedule(static)
  for (int n = 0; n < N; ++n) {
    int t = targets[n];
    float loss = 0.0f;
    if (t != ignore_index) {
      const float *row = logits + size_t(n) * Vp;
      RowStats st = row_stats(row, V);
      loss = std::log(st.sumexp) + st.max - row[t];
      total += loss;
      ++count;
    }
    if (losses)
      losses[n] = loss;
  }
  return {total, count};
}

void crossentropy_backward(float *dlogits, const float *logits,
                           const int *targets, int N, int V, int Vp,
                           float scale, int ignore_index) {
  check_targets("crossentropy_backward", targets, N, V, ignore_index);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *row = logits + size_t(n) * Vp;
    float *d = dlogits + size_t(n) * Vp;
    int t = targets[n];
    if (t == ignore_index) {
      std::memset(d, 0, sizeof(float) * Vp);
      continue;
    }
    RowStats st = row_stats(row, V);
    float inv = 1.0f / st.sumexp;
    softmax_scaled(d, row, V, st.max, inv, scale);
    for (int v = V; v < Vp; ++v)
      d[v] = 0.0f;
    d[t] -= scale;
  }
}

void vocab_parallel_ce_max(float *row_max, const float *logits, int N, int Vl,
                           int vstart, int V) {
  int valid = valid_columns(Vl, vstart, V);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    row_max[n] = cpu::row_max(logits + size_t(n) * Vl, valid);
  }
}

void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                              const float *logits, const int *targets,
                              const float *row_max, int N, int Vl, int vstart,
                              int V, int ignore_index) {
  check_targets("vocab_parallel_ce_sumexp", targets, N, V, ignore_index);
  int valid = valid_columns(Vl, vstart, V);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *row = logits + size_t(n) * Vl;
    float m = row_max[n];
    sumexp[n] = float(sum_exp(row, valid, m));
    int local = targets[n] - vstart;
    bool owned = targets[n] != ignore_index && local >= 0 && local < valid;
    target_logit[n] = owned ? row[local] : 0.0f;
  }
}

LossSum vocab_parallel_ce_loss(float *losses, const float *sumexp,
                               const float *target_logit, const float *row_max,
                               const int *targets, int N, int ignore_index) {
  double total = 0.0;
  int64_t count = 0;
#pragma omp parallel for reduction(+ : total, count) schedule(static)
  for (int n = 0; n < N; ++n) {
    float loss = 0.0f;
    if (targets[n] != ignore_index) {
      loss = std::log(sumexp[n]) + row_max[n] - target_logit[n];
      total += loss;
      ++count;
    }
    if (losses)
      losses[n] = loss;
  }
  return {total, count};
}

void vocab_parallel_ce_backward(float *dlogits, const float *logits,
                                const int *targets, const float *row_max,
                                const float *sumexp, int N, int Vl, int vstart,
                                int V, float scale, int ignore_index) {
  check_targets("vocab_parallel_ce_backward", targets, N, V, ignore_index);
  int valid = valid_columns(Vl, vstart, V);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const float *row = logits + size_t(n) * Vl;
    float *d = dlogits + size_t(n) * Vl;
    int t = targets[n];
    if (t == ignore_index) {
      std::memset(d, 0, sizeof(float) * Vl);
      continue;
    }
    float m = row_max[n], inv = 1.0f / sumexp[n];
    softmax_scaled(d, row, valid, m, inv, scale);
    for (int j = valid; j < Vl; ++j)
      d[j] = 0.0f;
    int local = t - vstart;
    if (local >= 0 && local < valid)
      d[local] -= scale;
  }
}

} // namespace tpc::cpu
