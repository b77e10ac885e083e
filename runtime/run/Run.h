//===- Run.h - Evaluation and forward passes over token files ---*- C++ -*-===//
//
// What `tpc-run` does with a loaded program: token-weighted evaluation over
// the start of a token file, and the logits of one batch gathered over the
// TP group. Errors that some ranks may see and others not (a bad token in
// one data-parallel rank's windows) are agreed on through Comm::all_ok, so
// every rank stops together.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_RUN_H
#define TPC_RUNTIME_RUN_RUN_H

#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/io/TokenFile.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tpc {

/// Thrown on the ranks that did not fail themselves when another rank
/// failed; that rank reports the error.
struct PeerFailure : std::runtime_error {
  PeerFailure() : std::runtime_error("another rank failed") {}
};

/// An error every rank sees at once (a condition agreed through a
/// collective): each rank throws it, world rank 0 reports it, and no rank
/// needs to abort the others.
struct AgreedFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs `step` on every rank; if it throws anywhere, it throws everywhere:
/// the failing ranks rethrow their error, the others throw PeerFailure.
template <typename Step> void together(Comm &comm, Step &&step) {
  std::exception_ptr error;
  try {
    step();
  } catch (...) {
    error = std::current_exception();
  }
  bool ok = comm.all_ok(!error);
  if (error)
    std::rethrow_exception(error);
  if (!ok)
    throw PeerFailure();
}

/// A language-model entry point as the driver uses it:
/// fn(tokens [B,T] i32, targets [B,T] i32[, token types [B,T] i32][, key
/// lengths [B] i32]) -> (loss sum f32, count i32 [, logits [B,T,Vl] f32]),
/// the extras where the program records them (an encoder's).
struct ModelEntry {
  const program::Function *fn = nullptr;
  int B = 0, T = 0;
  int vocab = 0;        // unpadded vocabulary
  int logits = -1;      // output index of the logits, -1 when absent
  int logits_width = 0; // local columns
  bool vocab_parallel = false;
  int token_types = -1; // input index of the token types, -1 when absent
  int key_lengths = -1; // input index of the key lengths, -1 when absent
  /// BERT's sentence-order head: the input indices of the labels [B,1] and
  /// of the loss weight, the output index of its logits [B,1,2]; -1 when
  /// absent.
  int sentence_order = -1, sentence_order_weight = -1;
  int sentence_order_logits = -1;
  /// The inputs a batch fills: tokens, targets and the extras.
  int batch_inputs() const {
    return 2 + (token_types >= 0) + (key_lengths >= 0) + (sentence_order >= 0) +
           (sentence_order_weight >= 0);
  }
};

/// One micro-batch of an entry: tokens and targets [B,T], and buffers for
/// the extras the entry takes (empty where it does not).
struct Batch {
  std::vector<int> inputs, targets, token_types, key_lengths;
  /// BERT's sentence-order labels [B] and the weight of their loss in the
  /// loss sum (set by the caller: the trainer, or 0 in evaluation).
  std::vector<int> sentence_order;
  float sentence_order_weight = 0.0f;
  explicit Batch(const ModelEntry &entry);
  /// Where a batcher writes the extras: null for those the entry does not
  /// take.
  BatchExtras extras();
};

/// Writes `batch` into the entry's inputs.
void set_batch(Executor &ex, const ModelEntry &entry, const Batch &batch);
/// Adds the sentence-order cross-entropy of `batch`'s rows under `logits`
/// [B,1,2] to totals[0] and how many rows the larger logit gets right to
/// totals[1].
void add_sentence_order(const std::vector<float> &logits, const Batch &batch,
                        double totals[2]);
/// The same with the logits `entry` returned on `batch` (on the rank that
/// holds them).
void add_sentence_order(Executor &ex, const ModelEntry &entry,
                        const Batch &batch, double totals[2]);
