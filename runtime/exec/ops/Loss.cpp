//===- Loss.cpp - Cross-entropy, plain and vocabulary-parallel ------------===//
//
// A loss op's results are the loss sum and the target count of its
// micro-batch; the kernels accumulate both on the device and a last kernel
// writes them to the results, so nothing is read back to issue the ops.
// When the loss's gradient op follows it in the same function (train_step),
// the loss keeps the rows' statistics for it, and the gradient reads them
// instead of recomputing them (and, vocabulary-parallel, instead of
// reducing them over the tp group again).
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/ops/Op.h"

namespace tpc {
namespace {

OpContext::Rows logits_and_targets(OpContext &c) {
  OpContext::Rows r = c.rows(c.in(0));
  if (c.elements(c.in(1)) != uint64_t(r.N))
    throw c.error("targets " + shape_string(c.shape(c.in(1))) +
                  " do not match logits " + shape_string(c.shape(c.in(0))));
  return r;
}

/// The row statistics (`floats` of them) that the loss op `loss` and its
/// gradient op `grad`, on the same logits and targets, share; null when
/// this op has no partner.
float *kept_stats(OpContext &c, const char *loss, const char *grad,
                  size_t floats) {
  return static_cast<float *>(
      c.kept_for_grad(loss, grad, {{0, 0}, {1, 1}}, floats * sizeof(float)));
}

// logits (N,V), targets (N) -> loss sum, target count.
Thunk cross_entropy(OpContext &c) {
  OpContext::Rows r = logits_and_targets(c);
  int ignore = int(c.integer("ignore_index"));
  std::string where = c.where();
  c.s.reserve(0, size_t(r.N) * sizeof(float));
  c.s.reserve(1, 2 * sizeof(float));
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *logits = c.ptr(c.in(0));
  const int *targets = c.i32(c.in(1));
  float *loss = c.f32(c.out(0));
  int32_t *count = c.i32(c.out(1));
  float *stats =
      kept_stats(c, op::kCrossEntropy, op::kCrossEntropyGrad, 2 * size_t(r.N));
  return [&k, s, logits, targets, loss, count, r, ignore, where,
          stats](const RunOptions &) {
    float *totals = s->scratch(1);
    s->device.zero(totals, 2 * sizeof(float));
    try {
      k.crossentropy_forward(s->scratch(0), totals, logits, targets, r.N, r.C,
                             r.C, ignore, stats);
    } catch (const std::invalid_argument &e) {
      throw std::runtime_error(where + ": " + e.what());
    }
    k.loss_outputs(loss, count, totals);
  };
}

// dlogits = dloss * (softmax - onehot), zero at ignored targets.
Thunk cross_entropy_grad(OpContext &c) {
  OpContext::Rows r = logits_and_targets(c);
  int ignore = int(c.integer("ignore_index"));
  std::string where = c.where();
  const Kernels &k = c.kernels();
  c.expect_result_like(0, 0);
  void *dlogits = c.ptr(c.out(0)), *logits = c.ptr(c.in(0));
  const int *targets = c.i32(c.in(1));
  const float *dloss = c.f32(c.in(2));
  const float *stats =
      kept_stats(c, op::kCrossEntropy, op::kCrossEntropyGrad, 2 * size_t(r.N));
  return [&k, dlogits, logits, targets, dloss, r, ignore, where,
          stats](const RunOptions &) {
    try {
      k.crossentropy_backward(dlogits, logits, targets, r.N, r.C, r.C, dloss,
                              ignore, stats);
    } catch (const std::invalid_argument &e) {
      throw std::runtime_error(where + ": " + e.what());
    }
  };
}

/// Megatron's vocabulary-parallel cross-entropy: logits (N,Vl) are columns
/// [tp_rank*Vl, (tp_rank+1)*Vl) of the padded vocabulary; only N values per
/// phase cross the TP group.
struct VocabParallel {
  OpContext::Rows r;
  int V, vstart, ignore;
};

VocabParallel vocab_parallel(OpContext &c) {
  VocabParallel v;
  v.r = logits_and_targets(c);
  v.V = c.count("vocab_size");
  if (int64_t(v.r.C) * c.s.comm.tp_size() < v.V)
    throw c.error("vocab " + std::to_string(v.V) + " exceeds the " +
                  std::to_string(int64_t(v.r.C) * c.s.comm.tp_size()) +
                  " columns of the tp group's logits");
  v.vstart = c.s.comm.tp_rank() * v.r.C;
  v.ignore = int(c.integer("ignore_index"));
  c.s.reserve(0, size_t(v.r.N) * sizeof(float));     // row maximum
  c.s.reserve(1, 2 * size_t(v.r.N) * sizeof(float)); // sumexp | target logit
  return v;
}

/// The row maxima and the sums of exponentials (and target logits) over the
/// tp group, in scratch 0 and 1.
void vocab_parallel_stats(ExecState *s, const Kernels &k,
                          const VocabParallel &v, const void *logits,
                          const int *targets, size_t sums) {
  float *row_max = s->scratch(0), *sum = s->scratch(1);
  int N = v.r.N;
  k.vocab_parallel_ce_max(row_max, logits, N, v.r.C, v.vstart, v.V);
  s->collectives->all_reduce(row_max, N, ElementType::F32, ReduceOp::Max,
                             Group::TP);
  k.vocab_parallel_ce_sumexp(sum, sum + N, logits, targets, row_max, N, v.r.C,
                             v.vstart, v.V, v.ignore);
  s->collectives->all_reduce(sum, sums, ElementType::F32, ReduceOp::Sum,
                             Group::TP);
}

Thunk vocab_parallel_cross_entropy(OpContext &c) {
  VocabParallel v = vocab_parallel(c);
  c.s.reserve(2, size_t(v.r.N) * sizeof(float)); // losses
  c.s.reserve(3, 2 * sizeof(float));             // totals
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *logits = c.ptr(c.in(0));
  const int *targets = c.i32(c.in(1));
  float *loss = c.f32(c.out(0));
  int32_t *count = c.i32(c.out(1));
  // The row maxima, then the sums of exponentials.
  float *kept =
      kept_stats(c, op::kVocabParallelCrossEntropy,
                 op::kVocabParallelCrossEntropyGrad, 2 * size_t(v.r.N));
  return [&k, s, v, logits, targets, loss, count, kept](const RunOptions &) {
    int N = v.r.N;
    vocab_parallel_stats(s, k, v, logits, targets, 2 * size_t(N));
    float *sums = s->scratch(1), *totals = s->scratch(3);
    s->device.zero(totals, 2 * sizeof(float));
    k.vocab_parallel_ce_loss(s->scratch(2), totals, sums, sums + N,
                             s->scratch(0), targets, N, v.ignore);
    k.loss_outputs(loss, count, totals);
    if (kept) {
      s->device.copy_device_to_device(kept, s->scratch(0), N * sizeof(float));
      s->device.copy_device_to_device(kept + N, sums, N * sizeof(float));
    }
  };
}

// Reads the loss op's row maxima and sums of exponentials, or recomputes
// them over the tp group.
Thunk vocab_parallel_cross_entropy_grad(OpContext &c) {
  VocabParallel v = vocab_parallel(c);
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  c.expect_result_like(0, 0);
  void *dlogits = c.ptr(c.out(0)), *logits = c.ptr(c.in(0));
  const int *targets = c.i32(c.in(1));
  const float *dloss = c.f32(c.in(2));
  const float *kept =
      kept_stats(c, op::kVocabParallelCrossEntropy,
                 op::kVocabParallelCrossEntropyGrad, 2 * size_t(v.r.N));
  return [&k, s, v, dlogits, logits, targets, dloss, kept](const RunOptions &) {
    int N = v.r.N;
    const float *row_max = kept, *sumexp = kept ? kept + N : nullptr;
    if (!kept) {
      // Only the sums of exponentials are needed: N values, not 2N.
      vocab_parallel_stats(s, k, v, logits, targets, size_t(N));
      row_max = s->scratch(0);
      sumexp = s->scratch(1);
    }
    k.vocab_parallel_ce_backward(dlogits, logits, targets, row_max, sumexp, N,
                                 v.r.C, v.vstart, v.V, dloss, v.ignore);
  };
}

} // namespace

void register_loss_ops(OpRegistry &r) {
  r.add(op::kCrossEntropy, cross_entropy);
  r.add(op::kCrossEntropyGrad, cross_entropy_grad);
  r.add(op::kVocabParallelCrossEntropy, vocab_parallel_cross_entropy);
  r.add(op::kVocabParallelCrossEntropyGrad, vocab_parallel_cross_entropy_grad);
}

} // namespace tpc
