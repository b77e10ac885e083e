//===- CollectiveWatchdog.cpp - NCCL operations that never end ------------===//

#include "runtime/backends/cuda/CollectiveWatchdog.h"

#include "runtime/comm/Watchdog.h"

#include <utility>

namespace tpc::cuda {

CollectiveWatchdog::CollectiveWatchdog(double timeout, Hooks hooks,
                                       double interval)
    : timeout_(timeout), hooks_(std::move(hooks)), interval_(interval) {}

CollectiveWatchdog::~CollectiveWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void CollectiveWatchdog::watch(uint64_t id, const char *what, Group group) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ops_.push_back({id, what, group, std::nullopt});
    if (interval_.count() > 0 && !thread_.joinable())
      thread_ = std::thread([this] { run(); });
  }
  wake_.notify_all();
}

size_t CollectiveWatchdog::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ops_.size();
}

void CollectiveWatchdog::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Nothing to look at: sleep until something is watched.
    wake_.wait(lock, [&] { return stop_ || !ops_.empty(); });
    if (wake_.wait_for(lock, interval_, [&] { return stop_; }))
      return;
    lock.unlock();
    poll();
    lock.lock();
  }
}

void CollectiveWatchdog::poll() {
  std::vector<uint64_t> done;
  const char *what = nullptr;
  Group group = Group::World;
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (gave_up_)
      return;
    const Clock::time_point now = hooks_.now();
    std::vector<Op> left;
    for (Op &op : ops_) {
      State state = hooks_.state(op.id);
      if (state == State::Done) {
        done.push_back(op.id);
        continue;
      }
      if (state == State::Running && !op.running_since)
        op.running_since = now;
      if (why.empty() && timeout_ > 0 && op.running_since &&
          std::chrono::duration<double>(now - *op.running_since).count() >=
              timeout_) {
        what = op.what;
        group = op.group;
        why = timed_out(timeout_);
      }
      left.push_back(op);
    }
    ops_ = std::move(left);
    // A peer that died shows in its communicator before the timeout.
    for (size_t i = 0; why.empty() && i < ops_.size(); ++i) {
      bool seen = false;
      for (size_t j = 0; j < i && !seen; ++j)
        seen = ops_[j].group == ops_[i].group;
      if (seen)
        continue;
      std::string error = hooks_.async_error(ops_[i].group);
      if (!error.empty()) {
        what = ops_[i].what;
        group = ops_[i].group;
        why = "failed in NCCL (" + error + ")";
      }
    }
    if (!why.empty()) {
      gave_up_ = true;
      ops_.clear();
    }
  }
  for (uint64_t id : done)
    hooks_.finished(id);
  if (why.empty())
    return;
  hooks_.abort();
  hooks_.give_up(what, group, why);
}

} // namespace tpc::cuda
