//===- Generate.cpp - Token-by-token generation with decode_step ----------===//

#include "runtime/run/Generate.h"
#include "runtime/program/Abi.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/run/Run.h"
#include "runtime/util/Philox.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace tpc {

namespace {
std::vector<int64_t> shape_of(const program::Tensor &t) {
  return {t.shape().begin(), t.shape().end()};
}
} // namespace

namespace {
size_t bytes_of(const program::Tensor &t) {
  int64_t n = 1;
  for (int64_t d : shape_of(t))
    n *= d;
  return size_t(n) * element_size(element_type_of(t.dtype()));
}

/// The stack-parallel entry points of this rank, checked against
/// decode_step's tensors.
void describe_stacks(const Executor &ex, DecodeEntry &e) {
  const Comm &comm = ex.comm();
  e.stacks = int(ex.program().stacks());
  int s = comm.stack_rank();
  auto bad = [](const std::string &what) {
    return std::runtime_error(
        "the stack-parallel program " + what +
        ": it must have decode_stack_0 .. decode_stack_<p-1> and "
        "decode_head as tpc-compile --stack-parallel writes them; recompile "
        "the model");
  };
  for (int t = 0; t < e.stacks; ++t)
    if (!ex.has_function(abi::kDecodeStackPrefix + std::to_string(t)))
      throw bad("has no decode_stack_" + std::to_string(t));
  if (!ex.has_function(abi::kDecodeHead))
    throw bad("has no decode_head");
  const program::Function &mine =
      ex.function(abi::kDecodeStackPrefix + std::to_string(s));
  const program::Function &head = ex.function(abi::kDecodeHead);
  const program::Function &step = *e.fn;
  auto same = [&](int a, int b) {
    const program::Tensor &x = ex.tensor(a), &y = ex.tensor(b);
    return x.dtype() == y.dtype() && shape_of(x) == shape_of(y);
  };
  if (mine.inputs_size() != (s > 0 ? 3 : 2) || mine.outputs_size() != 1 ||
      !same(mine.inputs(0), step.inputs(0)) ||
      !same(mine.inputs(1), step.inputs(1)) ||
      (s > 0 && !same(mine.inputs(2), mine.outputs(0))))
    throw bad("has a decode_stack_" + std::to_string(s) +
              " that does not take (tokens, pos[, memory]) and return its "
              "final activation");
  e.final_bytes = bytes_of(ex.tensor(mine.outputs(0)));
  e.head_reads_all = head.inputs_size() == e.stacks;
  if ((head.inputs_size() != 1 && !e.head_reads_all) ||
      head.outputs_size() != 1 || !same(head.outputs(0), step.outputs(0)))
    throw bad("has a decode_head that does not read 1 or " +
              std::to_string(e.stacks) +
              " final activations and return decode_step's logits");
  for (int i = 0; i < head.inputs_size(); ++i)
    if (!same(head.inputs(i), mine.outputs(0)))
      throw bad("has a decode_head whose inputs are not final activations");
  e.stack = &mine;
  if (s == e.stacks - 1)
    e.head = &head;
}
} // namespace

