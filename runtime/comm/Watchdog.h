//===- Watchdog.h - When a rank waiting on its peers gives up ---*- C++ -*-===//
//
// A collective whose peer died or hangs would wait forever; as NCCL's
// watchdog and torch.distributed's timeout do, a waiting rank gives up when
//  - a stop signal arrived and the wait has not ended within a grace period
//    (Open MPI's launcher sends SIGTERM to every rank when one dies, and
//    SIGKILL one second later),
//  - a peer rank on this node has exited, or
//  - the wait made no progress for the watchdog's timeout.
// A wait longer than half a second also sends heartbeats to the peers on
// other nodes (PeerWatch), so that a rank that gives up names those it heard
// nothing from.
// BoundedWait applies these rules to one wait that its caller polls;
// run_guarded applies them to a call that cannot be polled.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_COMM_WATCHDOG_H
#define TPC_RUNTIME_COMM_WATCHDOG_H

#include "runtime/comm/PeerWatch.h"

#include <chrono>
#include <csignal>
#include <functional>
#include <string>
#include <vector>

namespace tpc {

/// When a rank waiting in a collective gives up on its peers.
struct Watchdog {
  /// Seconds a collective may wait without completing; 0: forever.
  double timeout = 600.0;
  /// The stop signal (set by a handler; 0 while none) and whether the
  /// launcher (the parent process) sent it.
  const volatile std::sig_atomic_t *stop = nullptr;
  const volatile std::sig_atomic_t *stop_from_launcher = nullptr;
  /// Seconds a collective may still take after a stop signal: none when
  /// the launcher sent it (it tears the job down after a rank died and
  /// kills the ranks a second later, so the rank speaks at once), longer
  /// when a person did (every rank goes on to the step boundary, where the
  /// ranks agree to stop).
  double launcher_grace = 0.0;
  double grace = 5.0;
};

/// One wait on the world ranks `ranks`, polled until it completes.
class BoundedWait {
public:
  /// `patient`: a stop signal ends the wait only when a peer on this node
  /// is stopped or the launcher sent it (Comm::Patient). `watch_exits`:
  /// end it as soon as a peer on this node has exited.
  BoundedWait(const Watchdog &watchdog, const PeerWatch &peers,
              std::vector<int> ranks, bool patient, bool watch_exits);

  /// Looks at the clock, the stop signal and the peers: why the wait gives
  /// up now ("has made no progress for ..."), or "" to go on.
  std::string why_give_up();
  /// Seconds from the start of the wait to the last why_give_up().
  double waited() const;

private:
  using Clock = std::chrono::steady_clock;
  /// Seconds into a wait when it starts sending heartbeats (PeerWatch).
  static constexpr double kBeatAfter = 0.5;
  bool stopped_by_launcher() const;
  /// ", and nothing was heard for S s from world rank R (pid P on H), ...":
  /// the peers on other nodes silent while this wait beat, or "".
  std::string silent_peers() const;
  /// Seconds the wait may still take after the stop signal.
  double grace() const;

  const Watchdog &watchdog_;
  const PeerWatch &peers_;
  std::vector<int> ranks_;
  bool patient_, watch_exits_;
  bool stopping_ = false;
  Clock::time_point start_, now_, signalled_, checked_;
};

/// "has made no progress for T s (--comm-timeout)": why a wait gives up at
/// the watchdog's `timeout`, in the line of a rank that gives up.
std::string timed_out(double timeout);

/// Runs `call`, which cannot be polled (MPI_Finalize waits on every rank),
/// while a guard thread polls `bound` every 0.1 s; when it gives up, the
/// guard calls `give_up` with the reason, which must end the process.
void run_guarded(BoundedWait bound, const std::function<void()> &call,
                 const std::function<void(const std::string &)> &give_up);

} // namespace tpc

#endif // TPC_RUNTIME_COMM_WATCHDOG_H
