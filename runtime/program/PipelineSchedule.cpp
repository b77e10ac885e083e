//===- PipelineSchedule.cpp - Pipeline-parallel schedules -------*- C++ -*-===//
//
// Each schedule is built in two steps: the order of a stage's compute actions
// (the part that differs between 1F1B, interleaved and ZB-H1), then one
// assembly that gives every action its slot and places the messages.
//
//===----------------------------------------------------------------------===//

#include "runtime/program/PipelineSchedule.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace tpc::pipeline {

const char *schedule_name(ScheduleKind kind) {
  switch (kind) {
  case ScheduleKind::OneFOneB:
    return "1f1b";
  case ScheduleKind::Interleaved:
    return "interleaved";
  case ScheduleKind::ZeroBubbleH1:
    return "zb-h1";
  }
  return "unknown";
}

bool parse_schedule(std::string_view name, ScheduleKind &kind) {
  for (ScheduleKind k : {ScheduleKind::OneFOneB, ScheduleKind::Interleaved,
                         ScheduleKind::ZeroBubbleH1}) {
    if (name == schedule_name(k)) {
      kind = k;
      return true;
    }
  }
  return false;
}

std::string check_schedule(ScheduleKind kind, int stages, int virtual_stages,
                           int micro_batches) {
  std::ostringstream os;
  const char *name = schedule_name(kind);
  if (stages < 1) {
    os << "--pp must be at least 1, got " << stages;
  } else if (micro_batches < 1) {
    os << "--micro-batches must be at least 1, got " << micro_batches;
  } else if (kind != ScheduleKind::Interleaved && virtual_stages != 1) {
    os << "the " << name << " schedule runs one chunk per stage, but "
       << "--virtual-stages is " << virtual_stages
       << "; use --virtual-stages 1, or --schedule interleaved for more "
          "chunks per stage";
  } else if (kind == ScheduleKind::Interleaved && virtual_stages < 2) {
    os << "the interleaved schedule needs --virtual-stages 2 or more, got "
       << virtual_stages
       << "; use --schedule 1f1b or zb-h1 for one chunk per stage";
  } else if (kind == ScheduleKind::Interleaved && stages < 2) {
    os << "the interleaved schedule needs --pp 2 or more, got " << stages
       << "; one stage has no pipeline to interleave: use "
          "--virtual-stages 1 --schedule 1f1b";
  } else if (kind == ScheduleKind::Interleaved && micro_batches % stages != 0) {
    // Megatron-LM runs groups of P micro-batches through each chunk in turn.
    int below = micro_batches / stages * stages;
    os << "--micro-batches must be a multiple of --pp for the interleaved "
          "schedule, got --micro-batches "
       << micro_batches << " with --pp " << stages << "; use --micro-batches ";
    if (below > 0)
      os << below << " or ";
    os << below + stages;
  }
  return os.str();
}

