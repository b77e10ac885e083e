//===- Train.cpp - The training loop and the gradient check ---------------===//

#include "runtime/run/Train.h"
#include "runtime/io/TokenFile.h"

#include <chrono>
#include <cmath>
#include <memory>

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
  if (c.warmup < 0 || c.lr < 0 || c.min_lr < 0)
    throw std::runtime_error("--lr, --min-lr and --warmup must be >= 0");
  if (!c.val.empty())
    ex.check(*describe_entry(ex, "forward").fn);
}

void train(Executor &ex, const TrainConfig &c,
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
  });
  size_t n = size_t(entry.B) * entry.T;
  std::vector<int> inputs(n), targets(n);
  uint64_t global = uint64_t(comm.dp_size()) * entry.B * entry.T;
  for (int64_t step = 0; step < c.steps; ++step) {
    auto start = std::chrono::steady_clock::now();
    StepResult r;
    r.step = step;
    if (c.eval_every > 0 && step % c.eval_every == 0)
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
      ex.set_input(*entry.fn, 0, inputs.data(), n * sizeof(int));
      ex.set_input(*entry.fn, 1, targets.data(), n * sizeof(int));
      RunOptions options;
      options.training = true;
      options.seed = c.seed;
      options.step = micro;
      ex.run(*entry.fn, options);
      float sum = 0.0f;
      int32_t count = 0;
      ex.read_output(*entry.fn, 0, &sum, sizeof(sum));
      ex.read_output(*entry.fn, 1, &count, sizeof(count));
      totals[0] += sum;
      totals[1] += count;
    }
    // TP ranks hold the same loss; DP ranks hold disjoint windows.
    comm.all_reduce(totals, 2, ReduceOp::Sum, Group::DP);
    if (totals[1] <= 0)
      throw std::runtime_error("step " + std::to_string(step) +
                               " has no target token to train on (every "
                               "target is ignored)");
    r.loss = totals[0] / totals[1];
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
    r.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    on_step(r);
  }
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
