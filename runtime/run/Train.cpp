//===- Train.cpp - The training loop and the gradient check ---------------===//

#include "runtime/run/Train.h"
#include "runtime/comm/Faults.h"
#include "runtime/io/FileUtil.h"
#include "runtime/io/Safetensors.h"
#include "runtime/io/TokenFile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>

namespace tpc {

namespace {
/// The ignore_index of the loss op of `fn`.
int ignore_index_of(const program::Function &fn) {
  for (const program::Instruction &inst : fn.body())
    if (inst.op() == "cross_entropy" ||
        inst.op() == "vocab_parallel_cross_entropy") {
      auto it = inst.attrs().find("ignore_index");
      if (it != inst.attrs().end())
        return int(it->second.i());
    }
  return -1;
}

/// splitmix64: the random windows' global batch index.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const program::Function &apply_step_of(Executor &ex) {
  const program::Function &fn = ex.function("apply_step");
  if (fn.inputs_size() != 2 || fn.outputs_size() != 1)
    throw std::runtime_error("entry point 'apply_step' must be fn(lr f32, "
                             "inv_count f32) -> grad_norm f32");
  for (int i = 0; i < 2; ++i)
    if (ex.tensor(fn.inputs(i)).shape_size() != 0 ||
        ex.tensor(fn.inputs(i)).dtype() != program::F32)
      throw std::runtime_error("apply_step's inputs must be f32 scalars");
  return fn;
}

uint64_t parse_count(const std::map<std::string, std::string> &metadata,
                     const std::string &key, const std::string &path) {
  return metadata_count(metadata, key, path);
}

std::string step_file(const TrainConfig &c, int64_t step) {
  return c.save_dir + "/step_" + std::to_string(step) + ".safetensors";
}

/// The step number of a file name "step_<n><suffix>", if it is one.
std::optional<uint64_t> step_of(const std::string &f,
                                const std::string &suffix) {
  const std::string prefix = "step_";
  if (f.size() <= prefix.size() + suffix.size() ||
      f.compare(0, prefix.size(), prefix) != 0 ||
      f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::string n =
      f.substr(prefix.size(), f.size() - prefix.size() - suffix.size());
  if (n.size() > 19 || n.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(n);
}

/// Removes the temporary files of checkpoint writes that did not finish (a
/// run killed while saving): checkpoint-sized files nothing reads.
void remove_unfinished_writes(const TrainConfig &c) {
  namespace fs = std::filesystem;
  for (const fs::directory_entry &e : fs::directory_iterator(c.save_dir)) {
    std::string f = e.path().filename().string();
    if (!step_of(f, ".safetensors.tmp") && f != "latest.safetensors.tmp")
      continue;
    std::error_code error;
    fs::remove(e.path(), error);
    std::fprintf(stderr,
                 "tpc-run: %s %s, left by a checkpoint write that "
                 "did not finish%s\n",
                 error ? "cannot remove" : "removed", e.path().c_str(),
                 error ? (": " + error.message()).c_str() : "");
  }
}

/// Points save_dir/latest.safetensors at step `step`'s file (a relative
/// symlink, replaced atomically), then removes all but the newest `keep`
/// step files up to `step`. Files of later steps are not this run's to
/// judge: they come from the run a resume rewound, and are replaced as this
/// run reaches their steps. So the file just written, and the one `latest`
/// names, are never removed.
void rotate(const TrainConfig &c, int64_t step) {
  namespace fs = std::filesystem;
  fs::path dir(c.save_dir);
  fs::path tmp = dir / "latest.safetensors.tmp";
  fs::remove(tmp);
  fs::create_symlink("step_" + std::to_string(step) + ".safetensors", tmp);
  fs::rename(tmp, dir / "latest.safetensors");
  if (c.keep <= 0)
    return;
  std::vector<std::pair<uint64_t, fs::path>> steps;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (std::optional<uint64_t> n =
            step_of(e.path().filename().string(), ".safetensors"))
      if (*n <= uint64_t(step))
        steps.emplace_back(*n, e.path());
  std::sort(steps.begin(), steps.end());
  for (size_t i = 0; i + size_t(c.keep) < steps.size(); ++i)
    fs::remove(steps[i].second);
}

/// Refuses a save_dir that is not a directory, and one that holds the
/// checkpoints of another run unless this run resumes from one of them:
/// a new run there would mix its checkpoints with the old run's, and
/// rotation by step number would remove the wrong ones.
void check_save_dir(const TrainConfig &c) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::file_status status = fs::status(c.save_dir, error);
  if (fs::exists(status) && !fs::is_directory(status))
    throw std::runtime_error("--save-dir " + c.save_dir +
                             " exists and is not a directory; name a "
                             "directory (it is created if missing)");
  if (!fs::exists(status))
    return;
  std::optional<uint64_t> newest;
  for (const fs::directory_entry &e : fs::directory_iterator(c.save_dir))
    if (std::optional<uint64_t> n =
            step_of(e.path().filename().string(), ".safetensors"))
      newest = std::max(newest.value_or(0), *n);
  if (!newest)
    return;
  if (!c.resume_from.empty()) {
    fs::path from = fs::weakly_canonical(c.resume_from, error).parent_path();
    if (!error && from == fs::weakly_canonical(c.save_dir, error) && !error)
      return;
  }
  std::string dir = c.save_dir;
  throw std::runtime_error(
      "--save-dir " + dir + " holds the checkpoints of another run (newest: " +
      dir + "/step_" + std::to_string(*newest) +
      ".safetensors); resume that run with --load " + dir +
      "/latest.safetensors, or start a new one in another --save-dir (or "
      "move those checkpoints away first)");
}

/// Writes the training checkpoint of `state` into save_dir; returns its
/// path. A collective over the world.
std::string save_step(Executor &ex, const TrainConfig &c,
                      const TrainState &state, const std::string &last) {
  std::string path = step_file(c, state.step);
  // The ranks wait on rank 0's writing, however long it takes.
  Comm::Patient patient(ex.comm());
  try {
    ex.save_checkpoint(path, train_metadata(c, state), true);
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(std::string(e.what()) + "; " +
                             (last.empty()
                                  ? "no checkpoint was written by this run"
                                  : "the last good checkpoint is " + last));
  }
  std::string error;
  if (ex.comm().world_rank() == 0) {
    try {
      rotate(c, state.step);
    } catch (const std::exception &e) {
      error = c.save_dir +
              ": cannot update latest.safetensors or remove "
              "old checkpoints: " +
              e.what();
    }
  }
  if (!ex.comm().all_ok(error.empty()))
    throw std::runtime_error(
        error.empty() ? "rank 0 could not update " + c.save_dir : error);
  return path;
}
} // namespace

std::optional<TrainState>
train_state_of(const std::map<std::string, std::string> &metadata,
               const std::string &path) {
  if (!metadata.count("tpc.trainer_step"))
    return std::nullopt;
  TrainState s;
  s.step = int64_t(parse_count(metadata, "tpc.trainer_step", path));
  s.data_position = parse_count(metadata, "tpc.data_position", path);
  s.seed = parse_count(metadata, "tpc.seed", path);
  if (metadata.count("tpc.grad_accum"))
    metadata_count(metadata, "tpc.grad_accum", path, 1, INT32_MAX);
  return s;
}

std::map<std::string, std::string> train_metadata(const TrainConfig &c,
                                                  const TrainState &s) {
  return {{"tpc.trainer_step", std::to_string(s.step)},
          {"tpc.data_position", std::to_string(s.data_position)},
          {"tpc.seed", std::to_string(s.seed)},
          {"tpc.steps", std::to_string(c.steps)},
          {"tpc.grad_accum", std::to_string(c.grad_accum)},
          {"tpc.windows", c.random_windows ? "random" : "sequential"}};
}

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
  ModelEntry entry = describe_entry(ex, "train_step");
  ex.check(*entry.fn);
  const program::Function &apply = apply_step_of(ex);
  ex.check(apply);
  std::string compiled = ex.optimizer_of(apply);
  if (compiled.empty())
    throw std::runtime_error("apply_step updates no parameter");
  if (!optimizer.empty() && optimizer != "adamw" && optimizer != "sgd")
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
  if (!c.val.empty())
    ex.check(*describe_entry(ex, "forward").fn);
}

