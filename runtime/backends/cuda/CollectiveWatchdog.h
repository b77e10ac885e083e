//===- CollectiveWatchdog.h - NCCL operations that never end ---*- C++ -*-===//
//
// The MPI path bounds each wait the host polls (runtime/comm/Watchdog.h).
// NCCL's collectives and messages run on device streams that the host does
// not wait on, so one whose peer died would run forever and hang the host
// at its next copy from the device. This watchdog applies the MPI path's
// --comm-timeout rule to them from a thread of its own: an operation is
// watched from when it starts to run on its stream (the work queued before
// it is not its delay) until it completes, through events recorded around
// it, which the thread queries every 0.1 s while any is pending and not at
// all otherwise; it never waits on a stream. An operation that runs for
// the timeout, or a communicator that reports an asynchronous error, ends
// the job: the communicators are aborted first (ncclCommAbort), so that no
// kernel is left waiting on the device, then the rank prints the MPI path's
// line (Comm::give_up), naming itself, the operation, its group and the
// last good checkpoint. The device and NCCL are reached through hooks, so
// that the rules are tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CUDA_COLLECTIVEWATCHDOG_H
#define TPC_RUNTIME_BACKENDS_CUDA_COLLECTIVEWATCHDOG_H

#include "runtime/comm/Comm.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace tpc::cuda {

class CollectiveWatchdog {
public:
  using Clock = std::chrono::steady_clock;
  /// Where an operation stands on its stream.
  enum class State { Queued, Running, Done };

  struct Hooks {
    /// Where operation `id` stands (its events, queried).
    std::function<State(uint64_t id)> state;
    /// Operation `id` is done and no longer watched: its events are free.
    std::function<void(uint64_t id)> finished;
    /// The asynchronous error of `group`'s communicator; "" while none.
    std::function<std::string(Group group)> async_error;
    /// Aborts every communicator.
    std::function<void()> abort;
    /// Prints the rank's line and ends the job (Comm::give_up).
    std::function<void(const char *what, Group group, const std::string &why)>
        give_up;
    std::function<Clock::time_point()> now = [] { return Clock::now(); };
  };

  /// `timeout`: seconds an operation may run, 0 for no limit (an error
  /// still ends it). `interval`: seconds between the thread's looks; 0 for
  /// no thread, when the caller calls poll().
  CollectiveWatchdog(double timeout, Hooks hooks, double interval = 0.1);
  /// Stops the thread; what is still watched is left as it is.
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog &) = delete;
  CollectiveWatchdog &operator=(const CollectiveWatchdog &) = delete;

  /// Watches operation `id`, `what` (as "all_reduce") over `group`, whose
  /// events have been recorded; starts the thread the first time.
  void watch(uint64_t id, const char *what, Group group);
  /// One look at every watched operation, oldest first: forgets those
  /// done, starts the clock of those now running, and gives up (abort,
  /// then give_up) on the first that ran for the timeout or whose
  /// communicator failed. Nothing after it gave up once.
  void poll();
  /// Operations watched and not done at the last look.
  size_t pending() const;

private:
  struct Op {
    uint64_t id;
    const char *what;
    Group group;
    std::optional<Clock::time_point> running_since;
  };
  void run();

  const double timeout_;
  Hooks hooks_;
  const std::chrono::duration<double> interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Op> ops_;
  bool stop_ = false, gave_up_ = false;
  std::thread thread_;
};

} // namespace tpc::cuda

#endif // TPC_RUNTIME_BACKENDS_CUDA_COLLECTIVEWATCHDOG_H