namespace {

Action compute(ActionKind kind, int chunk, int micro) {
  return {kind, chunk, micro, -1};
}

/// A stage's compute actions in order; assemble() adds slots and messages.
using Order = std::vector<Action>;

/// B(c,m) and, in the same breath, W(c,m): the schedules that keep the
/// backward whole.
void backward(Order &order, int chunk, int micro) {
  order.push_back(compute(ActionKind::BackwardInput, chunk, micro));
  order.push_back(compute(ActionKind::BackwardWeight, chunk, micro));
}

/// Megatron-LM's forward_backward_pipelining_without_interleaving: warm-up
/// forwards fill the pipeline below the stage, then one forward and one
/// backward at a time, then the backwards left.
Order one_f_one_b(int stages, int micro_batches, int stage) {
  Order order;
  int warmup = std::min(stages - stage - 1, micro_batches);
  for (int m = 0; m < warmup; ++m)
    order.push_back(compute(ActionKind::Forward, stage, m));
  for (int m = 0; m < micro_batches - warmup; ++m) {
    order.push_back(compute(ActionKind::Forward, stage, warmup + m));
    backward(order, stage, m);
  }
  for (int m = micro_batches - warmup; m < micro_batches; ++m)
    backward(order, stage, m);
  return order;
}

/// Megatron-LM's forward_backward_pipelining_with_interleaving. The k-th
/// forward (backward) of a stage takes group k / (P V) of P micro-batches
/// through the stage's chunks in turn (in reverse for backwards). Warm-up:
/// (V - 1) P forwards take the first group through all but the stage's last
/// chunk, and 2 (P - s - 1) more cover the trip of the first micro-batch to
/// the last stage and of its gradient back.
Order interleaved(int stages, int virtual_stages, int micro_batches,
                  int stage) {
  int per_group = stages * virtual_stages;
  auto chunk_of = [&](int k, bool forward) {
    int local = k % per_group / stages;
    if (!forward)
      local = virtual_stages - 1 - local;
    return local * stages + stage;
  };
  auto micro_of = [&](int k) { return k / per_group * stages + k % stages; };

  Order order;
  int total = micro_batches * virtual_stages;
  int warmup =
      std::min((stages - stage - 1) * 2 + (virtual_stages - 1) * stages, total);
  for (int k = 0; k < warmup; ++k)
    order.push_back(
        compute(ActionKind::Forward, chunk_of(k, true), micro_of(k)));
  for (int k = 0; k < total - warmup; ++k) {
    order.push_back(compute(ActionKind::Forward, chunk_of(warmup + k, true),
                            micro_of(warmup + k)));
    backward(order, chunk_of(k, false), micro_of(k));
  }
  for (int k = total - warmup; k < total; ++k)
    backward(order, chunk_of(k, false), micro_of(k));
  return order;
}

/// ZB-H1 (Qi et al. 2024, section 3.1). The gradient a stage sends up is
/// ready after B, so the first s backwards of stage s skip their W and the
/// next forward and backward follow at once: the stages above get their
/// gradients sooner, and the s pending W's run in the cool-down, where the
/// stage would wait for gradients anyway. Holding s more micro-batches brings
/// stage s to P (when M >= P), what stage 0 holds under 1F1B.
Order zero_bubble_h1(int stages, int micro_batches, int stage) {
  Order order;
  int f = 0, b = 0, w = 0;
  auto forward = [&] {
    order.push_back(compute(ActionKind::Forward, stage, f++));
  };
  auto input = [&] {
    order.push_back(compute(ActionKind::BackwardInput, stage, b++));
  };
  auto weight = [&] {
    order.push_back(compute(ActionKind::BackwardWeight, stage, w++));
  };
  int warmup = std::min(stages - stage - 1, micro_batches);
  while (f < warmup)
    forward();
  for (int i = 0; i < stage && f < micro_batches; ++i) {
    forward();
    input();
  }
  while (f < micro_batches) {
    forward();
    input();
    weight();
  }
  while (b < micro_batches) {
    input();
    weight();
  }
  while (w < micro_batches)
    weight();
  return order;
}

/// Gives every action of `orders` its slot and places the messages (see the
/// header), filling `schedule`'s actions and slots.
void assemble(Schedule &schedule, const std::vector<Order> &orders) {
  int chunks = schedule.stages * schedule.virtual_stages;
  int micro_batches = schedule.micro_batches;
  schedule.slots.assign(chunks, 0);
  schedule.actions.assign(schedule.stages, {});
  std::vector<std::vector<int>> slot_of(chunks,
                                        std::vector<int>(micro_batches, -1));
  for (int stage = 0; stage < schedule.stages; ++stage) {
    const Order &order = orders[stage];
    // Per chunk and slot: the index in `order` of the W that last freed it
    // (-1: never used), and whether it is taken now.
    std::vector<std::vector<int>> freed_by(chunks);
    std::vector<std::vector<bool>> taken(chunks);
    // receives[0] are posted at the start, receives[i + 1] after order[i].
    // A channel's receives must be posted in the order of its sends, the
    // order of F: one whose slot came free before the previous receive's
    // follows that receive.
    std::vector<std::vector<Action>> receives(order.size() + 1);
    std::vector<int> last_receive(chunks, 0);
    for (size_t i = 0; i < order.size(); ++i) {
      const Action &a = order[i];
      if (a.kind == ActionKind::Forward) {
        auto &t = taken[a.chunk];
        int slot = int(std::find(t.begin(), t.end(), false) - t.begin());
        if (slot == int(t.size())) {
          t.push_back(false);
          freed_by[a.chunk].push_back(-1);
        }
        t[slot] = true;
        slot_of[a.chunk][a.micro] = slot;
        if (a.chunk > 0) {
          int &where = last_receive[a.chunk];
          where = std::max(where, freed_by[a.chunk][slot] + 1);
          receives[where].push_back(
              {ActionKind::RecvActivation, a.chunk, a.micro, slot});
        }
      } else if (a.kind == ActionKind::BackwardWeight) {
        int slot = slot_of[a.chunk][a.micro];
        taken[a.chunk][slot] = false;
        freed_by[a.chunk][slot] = int(i);
      }
    }
    for (int c = stage; c < chunks; c += schedule.stages)
      schedule.slots[c] = int(taken[c].size());

    std::vector<Action> &out = schedule.actions[stage];
    out = receives[0];
    for (size_t i = 0; i < order.size(); ++i) {
      Action a = order[i];
      a.slot = slot_of[a.chunk][a.micro];
      out.push_back(a);
      auto then = [&](ActionKind kind) {
        out.push_back({kind, a.chunk, a.micro, a.slot});
      };
      if (a.kind == ActionKind::Forward && a.chunk + 1 < chunks) {
        then(ActionKind::SendActivation);
        then(ActionKind::RecvGrad);
      } else if (a.kind == ActionKind::BackwardInput && a.chunk > 0) {
        then(ActionKind::SendGrad);
      }
      out.insert(out.end(), receives[i + 1].begin(), receives[i + 1].end());
    }
  }
}

} // namespace

