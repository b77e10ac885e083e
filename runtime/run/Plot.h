//===- Plot.h - The loss-curve plot of a training run -----------*- C++ -*-===//
//
// `tpc-run train` hands its JSON lines log to tpc-plot (a Python script
// using matplotlib, installed next to tpc-run) at the end of a run. Plotting
// is a courtesy: a failure is a warning and never changes the run's outcome.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_PLOT_H
#define TPC_RUNTIME_RUN_PLOT_H

#include <string>

namespace tpc {

/// The PNG `tpc-run train` writes for `log` and the --plot option `plot`:
/// "" when `plot` is "none" (or neither is given); `plot` when given;
/// otherwise the log's path with its extension replaced by .png.
std::string plot_path(const std::string &log, const std::string &plot);

/// The executable `name` next to this process's executable
/// (/proc/self/exe), else the first on PATH; "" when there is none.
std::string find_tool(const std::string &name);

/// Runs `tpc-plot log -o png` and waits for it. Returns "" on success,
/// otherwise what went wrong (tpc-plot not found, its exit status).
std::string plot_loss_curve(const std::string &log, const std::string &png);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_PLOT_H
