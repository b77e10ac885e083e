//===- PipelineScheduleTest.cpp - Pipeline schedules and their bubble -----===//

#include "runtime/program/PipelineSchedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace tpc::pipeline;

namespace {

constexpr ScheduleKind kKinds[] = {ScheduleKind::OneFOneB,
                                   ScheduleKind::Interleaved,
                                   ScheduleKind::ZeroBubbleH1};

struct Sizes {
  ScheduleKind kind;
  int stages, virtual_stages, micro_batches;
};

/// Every (kind, P, V, M) of a small grid that check_schedule allows.
std::vector<Sizes> allowed_sizes() {
  std::vector<Sizes> sizes;
  for (ScheduleKind kind : kKinds)
    for (int p : {1, 2, 3, 4})
      for (int v : {1, 2, 3})
        for (int m : {1, 2, 3, 4, 6, 8, 16})
          if (check_schedule(kind, p, v, m).empty())
            sizes.push_back({kind, p, v, m});
  return sizes;
}

std::string describe(const Sizes &z) {
  return std::string(schedule_name(z.kind)) + " P=" + std::to_string(z.stages) +
         " V=" + std::to_string(z.virtual_stages) +
         " M=" + std::to_string(z.micro_batches);
}

/// The same F, B and W time for every chunk; messages cost `p2p`.
ChunkTimes uniform(int chunks, double f, double b, double w, double p2p = 0) {
  ChunkTimes t;
  t.forward.assign(chunks, f);
  t.backward_input.assign(chunks, b);
  t.backward_weight.assign(chunks, w);
  t.p2p = p2p;
  return t;
}

Simulation simulate_unit(ScheduleKind kind, int p, int v, int m) {
  return simulate(build_schedule(kind, p, v, m), uniform(p * v, 1, 1, 1));
}

bool is_compute(ActionKind kind) {
  return kind == ActionKind::Forward || kind == ActionKind::BackwardInput ||
         kind == ActionKind::BackwardWeight;
}

/// Megatron-LM's num_warmup_microbatches (schedules.py).
int megatron_warmup(const Sizes &z, int stage) {
  int p = z.stages, v = z.virtual_stages, m = z.micro_batches;
  if (z.kind == ScheduleKind::Interleaved)
    return std::min((p - stage - 1) * 2 + (v - 1) * p, m * v);
  return std::min(p - stage - 1, m);
}

} // namespace

TEST(PipelineSchedule, NamesRoundTrip) {
  for (ScheduleKind kind : kKinds) {
    ScheduleKind parsed = ScheduleKind::OneFOneB;
    EXPECT_TRUE(parse_schedule(schedule_name(kind), parsed));
    EXPECT_EQ(parsed, kind);
  }
  EXPECT_STREQ(schedule_name(ScheduleKind::ZeroBubbleH1), "zb-h1");
  ScheduleKind kind = ScheduleKind::Interleaved;
  EXPECT_FALSE(parse_schedule("gpipe", kind));
  EXPECT_FALSE(parse_schedule("", kind));
  EXPECT_EQ(kind, ScheduleKind::Interleaved);
}

