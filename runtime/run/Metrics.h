//===- Metrics.h - Throughput, MFU and the training log ---------*- C++ -*-===//
//
// Model FLOPs utilization is the program's model FLOPs per token (the
// compiler's cost report counts them: 6 N plus attention) times the tokens
// a step processed over the step's time and the job's peak. The peak is
// stated (--peak-flops) or measured by a short GEMM probe in the program's
// compute type (a bf16 program's peak is the bf16 GEMM's). Each step is one
// JSON line in the log (world rank 0) and one progress line. The log's
// memory figure is the process's peak resident set and, on a device with
// memory of its own (a GPU), the device's peak allocation beside it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_METRICS_H
#define TPC_RUNTIME_RUN_METRICS_H

#include "runtime/backend/Backend.h"
#include "runtime/run/Train.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace tpc {

/// Sustained GEMM FLOP/s of this rank for tensors stored as `dtype`: a few
/// square GEMMs of side `n` on the backend's kernels of that type.
double probe_peak_flops(Backend &backend, ElementType dtype = ElementType::F32,
                        int n = 1024);

/// The MFU of one step: `flops_per_token` * `tokens` / `seconds` over
/// `peak` FLOP/s per rank times `ranks`.
double model_flops_utilization(double flops_per_token, double tokens,
                               double seconds, double peak, int ranks);

/// This process's peak resident memory so far, in MiB: the kernel's
/// high-water mark of its address space's resident set, not counting the
/// parent that started it.
double peak_rss_mib();

/// "1h02m", "3m05s" or "12s".
std::string duration(double seconds);

/// The progress line of step r.step (0-based) of `steps`; MFU only when
/// known.
std::string step_line(const StepResult &r, int64_t steps,
                      std::optional<double> mfu, double eta_seconds);

/// The table of `tpc-run train --profile`: for each op of `times` (slowest
/// first), its calls and milliseconds per step and its share of the wall
/// time of the `steps` steps from 0-based step `first` on (`seconds` in
/// all), then the time spent outside ops.
std::string profile_table(const std::vector<Executor::OpTime> &times,
                          int64_t first, int64_t steps, double seconds);

/// Writes the JSON lines of the training log: one object per step.
class JsonLog {
public:
  /// No file for an empty `path`: write() does nothing. `device`: whose
  /// peak allocation each line reports, where it keeps one.
  explicit JsonLog(const std::string &path, const Device *device = nullptr);
  ~JsonLog();
  JsonLog(const JsonLog &) = delete;
  JsonLog &operator=(const JsonLog &) = delete;

  void write(const StepResult &r, int tp, int dp, std::optional<double> mfu);

private:
  std::FILE *file_ = nullptr;
  const Device *device_;
};

} // namespace tpc

#endif // TPC_RUNTIME_RUN_METRICS_H