/// Calls write(input, data, bytes) for each extra of `batch` that `fn`
/// takes, at the input index the program records for it (tokens and
/// targets excluded).
void for_each_batch_extra(const program::Function &fn, const Batch &batch,
                          const std::function<void(int input, const void *data,
                                                   size_t bytes)> &write);

/// Throws naming the function and what does not match the convention.
ModelEntry describe_entry(const Executor &ex, const std::string &name);

/// Prepares what running `entry` runs on this rank (a pipelined program's
/// stage), so that a bad program fails before the first batch.
void check_loss_entry(Executor &ex, const ModelEntry &entry);
/// Runs the entry on one micro-batch of B windows and adds its loss sum and
/// target count to `totals`.
void run_loss_entry(Executor &ex, const ModelEntry &entry, const Batch &batch,
                    const RunOptions &options, double totals[2]);

/// `--masks FILE --mask-id ID`: masked-language-model batches
/// (MaskedBatcher) instead of next-token windows; or `--mlm
/// [--mlm-probability P] [--sop] [--vocab-dir DIR]`: BERT's pre-training
/// batches (MlmBatcher) of a sentence-marked file, drawn from `seed`.
struct MaskOptions {
  std::string path; // empty: next-token windows
  int mask_id = -1;
  bool mlm = false;
  double mlm_probability = 0.15;
  bool sentence_order = false;
  std::string vocab_dir; // of vocab.txt; empty: bert-uncased's default
  uint64_t seed = 0;
  /// Masked-LM batches (a mask file or --mlm) rather than next-token ones.
  bool masked() const { return !path.empty() || mlm; }
  /// Eval: data-parallel rank 0 writes each batch it runs here, so that
  /// an independent reference can run the same rows (empty: none).
  std::string save_batches;
};

/// The batches of `file` for `entry` on this rank: next-token windows,
/// masked ones when `masks` names a mask file, BERT's under `masks.mlm`.
std::unique_ptr<Batcher> make_batcher(Executor &ex, const ModelEntry &entry,
                                      const TokenFile &file,
                                      const MaskOptions &masks);

struct EvalResult {
  double loss = 0.0;  // token-weighted mean over the whole job
  int64_t tokens = 0; // targets counted (the predicted ones under --masks)
  int64_t batches = 0;
  /// Under --masks: the share of predicted positions whose largest logit
  /// over the real vocabulary is the target's.
  std::optional<double> accuracy;
  /// With a sentence-order head (--mlm --sop): its mean loss and accuracy
  /// over the rows. `loss` is then the masked-LM loss alone.
  std::optional<double> sop_loss, sop_accuracy;
};

/// Mean loss over the first `max_batches` global batches (all the file's
/// when <= 0), each dp * B windows of T+1 tokens, or of T tokens with the
/// predicted positions of `masks`. With masks.save_batches, each batch of
/// data-parallel rank 0 is appended to that file as int32: inputs [B,T],
/// targets [B,T], token types [B,T] and key lengths [B] (types 0 and full
/// lengths where the entry takes none), then with a sentence-order head
/// and --sop the rows' labels [B].
EvalResult evaluate(Executor &ex, const ModelEntry &entry,
                    const std::string &data, int64_t max_batches,
                    const MaskOptions &masks = {});

/// The unpadded logits [B,T,V] of data-parallel rank 0's first batch, on
/// world rank 0 (empty elsewhere). Logits that are not finite on any rank
/// throw weights_overflow("the logits are", loaded) on every rank.
std::vector<float> forward_logits(Executor &ex, const ModelEntry &entry,
                                  const std::string &data,
                                  const std::string &loaded);

/// The error for `what` ("the logits are") that is not finite although
/// every token is valid, before any training step: the weights overflow.
/// `loaded` names the checkpoint they came from ("" when --seed
/// initialized them). Every rank throws it; rank 0 reports it.
AgreedFailure weights_overflow(const std::string &what,
                               const std::string &loaded);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_RUN_H
