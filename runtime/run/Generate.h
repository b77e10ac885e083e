//===- Generate.h - Token-by-token generation with decode_step --*- C++ -*-===//
//
// The generator feeds a prompt through the program's decode_step one
// position at a time (each decode op keeps its keys and values in a KV cache
// of the executor), then samples new tokens from the gathered logits.
// Recurrent decoding (a shared-weights StagFormer) feeds the new tokens
// through decode_recurrent instead, one pass of the last stack, which
// continues the last stack's self-attention caches and cross-attends to a
// memory of the earlier tokens' final activations. Every
// rank runs decode_step in lockstep and draws the same token: the logits are
// whole on every rank and the draw is a counter-based function of (seed,
// token index); world rank 0's token is broadcast all the same, so the
// ranks cannot drift apart.
//
// A stack-parallel program (tpc-compile --stack-parallel) decodes a
// StagFormer with each stack on its own tp group: at position i every stack
// runs its decode_stack_<s> on token i at once, having received stack s-1's
// final activation of position i-1 as one point-to-point message; the last
// stack's ranks run decode_head (gathering every stack's final activation of
// position i first under the alpha combination), draw the next token and
// broadcast it. The prompt runs the same way without the broadcasts, so the
// stacks work through it as a pipeline, stack s one position behind stack
// s-1 at most.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_GENERATE_H
#define TPC_RUNTIME_RUN_GENERATE_H

#include "runtime/exec/Executor.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tpc {

/// decode_step(tokens [B,1] i32, pos [] i32) -> logits [B,1,Vpad] f32
/// (and, beside decode_recurrent, the last stack's final activation).
struct DecodeEntry {
  const program::Function *fn = nullptr;
  /// decode_recurrent(tokens, pos, final) -> (logits, final), or null.
  const program::Function *recurrent = nullptr;
  size_t final_bytes = 0; // of the final activation
  int B = 0;
  int width = 0;    // padded vocabulary: the logits' columns
  int vocab = 0;    // true vocabulary: columns >= vocab are padding
  int capacity = 0; // positions the KV caches and position tables hold
  /// Stack-parallel decoding: this rank's decode_stack_<s> and, on the
  /// ranks of the last stack, decode_head (else null).
  const program::Function *stack = nullptr;
  const program::Function *head = nullptr;
  int stacks = 1;
  /// decode_head reads every stack's final activation (alpha), or the last
  /// stack's alone.
  bool head_reads_all = false;
};

/// Throws naming what is missing when the program has no usable
/// decode_step; the vocabulary comes from forward's loss.
DecodeEntry describe_decode(const Executor &ex);

struct SamplingOptions {
  double temperature = 1.0; // 0: greedy (argmax)
  int top_k = 0;            // 0: the whole vocabulary
  uint64_t seed = 1337;
  /// Nucleus sampling: the draw keeps the fewest largest tokens whose
  /// probabilities sum to at least top_p (1: all).
  double top_p = 1.0;
};

/// The next token from one row of logits over [0, vocab): the argmax
/// (lowest id among ties) at temperature 0, else a draw from the softmax of
/// logits / temperature restricted to the top_k largest, then to the
/// nucleus of probability top_p among them, with the uniform
/// number philox_uniform(seed, stream "generate", index).
int sample_token(const float *logits, int vocab, const SamplingOptions &o,
                 uint64_t index);

struct GenerateOptions {
  std::vector<int> prompt;
  int max_tokens = 64;
  SamplingOptions sampling;
  int stop_token = -1; // generation ends after producing it; -1: none
  /// When set, receives the unpadded logits row of every position fed.
  std::vector<float> *logits = nullptr;
  /// Recurrent decoding: the prompt through decode_step, every new token
  /// through decode_recurrent.
  bool recurrent = false;
  /// The checkpoint the weights came from ("" when --seed initialized
  /// them): the likely cause named when the logits are not finite.
  std::string loaded;
};

struct GenerateResult {
  std::vector<int> tokens; // the prompt, then the generated tokens
  int generated = 0;
  int steps = 0; // decode_step calls
  double seconds = 0.0;
  /// Until the first new token was drawn: the prompt's positions.
  double prefill_seconds = 0.0;
  bool stopped_at_end = false;      // produced stop_token
  bool stopped_at_capacity = false; // the context is full
};

/// Checks the options against the entry (empty prompt, prompt longer than
/// the context, ids outside the vocabulary, negative temperature or top-k):
/// throws std::invalid_argument naming the problem.
void check_generate(const DecodeEntry &entry, const GenerateOptions &o);

/// check_generate, then prepares every function this rank runs, so that a
/// bad program is refused before anything is printed.
void prepare_generate(Executor &ex, const DecodeEntry &entry,
                      const GenerateOptions &o);

/// Runs the generation; `on_token` sees each new token as it is produced.
/// Logits that are not finite throw weights_overflow (Run.h) on every rank.
GenerateResult generate(Executor &ex, const DecodeEntry &entry,
                        const GenerateOptions &o,
                        const std::function<void(int)> &on_token);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_GENERATE_H