TEST(PipelineSchedule, CheckNamesProblemAndFix) {
  auto expect_error = [](ScheduleKind kind, int p, int v, int m,
                         const std::vector<std::string> &words) {
    std::string error = check_schedule(kind, p, v, m);
    for (const std::string &word : words)
      EXPECT_NE(error.find(word), std::string::npos)
          << "'" << word << "' not in: " << error;
    try {
      build_schedule(kind, p, v, m);
      ADD_FAILURE() << "build_schedule accepted what check_schedule refuses";
    } catch (const std::invalid_argument &e) {
      EXPECT_EQ(e.what(), error);
    }
  };
  expect_error(ScheduleKind::OneFOneB, 4, 2, 8,
               {"--virtual-stages 1", "--schedule interleaved"});
  expect_error(ScheduleKind::ZeroBubbleH1, 4, 0, 8,
               {"zb-h1", "--virtual-stages 1"});
  expect_error(ScheduleKind::Interleaved, 4, 1, 8,
               {"--virtual-stages 2 or more", "1f1b"});
  expect_error(ScheduleKind::Interleaved, 4, 2, 6,
               {"multiple of --pp", "use --micro-batches 4 or 8"});
  expect_error(ScheduleKind::Interleaved, 4, 2, 3,
               {"multiple of --pp", "use --micro-batches 4"});
  expect_error(ScheduleKind::Interleaved, 1, 2, 4, {"--pp 2 or more"});
  expect_error(ScheduleKind::OneFOneB, 0, 1, 4, {"--pp must be at least 1"});
  expect_error(ScheduleKind::ZeroBubbleH1, 2, 1, 0,
               {"--micro-batches must be at least 1"});

  EXPECT_EQ(check_schedule(ScheduleKind::OneFOneB, 4, 1, 1), "");
  EXPECT_EQ(check_schedule(ScheduleKind::ZeroBubbleH1, 4, 1, 3), "");
  EXPECT_EQ(check_schedule(ScheduleKind::Interleaved, 4, 3, 8), "");
}

// Each (c, m) has one F, B and W, on stage c % P; the lists verify; the
// warm-up is Megatron-LM's; every slot an action names exists.
TEST(PipelineSchedule, EveryScheduleIsCompleteAndExecutable) {
  for (const Sizes &z : allowed_sizes()) {
    SCOPED_TRACE(describe(z));
    Schedule s =
        build_schedule(z.kind, z.stages, z.virtual_stages, z.micro_batches);
    int chunks = z.stages * z.virtual_stages;
    ASSERT_EQ(int(s.actions.size()), z.stages);
    ASSERT_EQ(int(s.slots.size()), chunks);
    EXPECT_EQ(verify_schedule(s), "");

    // count[kind][chunk][micro], over all stages.
    std::vector<int> count(3 * chunks * z.micro_batches, 0);
    for (int stage = 0; stage < z.stages; ++stage) {
      for (const Action &a : s.actions[stage]) {
        EXPECT_EQ(a.chunk % z.stages, stage);
        EXPECT_GE(a.slot, 0);
        EXPECT_LT(a.slot, s.slots[a.chunk]);
        if (is_compute(a.kind))
          ++count[(int(a.kind) * chunks + a.chunk) * z.micro_batches + a.micro];
      }
    }
    EXPECT_TRUE(
        std::all_of(count.begin(), count.end(), [](int n) { return n == 1; }));

    for (int stage = 0; stage < z.stages; ++stage) {
      SCOPED_TRACE("stage " + std::to_string(stage));
      const std::vector<Action> &list = s.actions[stage];
      auto first_b =
          std::find_if(list.begin(), list.end(), [](const Action &a) {
            return a.kind == ActionKind::BackwardInput;
          });
      int forwards = int(std::count_if(list.begin(), first_b, [](auto &a) {
        return a.kind == ActionKind::Forward;
      }));
      // The warm-up, then the steady state's first forward (if any is left).
      int warmup = megatron_warmup(z, stage);
      int total = z.micro_batches * z.virtual_stages;
      EXPECT_EQ(forwards, warmup + (warmup < total ? 1 : 0));
    }
  }
}

TEST(PipelineSchedule, OneFOneBHoldsPMinusSMicroBatches) {
  for (int p : {1, 2, 4})
    for (int m : {1, 2, 3, 4, 8}) {
      Simulation sim = simulate_unit(ScheduleKind::OneFOneB, p, 1, m);
      for (int s = 0; s < p; ++s)
        EXPECT_EQ(sim.peak_in_flight[s], std::min(p - s, m))
            << "P=" << p << " M=" << m << " stage " << s;
    }
}