TrainOutcome train(Executor &ex, const TrainConfig &c, const TrainState &start,
                   const std::function<void(const StepResult &)> &on_step) {
  Comm &comm = ex.comm();
  ModelEntry entry = describe_entry(ex, "train_step");
  const program::Function &apply = apply_step_of(ex);
  ModelEntry eval_entry;
  if (!c.val.empty())
    eval_entry = describe_entry(ex, "forward");
  int ignore = ignore_index_of(*entry.fn);
  std::unique_ptr<TokenFile> file;
  std::unique_ptr<TokenBatcher> batcher;
  together(comm, [&] {
    file = std::make_unique<TokenFile>(c.data);
    batcher = std::make_unique<TokenBatcher>(
        *file, entry.B, entry.T, comm.dp_rank(), comm.dp_size(), entry.vocab);
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
    if (!c.save_dir.empty() && comm.world_rank() == 0) {
      check_save_dir(c);
      ensure_directory(c.save_dir, "--save-dir");
      remove_unfinished_writes(c);
    }
  });
  TrainOutcome out;
  out.state = start;
  auto checkpoint_note = [&] {
    return out.last_checkpoint.empty()
               ? std::string("no checkpoint was written by this run")
               : "the last good checkpoint is " + out.last_checkpoint;
  };
  size_t n = size_t(entry.B) * entry.T;
  std::vector<int> inputs(n), targets(n);
  uint64_t global = uint64_t(comm.dp_size()) * entry.B * entry.T;
  bool saved = false; // the newest state is in save_dir
  for (int64_t step = start.step; step < c.steps; ++step) {
    comm.set_step(step + 1);
    auto start = std::chrono::steady_clock::now();
    StepResult r;
    r.step = step;
    // Also before the run's last update, so that a loss curve ends with a
    // validation point.
    if (c.eval_every > 0 && (step % c.eval_every == 0 || step == c.steps - 1))
      r.val_loss = evaluate(ex, eval_entry, c.val, c.eval_batches).loss;
    ex.zero_gradients();
    double totals[2] = {0.0, 0.0}; // loss sum, count
    for (int k = 0; k < c.grad_accum; ++k) {
      uint64_t micro = uint64_t(step) * uint64_t(c.grad_accum) + uint64_t(k);
      together(comm, [&] {
        if (c.random_windows)
          batcher->seek(mix(c.seed ^ mix(micro)) %
                        batcher->batches_per_epoch() * global);
        batcher->next(inputs.data(), targets.data());
      });
      if (c.ignore_token >= 0)
        for (int &t : targets)
          if (t == c.ignore_token)
            t = ignore;
      RunOptions options;
      options.training = true;
      options.seed = c.seed;
      options.step = micro;
      run_loss_entry(ex, entry, inputs.data(), targets.data(), options, totals);
    }
    // TP ranks hold the same loss; DP ranks hold disjoint windows.
    comm.all_reduce(totals, 2, ReduceOp::Sum, Group::DP);
    if (totals[1] <= 0)
      throw std::runtime_error("step " + std::to_string(step) +
                               " has no target token to train on (every "
                               "target is ignored)");
    r.loss = totals[0] / totals[1];
    if (!std::isfinite(r.loss))
      throw AgreedFailure("step " + std::to_string(step + 1) + "/" +
                          std::to_string(c.steps) + ": the loss is " +
                          std::to_string(r.loss) +
                          "; stopping before the update (lower --lr or "
                          "--clip); " +
                          checkpoint_note());
    r.tokens = int64_t(totals[1]);
    r.lr = learning_rate(c, step);
    float lr = float(r.lr), inv_count = float(1.0 / totals[1]);
    ex.set_optimizer_step(step + 1);
    ex.set_input(apply, 0, &lr, sizeof(lr));
    ex.set_input(apply, 1, &inv_count, sizeof(inv_count));
    ex.run(apply);
    float norm = 0.0f;
    ex.read_output(apply, 0, &norm, sizeof(norm));
    r.grad_norm = norm;
    if (!std::isfinite(r.grad_norm))
      throw AgreedFailure("step " + std::to_string(step + 1) + "/" +
                          std::to_string(c.steps) + ": the gradient norm is " +
                          std::to_string(r.grad_norm) +
                          " and the update made the weights non-finite "
                          "(lower --lr or --clip); " +
                          checkpoint_note());
    r.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    on_step(r);
    out.state.step = step + 1;
    out.state.data_position = batcher->position();
    saved = false;
    if (c.save_every > 0 && out.state.step % c.save_every == 0) {
      out.last_checkpoint = save_step(ex, c, out.state, out.last_checkpoint);
      comm.set_last_checkpoint(out.last_checkpoint);
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
  comm.set_step(0);
  if (!c.save_dir.empty() && !saved && out.state.step > start.step) {
    out.last_checkpoint = save_step(ex, c, out.state, out.last_checkpoint);
    comm.set_last_checkpoint(out.last_checkpoint);
  }
  return out;
}

double model_flops_per_token(const Executor &ex) {
  const program::Program &prog = ex.program();
  const program::Function &fn = ex.function("train_step");
  std::set<int> positional;
  for (const program::Instruction &inst : fn.body())
    if (inst.op() == "position_embedding")
      positional.insert(inst.inputs(0));
  double params = 0.0;
  for (const program::Parameter &p : prog.parameters()) {
    if (positional.count(p.tensor()))
      continue;
    double n = 1.0;
    for (int64_t d : param_slice(p, prog.tensors(p.tensor()), 0, int(prog.tp()))
                         .unpadded_shape)
      n *= double(d);
    params += n;
  }
  double attention = 0.0;
  for (const program::Instruction &inst : fn.body()) {
    bool self = inst.op() == "self_attention";
    if (!self && inst.op() != "cross_attention")
      continue;
    const program::Tensor &q = ex.tensor(inst.inputs(0));
    if (q.shape_size() != 3)
      continue;
    double width = double(q.shape(2)) / (self ? 3.0 : 1.0);
    auto attr = inst.attrs().find("head_parallel");
    if (attr != inst.attrs().end() && attr->second.flag())
      width *= double(prog.tp());
    double span = double(q.shape(1));
    auto window = inst.attrs().find("window");
    if (window != inst.attrs().end() && window->second.i() > 0)
      span = std::min(span, double(window->second.i()));
    attention += 12.0 * width * span;
  }
  return 6.0 * params + attention;
}

double probe_peak_flops(Backend &backend, int n) {
  size_t bytes = size_t(n) * n * sizeof(float);
  float *a = static_cast<float *>(backend.alloc(bytes));
  float *b = static_cast<float *>(backend.alloc(bytes));
  float *c = static_cast<float *>(backend.alloc(bytes));
  std::vector<float> host(size_t(n) * n);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = float(i % 17) / 17.0f - 0.5f;
  backend.copy_host_to_device(a, host.data(), bytes);
  backend.copy_host_to_device(b, host.data(), bytes);
  auto gemm = [&] {
    backend.gemm(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  };
  gemm(); // warm up
  backend.synchronize();
  const int reps = 3;
  auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r)
    gemm();
  backend.synchronize();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  for (float *p : {a, b, c})
    backend.free(p);
  return 2.0 * double(n) * n * n * reps / std::max(seconds, 1e-9);
}

GradCheckResult grad_check(Executor &ex, const std::string &data, int per_param,
                           double eps, double atol, double rtol) {
  Comm &comm = ex.comm();
  ModelEntry train = describe_entry(ex, "train_step");
  ModelEntry forward = describe_entry(ex, "forward");
  ex.check(*train.fn);
  ex.check(*forward.fn);
  size_t n = size_t(train.B) * train.T;
  std::vector<int> inputs(n), targets(n);
  together(comm, [&] {
    TokenFile file(data);
    TokenBatcher batcher(file, train.B, train.T, comm.dp_rank(), comm.dp_size(),
                         train.vocab);
    batcher.next(inputs.data(), targets.data());
  });
  for (const ModelEntry *e : {&train, &forward}) {
    ex.set_input(*e->fn, 0, inputs.data(), n * sizeof(int));
    ex.set_input(*e->fn, 1, targets.data(), n * sizeof(int));
  }
  ex.zero_gradients();
  ex.run(*train.fn);
  auto loss = [&] {
    ex.run(*forward.fn);
    float sum = 0.0f;
    ex.read_output(*forward.fn, 0, &sum, sizeof(sum));
    double total = sum;
    comm.all_reduce(&total, 1, ReduceOp::Sum, Group::DP);
    return total;
  };
  GradCheckResult result;
  for (const program::Parameter &p : ex.program().parameters()) {
    std::vector<float> grad = ex.read_gradient(p.name());
    // DP ranks' gradients are of their own windows: the loss is their sum.
    std::vector<double> g(grad.begin(), grad.end());
    comm.all_reduce(g.data(), g.size(), ReduceOp::Sum, Group::DP);
    std::vector<float> value = ex.read_parameter(p.name());
    bool split = p.layout().kind() == program::Layout::SPLIT;
    bool mine = !split || comm.tp_rank() == 0;
    size_t count = value.size();
    for (int k = 0; k < per_param && count > 0; ++k) {
      size_t i = (size_t(k) * 7919 + 13) % count;
      // Central differences at steps eps and eps/2, extrapolated
      // (Richardson) so that the eps^2 truncation error cancels.
      double d[2];
      for (int half = 0; half < 2; ++half) {
        double h = half ? eps / 2 : eps;
        double loss_at[2];
        for (int side = 0; side < 2; ++side) {
          std::vector<float> moved = value;
          if (mine)
            moved[i] += float(side == 0 ? h : -h);
          ex.write_parameter(p.name(), moved);
          loss_at[side] = loss();
        }
        d[half] = (loss_at[0] - loss_at[1]) / (2.0 * h);
      }
      ex.write_parameter(p.name(), value);
      double fd = (4.0 * d[1] - d[0]) / 3.0;
      // Rank 0 holds the perturbed element; the others agree with it.
      double analytic = g[i];
      comm.broadcast(&analytic, sizeof(analytic), 0, Group::TP);
      double error =
          std::fabs(fd - analytic) / (atol + rtol * std::fabs(analytic));
      ++result.checked;
      if (error > result.worst) {
        result.worst = error;
        result.worst_at = p.name() + "[" + std::to_string(i) + "]: analytic " +
                          std::to_string(analytic) + ", finite difference " +
                          std::to_string(fd);
      }
    }
  }
  return result;
}

} // namespace tpc
