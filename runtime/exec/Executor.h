//===- Executor.h - Interpreter of tpc programs -----------------*- C++ -*-===//
//
// Holds one rank's parameters, inputs and activation arena on a Backend and
// runs a program function by interpreting its instructions in order. Each
// op is one entry of a dispatch table keyed by the op's name, so new entry
// points (train_step with its backward ops, apply_step with the optimizer)
// add entries, not control flow.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_EXECUTOR_H
#define TPC_RUNTIME_EXEC_EXECUTOR_H

#include "runtime/backend/Backend.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Parameters.h"
#include "runtime/program/program.pb.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tpc {

struct RunOptions {
  /// Dropout is active only in training; evaluation is deterministic.
  bool training = false;
  uint64_t seed = 0;
  /// The dropout masks' step: distinct for every micro-batch of a run.
  uint64_t step = 0;
};

/// Run-time values of the optimizer's hyperparameters. apply_step carries
/// the compiler's values as op attributes; a value set here replaces them.
struct OptimizerOverrides {
  /// "adamw" or "sgd": replaces the optimizer apply_step was compiled with.
  /// The update ops of both carry the parameter, its gradient, the learning
  /// rate and the step's gradient scale, so either runs the other's update;
  /// hyperparameters the compiled op lacks take the defaults of
  /// tpc-optimizer (AdamW 0.9, 0.95, 1e-8; SGD without momentum).
  std::optional<std::string> optimizer;
  std::optional<double> beta1, beta2, eps, weight_decay, momentum;
  /// Gradient clipping: > 0 clips at this norm, 0 disables clipping.
  std::optional<double> max_norm;
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
  Comm &comm() { return comm_; }

  //===--------------------------------------------------------------------===//
  // Parameters
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
  /// This rank's slice of a parameter, on the host.
  std::vector<float> read_parameter(const std::string &name);
  /// Replaces this rank's slice of a parameter.
  void write_parameter(const std::string &name, const std::vector<float> &v);
  int64_t local_parameter_count() const;

  //===--------------------------------------------------------------------===//
  // Training state: one gradient buffer per parameter, contiguous in
  // parameter order (a data-parallel bucket of consecutive parameters is one
  // span), AdamW moments and SGD momentum allocated on first use, and the
  // optimizer step counter t (1 for the first apply_step) for AdamW's bias
  // correction.
  //===--------------------------------------------------------------------===//

  void zero_gradients();
  /// This rank's slice of a parameter's gradient buffer, on the host.
  std::vector<float> read_gradient(const std::string &name);
  void set_optimizer_step(int64_t t) { optimizer_step_ = t; }
  int64_t optimizer_step() const { return optimizer_step_; }
  void set_optimizer_overrides(const OptimizerOverrides &o) { overrides_ = o; }
  /// "adamw", "sgd" or "" for the optimizer ops `fn` contains; throws when it
  /// mixes them.
  std::string optimizer_of(const program::Function &fn) const;
  /// The optimizer in effect: the override, else apply_step's ("" without).
  std::string optimizer() const;

  //===--------------------------------------------------------------------===//
  // Functions
  //===--------------------------------------------------------------------===//

  bool has_function(const std::string &name) const;
  /// Throws naming the function and the ones the program has.
  const program::Function &function(const std::string &name) const;
  /// Checks every instruction (known op, operand counts, attributes,
  /// dtypes) before anything runs, so that a bad program fails on every
  /// rank at once instead of inside a collective.
  void check(const program::Function &fn) const;

  const program::Tensor &tensor(int id) const { return program_.tensors(id); }
  void *device_ptr(int id) const { return ptrs_[id]; }
  uint64_t tensor_bytes(int id) const;

  void set_input(const program::Function &fn, int index, const void *host,
                 size_t bytes);
  void read_output(const program::Function &fn, int index, void *host,
                   size_t bytes);
  void run(const program::Function &fn, const RunOptions &options = {});

  /// Empties the KV caches of the decode ops (decode_step's
  /// decode_attention and decode_cross_attention), so that the next call
  /// starts a new sequence at position 0. Each op's cache is allocated on
  /// its first use.
  void reset_kv_caches();

  struct Call;
  using Handler = void (Executor::*)(const Call &);

