//===- LayerNorm.cpp - Layer and RMS normalization, their gradients -------===//
//
// When a norm's gradient op follows it in the same function (train_step),
// the forward op keeps its rows' statistics (mean and rstd, or rstd) for
// it; a gradient op without a partner recomputes them with a forward call.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/ops/Op.h"

#include <cmath>
#include <string>

namespace tpc {
namespace {

/// The row statistics (`floats` of them) that the norm op `forward_op`
/// keeps for its gradient op `grad_op` on the same x and weight (forward
/// operands 0 and 1, gradient operands 1 and 2): a layer norm's means then
/// rstds, an RMSNorm's rstds.
float *norm_stats(OpContext &c, const char *forward_op, const char *grad_op,
                  size_t floats) {
  return static_cast<float *>(c.kept_for_grad(
      forward_op, grad_op, {{0, 1}, {1, 2}}, floats * sizeof(float)));
}

/// Any finite epsilon > 0 (GPT-2 and Llama use 1e-5, BERT 1e-12); the
/// verifier checks it, a hand-edited program is checked here.
float norm_epsilon(OpContext &c) {
  double eps = c.real("epsilon");
  if (!(eps > 0.0) || !std::isfinite(eps))
    throw c.error("epsilon " + std::to_string(eps) +
                  " must be a finite number > 0");
  return float(eps);
}

// out (N,C) = (x - mean) * rstd * gamma + beta.
Thunk layernorm(OpContext &c) {
  float eps = norm_epsilon(c);
  OpContext::Rows r = c.rows(c.in(0));
  c.expect_shape(c.shape(c.in(1)), {r.C}, "gamma");
  c.expect_shape(c.shape(c.in(2)), {r.C}, "beta");
  c.expect_result_like(0, 0);
  float *kept =
      norm_stats(c, op::kLayernorm, op::kLayernormGrad, 2 * size_t(r.N));
  if (!kept)
    c.s.reserve(0, 2 * size_t(r.N) * sizeof(float));
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0)), *g = c.ptr(c.in(1)),
       *b = c.ptr(c.in(2));
  return [&k, s, out, x, g, b, r, kept, eps](const RunOptions &) {
    float *stats = kept ? kept : s->scratch(0);
    k.layernorm_forward(out, stats, stats + r.N, x, g, b, r.N, r.C, eps);
  };
}

// Reads the forward op's row statistics, or recomputes them, then (dx,
// dgamma, dbeta).
Thunk layernorm_grad(OpContext &c) {
  float eps = norm_epsilon(c);
  OpContext::Rows r = c.rows(c.in(1));
  c.expect_shape(c.shape(c.in(0)), c.shape(c.in(1)), "dout");
  c.expect_shape(c.shape(c.in(2)), {r.C}, "gamma");
  c.expect_result_like(0, 1);
  c.expect_result_like(1, 2);
  c.expect_result_like(2, 2);
  const Kernels &k = c.kernels();
  size_t esize = element_size(k.dtype());
  const float *kept =
      norm_stats(c, op::kLayernorm, op::kLayernormGrad, 2 * size_t(r.N));
  if (!kept) {
    c.s.reserve(0, size_t(r.N) * r.C * esize); // the normalized rows
    c.s.reserve(1, 2 * size_t(r.N) * sizeof(float));
    c.s.reserve(2, size_t(r.C) * esize); // a zero beta
  }
  ExecState *s = &c.s;
  void *d = c.ptr(c.in(0)), *x = c.ptr(c.in(1)), *g = c.ptr(c.in(2));
  void *dx = c.ptr(c.out(0)), *dg = c.ptr(c.out(1)), *db = c.ptr(c.out(2));
  size_t bx = c.bytes(c.out(0)), bg = c.bytes(c.out(1)), bb = c.bytes(c.out(2));
  return [&k, s, d, x, g, dx, dg, db, bx, bg, bb, r, esize, kept,
          eps](const RunOptions &) {
    const float *stats = kept;
    if (!stats) {
      float *mean = s->scratch(1);
      s->device.zero(s->scratch(2), size_t(r.C) * esize);
      k.layernorm_forward(s->scratch(0), mean, mean + r.N, x, g, s->scratch(2),
                          r.N, r.C, eps);
      stats = mean;
    }
    s->device.zero(dx, bx);
    s->device.zero(dg, bg);
    s->device.zero(db, bb);
    k.layernorm_backward(dx, dg, db, d, x, g, stats, stats + r.N, r.N, r.C);
  };
}

// out (N,C) = x * rstd * weight, rstd = 1 / sqrt(mean(x^2) + eps).
Thunk rmsnorm(OpContext &c) {
  float eps = norm_epsilon(c);
  OpContext::Rows r = c.rows(c.in(0));
  c.expect_shape(c.shape(c.in(1)), {r.C}, "weight");
  c.expect_result_like(0, 0);
  float *kept = norm_stats(c, op::kRmsnorm, op::kRmsnormGrad, size_t(r.N));
  if (!kept)
    c.s.reserve(0, size_t(r.N) * sizeof(float));
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0)), *w = c.ptr(c.in(1));
  return [&k, s, out, x, w, r, eps, kept](const RunOptions &) {
    k.rmsnorm_forward(out, kept ? kept : s->scratch(0), x, w, r.N, r.C, eps);
  };
}

// Reads the forward op's row statistics, or recomputes them, then (dx,
// dweight).
Thunk rmsnorm_grad(OpContext &c) {
  float eps = norm_epsilon(c);
  OpContext::Rows r = c.rows(c.in(1));
  c.expect_shape(c.shape(c.in(0)), c.shape(c.in(1)), "dout");
  c.expect_shape(c.shape(c.in(2)), {r.C}, "weight");
  c.expect_result_like(0, 1);
  c.expect_result_like(1, 2);
  const Kernels &k = c.kernels();
  size_t esize = element_size(k.dtype());
  const float *kept =
      norm_stats(c, op::kRmsnorm, op::kRmsnormGrad, size_t(r.N));
  if (!kept) {
    c.s.reserve(0, size_t(r.N) * r.C * esize); // the normalized rows
    c.s.reserve(1, size_t(r.N) * sizeof(float));
  }
  ExecState *s = &c.s;
  void *d = c.ptr(c.in(0)), *x = c.ptr(c.in(1)), *w = c.ptr(c.in(2));
  void *dx = c.ptr(c.out(0)), *dw = c.ptr(c.out(1));
  size_t bx = c.bytes(c.out(0)), bw = c.bytes(c.out(1));
  return [&k, s, d, x, w, dx, dw, bx, bw, r, eps, kept](const RunOptions &) {
    const float *rstd = kept;
    if (!rstd) {
      k.rmsnorm_forward(s->scratch(0), s->scratch(1), x, w, r.N, r.C, eps);
      rstd = s->scratch(1);
    }
    s->device.zero(dx, bx);
    s->device.zero(dw, bw);
    k.rmsnorm_backward(dx, dw, d, x, w, rstd, r.N, r.C);
  };
}

} // namespace

void register_layernorm_ops(OpRegistry &r) {
  r.add(op::kLayernorm, layernorm);
  r.add(op::kLayernormGrad, layernorm_grad);
  r.add(op::kRmsnorm, rmsnorm);
  r.add(op::kRmsnormGrad, rmsnorm_grad);
}

} // namespace tpc
