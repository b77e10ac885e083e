//===- PipelineSchedule.h - Pipeline-parallel schedules ---------*- C++ -*-===//
//
// The per-stage action lists of a pipeline-parallel training step and a
// simulator that clocks them. tpc-pipeline records the lists in the program,
// the runtime executes them and the cost report reads the simulated bubble,
// so all three see one schedule.
//
// P stages (pipeline ranks), V virtual stages (model chunks) per stage, M
// micro-batches per optimizer step. Chunk c = 0..P*V-1, in model order, runs
// on stage c % P (Megatron-LM's interleaved placement). Each chunk has three
// compute roles: F (forward), B (the input gradient, which the previous chunk
// waits for) and W (the weight gradients, which nothing waits for).
//
// Dependencies: F(c,m) reads the activation of F(c-1,m); B(c,m) needs F(c,m)
// and, unless c is the last chunk, the gradient of B(c+1,m); W(c,m) needs
// B(c,m). A stage runs its list one action at a time, in order.
//
// Slots: on its stage, (c,m) holds an activation slot of chunk c from F(c,m)
// until W(c,m) ends. F takes the lowest free slot of its chunk, W frees it;
// Schedule::slots is how many each chunk needs (the runtime's arenas).
//
// Messages: SendActivation(c,m) right after F(c,m) and RecvGrad(c,m) right
// after it (the gradient lands in the slot F took), unless c is the last
// chunk; SendGrad(c,m) right after B(c,m) when c > 0. RecvActivation(c,m),
// c > 0, is posted as early as its slot allows: at the start of the list
// when the slot F(c,m) takes was never used before, else right after the W
// that freed it, but never ahead of RecvActivation(c,m-1) (with V >= 2 two
// W's of a chunk can free slots between two of its F's, and the lower slot,
// which the earlier F takes, may be the one freed second). Sends are buffered
// and never block; a receive only posts, and the F or B that reads it waits for
// the message. Messages are matched per channel, a channel being (kind, chunk)
// between its two fixed stages: the k-th send of a channel meets the k-th
// receive posted on it. With V >= 2 one pair of stages carries several channels
// whose receives are posted in another order than their sends, so the runtime
// must tell the channels apart (tag by kind and chunk).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_PROGRAM_PIPELINESCHEDULE_H
#define TPC_RUNTIME_PROGRAM_PIPELINESCHEDULE_H

#include <string>
#include <string_view>
#include <vector>

