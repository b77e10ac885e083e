//===- Executor.h - Runs the entry points of a tpc program ------*- C++ -*-===//
//
// Holds one rank's parameters, inputs and activation arena on a Backend.
// prepare() turns an entry point into a Plan once: each instruction's op
// family (runtime/exec/ops/) checks it, decodes its attributes and returns
// a thunk; run() calls the thunks in order. Checkpoints with optimizer state
// are in Checkpoint.cpp, the optimizer's state and overrides in
// OptimizerState.h, the KV caches in the attention family.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_EXECUTOR_H
#define TPC_RUNTIME_EXEC_EXECUTOR_H

#include "runtime/backend/Backend.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/OptimizerState.h"
#include "runtime/exec/Parameters.h"
#include "runtime/program/program.pb.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

class Collectives;
struct ExecState;
struct Plan;

/// The storage type of a program tensor.
ElementType element_type_of(program::DType d);

struct RunOptions {
  /// Dropout is active only in training; evaluation is deterministic.
  bool training = false;
  uint64_t seed = 0;
  /// The dropout masks' step: distinct for every micro-batch of a run.
  uint64_t step = 0;
  /// The first micro-batch of a training step: train_step's first
  /// accumulate_grad of each parameter writes the gradient instead of
  /// adding to it, so the buffers need no zeroing between steps.
  bool first_micro_batch = false;
  /// The last micro-batch of a training step: with overlapped gradient
  /// reduction, train_step starts each bucket's reduction over dp as soon
  /// as its gradients are final, and apply_step waits for them.
  bool last_micro_batch = false;
};

/// What a checkpoint held besides the weights.
struct CheckpointContents {
  std::map<std::string, std::string> metadata;
  bool optimizer_state = false;
};

class Executor {
public:
  /// Allocates parameters, inputs and the arena. Throws std::runtime_error
  /// when the program does not fit this job (tp, dp, dtypes).
  Executor(program::Program program, Backend &backend, Comm &comm);
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  const program::Program &program() const { return program_; }
  Backend &backend() { return backend_; }
  /// The collectives and messages on this rank's device buffers.
  Collectives &collectives();
  Comm &comm() { return comm_; }
  const Comm &comm() const { return comm_; }

  //===--------------------------------------------------------------------===//
  // Parameters and checkpoints (Checkpoint.cpp)
  //===--------------------------------------------------------------------===//

  void init_parameters(uint64_t seed);
  /// Each rank reads its slices of the global tensors. With
  /// `optimizer_state`, a training checkpoint (one whose metadata names an
  /// optimizer) also restores the optimizer state of the program's
  /// optimizer (AdamW m and v, SGD momentum: global tensors
  /// `optimizer.<m|v|momentum>.<name>`) and the optimizer step; it throws
  /// when the checkpoint's optimizer is another. Returns the metadata and
  /// whether optimizer state was restored.
  CheckpointContents load_checkpoint(const std::string &path,
                                     bool optimizer_state = false);
  /// Gathers the slices to world rank 0, which writes the global tensors
  /// atomically. With `optimizer_state`, also the optimizer state of
  /// apply_step's optimizer and the optimizer step; `metadata` is added to
  /// the file's. A collective over the world.
  void save_checkpoint(const std::string &path,
                       const std::map<std::string, std::string> &metadata = {},
                       bool optimizer_state = false);
  /// This rank's slice of a parameter, on the host: its fp32 master under
  /// mixed precision. When the distributed optimizer shards that master, a
  /// collective over the data-parallel group.
  std::vector<float> read_parameter(const std::string &name);
  /// Replaces this rank's slice of a parameter (the master, and the working
  /// copy rounded from it).
  void write_parameter(const std::string &name, const std::vector<float> &v);
  int64_t local_parameter_count() const;

  //===--------------------------------------------------------------------===//
  // Training state: one gradient buffer per parameter, contiguous in
  // parameter order, the optimizer's state and step (OptimizerState.h).
  //===--------------------------------------------------------------------===//