DecodeEntry describe_decode(const Executor &ex) {
  if (ex.program().pp() > 1)
    throw std::runtime_error(
        "the program is pipelined (--pp " + std::to_string(ex.program().pp()) +
        "), and a pipelined program does not decode: compile the model "
        "without --pp for generate and --load the checkpoint, whose tensors "
        "are global");
  if (!ex.has_function(abi::kDecodeStep))
    throw std::runtime_error(
        "the program has no decode_step entry point, so it cannot generate: "
        "compile the model with this tpc-compile, which adds decode_step to "
        "every model it can decode one token at a time (not models with "
        "bidirectional attention)");
  DecodeEntry e;
  e.fn = &ex.function(abi::kDecodeStep);
  const program::Function &fn = *e.fn;
  auto bad = [](const std::string &what) {
    return std::runtime_error(
        "decode_step " + what +
        "; it must be decode_step(tokens [B,1] i32, pos [] i32) -> logits "
        "[B,1,V] f32: recompile the model with tpc-compile");
  };
  bool recurrent = ex.has_function(abi::kDecodeRecurrent);
  if (fn.inputs_size() != 2 || fn.outputs_size() != (recurrent ? 2 : 1))
    throw bad("has " + std::to_string(fn.inputs_size()) + " inputs and " +
              std::to_string(fn.outputs_size()) + " outputs");
  const program::Tensor &tokens = ex.tensor(fn.inputs(0));
  const program::Tensor &pos = ex.tensor(fn.inputs(1));
  const program::Tensor &logits = ex.tensor(fn.outputs(0));
  auto ts = shape_of(tokens), ls = shape_of(logits);
  if (tokens.dtype() != program::I32 || ts.size() != 2 || ts[1] != 1)
    throw bad("takes tokens " + shape_string(ts));
  if (pos.dtype() != program::I32 || pos.shape_size() != 0)
    throw bad("takes a position that is not an i32 scalar");
  if (logits.dtype() != program::F32 || ls.size() != 3 || ls[0] != ts[0] ||
      ls[1] != 1)
    throw bad("returns logits " + shape_string(ls));
  e.B = int(ts[0]);
  e.width = int(ls[2]);
  e.vocab = describe_entry(ex, abi::kForward).vocab;
  if (e.vocab > e.width)
    throw bad("returns " + std::to_string(e.width) +
              " columns, fewer than the vocabulary of " +
              std::to_string(e.vocab));
  if (recurrent) {
    // decode_recurrent(tokens, pos, final) -> (logits, final), its tensors
    // those of decode_step.
    const program::Function &rf = ex.function(abi::kDecodeRecurrent);
    const program::Tensor &final = ex.tensor(fn.outputs(1));
    auto same = [&](int a, const program::Tensor &b) {
      const program::Tensor &t = ex.tensor(a);
      return t.dtype() == b.dtype() && shape_of(t) == shape_of(b);
    };
    if (rf.inputs_size() != 3 || rf.outputs_size() != 2 ||
        !same(rf.inputs(0), tokens) || !same(rf.inputs(1), pos) ||
        !same(rf.inputs(2), final) || !same(rf.outputs(0), logits) ||
        !same(rf.outputs(1), final))
      throw std::runtime_error(
          "decode_recurrent does not match decode_step; it must be "
          "decode_recurrent(tokens, pos, final) -> (logits, final) with "
          "decode_step's tensors: recompile the model with tpc-compile");
    e.recurrent = &rf;
    e.final_bytes = bytes_of(final);
  }
  if (ex.program().stacks() > 1)
    describe_stacks(ex, e);
  e.capacity = int(ex.program().model().decode_capacity());
  return e;
}

int sample_token(const float *logits, int vocab, const SamplingOptions &o,
                 uint64_t index) {
  if (vocab < 1)
    throw std::invalid_argument("sample_token: empty vocabulary");
  if (o.temperature == 0.0)
    return int(std::max_element(logits, logits + vocab) - logits);
  std::vector<int> ids(vocab);
  std::iota(ids.begin(), ids.end(), 0);
  int k = o.top_k > 0 ? std::min(o.top_k, vocab) : vocab;
  // Largest first; ties by id, so the candidates do not depend on the sort.
  auto larger = [&](int a, int b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  };
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), larger);
  std::vector<double> p(k);
  double top = logits[ids[0]], total = 0.0;
  for (int i = 0; i < k; ++i)
    total += p[i] = std::exp((double(logits[ids[i]]) - top) / o.temperature);
  if (o.top_p < 1.0) {
    // The nucleus: the largest probabilities until they reach top_p.
    double nucleus = 0.0;
    int kept = 0;
    while (kept < k) {
      nucleus += p[kept++];
      if (nucleus >= o.top_p * total)
        break;
    }
    k = kept;
    total = nucleus;
  }
  static const uint64_t stream = fnv1a64("generate");
  double u = double(philox_uniform(o.seed, stream, index)) * total;
  double cumulative = 0.0;
  for (int i = 0; i < k; ++i) {
    cumulative += p[i];
    if (u < cumulative)
      return ids[i];
  }
  return ids[k - 1];
}

