//===- State.h - What the prepared ops of one executor share ----*- C++ -*-===//
//
// Device pointers of the program's tensors, the parameters' slices, the
// gradient and optimizer state buffers, scratch, and state that lives
// across calls (KV caches). Thunks hold a pointer to it; it does not move.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_STATE_H
#define TPC_RUNTIME_EXEC_STATE_H

#include "runtime/backend/Backend.h"
#include "runtime/backend/Collectives.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/OptimizerState.h"
#include "runtime/exec/Parameters.h"
#include "runtime/program/program.pb.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

/// State of one op that starts over with each new sequence (a KV cache).
class SequenceState {
public:
  virtual ~SequenceState() = default;
  virtual void reset() = 0;
};

struct ExecState {
  ExecState(const program::Program &program, Backend &backend, Comm &comm);
  ~ExecState();
  ExecState(const ExecState &) = delete;
  ExecState &operator=(const ExecState &) = delete;

  const program::Program &program;
  Backend &backend;
  Device &device;
  Comm &comm;
  std::unique_ptr<Collectives> collectives;

  /// Device pointer of each tensor, by id.
  std::vector<void *> ptrs;
  /// Host copies of the i32 scalar inputs as set_input last wrote them, by
  /// tensor id: what the decode ops check positions against, so that no
  /// check reads the device.
  std::vector<int32_t> host_i32;

  std::vector<ParamSlice> slices; // by parameter index
  std::map<std::string, int> param_index;

  /// The fp32 values the optimizer updates and checkpoints hold, by
  /// parameter: its master copy when it is stored in 16 bits (the program
  /// tensor is then the working copy the ops read), else the parameter
  /// tensor itself.
  std::vector<float *> masters;
  bool has_master(int param) const {
    return masters[param] != ptrs[program.parameters(param).tensor()];
  }
  /// Rounds the master of `param` into its working copy, on the compute
  /// stream; nothing when the parameter is its own master.
  void refresh_working_copy(int param) const;
  /// Where each parameter starts in the optimizer's fp32 state buffers
  /// (elements; parameters in program order).
  std::vector<size_t> state_offsets;
  size_t param_elements = 0;

  /// All gradients, contiguous in parameter order (a data-parallel bucket of
  /// consecutive parameters of one gradient type is one span); null without
  /// train_step. Each is of its parameter's gradient type.
  void *grads = nullptr;
  std::vector<size_t> grad_byte_offsets;
  std::vector<ElementType> grad_types;
  size_t grad_bytes = 0;
  void *grad(int param) const {
    return static_cast<char *>(grads) + grad_byte_offsets[param];
  }

  OptimizerState optimizer;

  /// Scratch slot `slot` of at least `bytes`, reserved while preparing;
  /// thunks ask for the pointer when they run, since a later prepare may
  /// grow the slot.
  void reserve(int slot, size_t bytes);
  float *scratch(int slot) const {
    return static_cast<float *>(scratch_[slot].first);
  }
  /// n ones of `dtype` (bias_add's rank-one update), reserved while
  /// preparing; ones(dtype) when running.
  void reserve_ones(const Kernels &k, size_t n);
  const void *ones(ElementType dtype) const { return ones_[int(dtype)].first; }

  /// By (function, instruction index).
  std::map<std::pair<std::string, int>, std::unique_ptr<SequenceState>>
      sequences;

private:
  /// The constructor's work; it may throw on a malformed program.
  void build();
  /// Frees every device buffer allocated so far (the destructor's work,
  /// also run when build() throws, so a refused program leaks nothing).
  void release() noexcept;

  std::vector<std::pair<void *, size_t>> scratch_;
  std::array<std::pair<void *, size_t>, 4> ones_{};
  std::vector<void *> owned_;
  void *arena_ = nullptr;
  float *master_block_ = nullptr;
};

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_STATE_H
