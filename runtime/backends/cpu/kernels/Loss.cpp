//===- Loss.cpp - Softmax cross-entropy, plain and vocab-parallel ---------===//
//
// Losses return a sum and a count, never a mean: the caller divides by the
// number of targets of the whole global batch, so micro-batches and DP ranks
// are weighted by their tokens. Padded vocabulary columns (added so that the
// vocabulary splits evenly) are treated as -inf.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuKernels.h"
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
template <class S>
TPC_VECTOR_CLONES_TEMPLATE float row_max(const typename S::type *row, int V) {
  float m = -std::numeric_limits<float>::infinity();
#pragma omp simd reduction(max : m)
  for (int v = 0; v < V; ++v)
    m = std::max(m, S::load(row[v]));
  return m;
}

/// The sum of e^(row[v] - m) over [0, V), in double. The exponentials go
/// through a block of floats first: a loop that also converts to double
/// compiles to 256-bit code in the AVX-512 clone, at half the rate (GPT-2's
/// 1024 rows of 50257 logits: 37 -> 25 ms on two cores).
template <class S>
TPC_VECTOR_CLONES_TEMPLATE double sum_exp(const typename S::type *row, int V,
                                          float m) {
  float e[kExpBlock];
  double s = 0.0;
  for (int v0 = 0; v0 < V; v0 += int(kExpBlock)) {
    const int n = std::min(int(kExpBlock), V - v0);
#pragma omp simd
    for (int v = 0; v < n; ++v)
      e[v] = S::load(row[v0 + v]);
    exp_shifted(e, size_t(n), m);
#pragma omp simd reduction(+ : s)
    for (int v = 0; v < n; ++v)
      s += e[v];
  }
  return s;
}

/// d[v] = softmax(row)[v] * scale over [0, V), given the row's max and
/// 1 / sum of exponentials, less scale at column `target` (none when it is
/// outside [0, V)): the gradient of a row's loss, rounded once.
template <class S>
TPC_VECTOR_CLONES_TEMPLATE void
softmax_scaled(typename S::type *d, const typename S::type *row, int V, float m,
               float inv, float scale, int target) {
  float e[kExpBlock];
  for (int v0 = 0; v0 < V; v0 += int(kExpBlock)) {
    const int n = std::min(int(kExpBlock), V - v0);
#pragma omp simd
    for (int v = 0; v < n; ++v)
      e[v] = S::load(row[v0 + v]);
    exp_shifted(e, size_t(n), m);
#pragma omp simd
    for (int v = 0; v < n; ++v) {
      const float x = e[v] * inv * scale;
      d[v0 + v] = S::store(x - (v0 + v == target ? scale : 0.0f));
    }
  }
}

template <class S> RowStats row_stats(const typename S::type *row, int V) {
  float m = row_max<S>(row, V);
  return {m, float(sum_exp<S>(row, V, m))};
}

} // namespace

template <class S>
LossSum crossentropy_forward(float *losses, const typename S::type *logits,
                             const int *targets, int N, int V, int Vp,
                             int ignore_index, float *stats) {
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
      const auto *row = logits + size_t(n) * Vp;
      RowStats st = row_stats<S>(row, V);
      if (stats) {
        stats[2 * size_t(n)] = st.max;
        stats[2 * size_t(n) + 1] = st.sumexp;
      }
      loss = std::log(st.sumexp) + st.max - S::load(row[t]);
      total += loss;
      ++count;
    }
    if (losses)
      losses[n] = loss;
  }
  return {total, count};
}

template <class S>
void crossentropy_backward(typename S::type *dlogits,
                           const typename S::type *logits, const int *targets,
                           int N, int V, int Vp, float scale, int ignore_index,
                           const float *stats) {
  check_targets("crossentropy_backward", targets, N, V, ignore_index);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *row = logits + size_t(n) * Vp;
    auto *d = dlogits + size_t(n) * Vp;
    int t = targets[n];
    // Zero bits are zero in every storage type.
    if (t == ignore_index) {
      std::memset(d, 0, sizeof(*d) * Vp);
      continue;
    }
    RowStats st = stats
                      ? RowStats{stats[2 * size_t(n)], stats[2 * size_t(n) + 1]}
                      : row_stats<S>(row, V);
    float inv = 1.0f / st.sumexp;
    softmax_scaled<S>(d, row, V, st.max, inv, scale, t);
    std::memset(d + V, 0, sizeof(*d) * (Vp - V));
  }
}

template <class S>
void vocab_parallel_ce_max(float *row_max, const typename S::type *logits,
                           int N, int Vl, int vstart, int V) {
  int valid = valid_columns(Vl, vstart, V);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    row_max[n] = cpu::row_max<S>(logits + size_t(n) * Vl, valid);
  }
}