void check_generate(const DecodeEntry &entry, const GenerateOptions &o) {
  if (o.prompt.empty())
    throw std::invalid_argument("the prompt is empty; give --prompt TEXT or "
                                "--prompt-ids with at least one token");
  if (entry.capacity > 0 && int64_t(o.prompt.size()) > entry.capacity)
    throw std::invalid_argument(
        "the prompt has " + std::to_string(o.prompt.size()) +
        " tokens but the model's context holds " +
        std::to_string(entry.capacity) + "; shorten the prompt");
  for (int id : o.prompt)
    if (id < 0 || id >= entry.vocab)
      throw std::invalid_argument("prompt token " + std::to_string(id) +
                                  " is outside the vocabulary [0, " +
                                  std::to_string(entry.vocab) + ")");
  if (o.max_tokens < 0)
    throw std::invalid_argument("--tokens must be >= 0, got " +
                                std::to_string(o.max_tokens));
  if (!(o.sampling.temperature >= 0.0) ||
      !std::isfinite(o.sampling.temperature))
    throw std::invalid_argument(
        "--temperature must be a finite number >= 0 (0: greedy), got " +
        std::to_string(o.sampling.temperature));
  if (!(o.sampling.top_p > 0.0 && o.sampling.top_p <= 1.0))
    throw std::invalid_argument(
        "--top-p must be in (0, 1] (1: every token), got " +
        std::to_string(o.sampling.top_p));
  if (o.sampling.top_k < 0)
    throw std::invalid_argument("--top-k must be >= 0 (0: every token), got " +
                                std::to_string(o.sampling.top_k));
  if (o.recurrent && entry.stack)
    throw std::invalid_argument(
        "--recurrent runs one pass of the last stack per token, which a "
        "stack-parallel program does not hold on every rank; use a program "
        "compiled without --stack-parallel");
  if (o.recurrent && !entry.recurrent)
    throw std::invalid_argument(
        "--recurrent needs the program's decode_recurrent, which tpc-compile "
        "adds only for a shared-weights StagFormer whose logits read its last "
        "stack (tpc-model stagformer --shared-weights, with 2 stacks or "
        "--no-alpha); this program has none");
}

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Records the drawn token `next` after position `pos` in `r` and tells the
/// caller; false when generation ends with it (the stop token, the token
/// budget, a full context).
bool take_token(GenerateResult &r, int32_t next, int pos,
                const DecodeEntry &entry, const GenerateOptions &o,
                Clock::time_point start,
                const std::function<void(int)> &on_token) {
  r.tokens.push_back(next);
  if (r.generated == 0)
    r.prefill_seconds = seconds_since(start);
  ++r.generated;
  on_token(next);
  if (next == o.stop_token) {
    r.stopped_at_end = true;
    return false;
  }
  if (r.generated == o.max_tokens)
    return false;
  if (entry.capacity > 0 && pos + 1 >= entry.capacity) {
    r.stopped_at_capacity = true;
    return false;
  }
  return true;
}

/// The next token from the logits of the newest position, or -1 when they
/// are not finite: the drawing rank broadcasts it, so every rank learns.
int32_t draw(const std::vector<float> &logits, const DecodeEntry &entry,
             const GenerateOptions &o, const GenerateResult &r) {
  if (!std::all_of(logits.begin(), logits.begin() + entry.vocab,
                   [](float x) { return std::isfinite(x); }))
    return -1;
  return sample_token(logits.data(), entry.vocab, o.sampling,
                      uint64_t(r.generated));
}