// With B and W kept apart (the gradient leaves after B, W runs after), the
// only chain across stages is F down and B up: (M - 1) steps of F + B + W on
// the last stage, P of F and of B, and stage 0's last W. With W = 0 this is
// the textbook (M + P - 1)(F + B).
TEST(PipelineSchedule, OneFOneBMakespanClosedForm) {
  for (int p : {1, 2, 3, 4})
    for (int m : {1, 2, 4, 8, 16}) {
      SCOPED_TRACE("P=" + std::to_string(p) + " M=" + std::to_string(m));
      Schedule s = build_schedule(ScheduleKind::OneFOneB, p, 1, m);
      double f = 1, b = 1.5, w = 0.5;
      Simulation sim = simulate(s, uniform(p, f, b, w));
      EXPECT_DOUBLE_EQ(sim.makespan, (m - 1) * (f + b + w) + p * (f + b) + w);
      for (double busy : sim.busy)
        EXPECT_DOUBLE_EQ(busy, m * (f + b + w));
      Simulation whole = simulate(s, uniform(p, 1, 2, 0));
      EXPECT_DOUBLE_EQ(whole.makespan, (m + p - 1) * 3.0);
      EXPECT_DOUBLE_EQ(whole.bubble_fraction, (p - 1.0) / (m + p - 1));
    }
}

TEST(PipelineSchedule, MessagesDelayTheChain) {
  Schedule s = build_schedule(ScheduleKind::OneFOneB, 4, 1, 1);
  // One micro-batch: 3 hops down and 3 up.
  Simulation sim = simulate(s, uniform(4, 1, 1, 1, 0.25));
  EXPECT_DOUBLE_EQ(sim.makespan, 4 + 4 + 1 + 6 * 0.25);
}

// ZB-H1 against 1F1B with F = B = W and free messages: a bubble of (P - 1) F
// in place of 2 (P - 1) F, and no stage holds more micro-batches than
// 1F1B's first stage.
TEST(PipelineSchedule, ZeroBubbleH1ShrinksTheBubble) {
  for (int p : {2, 3, 4})
    for (int m : {1, 2, 3, 4, 8, 16}) {
      SCOPED_TRACE("P=" + std::to_string(p) + " M=" + std::to_string(m));
      Simulation zb = simulate_unit(ScheduleKind::ZeroBubbleH1, p, 1, m);
      Simulation base = simulate_unit(ScheduleKind::OneFOneB, p, 1, m);
      for (int s = 0; s < p; ++s)
        EXPECT_LE(zb.peak_in_flight[s], base.peak_in_flight[0]);
      EXPECT_EQ(zb.peak_in_flight[0], base.peak_in_flight[0]);
      EXPECT_LE(zb.bubble_fraction, base.bubble_fraction);
      if (m >= p) {
        // Idle P - 1 per stage: a third of textbook 1F1B's 3 (P - 1).
        EXPECT_DOUBLE_EQ(zb.makespan, 3.0 * m + p - 1);
        EXPECT_NEAR(zb.bubble_fraction, (p - 1.0) / (3 * m + p - 1), 1e-12);
        EXPECT_LT(zb.bubble_fraction, base.bubble_fraction);
      }
    }
}

TEST(PipelineSchedule, InterleavingShrinksTheBubble) {
  for (int p : {2, 4})
    for (int v : {2, 3})
      for (int m : {p, 2 * p, 4 * p}) {
        SCOPED_TRACE("P=" + std::to_string(p) + " V=" + std::to_string(v) +
                     " M=" + std::to_string(m));
        // The same model cut finer: each chunk takes 1/V of a stage's time.
        Simulation inter =
            simulate(build_schedule(ScheduleKind::Interleaved, p, v, m),
                     uniform(p * v, 1.0 / v, 1.0 / v, 1.0 / v));
        Simulation base = simulate_unit(ScheduleKind::OneFOneB, p, 1, m);
        EXPECT_LT(inter.bubble_fraction, base.bubble_fraction);
        EXPECT_LT(inter.makespan, base.makespan);
      }
}

