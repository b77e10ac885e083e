//===- PipelineRun.h - A pipelined program's stage ----------------*- C++
//-*-===//
//
// A program compiled with --pp holds, per chunk, forward, backward_input,
// backward_weight and eval functions, and per stage the ordered actions of
// its schedule (Program.pipeline). The runner executes this rank's stage:
// each action runs one chunk function in the activation slot of its
// micro-batch, or posts the messages between neighbouring stages (sends
// leave at once; a receive is posted where the schedule puts it and waited
// for by the function that reads it).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_PIPELINERUN_H
#define TPC_RUNTIME_RUN_PIPELINERUN_H

#include "runtime/exec/Executor.h"
#include "runtime/run/Run.h"

#include <map>
#include <tuple>
#include <vector>

namespace tpc {

class PipelineRunner {
public:
  /// Checks the program's pipeline against its functions and this job.
  explicit PipelineRunner(Executor &ex);

  int stages() const { return stages_; }
  int micro_batches() const { return micro_batches_; }
  int B() const { return B_; }
  int T() const { return T_; }
  /// Whether the forward takes a loss scale (fp16 programs).
  bool scales_loss() const { return scales_loss_; }
  /// This stage's apply_step.
  const program::Function &apply() const { return *apply_; }
  /// The last chunk's eval function, which returns the loss and logits.
  const program::Function &last_eval() const { return *chunks_.back().e; }

  /// One training step over micro-batches `batches` (the schedule's
  /// count); dropout's step of micro-batch m is first_micro + m.
  /// `loss_scale`: the fp16 seed of the loss gradient. The last stage adds
  /// the loss sum and count to `totals`.
  /// With a sentence-order head, the last stage also adds its loss sum
  /// and correct rows to `sentence_order` (add_sentence_order).
  void train_step(const std::vector<Batch> &batches, uint64_t first_micro,
                  uint64_t seed, float loss_scale, double totals[2],
                  double sentence_order[2] = nullptr);
  /// One micro-batch through every chunk's eval function, in chunk order;
  /// the last stage adds the loss sum and count to `totals` and leaves the
  /// logits in last_eval()'s output.
  void eval(const Batch &batch, double totals[2]);
  /// Whether this rank runs the last chunk (holds the loss and logits).
  bool holds_last() const;

private:
  /// A function's recv or send instruction: the tensor that receives or
  /// is sent, the chunk at the other end, its place among that pair's
  /// messages, its direction.
  struct Message {
    int tensor = 0, peer = 0, index = 0;
    bool grad = false;
  };
  struct Messages {
    std::vector<Message> recvs, sends;
  };
  struct Chunk {
    const program::Function *f = nullptr, *b = nullptr, *w = nullptr,
                            *e = nullptr;
  };
  /// The stage of chunk c, as a rank of the pp group.
  int stage_of(int chunk) const { return chunk % stages_; }
  const Messages &messages(const program::Function &fn) const {
    return messages_.at(&fn);
  }
  void write(const program::Function &fn, int input, int slot, const void *host,
             size_t bytes);
  /// Writes `batch` (tokens, targets and the extras `fn` takes) into
  /// `fn`'s inputs in slot `slot`.
  void write_batch(const program::Function &fn, int slot, const Batch &batch);
  /// Sends `fn`'s messages from activation slot `slot`.
  void send_all(const program::Function &fn, int slot);
  /// Posts the receives of chunk `chunk`'s function `fn` into slot `slot`.
  void post_all(const program::Function &fn, int chunk, int slot,
                std::vector<RecvHandle> &into);
  /// Copies output `output` of `fn` in activation slot `slot` to `host`.
  void read(const program::Function &fn, int output, int slot, void *host,
            size_t bytes);
  void add_loss(const program::Function &fn, int slot, double totals[2]);
  /// The last chunk's sentence-order logits on `batch` into `totals`
  /// (add_sentence_order).
  void add_sentence_order(const program::Function &fn, int slot,
                          const Batch &batch, double totals[2]);

  Executor &ex_;
  int stages_ = 1, micro_batches_ = 1, B_ = 0, T_ = 0;
  bool scales_loss_ = false;
  int loss_scale_input_ = -1; // of each chunk's forward, after the batch
  std::vector<Chunk> chunks_;
  std::map<const program::Function *, Messages> messages_;
  const program::Function *apply_ = nullptr;
  const program::Pipeline::Stage *actions_ = nullptr;
};

} // namespace tpc

#endif // TPC_RUNTIME_RUN_PIPELINERUN_H