AgreedFailure logits_overflow(int pos, const GenerateOptions &o) {
  return weights_overflow(
      "the logits of position " + std::to_string(pos) + " are", o.loaded);
}

/// Stack-parallel generation (see Generate.h), continuing `r`.
GenerateResult generate_stacks(Executor &ex, const DecodeEntry &entry,
                               const GenerateOptions &o,
                               const std::function<void(int)> &on_token,
                               GenerateResult r) {
  Comm &comm = ex.comm();
  const int s = comm.stack_rank(), p = entry.stacks;
  const bool last = s == p - 1;
  // Messages: a stack's final activation as the next stack's memory, and
  // as an input of the head under alpha.
  enum Tag { kMemory = 1, kHead = 2 };
  const program::Function &mine = *entry.stack;
  std::vector<int> tokens(size_t(entry.B));
  std::vector<float> logits(size_t(entry.B) * entry.width);
  std::vector<char> memory(entry.final_bytes), final(entry.final_bytes);
  std::vector<std::vector<char>> finals(entry.head_reads_all ? size_t(p) : 1,
                                        std::vector<char>(entry.final_bytes));
  // The token is drawn on the last stack's ranks; its first rank tells all.
  const int drawer = (p - 1) * comm.tp_size();
  const int prompt = int(o.prompt.size());
  Clock::time_point start = Clock::now();
  for (int pos = 0;; ++pos) {
    std::fill(tokens.begin(), tokens.end(), r.tokens[size_t(pos)]);
    int32_t position = pos;
    // The head runs where a token is drawn, or where logits are kept.
    bool head = pos + 1 >= prompt || o.logits;
    if (s > 0 && pos > 0)
      comm.recv(memory.data(), memory.size(), s - 1, Group::Stack, kMemory);
    ex.set_input(mine, 0, tokens.data(), tokens.size() * sizeof(int));
    ex.set_input(mine, 1, &position, sizeof(position));
    if (s > 0)
      ex.set_input(mine, 2, memory.data(), memory.size());
    ex.run(mine);
    ex.read_output(mine, 0, final.data(), final.size());
    // The next stack's memory. Within the prompt it goes at once, so that
    // the stacks work as a pipeline; after that only once the token says
    // generation goes on, so that no message is left unreceived.
    auto pass_on = [&] {
      if (s + 1 < p)
        comm.send(final.data(), final.size(), s + 1, Group::Stack, kMemory);
    };
    if (pos + 1 < prompt)
      pass_on();
    if (head && entry.head_reads_all && !last)
      comm.send(final.data(), final.size(), p - 1, Group::Stack, kHead);
    ++r.steps;
    if (head && last) {
      const program::Function &h = *entry.head;
      if (entry.head_reads_all) {
        for (int t = 0; t + 1 < p; ++t)
          comm.recv(finals[size_t(t)].data(), entry.final_bytes, t,
                    Group::Stack, kHead);
        finals.back() = final;
      } else {
        finals[0] = final;
      }
      for (size_t i = 0; i < finals.size(); ++i)
        ex.set_input(h, int(i), finals[i].data(), finals[i].size());
      ex.run(h);
      ex.read_output(h, 0, logits.data(), logits.size() * sizeof(float));
      if (o.logits)
        o.logits->insert(o.logits->end(), logits.begin(),
                         logits.begin() + entry.vocab);
    }
    if (pos + 1 < prompt)
      continue;
    int32_t next = last ? draw(logits, entry, o, r) : 0;
    comm.broadcast(&next, sizeof(next), drawer, Group::World);
    if (next < 0)
      throw logits_overflow(pos, o);
    if (!take_token(r, next, pos, entry, o, start, on_token))
      break;
    pass_on();
  }
  r.seconds = seconds_since(start);
  // The logits rows live on the last stack's ranks; world rank 0 writes them.
  if (o.logits && p > 1 && comm.tp_rank() == 0) {
    if (last) {
      uint64_t n = o.logits->size();
      comm.send(&n, sizeof(n), 0, Group::Stack, kHead);
      comm.send(o.logits->data(), n * sizeof(float), 0, Group::Stack, kHead);
    } else if (s == 0) {
      uint64_t n = 0;
      comm.recv(&n, sizeof(n), p - 1, Group::Stack, kHead);
      o.logits->resize(n);
      comm.recv(o.logits->data(), n * sizeof(float), p - 1, Group::Stack,
                kHead);
    }
  }
  return r;
}
} // namespace