Schedule build_schedule(ScheduleKind kind, int stages, int virtual_stages,
                        int micro_batches) {
  std::string problem =
      check_schedule(kind, stages, virtual_stages, micro_batches);
  if (!problem.empty())
    throw std::invalid_argument(problem);
  Schedule schedule;
  schedule.stages = stages;
  schedule.virtual_stages = virtual_stages;
  schedule.micro_batches = micro_batches;
  schedule.kind = kind;
  std::vector<Order> orders;
  for (int s = 0; s < stages; ++s) {
    switch (kind) {
    case ScheduleKind::OneFOneB:
      orders.push_back(one_f_one_b(stages, micro_batches, s));
      break;
    case ScheduleKind::Interleaved:
      orders.push_back(interleaved(stages, virtual_stages, micro_batches, s));
      break;
    case ScheduleKind::ZeroBubbleH1:
      orders.push_back(zero_bubble_h1(stages, micro_batches, s));
      break;
    }
  }
  assemble(schedule, orders);
  return schedule;
}

//===----------------------------------------------------------------------===//
// Text form
//===----------------------------------------------------------------------===//

namespace {

const char *letters(ActionKind kind) {
  switch (kind) {
  case ActionKind::Forward:
    return "F";
  case ActionKind::BackwardInput:
    return "B";
  case ActionKind::BackwardWeight:
    return "W";
  case ActionKind::SendActivation:
    return "sa";
  case ActionKind::RecvActivation:
    return "ra";
  case ActionKind::SendGrad:
    return "sg";
  case ActionKind::RecvGrad:
    return "rg";
  }
  return "?";
}

std::string format_action(ActionKind kind, int chunk, int micro) {
  return letters(kind) + std::to_string(chunk) + "." + std::to_string(micro);
}

std::string format_action(const Action &a) {
  return format_action(a.kind, a.chunk, a.micro);
}

} // namespace

