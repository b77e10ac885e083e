//===- OptimizerState.h - Optimizer buffers, step and overrides -*- C++ -*-===//
//
// The optimizer's state parallel to the gradients (AdamW m and v, SGD
// momentum, allocated zero on first use), the optimizer step t with its
// device copy, and the run-time overrides of apply_step's hyperparameters.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_OPTIMIZERSTATE_H
#define TPC_RUNTIME_EXEC_OPTIMIZERSTATE_H

#include "runtime/backend/Device.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

/// Run-time values of the optimizer's hyperparameters. apply_step carries
/// the compiler's values as op attributes; a value set here replaces them.
struct OptimizerOverrides {
  /// "adamw" or "sgd": replaces the optimizer apply_step was compiled with.
  /// The update ops of both carry the parameter, its gradient, the learning
  /// rate and the step's gradient scale, so either runs the other's update;
  /// hyperparameters the compiled op lacks take the defaults of
  /// tpc-optimizer (AdamW 0.9, 0.95, 1e-8; SGD without momentum).
  std::optional<std::string> optimizer;
  std::optional<double> beta1, beta2, eps, weight_decay, momentum;
  /// Gradient clipping: > 0 clips at this norm, 0 disables clipping.
  std::optional<double> max_norm;
};

class OptimizerState {
public:
  explicit OptimizerState(Device &device) : device_(device) {}
  ~OptimizerState();
  OptimizerState(const OptimizerState &) = delete;
  OptimizerState &operator=(const OptimizerState &) = delete;

  /// Elements of each state buffer: those of the gradients.
  void set_elements(size_t n) { elements_ = n; }

  OptimizerOverrides overrides;

  /// The optimizer step t (1 for the first apply_step), for AdamW's bias
  /// correction.
  int64_t step = 1;
  /// The device copy of `step`, written once per apply_step.
  const int64_t *device_step();
  void write_step();

  float *m() { return allocated(m_); }
  float *v() { return allocated(v_); }
  float *momentum() { return allocated(momentum_); }
  /// The state buffers of optimizer `kind` by the names they carry in
  /// checkpoints ("m", "v", "momentum"). With `allocate`, AdamW's are
  /// allocated (zero) when still absent; a null buffer has no state yet.
  std::vector<std::pair<std::string, float **>> buffers(const std::string &kind,
                                                        bool allocate);
  /// Allocates `buffer` (zero) when it is null.
  float *allocated(float *&buffer);

private:
  Device &device_;
  size_t elements_ = 0;
  float *m_ = nullptr, *v_ = nullptr, *momentum_ = nullptr;
  int64_t *device_step_ = nullptr;
};

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_OPTIMIZERSTATE_H