void prepare_generate(Executor &ex, const DecodeEntry &entry,
                      const GenerateOptions &o) {
  check_generate(entry, o);
  // The functions this rank runs: its stack's (and the head) under stack
  // parallelism, else decode_step (and decode_recurrent).
  if (entry.stack) {
    ex.check(*entry.stack);
    if (entry.head)
      ex.check(*entry.head);
  } else {
    ex.check(*entry.fn);
    if (o.recurrent)
      ex.check(*entry.recurrent);
  }
}

GenerateResult generate(Executor &ex, const DecodeEntry &entry,
                        const GenerateOptions &o,
                        const std::function<void(int)> &on_token) {
  prepare_generate(ex, entry, o);
  ex.reset_kv_caches();
  GenerateResult r;
  r.tokens = o.prompt;
  if (o.max_tokens == 0)
    return r;
  if (entry.stack)
    return generate_stacks(ex, entry, o, on_token, std::move(r));
  Comm &comm = ex.comm();
  std::vector<int> tokens(size_t(entry.B));
  std::vector<float> logits(size_t(entry.B) * entry.width);
  // The previous position's final activation, in the compute type.
  std::vector<char> final(o.recurrent ? entry.final_bytes : 0);
  Clock::time_point start = Clock::now();
  for (int pos = 0;; ++pos) {
    // Every sequence of the batch decodes the same tokens; row 0 is read.
    std::fill(tokens.begin(), tokens.end(), r.tokens[size_t(pos)]);
    int32_t p = pos;
    bool in_prompt = pos < int(o.prompt.size());
    if (o.recurrent) {
      // Also for the prompt, where it only matters that the memory gets the
      // previous position's final activation: decode_step below writes
      // this position's self-attention keys over the ones it wrote.
      const program::Function &rf = *entry.recurrent;
      ex.set_input(rf, 0, tokens.data(), tokens.size() * sizeof(int));
      ex.set_input(rf, 1, &p, sizeof(p));
      ex.set_input(rf, 2, final.data(), final.size());
      ex.run(rf);
      if (!in_prompt) {
        ex.read_output(rf, 0, logits.data(), logits.size() * sizeof(float));
        ex.read_output(rf, 1, final.data(), final.size());
      }
    }
    if (!o.recurrent || in_prompt) {
      ex.set_input(*entry.fn, 0, tokens.data(), tokens.size() * sizeof(int));
      ex.set_input(*entry.fn, 1, &p, sizeof(p));
      ex.run(*entry.fn);
      ex.read_output(*entry.fn, 0, logits.data(),
                     logits.size() * sizeof(float));
      if (o.recurrent)
        ex.read_output(*entry.fn, 1, final.data(), final.size());
    }
    ++r.steps;
    if (o.logits)
      o.logits->insert(o.logits->end(), logits.begin(),
                       logits.begin() + entry.vocab);
    if (pos + 1 < int(o.prompt.size()))
      continue;
    int32_t next = draw(logits, entry, o, r);
    comm.broadcast(&next, sizeof(next), 0, Group::World);
    if (next < 0)
      throw logits_overflow(pos, o);
    if (!take_token(r, next, pos, entry, o, start, on_token))
      break;
  }
  r.seconds = seconds_since(start);
  return r;
}

} // namespace tpc
