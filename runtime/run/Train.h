//===- Train.h - The training loop ------------------------------*- C++ -*-===//
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

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tpc {

struct TrainConfig {
  std::string data;
  std::string val; // empty: no evaluation
  /// Masked-language-model batches of `data` and of `val` (--masks,
  /// --val-masks, --mask-id); empty paths: next-token windows.
  MaskOptions masks, val_masks;
  int64_t eval_every =
      0; // evaluate before steps that are multiples, and the last
  int64_t eval_batches = 0; // <= 0: the whole validation file
  int64_t steps = 1;
  int grad_accum = 1;
  double lr = 3e-4, min_lr = 0.0;
  int64_t warmup = 0;
  std::string schedule = "cosine"; // or "constant"
  uint64_t seed = 1337;
  bool random_windows = false;
  /// Start the data-parallel gradient reductions during the last
  /// micro-batch's backward (Executor::set_overlap_grad_reduce).
  bool overlap_grad_reduce = false;
  /// Targets equal to this token id are not counted (they become the
  /// program's ignore_index); < 0: none.
  int ignore_token = -1;
  /// Training checkpoints save_dir/step_<n>.safetensors after every
  /// save_every-th step (0: none) and after the last or a stopped step;
  /// only the newest `keep` stay (0: all); save_dir/latest.safetensors
  /// links the newest.
  std::string save_dir;
  int64_t save_every = 0;
  int keep = 0;
  /// The checkpoint this run resumes from (--load), "" for a new run. A
  /// save_dir that already holds step files is refused unless this is one
  /// of them.
  std::string resume_from;
  /// Dynamic loss scaling of a program whose train_step takes the loss
  /// scale (fp16), with GradScaler's rules: start at init_scale, double
  /// after growth_interval consecutive steps whose gradients are finite,
  /// halve and skip the step (weights, optimizer state and schedule
  /// untouched) when any gradient on any rank is not. fixed_loss_scale > 0
  /// holds the scale constant (overflowing steps are still skipped). Unset:
  /// the flag was not given (kInitScale, kGrowthInterval, dynamic scaling).
  static constexpr double kInitScale = 65536.0;
  static constexpr int64_t kGrowthInterval = 2000;
  std::optional<double> init_scale;
  std::optional<int64_t> growth_interval;
  std::optional<double> fixed_loss_scale;
  /// Time every op of the steps (Executor::set_profiling) from the run's
  /// second step on, or of its only step; TrainOutcome gets the times.
  bool profile = false;
  /// Set (to the signal number) by a signal handler: every rank finishes
  /// its step, the ranks agree at the step boundary, save, and stop.
  const volatile std::sig_atomic_t *stop = nullptr;
};

/// Where a training run stands between steps: what a training checkpoint
/// records besides the weights and the optimizer state.
struct TrainState {
  int64_t step = 0;           // optimizer steps done
  uint64_t data_position = 0; // the sequential batcher's token offset
  uint64_t seed = 0;
  /// Steps whose update was applied: AdamW's t and the learning-rate
  /// schedule's position. `step` minus the steps skipped by loss scaling.
  int64_t updates = 0;
  /// The loss scale and the finite steps since it last changed; 0 for a
  /// program that does not scale its loss.
  double loss_scale = 0.0;
  int64_t good_steps = 0;
};

struct TrainOutcome {
  TrainState state;
  int stopped_by = 0;          // the signal that stopped the run, 0: none
  std::string last_checkpoint; // the newest file in save_dir, "" if none
  /// With TrainConfig::profile: the steps timed (0-based steps
  /// [first_profiled, first_profiled + profiled_steps)), their wall time
  /// and this rank's time per op over them.
  int64_t first_profiled = 0, profiled_steps = 0;
  double profiled_seconds = 0.0;
  std::vector<Executor::OpTime> op_times;
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
  /// Target tokens counted over the job; under --masks, the positions.
  int64_t tokens = 0;
  double seconds = 0.0;
  std::optional<double> val_loss;
  /// With masked-LM batches, the validation's accuracy over the predicted
  /// positions; with a sentence-order head on --sop batches, its loss and
  /// accuracy there (val_loss is then the masked-LM loss alone).
  std::optional<double> val_accuracy, val_sop_loss, val_sop_accuracy;
  /// With BERT's sentence-order head: that loss's mean over the step's rows
  /// (`loss` is the masked-LM mean plus it) and its accuracy.
  std::optional<double> sop_loss, sop_accuracy;
  /// The loss scale the step ran with; absent without loss scaling.
  std::optional<double> loss_scale;
  /// Seconds of the step's apply_step spent in data-parallel communication
  /// (Executor::take_reduction_seconds); absent at dp = 1.
  std::optional<double> reduction_seconds;
  /// How many of those reductions started during the backward.
  int64_t reductions_overlapped = 0;
  /// A gradient overflowed: the update was skipped.
  bool skipped = false;
};

/// Checks the program (train_step, apply_step, optimizer) and the config;
/// throws naming the problem. `optimizer` non-empty must match the
/// program's.
void check_training(Executor &ex, const TrainConfig &config,
                    const std::string &optimizer);

/// Whether the program's train_step takes a loss scale (fp16 programs).
bool scales_loss(Executor &ex);

/// Runs optimizer steps from `start` (a fresh run: {0, 0, seed}) to
/// config.steps; `on_step` sees each step's result on every rank. A loss
/// that is not finite throws AgreedFailure naming the step before the
/// update, so the newest checkpoint stays the last good one.
TrainOutcome train(Executor &ex, const TrainConfig &config,
                   const TrainState &start,
                   const std::function<void(const StepResult &)> &on_step);

/// Has a rank of `comm` that gives up (Comm::set_give_up_note) name the
/// step in progress (1-based as the progress lines count; 0: none) and the
/// newest checkpoint the job can resume from ("": none).
void note_progress(Comm &comm, int64_t step, const std::string &checkpoint);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_TRAIN_H
