//===- Train.cpp - The training loop --------------------------------------===//

#include "runtime/run/Train.h"
#include "runtime/comm/Faults.h"
#include "runtime/io/TokenFile.h"
#include "runtime/program/Abi.h"
#include "runtime/run/Checkpoints.h"
#include "runtime/run/PipelineRun.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace tpc {

namespace {
/// splitmix64: the random windows' global batch index.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const program::Function &apply_step_of(Executor &ex) {
  const program::Function &fn = ex.function(
      ex.program().pp() > 1 ? abi::stage_apply_step(ex.comm().pp_rank())
                            : std::string(abi::kApplyStep));
  if (fn.inputs_size() != 2 || fn.outputs_size() != 1)
    throw std::runtime_error("entry point 'apply_step' must be fn(lr f32, "
                             "inv_count f32) -> grad_norm f32");
  for (int i = 0; i < 2; ++i)
    if (ex.tensor(fn.inputs(i)).shape_size() != 0 ||
        ex.tensor(fn.inputs(i)).dtype() != program::F32)
      throw std::runtime_error("apply_step's inputs must be f32 scalars");
  return fn;
}

} // namespace

double learning_rate(const TrainConfig &c, int64_t step) {
  if (step < c.warmup)
    return c.lr * double(step + 1) / double(c.warmup);
  if (c.schedule == "constant")
    return c.lr;
  int64_t decay = c.steps - c.warmup;
  double ratio = decay <= 1 ? 0.0 : double(step - c.warmup) / double(decay - 1);
  ratio = std::min(1.0, std::max(0.0, ratio));
  return c.min_lr + 0.5 * (1.0 + std::cos(M_PI * ratio)) * (c.lr - c.min_lr);
}

void check_training(Executor &ex, const TrainConfig &c,
                    const std::string &optimizer) {
  if (ex.program().pp() > 1) {
    PipelineRunner pipe(ex);
    if (c.grad_accum != 1 && c.grad_accum != pipe.micro_batches())
      throw std::runtime_error(
          "--grad-accum " + std::to_string(c.grad_accum) +
          " differs from the " + std::to_string(pipe.micro_batches()) +
          " micro-batches per step that the pipelined program was compiled "
          "for; drop --grad-accum or recompile with --micro-batches " +
          std::to_string(c.grad_accum));
  } else {
    ex.check(*describe_entry(ex, abi::kTrainStep).fn);
  }
  const program::Function &apply = apply_step_of(ex);
  ex.check(apply);
  std::string compiled = ex.compiled_optimizer();
  if (compiled.empty())
    throw std::runtime_error("apply_step updates no parameter");
  if (!optimizer.empty() && optimizer != abi::kAdamW && optimizer != abi::kSgd)
    throw std::runtime_error("unknown --optimizer '" + optimizer +
                             "' (expected adamw or sgd)");
  if (c.steps < 1 || c.grad_accum < 1)
    throw std::runtime_error("--steps and --grad-accum must be >= 1");
  if (c.schedule != "cosine" && c.schedule != "constant")
    throw std::runtime_error("unknown --schedule '" + c.schedule +
                             "' (expected cosine or constant)");
  if (c.save_every < 0 || c.keep < 0)
    throw std::runtime_error("--save-every and --keep must be >= 0");
  if ((c.save_every > 0 || c.keep > 0) && c.save_dir.empty())
    throw std::runtime_error("--save-every and --keep need --save-dir");
  if (c.warmup < 0 || c.lr < 0 || c.min_lr < 0)
    throw std::runtime_error("--lr, --min-lr and --warmup must be >= 0");
  if (!c.val.empty() && ex.program().pp() <= 1)
    ex.check(*describe_entry(ex, abi::kForward).fn);
  bool scaling = scales_loss(ex);
  if ((c.fixed_loss_scale || c.init_scale || c.growth_interval) && !scaling)
    throw std::runtime_error("--loss-scale, --init-scale and "
                             "--growth-interval are for fp16 programs, whose "
                             "train_step takes a loss scale; this program "
                             "does not scale its loss");
  auto positive = [](std::optional<double> x) {
    return !x || (*x > 0.0 && std::isfinite(*x));
  };
  if (!positive(c.fixed_loss_scale) || !positive(c.init_scale) ||
      c.growth_interval.value_or(1) < 1)
    throw std::runtime_error("--loss-scale and --init-scale must be finite "
                             "and positive, --growth-interval >= 1");
}

