//===- CudaCollectiveWatchdogTest.cpp - NCCL operations that never end ----===//
//
// The rules of runtime/backends/cuda/CollectiveWatchdog.h on a fake clock
// and fake events: an operation counts from when it starts to run, not
// while it is queued; one that runs for --comm-timeout, or whose
// communicator reports an error, aborts the communicators and then gives
// up with the MPI path's reason and line (Comm::give_up); finished ones are
// forgotten and their events freed; the thread looks only while something
// is pending. What it cannot show without a GPU: cudaEventQuery and NCCL's
// abort on a device.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cuda/CollectiveWatchdog.h"
#include "runtime/comm/Comm.h"
#include "runtime/comm/Watchdog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

using namespace tpc;
using cuda::CollectiveWatchdog;
using State = CollectiveWatchdog::State;

namespace {

/// Fake events, communicators and clock, and what the watchdog did.
struct Fake {
  std::map<uint64_t, State> states;
  std::map<Group, std::string> errors;
  CollectiveWatchdog::Clock::time_point now{};
  std::vector<uint64_t> finished;
  std::vector<std::string> calls; // "abort", "give_up ..." in order
  std::string what, why;
  Group group = Group::World;

  void advance(double seconds) {
    now += std::chrono::duration_cast<CollectiveWatchdog::Clock::duration>(
        std::chrono::duration<double>(seconds));
  }

  /// Watches operation `id`, already running, and starts its clock.
  void start(CollectiveWatchdog &dog, uint64_t id, const char *w, Group g) {
    states[id] = State::Running;
    dog.watch(id, w, g);
    dog.poll();
  }