namespace tpc::pipeline {

/// The schedules, and what (P, V, M) each allows (check_schedule):
/// - OneFOneB ("1f1b"): Megatron-LM's non-interleaved 1F1B. V = 1, any
///   M >= 1. Stage s runs min(P - s - 1, M) warm-up forwards, then one
///   forward and one backward at a time, then the remaining backwards; each
///   W right after its B. Stage s holds at most min(P - s, M) micro-batches.
/// - Interleaved ("interleaved"): Megatron-LM's interleaved 1F1B. V >= 2,
///   P >= 2, M a multiple of P (Megatron's groups of P micro-batches per
///   chunk). Stage s runs min(2 (P - s - 1) + (V - 1) P, M V) warm-up
///   forwards. The k-th forward of stage s is micro-batch
///   k / (P V) * P + k % P of its v-th chunk (chunk v P + s), where
///   v = k % (P V) / P; the k-th backward the same with v counted from the
///   last chunk. Each W right after its B.
/// - ZeroBubbleH1 ("zb-h1"): ZB-H1 of Qi et al. 2024, "Zero Bubble Pipeline
///   Parallelism". V = 1, any M >= 1. 1F1B's warm-up; then stage s leaves
///   the W of its first s backwards pending, runs F, B and the oldest pending
///   W while forwards remain, and the pending W's fill the cool-down. With
///   equal F, B and W times, free messages and M >= P, each stage idles
///   (P - 1) F, against 3 (P - 1) F for textbook 1F1B (2 (P - 1) F for 1F1B
///   here, where B's gradient leaves before W runs). Every stage holds at
///   most min(P, M) micro-batches, the most 1F1B holds on any stage (its
///   first): the paper's memory bound. Stage s > 0 holds up to s more than
///   under 1F1B; holding no more than 1F1B on every stage would pin the last
///   stage to F, B, W in turn, and 1F1B as built here already reaches the
///   makespan that allows.
enum class ScheduleKind { OneFOneB, Interleaved, ZeroBubbleH1 };

/// "1f1b", "interleaved" or "zb-h1".
const char *schedule_name(ScheduleKind kind);
/// Sets `kind` from its name; false on an unknown name.
bool parse_schedule(std::string_view name, ScheduleKind &kind);

/// Numbered as program.proto's Pipeline.Action.Kind, which tpc-export
/// converts it to.
enum class ActionKind {
  Forward,
  BackwardInput,
  BackwardWeight,
  SendActivation,
  RecvActivation,
  SendGrad,
  RecvGrad
};

/// One step of a stage's list. `slot` is the activation slot of
/// (chunk, micro) on this stage, for every kind: a received activation or
/// gradient lands in it, a sent one leaves from it.
struct Action {
  ActionKind kind;
  int chunk;
  int micro;
  int slot;
};

struct Schedule {
  int stages = 0;
  int virtual_stages = 0;
  int micro_batches = 0;
  ScheduleKind kind = ScheduleKind::OneFOneB;
  /// Per stage, in execution order.
  std::vector<std::vector<Action>> actions;
  /// Per chunk: the slots it needs on its stage (most micro-batches of it
  /// between F and the end of W at once).
  std::vector<int> slots;
};

/// Empty when `kind` allows (stages, virtual_stages, micro_batches), else a
/// message naming the problem and the fix in the compiler's flags.
std::string check_schedule(ScheduleKind kind, int stages, int virtual_stages,
                           int micro_batches);

/// The schedule; throws std::invalid_argument with check_schedule's message
/// when the sizes are not allowed.
Schedule build_schedule(ScheduleKind kind, int stages, int virtual_stages,
                        int micro_batches);

/// Seconds per chunk of each compute role, and per message.
struct ChunkTimes {
  std::vector<double> forward, backward_input, backward_weight;
  double p2p = 0;
};

struct Simulation {
  double makespan = 0;
  /// Per stage: seconds of compute.
  std::vector<double> busy;
  /// 1 - sum(busy) / (P * makespan).
  double bubble_fraction = 0;
  /// Per stage: the most micro-batches (all chunks) between an F and the end
  /// of its W at once.
  std::vector<int> peak_in_flight;
};

/// Clocks `schedule`: each action starts when its stage is free and what it
/// reads has arrived; a message arrives `p2p` after both its send and its
/// receive are posted. Throws std::invalid_argument when the schedule fails
/// verify_schedule or `times` does not cover every chunk.
Simulation simulate(const Schedule &schedule, const ChunkTimes &times);

/// One line of text for a stage's actions, for tests, lit and messages:
/// "F0.0 sa0.0 rg0.0 B0.0 W0.0 ...": F, B, W for compute and sa, ra, sg, rg
/// for send/receive activation/gradient, each followed by chunk.micro. Slots
/// are left out.
std::string format_actions(const std::vector<Action> &actions);

/// Checks that `schedule` is executable: each (c,m) has exactly one action
/// of each kind it needs, on stage c % P and in dependency order; slots are
/// in range, free when taken and the same for all of (c,m); every channel's
/// receives are posted in the order of its sends; and the lists run to the
/// end with buffered sends and waiting receives. Returns "" or the first
/// problem.
std::string verify_schedule(const Schedule &schedule);

} // namespace tpc::pipeline

#endif // TPC_RUNTIME_PROGRAM_PIPELINESCHEDULE_H
