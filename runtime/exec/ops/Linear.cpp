//===- Linear.cpp - Linear layers and bias additions ----------------------===//

#include "runtime/exec/ops/Op.h"

namespace tpc {
namespace {

/// The output width of x (N,C) . W, checking W against C; transposed: W
/// (OC,C).
int output_width(OpContext &c, int weight, int C, bool transposed) {
  auto w = c.shape(c.in(weight));
  if (w.size() != 2 || w[transposed ? 1 : 0] != C)
    throw c.error("weight " + shape_string(w) + " does not match input width " +
                  std::to_string(C));
  return int(w[transposed ? 0 : 1]);
}

// out (N,OC) = x (N,C) . W (C,OC) [+ b]; transposed: W (OC,C).
Thunk linear(OpContext &c) {
  OpContext::Rows r = c.rows(c.in(0));
  bool transposed = c.flag("transposed");
  int OC = output_width(c, 1, r.C, transposed);
  const void *bias = nullptr;
  if (c.num_inputs() == 3) {
    c.expect_shape(c.shape(c.in(2)), {OC}, "the bias");
    bias = c.ptr(c.in(2));
  }
  std::vector<int64_t> result = c.shape(c.in(0));
  result.back() = OC;
  c.expect_result(0, result, 0);
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0)), *w = c.ptr(c.in(1));
  return [&k, out, x, w, bias, r, OC, transposed](const RunOptions &) {
    k.matmul_forward(out, x, w, bias, r.N, r.C, OC, transposed);
  };
}

/// The GEMMs of a linear's backward for the gradients whose pointers are
/// not null; they write them (beta 0): the results are new values. On a
/// step's first micro-batch the weight's gradient goes to `dw_grad`, its
/// gradient buffer, when that is not null (OpContext::first_writes_grad).
Thunk linear_backward(const Kernels &k, void *dx, void *dw, void *dw_grad,
                      void *db, const void *dout, const void *x, const void *w,
                      int N, int C, int OC, bool transposed) {
  return [&k, dx, dw, dw_grad, db, dout, x, w, N, C, OC,
          transposed](const RunOptions &o) {
    k.matmul_backward(dx, dw_grad && o.first_micro_batch ? dw_grad : dw, db,
                      dout, x, w, N, C, OC, transposed,
                      /*accumulate=*/false);
  };
}

/// Checks that dout (N,OC) has `N` rows of the linear's OC outputs.
void check_dout(OpContext &c, int N, int OC) {
  OpContext::Rows d = c.rows(c.in(0));
  if (d.N != N || d.C != OC)
    throw c.error("dout " + shape_string(c.shape(c.in(0))) +
                  " does not match the input and weight");
}

/// Checks the result count of an op with an optional bias gradient.
void expect_results(OpContext &c, int results) {
  if (c.num_outputs() != results)
    throw c.error("has " + std::to_string(c.num_outputs()) +
                  " results, expected " + std::to_string(results));
}

// (dx, dW[, db]) of out = x . W [+ b].
Thunk linear_grad(OpContext &c) {
  OpContext::Rows r = c.rows(c.in(1));
  bool transposed = c.flag("transposed");
  int OC = output_width(c, 2, r.C, transposed);
  check_dout(c, r.N, OC);
  int results = 2 + int(c.flag("bias"));
  expect_results(c, results);
  c.expect_result_like(0, 1);
  c.expect_result_like(1, 2);
  if (results == 3)
    c.expect_result(2, {OC}, 0);
  void *db = results == 3 ? c.ptr(c.out(2)) : nullptr;
  // The weight's gradient, on a step's first micro-batch, straight into its
  // gradient buffer when nothing else reads it.
  return linear_backward(
      c.kernels(), c.ptr(c.out(0)), c.ptr(c.out(1)), c.first_writes_grad(1), db,
      c.ptr(c.in(0)), c.ptr(c.in(1)), c.ptr(c.in(2)), r.N, r.C, OC, transposed);
}

