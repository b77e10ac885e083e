//===- Watchdog.cpp - When a rank waiting on its peers gives up -----------===//

#include "runtime/comm/Watchdog.h"

#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>

namespace tpc {

namespace {
double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
} // namespace

BoundedWait::BoundedWait(const Watchdog &watchdog, const PeerWatch &peers,
                         std::vector<int> ranks, bool patient, bool watch_exits)
    : watchdog_(watchdog), peers_(peers), ranks_(std::move(ranks)),
      patient_(patient), watch_exits_(watch_exits), start_(Clock::now()),
      now_(start_), checked_(start_) {}

bool BoundedWait::stopped_by_launcher() const {
  return watchdog_.stop_from_launcher && *watchdog_.stop_from_launcher;
}

double BoundedWait::grace() const {
  return stopped_by_launcher() ? watchdog_.launcher_grace : watchdog_.grace;
}

double BoundedWait::waited() const { return seconds_between(start_, now_); }

std::string BoundedWait::silent_peers() const {
  // Peers beat from kBeatAfter into their own waits: what they sent from a
  // little after that on counts.
  Clock::time_point since =
      start_ + std::chrono::duration_cast<Clock::duration>(
                   std::chrono::duration<double>(kBeatAfter + 0.5));
  double quiet = seconds_between(since, now_);
  if (quiet < 1.0)
    return "";
  std::vector<std::string> silent = peers_.silent_since(since);
  if (silent.empty())
    return "";
  std::ostringstream text;
  text.precision(1);
  text << std::fixed << ", and nothing was heard for " << quiet << " s from ";
  for (size_t i = 0; i < silent.size(); ++i)
    text << (i ? ", " : "") << silent[i];
  return text.str();
}

std::string BoundedWait::why_give_up() {
  const Clock::time_point now = now_ = Clock::now();
  // Heartbeats to the peers on other nodes, once the wait is longer than a
  // step's collectives take.
  if (seconds_between(start_, now) >= kBeatAfter)
    peers_.beat();
  if (!stopping_ && watchdog_.stop && *watchdog_.stop) {
    stopping_ = true;
    signalled_ = now;
    checked_ = Clock::time_point(); // look at the peers at once
  }
  // Peers on this node: every second, or every 0.1 s once stopping.
  if (watch_exits_ &&
      seconds_between(checked_, now) >= (stopping_ ? 0.1 : 1.0)) {
    checked_ = now;
    std::vector<std::string> gone = peers_.exited(ranks_);
    if (!gone.empty()) {
      std::string who;
      for (const std::string &g : gone)
        who += (who.empty() ? "" : ", ") + g;
      return "cannot complete: " + who + (gone.size() == 1 ? " has" : " have") +
             " exited";
    }
  }
  // Patience is for a peer at work, not for one that is stopped, nor when
  // the launcher is killing the job anyway.
  if (stopping_ && seconds_between(signalled_, now) >= grace() &&
      (!patient_ || stopped_by_launcher() || peers_.any_stopped(ranks_))) {
    std::ostringstream why;
    why << "has not completed within " << grace() << " s of signal "
        << int(*watchdog_.stop)
        << (stopped_by_launcher()
                ? " from the launcher (mpirun ends the job when a rank dies)"
                : "")
        << silent_peers();
    return why.str();
  }
  if (watchdog_.timeout > 0 && waited() >= watchdog_.timeout)
    return timed_out(watchdog_.timeout) + silent_peers();
  return "";
}

std::string timed_out(double timeout) {
  std::ostringstream why;
  why << "has made no progress for " << timeout << " s (--comm-timeout)";
  return why.str();
}

void run_guarded(BoundedWait bound, const std::function<void()> &call,
                 const std::function<void(const std::string &)> &give_up) {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread guard([&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(100),
                              [&] { return done; })) {
      std::string why = bound.why_give_up();
      if (!why.empty())
        give_up(why);
    }
  });
  call();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finished.notify_all();
  guard.join();
}

} // namespace tpc
