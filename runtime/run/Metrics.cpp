//===- Metrics.cpp - Throughput, MFU and the training log -----------------===//

#include "runtime/run/Metrics.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace tpc {

double probe_peak_flops(Backend &backend, ElementType dtype, int n) {
  const Kernels &k = *backend.kernels(dtype);
  size_t elements = size_t(n) * n, bytes = elements * element_size(dtype);
  void *a = backend.alloc(bytes), *b = backend.alloc(bytes),
       *c = backend.alloc(bytes);
  k.fill(a, 0.25f, elements);
  k.fill(b, -0.5f, elements);
  auto gemm = [&] {
    k.gemm(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
  };
  gemm(); // warm up
  backend.synchronize();
  // The best of several calls: a peak, not an average over the wake-ups
  // of idle threads and the machine's other load. At least 8 calls over at
  // least a quarter of a second: eight calls of a few milliseconds could
  // all fall into one slow stretch of a shared machine (seen here: half
  // the peak, and an MFU above 100% after it).
  const int min_reps = 8, max_reps = 1000;
  const double min_seconds = 0.25;
  double best = 1e30, total = 0.0;
  for (int r = 0; r < max_reps && (r < min_reps || total < min_seconds); ++r) {
    auto start = std::chrono::steady_clock::now();
    gemm();
    backend.synchronize();
    double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    best = std::min(best, t);
    total += t;
  }
  for (void *p : {a, b, c})
    backend.free(p);
  return 2.0 * double(n) * n * n / std::max(best, 1e-9);
}

double peak_rss_mib() {
  // VmHWM, the high-water mark of this address space. getrusage's
  // ru_maxrss would do on a process of its own, but Linux carries it over
  // an exec: started by a large parent (a Python harness with PyTorch
  // loaded), tpc-run would report the parent's resident set at fork.
  if (std::FILE *f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    double kib = -1.0;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "VmHWM: %lf kB", &kib) == 1)
        break;
    std::fclose(f);
    if (kib >= 0.0)
      return kib / 1024.0;
  }
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) != 0)
    return 0.0;
  return double(u.ru_maxrss) / 1024.0; // KiB on Linux
}

double model_flops_utilization(double flops_per_token, double tokens,
                               double seconds, double peak, int ranks) {
  return flops_per_token * tokens / std::max(seconds, 1e-9) /
         (peak * double(ranks));
}

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

std::string step_line(const StepResult &r, int64_t steps,
                      std::optional<double> mfu, double eta_seconds) {
  char line[256], norm[32] = "nan";
  if (!std::isnan(r.grad_norm))
    std::snprintf(norm, sizeof(norm), "%.4f", r.grad_norm);
  int n =
      std::snprintf(line, sizeof(line),
                    "step %lld/%lld | loss %.6f | lr %.3e | grad norm "
                    "%s | %lld tokens | %.0f tok/s",
                    (long long)r.step + 1, (long long)steps, r.loss, r.lr, norm,
                    (long long)r.tokens, r.tokens / std::max(r.seconds, 1e-9));
  std::string text(line, size_t(std::clamp(n, 0, int(sizeof(line)) - 1)));
  if (r.sop_loss) {
    std::snprintf(line, sizeof(line),
                  " (mlm %.6f, sentence order %.6f, accuracy %.3f)",
                  r.loss - *r.sop_loss, *r.sop_loss, *r.sop_accuracy);
    text += line;
  }
  if (r.loss_scale) {
    std::snprintf(line, sizeof(line), " | loss scale %g", *r.loss_scale);
    text += line;
  }
  if (r.skipped)
    text += " | skipped: a gradient overflowed";
  if (mfu) {
    std::snprintf(line, sizeof(line), " | MFU %.2f%%", 100.0 * *mfu);
    text += line;
  }
  text += " | ETA " + duration(eta_seconds);
  if (r.val_loss) {
    std::snprintf(line, sizeof(line), " | val loss %.6f", *r.val_loss);
    text += line;
  }
  if (r.val_accuracy) {
    std::snprintf(line, sizeof(line), ", accuracy %.4f", *r.val_accuracy);
    text += line;
  }
  if (r.val_sop_loss) {
    std::snprintf(line, sizeof(line), " (sentence order %.6f, accuracy %.3f)",
                  *r.val_sop_loss, *r.val_sop_accuracy);
    text += line;
  }
  return text;
}