// dx (N,C) = dout (N,OC) . W^T, W (C,OC); transposed: W (OC,C). The B half
// of linear_grad: its dx, from the same GEMM.
Thunk linear_input_grad(OpContext &c) {
  OpContext::Rows d = c.rows(c.in(0));
  bool transposed = c.flag("transposed");
  auto w = c.shape(c.in(1));
  if (w.size() != 2 || w[transposed ? 0 : 1] != d.C)
    throw c.error("weight " + shape_string(w) + " does not match dout width " +
                  std::to_string(d.C));
  int C = int(w[transposed ? 1 : 0]);
  std::vector<int64_t> result = c.shape(c.in(0));
  result.back() = C;
  c.expect_result(0, result, 0);
  return linear_backward(c.kernels(), c.ptr(c.out(0)), nullptr, nullptr,
                         nullptr, c.ptr(c.in(0)), nullptr, c.ptr(c.in(1)), d.N,
                         C, d.C, transposed);
}

// (dW[, db]) of out = x (N,C) . W [+ b]: dW (C,OC) = x^T . dout; transposed
// (OC,C) = dout^T . x. The W half of linear_grad: its dW and db, from the
// same GEMM and column sums, written into the gradient buffer as it does.
Thunk linear_weight_grad(OpContext &c) {
  OpContext::Rows r = c.rows(c.in(1));
  bool transposed = c.flag("transposed");
  int OC = c.rows(c.in(0)).C;
  check_dout(c, r.N, OC);
  int results = 1 + int(c.flag("bias"));
  expect_results(c, results);
  c.expect_result(0,
                  transposed ? std::vector<int64_t>{OC, r.C}
                             : std::vector<int64_t>{r.C, OC},
                  1);
  if (results == 2)
    c.expect_result(1, {OC}, 1);
  void *db = results == 2 ? c.ptr(c.out(1)) : nullptr;
  return linear_backward(c.kernels(), nullptr, c.ptr(c.out(0)),
                         c.first_writes_grad(0), db, c.ptr(c.in(0)),
                         c.ptr(c.in(1)), nullptr, r.N, r.C, OC, transposed);
}

// out (N,C) = x (N,C) + b (C): a rank-one update ones(N) b^T on a copy of
// x, exact because each element gets a single addition.
Thunk bias_add(OpContext &c) {
  OpContext::Rows r = c.rows(c.in(0));
  c.expect_shape(c.shape(c.in(1)), {r.C}, "the bias");
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  c.s.reserve_ones(k, r.N);
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0)), *b = c.ptr(c.in(1));
  size_t bytes = c.bytes(c.in(0));
  return [&k, s, out, x, b, bytes, r](const RunOptions &) {
    if (out != x)
      s->device.copy_device_to_device(out, x, bytes);
    k.gemm(false, false, r.N, r.C, 1, 1.0f, s->ones(k.dtype()), 1, b, r.C, 1.0f,
           out, r.C);
  };
}

// db (C) = ones(N)^T . dout (N,C).
Thunk bias_add_grad(OpContext &c) {
  OpContext::Rows r = c.rows(c.in(0));
  c.expect_shape(c.shape(c.out(0)), {r.C}, "the result");
  const Kernels &k = c.kernels();
  c.s.reserve_ones(k, r.N);
  ExecState *s = &c.s;
  void *db = c.ptr(c.out(0)), *d = c.ptr(c.in(0));
  return [&k, s, db, d, r](const RunOptions &) {
    k.gemm(false, false, 1, r.C, r.N, 1.0f, s->ones(k.dtype()), r.N, d, r.C,
           0.0f, db, r.C);
  };
}

} // namespace

void register_linear_ops(OpRegistry &r) {
  r.add(op::kLinear, linear);
  r.add(op::kLinearGrad, linear_grad);
  r.add(op::kLinearInputGrad, linear_input_grad);
  r.add(op::kLinearWeightGrad, linear_weight_grad);
  r.add(op::kBiasAdd, bias_add);
  r.add(op::kBiasAddGrad, bias_add_grad);
}

} // namespace tpc
