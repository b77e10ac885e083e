//===- Faults.cpp - Faults raised at named points, for tests --------------===//

#include "runtime/comm/Faults.h"

#include <csignal>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc {

namespace {
struct Fault {
  int rank = 0;
  int64_t step = 0;
  std::string point;
  int signal = 0;        // 0 for OVERFLOW
  bool overflow = false; // point "gradients": the step's gradients overflow
  bool fired = false;
};

int signal_named(const std::string &name) {
  if (name == "STOP")
    return SIGSTOP;
  if (name == "TERM")
    return SIGTERM;
  if (name == "INT")
    return SIGINT;
  if (name == "KILL")
    return SIGKILL;
  if (name == "USR1")
    return SIGUSR1;
  return 0;
}

std::vector<Fault> parse_faults(const char *text) {
  std::vector<Fault> faults;
  std::stringstream all(text ? text : "");
  std::string entry;
  while (std::getline(all, entry, ',')) {
    if (entry.empty())
      continue;
    std::stringstream parts(entry);
    std::string rank, step, point, signal, extra;
    bool ok = std::getline(parts, rank, ':') && std::getline(parts, step, ':') &&
              std::getline(parts, point, ':') &&
              std::getline(parts, signal, ':') &&
              !std::getline(parts, extra, ':');
    Fault f;
    char *end = nullptr;
    if (ok) {
      f.rank = int(std::strtol(rank.c_str(), &end, 10));
      ok = !rank.empty() && *end == '\0';
    }
    if (ok) {
      f.step = std::strtoll(step.c_str(), &end, 10);
      ok = !step.empty() && *end == '\0';
    }
    f.point = point;
    f.signal = signal_named(signal);
    f.overflow = signal == "OVERFLOW" && point == "gradients";
    if (!ok || f.point.empty() || (f.signal == 0 && !f.overflow))
      throw std::runtime_error(
          "TPC_FAULTS: cannot read '" + entry +
          "' (expected rank:step:point:signal with signal STOP, TERM, INT, "
          "KILL or USR1, or rank:step:gradients:OVERFLOW; entries separated "
          "by commas)");
    faults.push_back(f);
  }
  return faults;
}
} // namespace

namespace {
/// The entries of TPC_FAULTS, read once.
std::vector<Fault> &faults() {
  static std::once_flag once;
  static std::vector<Fault> faults;
  static std::string error;
  std::call_once(once, [] {
    try {
      faults = parse_faults(std::getenv("TPC_FAULTS"));
    } catch (const std::exception &e) {
      error = e.what();
    }
  });
  if (!error.empty())
    throw std::runtime_error(error);
  return faults;
}

/// The entry of TPC_FAULTS for (world_rank, step, point) that has not fired
/// yet, marked fired; null if none.
Fault *take_fault(const char *point, int world_rank, int64_t step) {
  for (Fault &f : faults())
    if (!f.fired && f.rank == world_rank && f.point == point &&
        (f.step == 0 || f.step == step)) {
      f.fired = true;
      return &f;
    }
  return nullptr;
}
} // namespace

void fault_point(const char *point, int world_rank, int64_t step) {
  if (Fault *f = take_fault(point, world_rank, step))
    std::raise(f->signal);
}

bool gradient_overflow_injected(int world_rank, int64_t step) {
  return take_fault("gradients", world_rank, step) != nullptr;
}

bool gradient_overflow_planned(int64_t step) {
  for (const Fault &f : faults())
    if (f.overflow && (f.step == 0 || f.step == step))
      return true;
  return false;
}

} // namespace tpc