template <class S>
void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                              const typename S::type *logits,
                              const int *targets, const float *row_max, int N,
                              int Vl, int vstart, int V, int ignore_index) {
  check_targets("vocab_parallel_ce_sumexp", targets, N, V, ignore_index);
  int valid = valid_columns(Vl, vstart, V);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *row = logits + size_t(n) * Vl;
    float m = row_max[n];
    sumexp[n] = float(sum_exp<S>(row, valid, m));
    int local = targets[n] - vstart;
    bool owned = targets[n] != ignore_index && local >= 0 && local < valid;
    target_logit[n] = owned ? S::load(row[local]) : 0.0f;
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

template <class S>
void vocab_parallel_ce_backward(typename S::type *dlogits,
                                const typename S::type *logits,
                                const int *targets, const float *row_max,
                                const float *sumexp, int N, int Vl, int vstart,
                                int V, float scale, int ignore_index) {
  check_targets("vocab_parallel_ce_backward", targets, N, V, ignore_index);
  int valid = valid_columns(Vl, vstart, V);
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const auto *row = logits + size_t(n) * Vl;
    auto *d = dlogits + size_t(n) * Vl;
    int t = targets[n];
    if (t == ignore_index) {
      std::memset(d, 0, sizeof(*d) * Vl);
      continue;
    }
    float m = row_max[n], inv = 1.0f / sumexp[n];
    int local = t - vstart; // outside [0, valid) when another rank owns it
    softmax_scaled<S>(d, row, valid, m, inv, scale, local);
    std::memset(d + valid, 0, sizeof(*d) * (Vl - valid));
  }
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::crossentropy_forward(float *losses, float *totals,
                                         const void *logits, const int *targets,
                                         int N, int V, int Vp, int ignore_index,
                                         float *stats) const {
  LossSum r = cpu::crossentropy_forward<S>(losses, typed(logits), targets, N, V,
                                           Vp, ignore_index, stats);
  totals[0] += float(r.sum);
  totals[1] += float(r.count);
}

template <class S>
void CpuKernels<S>::crossentropy_backward(void *dlogits, const void *logits,
                                          const int *targets, int N, int V,
                                          int Vp, const float *dloss,
                                          int ignore_index,
                                          const float *stats) const {
  cpu::crossentropy_backward<S>(typed(dlogits), typed(logits), targets, N, V,
                                Vp, *dloss, ignore_index, stats);
}

template <class S>
void CpuKernels<S>::vocab_parallel_ce_max(float *row_max, const void *logits,
                                          int N, int Vl, int vstart,
                                          int V) const {
  cpu::vocab_parallel_ce_max<S>(row_max, typed(logits), N, Vl, vstart, V);
}

template <class S>
void CpuKernels<S>::vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                             const void *logits,
                                             const int *targets,
                                             const float *row_max, int N,
                                             int Vl, int vstart, int V,
                                             int ignore_index) const {
  cpu::vocab_parallel_ce_sumexp<S>(sumexp, target_logit, typed(logits), targets,
                                   row_max, N, Vl, vstart, V, ignore_index);
}

template <class S>
void CpuKernels<S>::vocab_parallel_ce_loss(float *losses, float *totals,
                                           const float *sumexp,
                                           const float *target_logit,
                                           const float *row_max,
                                           const int *targets, int N,
                                           int ignore_index) const {
  LossSum r = cpu::vocab_parallel_ce_loss(losses, sumexp, target_logit, row_max,
                                          targets, N, ignore_index);
  totals[0] += float(r.sum);
  totals[1] += float(r.count);
}

template <class S>
void CpuKernels<S>::vocab_parallel_ce_backward(
    void *dlogits, const void *logits, const int *targets, const float *row_max,
    const float *sumexp, int N, int Vl, int vstart, int V, const float *dloss,
    int ignore_index) const {
  cpu::vocab_parallel_ce_backward<S>(typed(dlogits), typed(logits), targets,
                                     row_max, sumexp, N, Vl, vstart, V, *dloss,
                                     ignore_index);
}

template <class S>
void CpuKernels<S>::loss_outputs(float *loss, int32_t *count,
                                 const float *totals) const {
  *loss = totals[0];
  *count = int32_t(std::lround(totals[1]));
}

#define TPC_INSTANTIATE(S)                                                     \
  template LossSum crossentropy_forward<S>(                                    \
      float *, const S::type *, const int *, int, int, int, int, float *);     \
  template void crossentropy_backward<S>(S::type *, const S::type *,           \
                                         const int *, int, int, int, float,    \
                                         int, const float *);                  \
  template void vocab_parallel_ce_max<S>(float *, const S::type *, int, int,   \
                                         int, int);                            \
  template void vocab_parallel_ce_sumexp<S>(float *, float *, const S::type *, \
                                            const int *, const float *, int,   \
                                            int, int, int, int);               \
  template void vocab_parallel_ce_backward<S>(                                 \
      S::type *, const S::type *, const int *, const float *, const float *,   \
      int, int, int, int, float, int);                                         \
  template void CpuKernels<S>::crossentropy_forward(                           \
      float *, float *, const void *, const int *, int, int, int, int,         \
      float *) const;                                                          \
  template void CpuKernels<S>::crossentropy_backward(                          \
      void *, const void *, const int *, int, int, int, const float *, int,    \
      const float *) const;                                                    \
  template void CpuKernels<S>::vocab_parallel_ce_max(                          \
      float *, const void *, int, int, int, int) const;                        \
  template void CpuKernels<S>::vocab_parallel_ce_sumexp(                       \
      float *, float *, const void *, const int *, const float *, int, int,    \
      int, int, int) const;                                                    \
  template void CpuKernels<S>::vocab_parallel_ce_loss(                         \
      float *, float *, const float *, const float *, const float *,           \
      const int *, int, int) const;                                            \
  template void CpuKernels<S>::vocab_parallel_ce_backward(                     \
      void *, const void *, const int *, const float *, const float *, int,    \
      int, int, int, const float *, int) const;                                \
  template void CpuKernels<S>::loss_outputs(float *, int32_t *, const float *) \
      const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
