//===- TrainCommand.cpp - tpc-run train -----------------------------------===//
//
// Checks the program and the flags, loads or initializes the weights (a
// training checkpoint resumes its run), then runs the training loop with the
// progress line, the JSON log, the loss-curve plot and the stop signals.
//
//===----------------------------------------------------------------------===//

#include "runtime/program/Abi.h"
#include "runtime/run/Checkpoints.h"
#include "runtime/run/Command.h"
#include "runtime/run/Metrics.h"
#include "runtime/run/Plot.h"
#include "runtime/run/Progress.h"
#include "runtime/run/Run.h"
#include "runtime/run/Signals.h"

#include <cstdio>
#include <memory>

namespace tpc {

void add_train_flags(CLI::App &app, CommandOptions &opt) {
  app.footer(
      "Stopping a run: SIGINT, SIGTERM or SIGUSR1 to the ranks (`pkill -TERM "
      "-f tpc-run`), or SIGUSR1 to mpirun (`kill -USR1 <mpirun pid>`; mpirun "
      "forwards it to every rank), stops training at the next step boundary "
      "with a checkpoint in --save-dir. SIGINT or SIGTERM to mpirun itself "
      "(Ctrl-C) makes Open MPI kill the ranks about a second later, often "
      "before they can save. A rank that dies ends the job: the ranks waiting "
      "on it give up (see --comm-timeout) naming the last good checkpoint.");
  TrainConfig &t = opt.train;
  app.add_option("--data", t.data, "llm.c token file to train on")->required();
  app.add_option("--val", t.val, "llm.c token file to evaluate on");
  app.add_option("--eval-every", t.eval_every,
                 "Evaluate on --val before every N-th step and before the "
                 "last (0: never)");
  app.add_option("--eval-batches", t.eval_batches,
                 "Global batches per evaluation (default: the file)");
  app.add_option("--steps", t.steps, "Optimizer steps")->required();
  app.add_option("--grad-accum", t.grad_accum,
                 "Micro-batches per optimizer step")
      ->capture_default_str();
  app.add_option("--lr", t.lr, "Peak learning rate")->capture_default_str();
  app.add_option("--min-lr", t.min_lr,
                 "Learning rate at the last step (cosine)")
      ->capture_default_str();
  app.add_option("--warmup", t.warmup, "Linear warmup steps")
      ->capture_default_str();
  app.add_option("--schedule", t.schedule, "cosine or constant")
      ->capture_default_str();
  app.add_option("--clip", opt.clip,
                 "Clip the global gradient norm at X (0: no clipping; "
                 "default: the program's)");
  app.add_option("--optimizer", opt.optimizer,
                 "adamw or sgd (default: the program's, chosen by "
                 "tpc-compile --optimizer)");
  app.add_option("--weight-decay", opt.weight_decay,
                 "Weight decay of the decayed parameters (default: the "
                 "program's)");
  app.add_option("--beta1", opt.beta1, "AdamW beta1 (default: the program's)");
  app.add_option("--beta2", opt.beta2, "AdamW beta2 (default: the program's)");
  app.add_option("--eps", opt.eps, "AdamW epsilon (default: the program's)");
  app.add_option("--momentum", opt.momentum,
                 "SGD momentum (default: the program's)");
  app.add_option("--loss-scale", t.fixed_loss_scale,
                 "fp16 programs: a fixed loss scale instead of dynamic "
                 "scaling (steps whose gradients overflow are still "
                 "skipped)");
  app.add_option("--init-scale", t.init_scale,
                 "fp16 programs: the dynamic loss scale's start (default "
                 "65536); it halves on a step whose gradients overflow (the "
                 "step is skipped)");
  app.add_option("--growth-interval", t.growth_interval,
                 "fp16 programs: the dynamic loss scale doubles after this "
                 "many consecutive steps without overflow (default 2000)");
  app.add_option("--load", opt.load,
                 "Checkpoint to start from: a training checkpoint resumes "
                 "(optimizer state, step, data position, seed); a "
                 "weights-only one starts a fresh run from its weights");
  app.add_option("--save", opt.save, "Training checkpoint to write at the end");
  app.add_option("--save-dir", t.save_dir,
                 "Directory of training checkpoints step_<n>.safetensors "
                 "(written at the end, every --save-every steps and on "
                 "SIGINT/SIGTERM/SIGUSR1 to a rank, or SIGUSR1 to mpirun) "
                 "and latest.safetensors linking the newest");
  app.add_option("--save-every", t.save_every,
                 "Write a checkpoint into --save-dir every N steps");
  app.add_option("--keep", t.keep,
                 "Keep only the newest K checkpoints in --save-dir (0: all)");
  app.add_option("--log", opt.log, "JSON lines, one per step");
  app.add_option("--plot", opt.plot,
                 "Loss-curve PNG drawn from --log by tpc-plot at the end "
                 "(also after a stop; default: the --log path with .png; "
                 "'none': no plot)");
  app.add_option("--progress", opt.progress,
                 "auto: on a terminal one progress line rewritten in place "
                 "(steps with a val loss stay), else a line per step; "
                 "terminal or lines force either")
      ->check(CLI::IsMember({"auto", "terminal", "lines"}))
      ->capture_default_str();
  app.add_option("--peak-flops", opt.peak_flops,
                 "Peak FLOP/s of one rank, the denominator of MFU "
                 "(default: measured by a short GEMM probe in the program's "
                 "compute type at start)")
      ->check(CLI::PositiveNumber);
  app.add_option("--ignore-token", t.ignore_token,
                 "Targets equal to this token id are not counted (they "
                 "become the program's ignore_index)");
  auto *sequential =
      app.add_flag("--sequential", opt.sequential,
                   "Consecutive windows from the file start (the default)");
  app.add_flag("--random-windows", t.random_windows,
               "Windows at seeded random positions")
      ->excludes(sequential);
  auto *masks = app.add_option(
      "--masks", t.masks.path,
      "Masked-LM batches (BERT): a file of one byte per token of --data, 1 "
      "where the token is predicted; window w holds tokens [w*T, (w+1)*T), "
      "a predicted input becomes --mask-id and its target the token, every "
      "other target is ignored; the loss is the mean over the predicted "
      "positions");
  auto *val_masks = app.add_option("--val-masks", t.val_masks.path,
                                   "The mask file of --val, with --masks");
  auto *mask_id = app.add_option("--mask-id", t.masks.mask_id,
                                 "The input id of a predicted position "
                                 "([MASK]: 103 in bert-base-uncased)");
  masks->needs(mask_id);
  mask_id->needs(masks);
  val_masks->needs(masks);
  masks->excludes("--random-windows");
  add_mlm_flags(app, t.masks);
  app.add_flag("--overlap-grad-reduce", t.overlap_grad_reduce,
               "Start each data-parallel gradient bucket's all-reduce (or "
               "reduce-scatter) during the last micro-batch's backward, as "
               "soon as its gradients are final, instead of after it; the "
               "log's dp_comm_s is the part the step still waits for");
  app.add_flag("--profile", t.profile,
               "After the run, print the time of each op per step (rank "
               "0's, from the second step on): every op is timed alone, "
               "the device synchronized after it, so steps run slower on "
               "a GPU");
}

namespace {
/// Checks the program and the flags, and applies the optimizer overrides.
void check_train_flags(Executor &ex, const CommandOptions &opt) {
  check_training(ex, opt.train, opt.optimizer);
  std::string optimizer =
      opt.optimizer.empty() ? ex.compiled_optimizer() : opt.optimizer;
  if (optimizer == abi::kSgd && (opt.beta1 || opt.beta2 || opt.eps))
    throw std::runtime_error("--beta1, --beta2 and --eps are AdamW's; the "
                             "optimizer is sgd");
  if (optimizer == abi::kAdamW && opt.momentum)
    throw std::runtime_error("--momentum is SGD's; the optimizer is adamw");
  OptimizerOverrides o;
  if (!opt.optimizer.empty())
    o.optimizer = opt.optimizer;
  o.beta1 = opt.beta1;
  o.beta2 = opt.beta2;
  o.eps = opt.eps;
  o.weight_decay = opt.weight_decay;
  o.momentum = opt.momentum;
  o.max_norm = opt.clip;
  ex.set_optimizer_overrides(o);
  ex.set_overlap_grad_reduce(opt.train.overlap_grad_reduce);
  if (!opt.plot.empty() && opt.plot != "none" && opt.log.empty())
    throw std::runtime_error("--plot draws the --log file: give --log too");
}
} // namespace

int train_command(Session &s, const CommandOptions &opt) {
  Comm &comm = s.comm;
  Executor &ex = s.ex;
  bool root = s.root;
  together(comm, [&] { check_train_flags(ex, opt); });
  TrainConfig config = opt.train;
  config.val_masks.mask_id = config.masks.mask_id;
  // A pipelined program's step runs the micro-batches it was compiled for
  // (check_training refused another --grad-accum): checkpoints, tokens per
  // step and MFU count them.
  if (s.prog.pp() > 1)
    config.grad_accum = int(s.prog.pipeline().micro_batches());
  TrainState start;
  start.seed = config.seed;
  CheckpointContents loaded = load_weights(s, opt, true);
  together(comm, [&] {
    if (opt.load.empty())
      return;
    std::optional<TrainState> st = train_state_of(loaded.metadata, opt.load);
    if (st && !loaded.optimizer_state)
      throw std::runtime_error(
          opt.load + ": a training checkpoint (" + abi::kTrainerStepKey + " " +
          std::to_string(st->step) + ") without optimizer state (no " +
          abi::kOptimizerKey + "); resuming would restart the optimizer " +
          "mid-run. The file is corrupt: load an earlier checkpoint");
    if (st)
      start = *st;
    if (start.step > config.steps)
      throw std::runtime_error(
          opt.load + " was written after step " + std::to_string(start.step) +
          ", beyond --steps " + std::to_string(config.steps) +
          "; give the run's total --steps");
  });
  if (!opt.load.empty() && root) {
    char scale[48] = "";
    if (start.loss_scale > 0.0 && scales_loss(ex))
      std::snprintf(scale, sizeof(scale), ", loss scale %g", start.loss_scale);
    auto windows = loaded.metadata.find(abi::kWindowsKey);
    std::string data =
        windows != loaded.metadata.end() && windows->second == "random"
            ? "random windows from the seed"
            : "the data at token " + std::to_string(start.data_position);
    if (loaded.optimizer_state)
      std::printf("resuming from %s: step %lld, optimizer state and data "
                  "position restored, seed %llu%s (%s state after %lld "
                  "updates, %s)\n",
                  opt.load.c_str(), (long long)start.step,
                  (unsigned long long)start.seed, scale,
                  loaded.metadata.at(abi::kOptimizerKey).c_str(),
                  (long long)start.updates, data.c_str());
    else
      std::printf("loaded weights only from %s (not a training checkpoint): "
                  "fresh optimizer state from step 0\n",
                  opt.load.c_str());
    std::fflush(stdout);
  }
  config.seed = start.seed;
  // --mlm draws the batches of --data and --val from the run's seed.
  config.masks.seed = config.seed;
  if (config.masks.mlm)
    config.val_masks = config.masks;
  config.resume_from = opt.load;
  if (!opt.load.empty())
    note_progress(comm, 0, opt.load);

  std::unique_ptr<JsonLog> log;
  together(comm, [&] {
    if (root)
      log = std::make_unique<JsonLog>(opt.log, &ex.backend().device());
  });
  // MFU: the program's model FLOPs of the tokens processed over the job's
  // peak.
  double flops_per_token = double(s.prog.model_flops_per_token());
  double peak = opt.peak_flops.value_or(0.0);
  // The GEMMs run in the parameters' compute type: measure that one's peak.
  ElementType compute = ElementType::F32;
  if (s.prog.parameters_size() > 0)
    compute =
        element_type_of(s.prog.tensors(s.prog.parameters(0).tensor()).dtype());
  std::string probe =
      std::string("measured by a 1024^3 ") +
      (compute == ElementType::F32
           ? "sgemm"
           : std::string(element_type_name(compute)) + " GEMM") +
      " probe";
  if (!opt.peak_flops) {
    peak = probe_peak_flops(ex.backend(), compute);
    comm.all_reduce(&peak, 1, ReduceOp::Sum, Group::World);
    peak /= comm.world_size();
  }
  if (root) {
    const char *source = opt.peak_flops ? "--peak-flops" : probe.c_str();
    if (flops_per_token > 0)
      std::printf(
          "model %.4g FLOPs per token; peak %.4g FLOP/s per rank (%s)\n",
          flops_per_token, peak, source);
    else
      std::printf("model FLOPs per token not recorded in the program (no MFU; "
                  "compile it with tpc-compile); peak %.4g FLOP/s per rank "
                  "(%s)\n",
                  peak, source);
    std::fflush(stdout);
  }
  double step_tokens = double(s.prog.micro_batch()) * double(s.prog.seq()) *
                       double(comm.dp_size()) * config.grad_accum;
  double run_seconds = 0.0;
  int64_t run_steps = 0;
  config.stop = stop_signal();
  install_stop_handlers();
  // The loss curve, also after a stop: the log holds every step done.
  std::string png = plot_path(opt.log, opt.plot);
  auto draw = [&] {
    if (png.empty())
      return;
    // The other ranks wait for rank 0's plot here, patiently: after a stop
    // signal they would otherwise give up on it at the exit barrier when
    // matplotlib is slow to start on a loaded machine.
    Comm::Patient patient(comm);
    if (root) {
      log.reset();
      std::fflush(stdout);
      std::string error = plot_loss_curve(opt.log, png);
      if (!error.empty())
        std::fprintf(stderr,
                     "tpc-run: warning: no loss-curve plot: %s (the log %s is "
                     "intact: `tpc-plot %s -o %s`)\n",
                     error.c_str(), opt.log.c_str(), opt.log.c_str(),
                     png.c_str());
    }
    comm.all_ok(true);
  };
  ProgressLine progress(
      stdout, opt.progress == "terminal" ||
                  (opt.progress == "auto" && output_is_terminal(stdout)));
  auto on_step = [&](const StepResult &r) {
    if (!root)
      return;
    std::optional<double> mfu;
    if (flops_per_token > 0)
      mfu = model_flops_utilization(flops_per_token, step_tokens, r.seconds,
                                    peak, comm.world_size());
    run_seconds += r.seconds;
    ++run_steps;
    double eta =
        run_seconds / double(run_steps) * double(config.steps - r.step - 1);
    log->write(r, comm.tp_size(), comm.dp_size(), mfu);
    // Steps with a validation loss stay on the screen.
    progress.show(step_line(r, config.steps, mfu, eta), r.val_loss.has_value());
  };
  TrainOutcome outcome;
  try {
    outcome = train(ex, config, start, on_step);
  } catch (const AgreedFailure &) {
    progress.finish();
    draw();
    throw;
  } catch (...) {
    progress.finish();
    throw;
  }
  progress.finish();
  if (config.profile && root) {
    std::fputs(profile_table(outcome.op_times, outcome.first_profiled,
                             outcome.profiled_steps, outcome.profiled_seconds)
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }
  if (!opt.save.empty()) {
    ex.save_checkpoint(opt.save, train_metadata(config, outcome.state), true);
    if (root)
      std::printf("wrote %d parameters to %s\n", s.prog.parameters_size(),
                  opt.save.c_str());
  }
  draw();
  if (!outcome.stopped_by)
    return 0;
  if (root)
    std::fprintf(stderr,
                 "tpc-run: stopped by signal %d after step %lld/%lld; %s\n",
                 outcome.stopped_by, (long long)outcome.state.step,
                 (long long)config.steps,
                 outcome.last_checkpoint.empty()
                     ? "no checkpoint was written (no --save-dir)"
                     : ("saved " + outcome.last_checkpoint +
                        "; resume with --load " + outcome.last_checkpoint)
                           .c_str());
  return 128 + outcome.stopped_by;
}

} // namespace tpc
