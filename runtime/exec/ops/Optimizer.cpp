//===- Optimizer.cpp - Gradient buffers, norms and optimizer updates ------===//
//
// The ops of train_step's gradient sinks and of apply_step. Run-time
// overrides of the optimizer (OptimizerState.h) are resolved when apply_step
// is prepared; the learning rate, the gradient scale and the optimizer step
// stay on the device.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/ops/Op.h"

namespace tpc {
namespace {

Thunk accumulate_grad(OpContext &c) {
  int param = c.param(0);
  if (!c.s.grads)
    throw c.error("the program has no gradient buffers");
  const Kernels &k = c.kernels();
  float *g = c.s.grad(param);
  void *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0));
  return [&k, g, x, n](const RunOptions &) {
    k.accumulate(g, ElementType::F32, x, n);
  };
}

// The result aliases the gradient buffer (set up with the executor).
Thunk get_grad(OpContext &c) {
  if (c.ptr(c.out(0)) != c.s.grad(c.param(-1)))
    throw c.error("does not alias its gradient buffer");
  return [](const RunOptions &) {};
}

Thunk sum_squares(OpContext &c) {
  const Kernels &k = c.kernels();
  std::vector<std::pair<const void *, size_t>> xs;
  for (int i = 0; i < c.num_inputs(); ++i)
    xs.push_back({c.ptr(c.in(i)), c.elements(c.in(i))});
  Device *dev = &c.s.device;
  float *out = c.f32(c.out(0));
  return [&k, dev, out, xs](const RunOptions &) {
    dev->zero(out, sizeof(float));
    for (auto [x, n] : xs)
      k.sum_of_squares(out, x, n);
  };
}

// norm = inv_count * sqrt(sum_sq); scale = inv_count * clip coefficient.
Thunk grad_norm(OpContext &c) {
  const OptimizerOverrides &o = c.s.optimizer.overrides;
  float max_norm =
      float(o.max_norm.value_or(c.find("max_norm") ? c.real("max_norm") : 0.0));
  const Kernels &k = c.kernels();
  float *norm = c.f32(c.out(0)), *scale = c.f32(c.out(1));
  const float *sum_sq = c.f32(c.in(0)), *inv_count = c.f32(c.in(1));
  return [&k, norm, scale, sum_sq, inv_count, max_norm](const RunOptions &) {
    k.grad_norm(norm, scale, sum_sq, inv_count, max_norm);
  };
}

/// The update of one parameter by the optimizer in effect: the compiled
/// op's (`compiled`) unless the overrides name the other.
Thunk update(OpContext &c, const std::string &compiled) {
  int param = c.param(0);
  const OptimizerOverrides &o = c.s.optimizer.overrides;
  std::string kind = o.optimizer.value_or(compiled);
  if (kind != "adamw" && kind != "sgd")
    throw c.error("unknown optimizer '" + kind + "' (expected adamw or sgd)");
  // An overriding weight decay applies to the parameters the compiler decays
  // and to every matrix (so that it also works on a program compiled without
  // decay); the others keep none.
  double decay = c.real("weight_decay");
  if (o.weight_decay)
    decay = decay != 0.0 || c.s.slices[param].local_shape.size() >= 2
                ? *o.weight_decay
                : 0.0;
  // A hyperparameter comes from the command line, else from the compiled op
  // when it is of the same optimizer, else from tpc-optimizer's defaults.
  auto pick = [&](const std::optional<double> &override, const char *attr,
                  double fallback) {
    if (override)
      return float(*override);
    return float(kind == compiled ? c.real(attr) : fallback);
  };
  OptimizerState &state = c.s.optimizer;
  OptimizerScalars scalars;
  scalars.lr = c.f32(c.in(1));
  scalars.grad_scale = c.f32(c.in(2));
  scalars.step = state.device_step();
  if (!c.plan.writes_optimizer_step) {
    c.plan.writes_optimizer_step = true;
    c.plan.before.push_back([&state] { state.write_step(); });
  }
  const Kernels &k = c.kernels();
  size_t n = c.s.slices[param].local_elements();
  size_t offset = c.s.grad_offsets[param];
  int tensor = c.s.program.parameters(param).tensor();
  if (c.dtype(tensor) != ElementType::F32)
    throw c.error("parameter '" + c.s.program.parameters(param).name() +
                  "' is stored as " + element_type_name(c.dtype(tensor)) +
                  " without an f32 master copy for the update to write");
  float *w = c.f32(tensor);
  const void *g = c.ptr(c.in(0));
  if (kind == "adamw") {
    AdamWParams p;
    p.beta1 = pick(o.beta1, "beta1", 0.9);
    p.beta2 = pick(o.beta2, "beta2", 0.95);
    p.eps = pick(o.eps, "eps", 1e-8);
    p.weight_decay = float(decay);
    float *m = state.m() + offset, *v = state.v() + offset;
    return [&k, w, g, m, v, n, p, scalars](const RunOptions &) {
      k.adamw_update(w, g, m, v, n, p, scalars);
    };
  }
  SgdParams p;
  p.momentum = pick(o.momentum, "momentum", 0.0);
  p.weight_decay = float(decay);
  float *buffer = p.momentum != 0.0f ? state.momentum() + offset : nullptr;
  return [&k, w, g, buffer, n, p, scalars](const RunOptions &) {
    k.sgd_update(w, g, buffer, n, p, scalars);
  };
}

Thunk adamw_update(OpContext &c) { return update(c, "adamw"); }
Thunk sgd_update(OpContext &c) { return update(c, "sgd"); }

} // namespace

void register_optimizer_ops(OpRegistry &r) {
  r.add("accumulate_grad", accumulate_grad);
  r.add("get_grad", get_grad);
  r.add("sum_squares", sum_squares);
  r.add("grad_norm", grad_norm);
  r.add("adamw_update", adamw_update);
  r.add("sgd_update", sgd_update);
}

} // namespace tpc