  void zero_gradients();
  /// This rank's slice of a parameter's gradient buffer, on the host, widened
  /// to fp32.
  std::vector<float> read_gradient(const std::string &name);
  /// Makes one gradient element +inf, as an fp16 overflow would: the first
  /// of the first tensor-parallel split parameter (whose squares every rank
  /// of the group sums), or of the first parameter when none is split. For
  /// the tests of loss scaling (TPC_FAULTS).
  void inject_gradient_overflow();
  /// Overlapped gradient reduction (Megatron's --overlap-grad-reduce):
  /// train_step, in the last micro-batch of a step, starts each of
  /// apply_step's bucket reductions over dp right after the instruction
  /// that finishes the bucket's gradients, and apply_step waits for them.
  /// Takes effect from the next run.
  void set_overlap_grad_reduce(bool on);
  /// Seconds apply_step spent in data-parallel communication since the last
  /// call (bucket reductions, waiting for the started ones, the distributed
  /// optimizer's all-gathers): what the step did not hide.
  double take_reduction_seconds();
  /// How many of those reductions train_step had started early.
  int64_t take_reductions_overlapped();
  void set_optimizer_step(int64_t t);
  int64_t optimizer_step() const;
  /// Takes effect from the next run: prepared entry points are prepared
  /// again.
  void set_optimizer_overrides(const OptimizerOverrides &o);
  /// The optimizer the program was compiled with (Program.model): "adamw",
  /// "sgd", or "" without apply_step.
  std::string compiled_optimizer() const;
  /// The optimizer in effect: the override, else apply_step's ("" without).
  std::string optimizer() const;

  //===--------------------------------------------------------------------===//
  // Entry points
  //===--------------------------------------------------------------------===//

  bool has_function(const std::string &name) const;
  /// Throws naming the function and the ones the program has.
  const program::Function &function(const std::string &name) const;
  /// Prepares `fn` (see prepare()), so that a bad program fails on every
  /// rank at once instead of inside a collective.
  void check(const program::Function &fn);

  const program::Tensor &tensor(int id) const { return program_.tensors(id); }
  void *device_ptr(int id) const;
  uint64_t tensor_bytes(int id) const;

  void set_input(const program::Function &fn, int index, const void *host,
                 size_t bytes);
  void read_output(const program::Function &fn, int index, void *host,
                   size_t bytes);
  /// Runs `fn`'s plan, preparing it first if needed. A pipeline chunk's
  /// forward and backward functions run in activation slot `slot` of their
  /// chunk (Program.pipeline.slots): the micro-batch whose values they
  /// read and write there.
  void run(const program::Function &fn, const RunOptions &options = {},
           int slot = 0);
  /// Where tensor `id` lies in activation slot `slot` of its chunk (its one
  /// place for a tensor outside the slots): for writing a chunk's data and
  /// messages and reading its results.
  void *slot_ptr(int id, int slot) const;

  //===--------------------------------------------------------------------===//
  // Profiling (tpc-run train --profile)
  //===--------------------------------------------------------------------===//

  /// The time of one op in one entry point, summed over the runs since
  /// profiling was turned on.
  struct OpTime {
    std::string function, op;
    int64_t calls = 0;
    double seconds = 0.0;
  };
  /// While on, run() waits for the device after every instruction and adds
  /// the instruction's wall time to its op's OpTime: each op's own time, at
  /// the cost of any overlap between the host and the device. A collective
  /// started early (set_overlap_grad_reduce) is timed where it starts and
  /// where apply_step waits for it.
  void set_profiling(bool on) { profiling_ = on; }
  /// The ops timed so far that ran, slowest first.
  std::vector<OpTime> op_times() const;

  /// Empties the KV caches of the decode ops (decode_step's
  /// decode_attention and decode_cross_attention), so that the next call
  /// starts a new sequence at position 0.
  void reset_kv_caches();

private:
  /// Checks every instruction of `fn` against the op schema and its op
  /// family, and records the thunks that run it; once per function.
  Plan &prepare(const program::Function &fn, int slot = 0);
  /// With overlapped gradient reduction, puts apply_step's bucket
  /// reductions into train_step's plan `plan`.
  void start_reductions_early(const program::Function &train_step, Plan &plan);
  /// The index in op_times_ of op `op` of entry point `function`.
  size_t op_slot(const std::string &function, const std::string &op);
  /// Throws naming a parameter the program lacks.
  int parameter_index(const std::string &name) const;
  /// Writes local_elements floats to parameter `param`'s master (the part
  /// this rank owns) and its working copy (all of it, rounded).
  void store_parameter(int param, const float *host);
  /// Parameter `param`'s whole local slice of some fp32 state from the parts
  /// the data-parallel ranks own, `mine` being this rank's on the device: a
  /// collective over dp under the distributed optimizer's partition.
  std::vector<float> gather_owned(int param, const float *mine);

  program::Program program_;
  Backend &backend_;
  Comm &comm_;
  std::unique_ptr<ExecState> state_;
  std::map<std::pair<const program::Function *, int>, std::unique_ptr<Plan>>
      plans_;
  bool overlap_grad_reduce_ = false;
  bool profiling_ = false;
  std::vector<OpTime> op_times_;
  std::map<std::pair<std::string, std::string>, size_t> op_slots_;
};

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_EXECUTOR_H