std::string format_actions(const std::vector<Action> &actions) {
  std::string text;
  for (const Action &a : actions) {
    if (!text.empty())
      text += ' ';
    text += format_action(a);
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Execution: the deadlock check and the simulator
//===----------------------------------------------------------------------===//

namespace {

constexpr int kKinds = 7;

/// Runs the lists as the runtime does: sends never block, a receive only
/// posts, and F or B waits for the message it reads. With `times`, clocks
/// every action into `sim`. Returns "" or the deadlock the lists end in.
/// Assumes the structural checks of verify_schedule passed.
std::string execute(const Schedule &schedule, const ChunkTimes *times,
                    Simulation *sim) {
  int stages = schedule.stages;
  int chunks = stages * schedule.virtual_stages;
  int micro_batches = schedule.micro_batches;
  // A message is named by its send: (is gradient, sending chunk, micro).
  auto message = [&](bool grad, int chunk, int micro) {
    return (int(grad) * chunks + chunk) * micro_batches + micro;
  };
  std::vector<double> sent(2 * chunks * micro_batches, -1);
  std::vector<double> posted(sent.size(), -1);
  std::vector<double> clock(stages, 0), busy(stages, 0);
  std::vector<int> next(stages, 0), in_flight(stages, 0), peak(stages, 0);
  double p2p = times ? times->p2p : 0;

  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < stages; ++s) {
      const std::vector<Action> &list = schedule.actions[s];
      for (; next[s] < int(list.size()); ++next[s], progress = true) {
        const Action &a = list[next[s]];
        int c = a.chunk, m = a.micro;
        // What a compute action reads from another stage, if anything.
        int reads = -1;
        if (a.kind == ActionKind::Forward && c > 0)
          reads = message(false, c - 1, m);
        else if (a.kind == ActionKind::BackwardInput && c + 1 < chunks)
          reads = message(true, c + 1, m);
        if (reads >= 0 && sent[reads] < 0)
          break;
        double start = clock[s];
        if (reads >= 0)
          start = std::max(start, std::max(sent[reads], posted[reads]) + p2p);
        double seconds = 0;
        switch (a.kind) {
        case ActionKind::Forward:
          seconds = times ? times->forward[c] : 0;
          peak[s] = std::max(peak[s], ++in_flight[s]);
          break;
        case ActionKind::BackwardInput:
          seconds = times ? times->backward_input[c] : 0;
          break;
        case ActionKind::BackwardWeight:
          seconds = times ? times->backward_weight[c] : 0;
          --in_flight[s];
          break;
        case ActionKind::SendActivation:
          sent[message(false, c, m)] = clock[s];
          break;
        case ActionKind::SendGrad:
          sent[message(true, c, m)] = clock[s];
          break;
        case ActionKind::RecvActivation:
          posted[message(false, c - 1, m)] = clock[s];
          break;
        case ActionKind::RecvGrad:
          posted[message(true, c + 1, m)] = clock[s];
          break;
        }
        clock[s] = start + seconds;
        busy[s] += seconds;
      }
    }
  }

  std::string stuck;
  for (int s = 0; s < stages; ++s) {
    const std::vector<Action> &list = schedule.actions[s];
    if (next[s] == int(list.size()))
      continue;
    const Action &a = list[next[s]];
    bool forward = a.kind == ActionKind::Forward;
    stuck += (stuck.empty() ? "deadlock: stage " : "; stage ") +
             std::to_string(s) + " waits at " + format_action(a) + " for " +
             format_action(forward ? ActionKind::SendActivation
                                   : ActionKind::SendGrad,
                           forward ? a.chunk - 1 : a.chunk + 1, a.micro);
  }
  if (!stuck.empty() || !sim)
    return stuck;
  sim->makespan = *std::max_element(clock.begin(), clock.end());
  sim->busy = busy;
  double total = 0;
  for (double b : busy)
    total += b;
  sim->bubble_fraction =
      sim->makespan > 0 ? 1 - total / (stages * sim->makespan) : 0;
  sim->peak_in_flight = peak;
  return "";
}

} // namespace

