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
#include <string>
#include <vector>

namespace tpc {

struct RunOptions {
  /// Dropout is active only in training; evaluation is deterministic.
  bool training = false;
  uint64_t seed = 0;
  uint64_t step = 0;
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
  /// Each rank reads its slices of the global tensors.
  void load_checkpoint(const std::string &path);
  /// Gathers the slices to world rank 0, which writes the global tensors
  /// atomically. A collective over the world.
  void save_checkpoint(const std::string &path);
  /// This rank's slice of a parameter, on the host.
  std::vector<float> read_parameter(const std::string &name);
  int64_t local_parameter_count() const;

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
};

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_EXECUTOR_H
