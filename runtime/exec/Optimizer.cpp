//===- Optimizer.cpp - Optimizer state and run-time overrides -------------===//
//
// The state buffers parallel to the gradients, which optimizer is in
// effect, and how command-line overrides combine with the hyperparameters
// apply_step was compiled with.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Call.h"

#include <algorithm>

namespace tpc {

using namespace exec_detail;

float *Executor::state(float *&buffer) {
  if (!buffer) {
    size_t bytes = std::max<size_t>(grad_elements_, 1) * sizeof(float);
    buffer = static_cast<float *>(backend_.alloc(bytes));
    backend_.zero(buffer, bytes);
  }
  return buffer;
}

std::string Executor::optimizer() const {
  if (overrides_.optimizer)
    return *overrides_.optimizer;
  return has_function("apply_step") ? optimizer_of(function("apply_step")) : "";
}

std::string Executor::optimizer_of(const program::Function &fn) const {
  std::string found;
  for (const program::Instruction &inst : fn.body()) {
    std::string kind = inst.op() == "adamw_update" ? "adamw"
                       : inst.op() == "sgd_update" ? "sgd"
                                                   : "";
    if (kind.empty())
      continue;
    if (!found.empty() && found != kind)
      throw std::runtime_error("function '" + fn.name() +
                               "' mixes adamw_update and sgd_update");
    found = kind;
  }
  return found;
}

// An overriding weight decay applies to the parameters the compiler decays
// and to every matrix (so that it also works on a program compiled without
// decay); the others keep none.
double Executor::weight_decay(const Call &c, int param) const {
  double decay = c.real("weight_decay");
  if (!overrides_.weight_decay)
    return decay;
  if (decay != 0.0 || slices_[param].local_shape.size() >= 2)
    return *overrides_.weight_decay;
  return 0.0;
}

void Executor::op_adamw_update(const Call &c) { optimizer_update(c, "adamw"); }

void Executor::op_sgd_update(const Call &c) { optimizer_update(c, "sgd"); }

void Executor::optimizer_update(const Call &c, const std::string &compiled) {
  int param = param_of(c, 0);
  size_t n = slices_[param].local_elements();
  size_t offset = grad_offsets_[param];
  float lr = read_scalar(c.in(1));
  float grad_scale = read_scalar(c.in(2));
  float decay = float(weight_decay(c, param));
  float *param_ptr = f32(program_.parameters(param).tensor());
  // A hyperparameter comes from the command line, else from the compiled op
  // when it is of the same optimizer, else from tpc-optimizer's defaults.
  auto pick = [&](const std::optional<double> &override, const char *attr,
                  double fallback) {
    if (override)
      return float(*override);
    return float(compiled == overrides_.optimizer.value_or(compiled)
                     ? c.real(attr)
                     : fallback);
  };
  if (overrides_.optimizer.value_or(compiled) == "adamw") {
    AdamWParams p;
    p.lr = lr;
    p.grad_scale = grad_scale;
    p.beta1 = pick(overrides_.beta1, "beta1", 0.9);
    p.beta2 = pick(overrides_.beta2, "beta2", 0.95);
    p.eps = pick(overrides_.eps, "eps", 1e-8);
    p.weight_decay = decay;
    p.step = optimizer_step_;
    backend_.adamw_update(param_ptr, f32(c.in(0)), state(adam_m_) + offset,
                          state(adam_v_) + offset, n, p);
  } else {
    SgdParams p;
    p.lr = lr;
    p.grad_scale = grad_scale;
    p.momentum = pick(overrides_.momentum, "momentum", 0.0);
    p.weight_decay = decay;
    float *buffer = p.momentum != 0.0f ? state(momentum_) + offset : nullptr;
    backend_.sgd_update(param_ptr, f32(c.in(0)), buffer, n, p);
  }
}

} // namespace tpc