std::string verify_schedule(const Schedule &schedule) {
  int stages = schedule.stages;
  int chunks = stages * schedule.virtual_stages;
  int micro_batches = schedule.micro_batches;
  std::ostringstream os;
  if (stages < 1 || schedule.virtual_stages < 1 || micro_batches < 1) {
    os << "sizes " << stages << " x " << schedule.virtual_stages << " x "
       << micro_batches << " are not all positive";
    return os.str();
  }
  if (int(schedule.actions.size()) != stages ||
      int(schedule.slots.size()) != chunks) {
    os << "action lists for " << schedule.actions.size() << " stages and "
       << "slots for " << schedule.slots.size() << " chunks, expected "
       << stages << " and " << chunks;
    return os.str();
  }

  // Where each (kind, chunk, micro) sits in its stage's list.
  auto key = [&](ActionKind kind, int chunk, int micro) {
    return (int(kind) * chunks + chunk) * micro_batches + micro;
  };
  std::vector<int> at(kKinds * chunks * micro_batches, -1);
  for (int s = 0; s < stages; ++s) {
    const std::vector<Action> &list = schedule.actions[s];
    for (int i = 0; i < int(list.size()); ++i) {
      const Action &a = list[i];
      if (a.chunk < 0 || a.chunk >= chunks || a.micro < 0 ||
          a.micro >= micro_batches) {
        os << "stage " << s << " action " << i << " names chunk " << a.chunk
           << " micro-batch " << a.micro << " of " << chunks << " x "
           << micro_batches;
        return os.str();
      }
      std::string name = format_action(a);
      if (a.chunk % stages != s) {
        os << "stage " << s << " holds " << name << ", but chunk " << a.chunk
           << " runs on stage " << a.chunk % stages;
        return os.str();
      }
      bool last = a.chunk + 1 == chunks;
      if ((last && (a.kind == ActionKind::SendActivation ||
                    a.kind == ActionKind::RecvGrad)) ||
          (a.chunk == 0 && (a.kind == ActionKind::RecvActivation ||
                            a.kind == ActionKind::SendGrad))) {
        os << "stage " << s << " holds " << name << ", but chunk " << a.chunk
           << " has no " << (a.chunk == 0 ? "previous" : "next") << " chunk";
        return os.str();
      }
      int &where = at[key(a.kind, a.chunk, a.micro)];
      if (where >= 0) {
        os << "stage " << s << " holds " << name << " twice";
        return os.str();
      }
      where = i;
    }
  }

  // Every (c, m) complete, in dependency order on its stage.
  for (int c = 0; c < chunks; ++c) {
    for (int m = 0; m < micro_batches; ++m) {
      int s = c % stages;
      auto index = [&](ActionKind kind) { return at[key(kind, c, m)]; };
      auto before = [&](ActionKind first, ActionKind second) {
        if (index(first) < index(second))
          return true;
        os << "stage " << s << " runs " << format_action(second, c, m)
           << " before " << format_action(first, c, m);
        return false;
      };
      std::vector<ActionKind> needed = {ActionKind::Forward,
                                        ActionKind::BackwardInput,
                                        ActionKind::BackwardWeight};
      if (c + 1 < chunks) {
        needed.push_back(ActionKind::SendActivation);
        needed.push_back(ActionKind::RecvGrad);
      }
      if (c > 0) {
        needed.push_back(ActionKind::RecvActivation);
        needed.push_back(ActionKind::SendGrad);
      }
      for (ActionKind kind : needed) {
        if (index(kind) < 0) {
          os << "stage " << s << " lacks " << format_action(kind, c, m);
          return os.str();
        }
      }
      if (!before(ActionKind::Forward, ActionKind::BackwardInput) ||
          !before(ActionKind::BackwardInput, ActionKind::BackwardWeight))
        return os.str();
      if (c + 1 < chunks &&
          (!before(ActionKind::Forward, ActionKind::SendActivation) ||
           !before(ActionKind::Forward, ActionKind::RecvGrad) ||
           !before(ActionKind::RecvGrad, ActionKind::BackwardInput)))
        return os.str();
      if (c > 0 && (!before(ActionKind::RecvActivation, ActionKind::Forward) ||
                    !before(ActionKind::BackwardInput, ActionKind::SendGrad)))
        return os.str();
    }
  }

  // Slots: one per (c, m) for all its actions, in range, free when taken.
  for (int s = 0; s < stages; ++s) {
    const std::vector<Action> &list = schedule.actions[s];
    std::vector<std::vector<int>> holder(chunks);
    for (int c = s; c < chunks; c += stages)
      holder[c].assign(std::max(schedule.slots[c], 0), -1);
    for (const Action &a : list) {
      int c = a.chunk, m = a.micro;
      const Action &f = list[at[key(ActionKind::Forward, c, m)]];
      if (a.slot < 0 || a.slot >= schedule.slots[c]) {
        os << "stage " << s << ": " << format_action(a) << " uses slot "
           << a.slot << ", but chunk " << c << " has " << schedule.slots[c];
        return os.str();
      }
      if (a.slot != f.slot) {
        os << "stage " << s << ": " << format_action(a) << " uses slot "
           << a.slot << ", but " << format_action(f) << " uses " << f.slot;
        return os.str();
      }
      int &h = holder[c][a.slot];
      if (a.kind == ActionKind::RecvActivation ||
          a.kind == ActionKind::Forward) {
        if (h >= 0 && h != m) {
          os << "stage " << s << ": " << format_action(a) << " takes slot "
             << a.slot << " of chunk " << c << ", which micro-batch " << h
             << " still holds";
          return os.str();
        }
        h = m;
      } else if (a.kind == ActionKind::BackwardWeight) {
        h = -1;
      }
    }
  }

  // Channels: the k-th send meets the k-th receive posted.
  auto sequence = [&](ActionKind kind, int chunk) {
    std::vector<int> micros;
    for (const Action &a : schedule.actions[chunk % stages])
      if (a.kind == kind && a.chunk == chunk)
        micros.push_back(a.micro);
    return micros;
  };
  auto same_order = [&](ActionKind send, int from, ActionKind receive, int to) {
    std::vector<int> sends = sequence(send, from);
    std::vector<int> receives = sequence(receive, to);
    for (size_t k = 0; k < sends.size(); ++k) {
      if (sends[k] == receives[k])
        continue;
      os << "stage " << from % stages << " sends "
         << format_action(send, from, sends[k]) << " as message " << k
         << " of its channel, but stage " << to % stages << " posts "
         << format_action(receive, to, receives[k]) << " there";
      return false;
    }
    return true;
  };
  for (int c = 0; c + 1 < chunks; ++c) {
    if (!same_order(ActionKind::SendActivation, c, ActionKind::RecvActivation,
                    c + 1) ||
        !same_order(ActionKind::SendGrad, c + 1, ActionKind::RecvGrad, c))
      return os.str();
  }

  return execute(schedule, nullptr, nullptr);
}

Simulation simulate(const Schedule &schedule, const ChunkTimes &times) {
  std::string problem = verify_schedule(schedule);
  if (!problem.empty())
    throw std::invalid_argument("simulate: " + problem);
  size_t chunks = size_t(schedule.stages) * size_t(schedule.virtual_stages);
  if (times.forward.size() != chunks || times.backward_input.size() != chunks ||
      times.backward_weight.size() != chunks) {
    std::ostringstream os;
    os << "simulate: times for " << times.forward.size() << " forward, "
       << times.backward_input.size() << " backward_input and "
       << times.backward_weight.size() << " backward_weight chunks, but the "
       << "schedule has " << chunks;
    throw std::invalid_argument(os.str());
  }
  Simulation sim;
  execute(schedule, &times, &sim);
  return sim;
}

} // namespace tpc::pipeline