  CollectiveWatchdog::Hooks hooks() {
    CollectiveWatchdog::Hooks h;
    h.state = [this](uint64_t id) { return states.at(id); };
    h.finished = [this](uint64_t id) { finished.push_back(id); };
    h.async_error = [this](Group g) {
      auto it = errors.find(g);
      return it == errors.end() ? std::string() : it->second;
    };
    h.abort = [this] { calls.push_back("abort"); };
    h.give_up = [this](const char *w, Group g, const std::string &y) {
      calls.push_back("give_up");
      what = w;
      group = g;
      why = y;
    };
    h.now = [this] { return now; };
    return h;
  }
};

TEST(CudaCollectiveWatchdog, CountsFromWhenTheOperationRuns) {
  Fake f;
  CollectiveWatchdog dog(10.0, f.hooks(), /*interval=*/0);
  f.states[1] = State::Queued; // behind compute that takes its time
  dog.watch(1, "all_reduce", Group::TP);
  f.advance(100);
  dog.poll();
  EXPECT_TRUE(f.calls.empty());
  f.states[1] = State::Running;
  dog.poll(); // the clock starts
  f.advance(9.9);
  dog.poll();
  EXPECT_TRUE(f.calls.empty());
  f.advance(0.1);
  dog.poll();
  // The communicators go before the line, so nothing is left on the device.
  EXPECT_EQ(f.calls, (std::vector<std::string>{"abort", "give_up"}));
  EXPECT_EQ(f.what, "all_reduce");
  EXPECT_EQ(f.group, Group::TP);
  EXPECT_EQ(f.why, "has made no progress for 10 s (--comm-timeout)");
  EXPECT_EQ(dog.pending(), 0u);
  dog.poll(); // once only
  EXPECT_EQ(f.calls.size(), 2u);
}

TEST(CudaCollectiveWatchdog, TheReasonIsTheMpiPaths) {
  // The MPI path's wait, on the real clock, past a short timeout.
  Watchdog rules;
  rules.timeout = 0.01;
  PeerWatch alone;
  BoundedWait wait(rules, alone, {0}, false, false);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string mpi = wait.why_give_up();

  Fake f;
  CollectiveWatchdog dog(0.01, f.hooks(), 0);
  f.start(dog, 7, "send", Group::PP);
  f.advance(0.01);
  dog.poll();
  EXPECT_EQ(f.why, mpi);
  EXPECT_EQ(f.what, "send");
  EXPECT_EQ(f.group, Group::PP);
}

TEST(CudaCollectiveWatchdog, ForgetsWhatFinished) {
  Fake f;
  CollectiveWatchdog dog(10.0, f.hooks(), 0);
  for (uint64_t id : {1, 2, 3}) {
    f.states[id] = State::Running;
    dog.watch(id, "all_reduce", Group::DP);
  }
  dog.poll();
  f.states[1] = f.states[3] = State::Done;
  f.advance(5);
  dog.poll();
  EXPECT_EQ(f.finished, (std::vector<uint64_t>{1, 3}));
  EXPECT_EQ(dog.pending(), 1u);
  f.states[2] = State::Done;
  f.advance(50); // done before anyone looked again: not late
  dog.poll();
  EXPECT_EQ(f.finished, (std::vector<uint64_t>{1, 3, 2}));
  EXPECT_EQ(dog.pending(), 0u);
  EXPECT_TRUE(f.calls.empty());
}

TEST(CudaCollectiveWatchdog, ACommunicatorErrorEndsItAtOnce) {
  Fake f;
  CollectiveWatchdog dog(600.0, f.hooks(), 0);
  f.states[1] = State::Running;
  f.states[2] = State::Queued;
  dog.watch(1, "all_reduce", Group::DP);
  dog.watch(2, "all_gather", Group::TP);
  dog.poll();
  EXPECT_TRUE(f.calls.empty());
  f.errors[Group::TP] = "remote process exited or there was a network error";
  dog.poll();
  EXPECT_EQ(f.calls, (std::vector<std::string>{"abort", "give_up"}));
  EXPECT_EQ(f.what, "all_gather");
  EXPECT_EQ(f.group, Group::TP);
  EXPECT_EQ(f.why, "failed in NCCL (remote process exited or there was a "
                   "network error)");
}

TEST(CudaCollectiveWatchdog, NoTimeLimitAtZero) {
  Fake f;
  CollectiveWatchdog dog(0.0, f.hooks(), 0);
  f.start(dog, 1, "recv", Group::PP);
  f.advance(1e6);
  dog.poll();
  EXPECT_TRUE(f.calls.empty());
  EXPECT_EQ(dog.pending(), 1u);
}

// The thread, on the real clock: it gives up on a running operation, and
// looks at nothing while nothing is pending.
TEST(CudaCollectiveWatchdog, TheThreadLooksOnlyWhileSomethingIsPending) {
  std::atomic<int> looks{0};
  std::atomic<bool> gave_up{false};
  std::atomic<State> second{State::Running};
  CollectiveWatchdog::Hooks h;
  h.state = [&](uint64_t id) {
    ++looks;
    return id == 1 ? State::Done : second.load();
  };
  h.finished = [](uint64_t) {};
  h.async_error = [](Group) { return std::string(); };
  h.abort = [] {};
  h.give_up = [&](const char *, Group, const std::string &) { gave_up = true; };
  CollectiveWatchdog dog(0.2, h, /*interval=*/0.01);
  dog.watch(1, "all_reduce", Group::TP);
  auto until = [](auto done) {
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return done();
  };
  ASSERT_TRUE(until([&] { return dog.pending() == 0; }));
  const int idle = looks;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(looks, idle) << "the thread looked while nothing was pending";
  dog.watch(2, "all_reduce", Group::TP);
  EXPECT_TRUE(until([&] { return gave_up.load(); }));
}

// The whole line, as a rank on the MPI path prints it when it gives up.
TEST(CudaCollectiveWatchdogDeathTest, EndsTheJobWithTheMpiPathsLine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto run = [] {
    Comm comm(nullptr, nullptr);
    comm.make_groups(1, 1);
    comm.set_give_up_note([] {
      return Comm::GiveUpNote{" in step 9", "The last good checkpoint is "
                                            "ckpt/step-8.safetensors"};
    });
    Fake f;
    CollectiveWatchdog::Hooks h = f.hooks();
    h.abort = [] { std::fputs("communicators aborted\n", stderr); };
    h.give_up = [&](const char *what, Group g, const std::string &why) {
      comm.give_up(what, g, why);
    };
    CollectiveWatchdog dog(10.0, h, 0);
    f.start(dog, 1, "all_reduce", Group::TP);
    f.advance(10);
    dog.poll();
  };
  EXPECT_EXIT(run(), testing::ExitedWithCode(1),
              "communicators aborted.*tpc-run: rank 0 gives up in step 9: "
              "all_reduce over the tp group \\(world ranks 0\\) has made no "
              "progress for 10 s \\(--comm-timeout\\); a peer rank has "
              "probably died or stopped responding. The last good checkpoint "
              "is ckpt/step-8.safetensors. Ending the job.");
}

} // namespace