bool scales_loss(Executor &ex) {
  if (ex.program().pp() > 1)
    return PipelineRunner(ex).scales_loss();
  ModelEntry entry = describe_entry(ex, abi::kTrainStep);
  const program::Function &fn = *entry.fn;
  int scale = entry.batch_inputs(); // the loss scale follows the batch
  if (fn.inputs_size() != scale + 1)
    return false;
  const program::Tensor &t = ex.tensor(fn.inputs(scale));
  if (t.shape_size() != 0 || t.dtype() != program::F32)
    throw std::runtime_error("train_step's input after the batch, the loss "
                             "scale, must be an f32 scalar");
  return true;
}

void note_progress(Comm &comm, int64_t step, const std::string &checkpoint) {
  comm.set_give_up_note([step, checkpoint] {
    Comm::GiveUpNote note;
    if (step > 0)
      note.during = " in step " + std::to_string(step);
    if (!checkpoint.empty())
      note.resume = "The last good checkpoint is " + checkpoint +
                    " (resume with --load " + checkpoint + ")";
    return note;
  });
}

TrainOutcome train(Executor &ex, const TrainConfig &c, const TrainState &start,
                   const std::function<void(const StepResult &)> &on_step) {
  Comm &comm = ex.comm();
  std::unique_ptr<PipelineRunner> pipe;
  if (ex.program().pp() > 1)
    pipe = std::make_unique<PipelineRunner>(ex);
  ModelEntry entry = describe_entry(ex, abi::kTrainStep);
  const program::Function &apply = apply_step_of(ex);
  // A pipelined step runs the micro-batches its schedule was built for.
  const int64_t accum = pipe ? pipe->micro_batches() : c.grad_accum;
  ModelEntry eval_entry;
  if (!c.val.empty())
    eval_entry = describe_entry(ex, abi::kForward);
  int ignore = int(ex.program().model().ignore_index());
  std::unique_ptr<TokenFile> file;
  std::unique_ptr<Batcher> batcher;
  together(comm, [&] {
    if (c.masks.path.empty() != c.val_masks.path.empty() && !c.val.empty())
      throw std::runtime_error(
          "--masks and --val-masks go together: masked-LM training "
          "evaluates on masked validation data");
    file = std::make_unique<TokenFile>(c.data);
    batcher = make_batcher(ex, entry, *file, c.masks);
    if (batcher->batches_per_epoch() == 0)
      throw std::runtime_error(c.data +
                               " holds fewer tokens than one global "
                               "batch of " +
                               std::to_string(comm.dp_size()) + " x " +
                               std::to_string(entry.B) + " windows of " +
                               std::to_string(entry.T + 1) + " tokens");
    if (!c.random_windows) {
      try {
        batcher->seek(start.data_position);
      } catch (const std::invalid_argument &e) {
        throw std::runtime_error(e.what());
      }
    }
    if (!c.save_dir.empty() && comm.world_rank() == 0)
      prepare_save_dir(c);
  });
  TrainOutcome out;
  out.state = start;
  bool scaling = scales_loss(ex);
  TrainState &st = out.state;
  bool dynamic = scaling && !c.fixed_loss_scale;
  int64_t growth_interval =
      c.growth_interval.value_or(TrainConfig::kGrowthInterval);
  if (!scaling)
    st.loss_scale = 0.0;
  else if (c.fixed_loss_scale)
    st.loss_scale = *c.fixed_loss_scale;
  else if (st.loss_scale <= 0.0)
    st.loss_scale = c.init_scale.value_or(TrainConfig::kInitScale);
  auto checkpoint_note = [&] {
    return out.last_checkpoint.empty()
               ? std::string("no checkpoint was written by this run")
               : "the last good checkpoint is " + out.last_checkpoint;
  };
  std::vector<Batch> batches(size_t(accum), Batch{entry});
  // Without --sop the batches carry no sentence-order labels: a head gets
  // no loss (its weight stays 0).
  const bool sop = entry.sentence_order >= 0 && c.masks.sentence_order;
  const double rows = double(entry.B) * double(accum) * comm.dp_size();
  uint64_t global = uint64_t(comm.dp_size()) * entry.B * entry.T;
  bool saved = false; // the newest state is in save_dir
  // The first step creates primitives and touches fresh memory: a profile
  // starts after it unless it is the only one.
  out.first_profiled = c.steps - start.step > 1 ? start.step + 1 : start.step;
  // The newest checkpoint is the one this run resumed from until it saves.
  auto note_step = [&](int64_t step) {
    note_progress(comm, step,
                  out.last_checkpoint.empty() ? c.resume_from
                                              : out.last_checkpoint);
  };
  // A loss that is not finite before this run's first update comes from
  // the weights it started with, not from the learning rate.
  const int64_t first_step = start.step;
  for (int64_t step = start.step; step < c.steps; ++step) {
    note_step(step + 1);
    if (c.profile && step == out.first_profiled)
      ex.set_profiling(true);
    auto start = std::chrono::steady_clock::now();
    StepResult r;
    r.step = step;
    // Also before the run's last update, so that a loss curve ends with a
    // validation point.
    if (c.eval_every > 0 && (step % c.eval_every == 0 || step == c.steps - 1)) {
      EvalResult val =
          evaluate(ex, eval_entry, c.val, c.eval_batches, c.val_masks);
      r.val_loss = val.loss;
      r.val_accuracy = val.accuracy;
      r.val_sop_loss = val.sop_loss;
      r.val_sop_accuracy = val.sop_accuracy;
    }
    if (r.val_loss && !std::isfinite(*r.val_loss)) {
      std::string what = "step " + std::to_string(step + 1) + "/" +
                         std::to_string(c.steps) + ": the val loss (" +
                         std::to_string(*r.val_loss) + ") is";
      if (step == first_step)
        throw weights_overflow(what, c.resume_from);
      throw AgreedFailure(what +
                          " not finite: training diverged (lower --lr "
                          "or --clip); " +
                          checkpoint_note());
    }
    // The first micro-batch writes the gradients (RunOptions), so they need
    // no zeroing.
    // GradScaler scales the gradients of a mean loss; ours are of the loss
    // sum, so the seed is the scale over the step's target positions (all
    // micro-batches of all data-parallel ranks), and a scale of 2^16 means
    // here what it means there.
    double positions =
        double(entry.B) * entry.T * double(accum) * comm.dp_size();
    float seed = 0.0f;
    if (scaling) {
      r.loss_scale = st.loss_scale;
      seed = float(st.loss_scale / positions);
      if (!pipe)
        ex.set_input(*entry.fn, entry.batch_inputs(), &seed, sizeof(seed));
    }
    double totals[2] = {0.0, 0.0}; // loss sum, count
    // The step's micro-batches are read before any runs: a pipeline's
    // schedule takes them all at once.
    for (int k = 0; k < accum; ++k) {
      uint64_t micro = uint64_t(step) * uint64_t(accum) + uint64_t(k);
      Batch &batch = batches[size_t(k)];
      together(comm, [&] {
        if (c.random_windows)
          batcher->seek(mix(c.seed ^ mix(micro)) %
                        batcher->batches_per_epoch() * global);
        batcher->set_global_batch(micro);
        batcher->next(batch.inputs.data(), batch.targets.data(),
                      batch.extras());
      });
      if (c.ignore_token >= 0)
        for (int &t : batch.targets)
          if (t == c.ignore_token)
            t = ignore;
    }
    // BERT's sentence-order loss enters the loss sum times the step's
    // predicted positions over its rows, so that the step's loss (the sum
    // over the predicted positions) is the sum of the two means, as
    // BertForPreTraining's total loss.
    double sop_totals[2] = {0.0, 0.0}; // sentence-order loss sum, correct
    if (sop) {
      double predicted = 0.0;
      for (const Batch &batch : batches)
        predicted +=
            double(std::count_if(batch.targets.begin(), batch.targets.end(),
                                 [&](int t) { return t != ignore; }));
      comm.all_reduce(&predicted, 1, ReduceOp::Sum, Group::DP);
      for (Batch &batch : batches)
        batch.sentence_order_weight = float(predicted / rows);
    }
    for (int k = 0; k < accum && !pipe; ++k) {
      uint64_t micro = uint64_t(step) * uint64_t(accum) + uint64_t(k);
      RunOptions options;
      options.training = true;
      options.seed = c.seed;
      options.step = micro;
      options.first_micro_batch = k == 0;
      // An injected overflow writes a gradient after the backward, so that
      // step reduces after it too, on every rank alike.
      options.last_micro_batch = c.overlap_grad_reduce && k == accum - 1 &&
                                 !gradient_overflow_planned(step + 1);
      run_loss_entry(ex, entry, batches[size_t(k)], options, totals);
      if (sop)
        add_sentence_order(ex, entry, batches[size_t(k)], sop_totals);
    }
    if (pipe)
      pipe->train_step(batches, uint64_t(step) * uint64_t(accum), c.seed, seed,
                       totals, sop ? sop_totals : nullptr);
    if (gradient_overflow_injected(comm.world_rank(), step + 1))
      ex.inject_gradient_overflow();
    // TP ranks hold the same loss; DP ranks hold disjoint windows; the last
    // pipeline stage alone computes it.
    if (pipe)
      comm.all_reduce(totals, 2, ReduceOp::Sum, Group::PP);
    comm.all_reduce(totals, 2, ReduceOp::Sum, Group::DP);
    if (sop) {
      if (pipe)
        comm.all_reduce(sop_totals, 2, ReduceOp::Sum, Group::PP);
      comm.all_reduce(sop_totals, 2, ReduceOp::Sum, Group::DP);
      r.sop_loss = sop_totals[0] / rows;
      r.sop_accuracy = sop_totals[1] / rows;
    }
    if (totals[1] <= 0)
      throw std::runtime_error("step " + std::to_string(step) +
                               " has no target token to train on (every "
                               "target is ignored)");
    r.loss = totals[0] / totals[1];
    if (!std::isfinite(r.loss) && step == first_step)
      throw weights_overflow("step " + std::to_string(step + 1) + "/" +
                                 std::to_string(c.steps) + ": the loss (" +
                                 std::to_string(r.loss) + ") is",
                             c.resume_from);
    if (!std::isfinite(r.loss))
      throw AgreedFailure("step " + std::to_string(step + 1) + "/" +
                          std::to_string(c.steps) + ": the loss is " +
                          std::to_string(r.loss) +
                          "; stopping before the update (lower --lr or "
                          "--clip); " +
                          checkpoint_note());
    // Masked-LM batches compute every position but predict few: their
    // throughput counts the positions, as for next-token batches.
    r.tokens = c.masks.masked() ? int64_t(positions) : int64_t(totals[1]);
    // The schedule and AdamW's t count applied updates: a step skipped by
    // loss scaling moves neither (as PyTorch's GradScaler skips
    // optimizer.step()).
    r.lr = learning_rate(c, st.updates);
    // Gradients are of the scaled loss sum: dividing by the scale here
    // unscales the norm, the clipping and the update at once.
    double unscale = scaling ? st.loss_scale / positions : 1.0;
    float lr = float(r.lr), inv_count = float(1.0 / (totals[1] * unscale));
    ex.set_optimizer_step(st.updates + 1);
    ex.set_input(apply, 0, &lr, sizeof(lr));
    ex.set_input(apply, 1, &inv_count, sizeof(inv_count));
    ex.run(apply);
    double reduction = ex.take_reduction_seconds();
    r.reductions_overlapped = ex.take_reductions_overlapped();
    if (comm.dp_size() > 1)
      r.reduction_seconds = reduction;
    float norm = 0.0f;
    ex.read_output(apply, 0, &norm, sizeof(norm));
    r.grad_norm = norm;
    // The norm sums every rank's gradients (all-reduced over dp, then the
    // squares over tp), so it is the one flag every rank agrees on; a norm
    // that is not finite made apply_step skip every update.
    if (!std::isfinite(r.grad_norm) && !scaling && step == first_step)
      throw weights_overflow(
          "step " + std::to_string(step + 1) + "/" + std::to_string(c.steps) +
              ": the gradient norm (" + std::to_string(r.grad_norm) + ") is",
          c.resume_from);
    if (!std::isfinite(r.grad_norm) && !scaling)
      throw AgreedFailure("step " + std::to_string(step + 1) + "/" +
                          std::to_string(c.steps) + ": the gradient norm is " +
                          std::to_string(r.grad_norm) +
                          "; the update was skipped and the run stops (lower "
                          "--lr or --clip); " +
                          checkpoint_note());
    r.skipped = !std::isfinite(r.grad_norm);
    if (scaling) {
      // Every rank decided alone, on the same norm, whether apply_step
      // skipped its updates; the flag all-reduced here makes sure that the
      // ranks agree before the scale moves.
      double skipped[2] = {double(r.skipped), double(!r.skipped)};
      comm.all_reduce(skipped, 2, ReduceOp::Max, Group::World);
      if (skipped[0] > 0 && skipped[1] > 0)
        throw AgreedFailure("step " + std::to_string(step + 1) +
                            ": some ranks found the gradients overflowed and "
                            "others did not, so their weights now differ; " +
                            checkpoint_note());
    }
    if (r.skipped) {
      ex.set_optimizer_step(st.updates);
      if (dynamic)
        st.loss_scale *= 0.5;
      st.good_steps = 0;
    } else {
      ++st.updates;
      if (dynamic && ++st.good_steps == growth_interval) {
        st.loss_scale *= 2.0;
        st.good_steps = 0;
      }
    }
    r.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (c.profile && step >= out.first_profiled) {
      ++out.profiled_steps;
      out.profiled_seconds += r.seconds;
    }
    on_step(r);
    out.state.step = step + 1;
    out.state.data_position = batcher->position();
    saved = false;
    if (c.save_every > 0 && out.state.step % c.save_every == 0) {
      out.last_checkpoint = save_step(ex, c, out.state, out.last_checkpoint);
      note_step(step + 1);
      saved = true;
    }
    if (c.stop) {
      fault_point("before-agreement", comm.world_rank(), out.state.step);
      double signal = double(*c.stop);
      comm.all_reduce(&signal, 1, ReduceOp::Max, Group::World);
      fault_point("after-agreement", comm.world_rank(), out.state.step);
      if (signal > 0 && out.state.step < c.steps) {
        out.stopped_by = int(signal);
        break;
      }
    }
  }
  note_step(0);
  if (c.profile) {
    ex.set_profiling(false);
    out.op_times = ex.op_times();
  }
  if (!c.save_dir.empty() && !saved && out.state.step > start.step) {
    out.last_checkpoint = save_step(ex, c, out.state, out.last_checkpoint);
    note_step(0);
  }
  return out;
}

} // namespace tpc