std::string profile_table(const std::vector<Executor::OpTime> &times,
                          int64_t first, int64_t steps, double seconds) {
  if (steps <= 0)
    return "profile: no step was timed\n";
  double per_step = 1e3 / double(steps), in_ops = 0.0;
  for (const Executor::OpTime &t : times)
    in_ops += t.seconds;
  std::string range = steps > 1 ? "steps " + std::to_string(first + 1) + "-" +
                                      std::to_string(first + steps)
                                : "step " + std::to_string(first + 1);
  char line[512];
  std::snprintf(line, sizeof(line),
                "profile of %s: %.3f ms per step, each op timed alone (the "
                "device synchronized after it)\n",
                range.c_str(), seconds * per_step);
  std::string text = line;
  text += "| entry point | op | calls per step | ms per step | share |\n"
          "|---|---|---:|---:|---:|\n";
  auto row = [&](const std::string &fn, const std::string &op,
                 const std::string &calls, double s) {
    std::snprintf(line, sizeof(line), "| %s | %s | %s | %.3f | %.1f%% |\n",
                  fn.c_str(), op.c_str(), calls.c_str(), s * per_step,
                  seconds > 0.0 ? 100.0 * s / seconds : 0.0);
    text += line;
  };
  for (const Executor::OpTime &t : times) {
    char calls[32];
    std::snprintf(calls, sizeof(calls), "%.4g",
                  double(t.calls) / double(steps));
    row(t.function, t.op, calls, t.seconds);
  }
  row("", "outside ops (data, host work, logging)", "",
      std::max(0.0, seconds - in_ops));
  return text;
}

JsonLog::JsonLog(const std::string &path, const Device *device)
    : device_(device) {
  if (!path.empty() && !(file_ = std::fopen(path.c_str(), "w")))
    throw std::runtime_error("cannot write the log " + path);
}

JsonLog::~JsonLog() {
  if (file_)
    std::fclose(file_);
}

void JsonLog::write(const StepResult &r, int tp, int dp,
                    std::optional<double> mfu) {
  if (!file_)
    return;
  // JSON has no infinity: the norm of a step whose gradients overflowed is
  // null.
  char norm[32] = "null";
  if (std::isfinite(r.grad_norm))
    std::snprintf(norm, sizeof(norm), "%.9g", r.grad_norm);
  std::fprintf(file_,
               "{\"step\": %lld, \"loss\": %.9g, \"lr\": %.9g, "
               "\"grad_norm\": %s, \"tokens\": %lld, "
               "\"tokens_per_s\": %.6g, \"tp\": %d, \"dp\": %d, "
               "\"peak_rss_mib\": %.0f",
               (long long)r.step, r.loss, r.lr, norm, (long long)r.tokens,
               r.tokens / std::max(r.seconds, 1e-9), tp, dp, peak_rss_mib());
  // On a GPU the host's resident set says little about the run's memory.
  if (std::optional<size_t> peak =
          device_ ? device_->peak_allocated_bytes() : std::nullopt)
    std::fprintf(file_, ", \"peak_device_mib\": %.0f",
                 double(*peak) / (1024.0 * 1024.0));
  if (r.reduction_seconds)
    std::fprintf(file_, ", \"dp_comm_s\": %.6g, \"dp_overlapped\": %lld",
                 *r.reduction_seconds, (long long)r.reductions_overlapped);
  if (r.loss_scale)
    std::fprintf(file_, ", \"loss_scale\": %.9g, \"skipped\": %s",
                 *r.loss_scale, r.skipped ? "true" : "false");
  if (mfu)
    std::fprintf(file_, ", \"mfu\": %.6g", *mfu);
  if (r.val_loss)
    std::fprintf(file_, ", \"val_loss\": %.9g", *r.val_loss);
  if (r.val_accuracy)
    std::fprintf(file_, ", \"val_accuracy\": %.9g", *r.val_accuracy);
  if (r.val_sop_loss)
    std::fprintf(file_, ", \"val_sop_loss\": %.9g, \"val_sop_accuracy\": %.9g",
                 *r.val_sop_loss, *r.val_sop_accuracy);
  if (r.sop_loss)
    std::fprintf(file_,
                 ", \"mlm_loss\": %.9g, \"sop_loss\": %.9g, "
                 "\"sop_accuracy\": %.9g",
                 r.loss - *r.sop_loss, *r.sop_loss, *r.sop_accuracy);
  std::fprintf(file_, "}\n");
  std::fflush(file_);
}

} // namespace tpc