TEST(PipelineSchedule, OneFOneBText) {
  Schedule s = build_schedule(ScheduleKind::OneFOneB, 2, 1, 3);
  EXPECT_EQ(format_actions(s.actions[0]),
            "F0.0 sa0.0 rg0.0 F0.1 sa0.1 rg0.1 B0.0 W0.0 F0.2 sa0.2 rg0.2 "
            "B0.1 W0.1 B0.2 W0.2");
  EXPECT_EQ(format_actions(s.actions[1]),
            "ra1.0 F1.0 B1.0 sg1.0 W1.0 ra1.1 F1.1 B1.1 sg1.1 W1.1 ra1.2 "
            "F1.2 B1.2 sg1.2 W1.2");
  EXPECT_EQ(s.slots, (std::vector<int>{2, 1}));
}

TEST(PipelineSchedule, ZeroBubbleH1Text) {
  Schedule s = build_schedule(ScheduleKind::ZeroBubbleH1, 2, 1, 3);
  // Stage 0 defers no W: its list is 1F1B's.
  EXPECT_EQ(format_actions(s.actions[0]),
            format_actions(
                build_schedule(ScheduleKind::OneFOneB, 2, 1, 3).actions[0]));
  // Stage 1 leaves W1.0 for later and so receives two activations ahead.
  EXPECT_EQ(format_actions(s.actions[1]),
            "ra1.0 ra1.1 F1.0 B1.0 sg1.0 F1.1 B1.1 sg1.1 W1.0 ra1.2 F1.2 "
            "B1.2 sg1.2 W1.1 W1.2");
  EXPECT_EQ(s.slots, (std::vector<int>{2, 2}));
  // ra1.2 lands in the slot W1.0 frees.
  EXPECT_EQ(s.actions[1][9].kind, ActionKind::RecvActivation);
  EXPECT_EQ(s.actions[1][9].slot, 0);
}

TEST(PipelineSchedule, InterleavedText) {
  // P = 2, V = 2, M = 2: stage 0 holds chunks 0 and 2, stage 1 chunks 1, 3.
  Schedule s = build_schedule(ScheduleKind::Interleaved, 2, 2, 2);
  EXPECT_EQ(format_actions(s.actions[0]),
            "ra2.0 ra2.1 F0.0 sa0.0 rg0.0 F0.1 sa0.1 rg0.1 F2.0 sa2.0 rg2.0 "
            "F2.1 sa2.1 rg2.1 B2.0 sg2.0 W2.0 B2.1 sg2.1 W2.1 B0.0 W0.0 "
            "B0.1 W0.1");
  EXPECT_EQ(format_actions(s.actions[1]),
            "ra1.0 ra1.1 ra3.0 F1.0 sa1.0 rg1.0 F1.1 sa1.1 rg1.1 F3.0 B3.0 "
            "sg3.0 W3.0 ra3.1 F3.1 B3.1 sg3.1 W3.1 B1.0 sg1.0 W1.0 B1.1 "
            "sg1.1 W1.1");
}

//===----------------------------------------------------------------------===//
// verify_schedule finds what is wrong
//===----------------------------------------------------------------------===//

namespace {
Action act(ActionKind kind, int chunk, int micro, int slot) {
  return {kind, chunk, micro, slot};
}
constexpr ActionKind F = ActionKind::Forward, B = ActionKind::BackwardInput,
                     W = ActionKind::BackwardWeight,
                     SA = ActionKind::SendActivation,
                     RA = ActionKind::RecvActivation, SG = ActionKind::SendGrad,
                     RG = ActionKind::RecvGrad;

/// Two stages, two micro-batches; stage 0 waits for micro-batch 0's
/// gradient before it sends micro-batch 1's activation.
Schedule eager_backward() {
  Schedule s;
  s.stages = 2;
  s.virtual_stages = 1;
  s.micro_batches = 2;
  s.slots = {1, 2};
  s.actions = {
      {act(F, 0, 0, 0), act(SA, 0, 0, 0), act(RG, 0, 0, 0), act(B, 0, 0, 0),
       act(W, 0, 0, 0), act(F, 0, 1, 0), act(SA, 0, 1, 0), act(RG, 0, 1, 0),
       act(B, 0, 1, 0), act(W, 0, 1, 0)},
      {act(RA, 1, 0, 0), act(RA, 1, 1, 1), act(F, 1, 0, 0), act(B, 1, 0, 0),
       act(SG, 1, 0, 0), act(W, 1, 0, 0), act(F, 1, 1, 1), act(B, 1, 1, 1),
       act(SG, 1, 1, 1), act(W, 1, 1, 1)}};
  return s;
}
} // namespace