  // Op handlers, the entries of the dispatch table; Call carries the
  // instruction and where it is.
  void op_embedding(const Call &c);
  void op_position_embedding(const Call &c);
  void op_layernorm(const Call &c);
  void op_linear(const Call &c);
  void op_bias_add(const Call &c);
  void op_gelu(const Call &c);
  void op_self_attention(const Call &c);
  void op_cross_attention(const Call &c);
  void op_decode_attention(const Call &c);
  void op_decode_cross_attention(const Call &c);
  void op_dropout(const Call &c);
  void op_add(const Call &c);
  void op_scale(const Call &c);
  void op_weighted_sum(const Call &c);
  void op_cross_entropy(const Call &c);
  void op_vocab_parallel_cross_entropy(const Call &c);
  void op_f(const Call &c);
  void op_g(const Call &c);
  void op_all_reduce(const Call &c);
  void op_all_gather(const Call &c);
  // Backward ops of train_step.
  void op_fill(const Call &c);
  void op_accumulate_grad(const Call &c);
  void op_embedding_grad(const Call &c);
  void op_position_embedding_grad(const Call &c);
  void op_layernorm_grad(const Call &c);
  void op_linear_grad(const Call &c);
  void op_bias_add_grad(const Call &c);
  void op_gelu_grad(const Call &c);
  void op_self_attention_grad(const Call &c);
  void op_cross_attention_grad(const Call &c);
  void op_weighted_sum_grad(const Call &c);
  void op_cross_entropy_grad(const Call &c);
  void op_vocab_parallel_cross_entropy_grad(const Call &c);
  // Optimizer ops of apply_step.
  void op_get_grad(const Call &c);
  void op_bucket_all_reduce(const Call &c);
  void op_sum_squares(const Call &c);
  void op_grad_norm(const Call &c);
  void op_adamw_update(const Call &c);
  void op_sgd_update(const Call &c);
  /// The update of one parameter by the optimizer in effect: the compiled
  /// op's (`compiled`) unless the overrides name the other.
  void optimizer_update(const Call &c, const std::string &compiled);

private:
  float *f32(int id) const { return static_cast<float *>(ptrs_[id]); }
  int *i32(int id) const { return static_cast<int *>(ptrs_[id]); }
  std::vector<int64_t> shape(int id) const;
  uint64_t elements(int id) const;
  /// Device scratch for an op's temporaries; slot k keeps its buffer
  /// between ops and grows when needed.
  float *scratch(int slot, size_t floats);
  const float *ones(size_t n);
  void copy(int dst, int src);
  void write_loss(const Call &c, const float *totals);
  float read_scalar(int id);
  void write_scalar(int id, float value);
  /// The index of the parameter named by the op's `name` attribute; checks
  /// that operand `operand` (if >= 0) has the parameter's local shape.
  int param_of(const Call &c, int operand) const;
  float *grad(int param) const { return grads_ + grad_offsets_[param]; }
  /// An optimizer state buffer (zero at first) parallel to the gradients.
  float *state(float *&buffer);
  double weight_decay(const Call &c, int param) const;
  /// The dropout index map of an activation of this rank: its data-parallel
  /// rank's sequences and, for a per_rank stream, its tensor-parallel slice.
  GlobalIndexMap dropout_map(const Call &c, int tensor, bool per_rank);
  /// The optimizer state buffers of apply_step's optimizer, by the name
  /// they carry in checkpoints ("m", "v", "momentum"); with `allocate`,
  /// AdamW's are allocated (zero) when still absent.
  std::vector<std::pair<std::string, float **>>
  optimizer_buffers(bool allocate);
  /// The position a decode op is called for (its i32 operand `operand`),
  /// checked against `capacity` (0: no limit) and against the positions
  /// the op's cache already holds (`filled`).
  int decode_position(const Call &c, int operand, int capacity, int filled);

  /// The keys and values one decode op has cached: (B, capacity, C) each.
  struct KvCache {
    float *k = nullptr, *v = nullptr;
    size_t floats = 0;
    int filled = 0; // positions [0, filled) hold keys and values
  };
  /// The cache of the op `c`, allocated (zero) on first use.
  KvCache &kv_cache(const Call &c, size_t floats);

  program::Program program_;
  Backend &backend_;
  Comm &comm_;
  std::vector<void *> ptrs_;
  std::vector<void *> owned_;
  void *arena_ = nullptr;
  std::vector<ParamSlice> slices_; // by parameter index
  std::vector<std::pair<float *, size_t>> scratch_;
  float *ones_ = nullptr;
  size_t ones_size_ = 0;
  RunOptions options_;
  std::map<std::string, int> param_index_;
  float *grads_ = nullptr; // all gradients, contiguous
  std::vector<size_t> grad_offsets_;
  size_t grad_elements_ = 0;
  float *adam_m_ = nullptr, *adam_v_ = nullptr, *momentum_ = nullptr;
  int64_t optimizer_step_ = 1;
  OptimizerOverrides overrides_;
  /// By (function, instruction index) of the decode op.
  std::map<std::pair<std::string, int>, KvCache> kv_caches_;
};

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_EXECUTOR_H
