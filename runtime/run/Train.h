//===- Train.h - The training loop and the gradient check -------*- C++ -*-===//
//
// One optimizer step: zero the gradient buffers, run train_step on K
// micro-batches (data-parallel ranks read disjoint windows), sum the loss
// sums and target counts over the micro-batches and the DP group, then run
// apply_step(lr, 1 / global count). Gradients are of the loss sum, so K
// micro-batches on M ranks weigh every target token equally, as one batch of
// K*M micro-batches would.
//
// Dropout draws its masks from (seed, step, key, global index) with step =
// optimizer step * K + micro-batch, so every tp and dp size draws the same
// masks for the same tokens.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_TRAIN_H
#define TPC_RUNTIME_RUN_TRAIN_H

#include "runtime/exec/Executor.h"
#include "runtime/run/Run.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tpc {

struct TrainConfig {
  std::string data;
  std::string val;          // empty: no evaluation
  int64_t eval_every = 0;   // evaluate before steps that are multiples
  int64_t eval_batches = 0; // <= 0: the whole validation file
  int64_t steps = 1;
  int grad_accum = 1;
  double lr = 3e-4, min_lr = 0.0;
  int64_t warmup = 0;
  std::string schedule = "cosine"; // or "constant"
  uint64_t seed = 1337;
  bool random_windows = false;
  /// Targets equal to this token id are not counted (they become the
  /// program's ignore_index); < 0: none.
  int ignore_token = -1;
};

/// The learning rate of step `step` (0-based): linear warmup to lr over
/// `warmup` steps, then constant or a cosine decay to min_lr at the last
/// step.
double learning_rate(const TrainConfig &config, int64_t step);

struct StepResult {
  int64_t step = 0;
  double loss = 0.0; // token-weighted mean of the step's batch
  double lr = 0.0;
  double grad_norm = 0.0;
  int64_t tokens = 0; // target tokens counted over the job
  double seconds = 0.0;
  std::optional<double> val_loss;
};

/// Checks the program (train_step, apply_step, optimizer) and the config;
/// throws naming the problem. `optimizer` non-empty must match the
/// program's.
void check_training(Executor &ex, const TrainConfig &config,
                    const std::string &optimizer);

/// Runs config.steps optimizer steps; `on_step` sees each step's result on
/// every rank.
void train(Executor &ex, const TrainConfig &config,
           const std::function<void(const StepResult &)> &on_step);

struct GradCheckResult {
  int checked = 0;
  double worst = 0.0; // largest |fd - analytic| / (atol + rtol * |analytic|)
  std::string worst_at;
};

/// Compares train_step's gradients of the loss sum of the first batch of
/// `data` (dropout off) with central differences of `forward`'s loss sum
/// (steps eps and eps/2, Richardson-extrapolated) at `per_param` elements
/// of every parameter. Split parameters are
/// perturbed on tp rank 0 only, replicated ones on every rank.
GradCheckResult grad_check(Executor &ex, const std::string &data, int per_param,
                           double eps, double atol, double rtol);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_TRAIN_H
