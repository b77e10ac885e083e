//===- Calibrate.h - tpc-plan calibrate: a cluster file of this machine ---===//
//
// `tpc-plan calibrate -o FILE` runs `mpirun -np R tpc-run calibrate --json`
// (one process when R is 1) and writes what it measured as a cluster file
// (compiler/Cluster.h) that `tpc-plan time --cluster FILE` reads.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_TOOLS_TPC_PLAN_CALIBRATE_H
#define TPC_TOOLS_TPC_PLAN_CALIBRATE_H

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace tpc {

struct CalibrateOptions {
  std::string output;
  int64_t ranks = 1;
  int64_t threads = 0; // tpc-run's default when 0
  std::string tpcRun, mpirun = "mpirun", backend = "cpu";
  bool quick = false;
};

/// Adds the calibrate subcommand and its flags to `app`.
CLI::App *addCalibrateCommand(CLI::App &app, CalibrateOptions &options);

/// Measures this machine and writes the cluster file; the exit status.
int runCalibrate(const CalibrateOptions &options);

} // namespace tpc

#endif // TPC_TOOLS_TPC_PLAN_CALIBRATE_H