TEST(PipelineSchedule, VerifyAcceptsAHandWrittenSchedule) {
  EXPECT_EQ(verify_schedule(eager_backward()), "");
}

TEST(PipelineSchedule, VerifyFindsDeadlock) {
  Schedule s = eager_backward();
  // Stage 1 runs both forwards before its first backward.
  s.actions[1] = {act(RA, 1, 0, 0), act(RA, 1, 1, 1), act(F, 1, 0, 0),
                  act(F, 1, 1, 1),  act(B, 1, 0, 0),  act(SG, 1, 0, 0),
                  act(W, 1, 0, 0),  act(B, 1, 1, 1),  act(SG, 1, 1, 1),
                  act(W, 1, 1, 1)};
  EXPECT_EQ(verify_schedule(s), "deadlock: stage 0 waits at B0.0 for sg1.0; "
                                "stage 1 waits at F1.1 for sa0.1");
  EXPECT_THROW(simulate(s, uniform(2, 1, 1, 1)), std::invalid_argument);
}

TEST(PipelineSchedule, VerifyFindsStructuralProblems) {
  Schedule s = eager_backward();
  s.actions[0].pop_back();
  EXPECT_EQ(verify_schedule(s), "stage 0 lacks W0.1");

  s = eager_backward();
  std::swap(s.actions[0][3], s.actions[0][2]);
  EXPECT_EQ(verify_schedule(s), "stage 0 runs B0.0 before rg0.0");

  s = eager_backward();
  s.actions[1].push_back(act(RG, 1, 0, 0));
  EXPECT_EQ(verify_schedule(s),
            "stage 1 holds rg1.0, but chunk 1 has no next chunk");

  s = eager_backward();
  s.actions[0].push_back(act(F, 1, 0, 0));
  EXPECT_EQ(verify_schedule(s),
            "stage 0 holds F1.0, but chunk 1 runs on stage 1");

  s = eager_backward();
  s.actions[1][1].slot = 0; // ra1.1 into the slot micro-batch 0 holds
  s.actions[1][6].slot = 0;
  s.actions[1][7].slot = 0;
  s.actions[1][8].slot = 0;
  s.actions[1][9].slot = 0;
  EXPECT_EQ(verify_schedule(s), "stage 1: ra1.1 takes slot 0 of chunk 1, "
                                "which micro-batch 0 still holds");

  s = eager_backward();
  s.actions[1][2].slot = 1;
  EXPECT_EQ(verify_schedule(s), "stage 1: ra1.0 uses slot 0, but F1.0 uses 1");

  s = eager_backward();
  s.slots[0] = 0;
  EXPECT_EQ(verify_schedule(s), "stage 0: F0.0 uses slot 0, but chunk 0 has 0");
}

TEST(PipelineSchedule, VerifyFindsReceivesOutOfOrder) {
  Schedule s = eager_backward();
  std::swap(s.actions[1][0], s.actions[1][1]);
  EXPECT_EQ(verify_schedule(s),
            "stage 0 sends sa0.0 as message 0 of its channel, but stage 1 "
            "posts ra1.1 there");
}

TEST(PipelineSchedule, SimulateChecksTimes) {
  Schedule s = build_schedule(ScheduleKind::OneFOneB, 2, 1, 2);
  EXPECT_THROW(simulate(s, uniform(1, 1, 1, 1)), std::invalid_argument);
}
