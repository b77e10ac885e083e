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
  void *g = c.s.grad(param);
  ElementType type = c.s.grad_types[param];
  if (type != ElementType::F32 && type != k.dtype())
    throw c.error(std::string("adds a ") + element_type_name(k.dtype()) +
                  " value to a " + element_type_name(type) +
                  " gradient; a gradient is of its value's type or f32");
  void *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0));
  // Only the parameter's first accumulation in the function may write.
  const std::string name = c.string("name");
  bool first = true;
  for (int j = 0; j < c.index && first; ++j) {
    const program::Instruction &earlier = c.fn.body(j);
    first = !(earlier.op() == op::kAccumulateGrad &&
              find_attr(earlier, "name")->s() == name);
  }
  // Its producer may have written the first micro-batch's value into the
  // gradient buffer itself (OpContext::first_writes_grad).
  const bool written =
      first && c.s.written_into_grad.count({c.fn.name(), c.in(0)});
  return [&k, g, type, x, n, first, written](const RunOptions &o) {
    if (o.first_micro_batch && first) {
      if (!written)
        k.cast(g, type, x, n);
    } else {
      k.accumulate(g, type, x, n);
    }
  };
}

// The result aliases the gradient buffer (set up with the executor).
Thunk get_grad(OpContext &c) {
  if (c.ptr(c.out(0)) != c.s.grad(c.param(-1)))
    throw c.error("does not alias its gradient buffer");
  return [](const RunOptions &) {};
}

Thunk sum_squares(OpContext &c) {
  // Each input by the table of its own type: gradients of f32 and 16-bit
  // parameters may share one norm.
  struct Term {
    const Kernels *k;
    const void *x;
    size_t n;
  };
  std::vector<Term> terms;
  for (int i = 0; i < c.num_inputs(); ++i)
    terms.push_back({c.s.backend.kernels(c.dtype(c.in(i))), c.ptr(c.in(i)),
                     c.elements(c.in(i))});
  Device *dev = &c.s.device;
  float *out = c.f32(c.out(0));
  return [dev, out, terms](const RunOptions &) {
    dev->zero(out, sizeof(float));
    for (const Term &t : terms)
      t.k->sum_of_squares(out, t.x, t.n);
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
  if (kind != abi::kAdamW && kind != abi::kSgd)
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
  // The gradient's table updates the f32 master and rounds each new value
  // into the working copy of a 16-bit parameter in the same pass. Under the
  // distributed optimizer's partition, only the elements this rank owns
  // (ExecState::owned); the state buffers hold them alone.
  const Kernels &k = c.kernels();
  auto [begin, end] = c.s.owned(param);
  size_t n = end - begin;
  size_t offset = c.s.state_offsets[param];
  int tensor = c.s.program.parameters(param).tensor();
  if (c.dtype(tensor) != ElementType::F32 && !c.s.has_master(param))
    throw c.error("parameter '" + c.s.program.parameters(param).name() +
                  "' is stored as " + element_type_name(c.dtype(tensor)) +
                  " without an f32 master copy for the update to write");
  if (c.elements(c.in(0)) != c.s.slices[param].local_elements())
    throw c.error("the gradient has " + std::to_string(c.elements(c.in(0))) +
                  " elements but parameter '" +
                  c.s.program.parameters(param).name() + "' has " +
                  std::to_string(c.s.slices[param].local_elements()) +
                  " on this rank");
  float *w = c.s.masters[param];
  WorkingCopy working = c.s.working_copy(param);
  const void *g = static_cast<const char *>(c.ptr(c.in(0))) +
                  begin * element_size(c.dtype(c.in(0)));
  if (kind == abi::kAdamW) {
    AdamWParams p;
    p.beta1 = pick(o.beta1, "beta1", 0.9);
    p.beta2 = pick(o.beta2, "beta2", 0.95);
    p.eps = pick(o.eps, "eps", 1e-8);
    p.weight_decay = float(decay);
    float *m = state.m() + offset, *v = state.v() + offset;
    return [&k, w, g, m, v, n, p, scalars, working](const RunOptions &) {
      k.adamw_update(w, g, m, v, n, p, scalars, working);
    };
  }
  SgdParams p;
  p.momentum = pick(o.momentum, "momentum", 0.0);
  p.weight_decay = float(decay);
  float *buffer = p.momentum != 0.0f ? state.momentum() + offset : nullptr;
  return [&k, w, g, buffer, n, p, scalars, working](const RunOptions &) {
    k.sgd_update(w, g, buffer, n, p, scalars, working);
  };
}

Thunk adamw_update(OpContext &c) { return update(c, abi::kAdamW); }
Thunk sgd_update(OpContext &c) { return update(c, abi::kSgd); }

} // namespace

void register_optimizer_ops(OpRegistry &r) {
  r.add(op::kAccumulateGrad, accumulate_grad);
  r.add(op::kGetGrad, get_grad);
  r.add(op::kSumSquares, sum_squares);
  r.add(op::kGradNorm, grad_norm);
  r.add(op::kAdamwUpdate, adamw_update);
  r.add(op::kSgdUpdate, sgd_update);
}

} // namespace tpc
