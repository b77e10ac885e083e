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
#include <set>
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
  /// Whether this rank holds parameter i. Under stack-parallel decoding a
  /// rank holds the parameters of its stack's entry points alone (the other
  /// parameters have no buffer); otherwise it holds every parameter.
  std::vector<bool> held;
  /// The functions this rank can run: every function, or under
  /// stack-parallel decoding its stack's decode_stack_<s> and, on the last
  /// stack, decode_head.
  bool runs(const program::Function &fn) const;

  /// Pipelined programs: the activation arenas of each chunk this rank
  /// runs, one per micro-batch it has in flight (Program.pipeline.slots),
  /// which its forward, backward_input and backward_weight functions share;
  /// and the chunk whose arenas each tensor lies in (-1: the shared arena).
  std::map<int, std::vector<void *>> slot_arenas;
  /// Per chunk: the bytes of a slot; a tensor at an offset past them lies
  /// in the scratch that the stage's chunk functions share.
  std::map<int, int64_t> slot_size;
  void *scratch_arena = nullptr;
  std::vector<int> tensor_chunk;
  /// The first pipeline stage that holds each parameter, which writes it
  /// into checkpoints (0 without a pipeline).
  std::vector<int> owner_stage;
  /// Whether `fn` runs in its chunk's slot arenas.
  bool in_slots(const program::Function &fn) const;
  /// The address of tensor `id` in activation slot `slot` of its chunk (its
  /// one address for other tensors).
  void *slot_ptr(int id, int slot) const;
  /// Points the tensors of `fn`'s chunk at slot `slot`, for preparing a plan
  /// that runs there.
  void use_slot(const program::Function &fn, int slot);

  /// The distributed optimizer's partition (ZeRO stage 1), from the
  /// program's tpc.bucket_reduce_scatter ops: each bucket's elements (its
  /// parameters' slices in order) are cut into dp shards of `shard`
  /// elements and data-parallel rank r owns shard r. Without such ops there
  /// is no partition and a rank owns every element.
  struct Bucket {
    int first = 0, last = 0; // parameters, inclusive
    size_t elements = 0, shard = 0;
  };
  std::vector<Bucket> buckets;
  std::vector<int> bucket_of;         // by parameter; -1 without a partition
  std::vector<size_t> bucket_offsets; // of a parameter within its bucket
  bool partitioned() const { return !buckets.empty(); }
  /// The elements [begin, end) of parameter `param`'s local slice that
  /// data-parallel rank `dp_rank` owns.
  std::pair<size_t, size_t> owned(int param, int dp_rank) const;
  std::pair<size_t, size_t> owned(int param) const {
    return owned(param, comm.dp_rank());
  }

  /// The fp32 values the optimizer updates and checkpoints hold, by
  /// parameter, from the first element this rank owns: its master copy
  /// when it is stored in 16 bits (the program tensor is then the working
  /// copy the ops read; with a partition, the master holds the owned
  /// elements alone), else the parameter tensor itself.
  std::vector<float *> masters;
  bool has_master(int param) const {
    return program.parameters(param).master_dtype() !=
           program::DTYPE_UNSPECIFIED;
  }
  /// The owned part of the working copy of `param`, which an update of its
  /// master rounds into; no data when the parameter is its own master.
  WorkingCopy working_copy(int param) const;
  /// Rounds the owned part of the master of `param` into its working copy,
  /// on the compute stream; nothing when the parameter is its own master.
  void refresh_working_copy(int param) const;
  /// Where each parameter's owned part starts in the optimizer's fp32 state
  /// buffers (elements; parameters in program order).
  std::vector<size_t> state_offsets;
  /// Elements of the optimizer's state buffers: those this rank owns.
  size_t param_elements = 0;

  /// All gradients, contiguous in parameter order (a data-parallel bucket of
  /// consecutive parameters of one gradient type is one span, padded with
  /// zeros to dp * shard elements under a partition); null without
  /// train_step. Each is of its parameter's gradient type.
  void *grads = nullptr;
  std::vector<size_t> grad_byte_offsets;
  std::vector<ElementType> grad_types;
  size_t grad_bytes = 0;
  void *grad(int param) const {
    return static_cast<char *>(grads) + grad_byte_offsets[param];
  }

  OptimizerState optimizer;

  /// Bucket reductions that train_step started early, by the bucket op's
  /// (function, instruction): the op waits for them instead of reducing.
  std::map<std::pair<std::string, int>, bool> reductions_started;
  /// Seconds apply_step's bucket ops spent in data-parallel communication:
  /// reducing, waiting for started reductions and gathering the distributed
  /// optimizer's shards; what a step did not hide.
  double reduction_seconds = 0.0;
  /// Of those reductions, how many train_step had started.
  int64_t reductions_overlapped = 0;
  /// Where each partition bucket's reduce-scatter puts this rank's shard.
  std::vector<void *> shard_sums;

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

  /// A device buffer of `bytes` that the op at instruction `index` of
  /// function `fn` fills for a later op of that function to read (a loss's
  /// or a norm's row statistics for its gradient op). Both ops ask for it
  /// while preparing and get the same buffer (OpContext::kept_for_grad
  /// pairs them).
  void *kept(const std::string &fn, int index, size_t bytes);

  /// Values of function `fn` whose op writes them into their gradient
  /// buffer on a step's first micro-batch (OpContext::first_writes_grad).
  std::set<std::pair<std::string, int>> written_into_grad;

private:
  /// The constructor's work; it may throw on a malformed program.
  void build();
  /// Reads the partition from the tpc.bucket_reduce_scatter ops.
  void partition();
  /// Frees every device buffer allocated so far (the destructor's work,
  /// also run when build() throws, so a refused program leaks nothing).
  void release() noexcept;

  std::vector<std::pair<void *, size_t>> scratch_;
  std::map<std::pair<std::string, int>, std::pair<void *, size_t>> kept_;
  std::array<std::pair<void *, size_t>, 4> ones_{};
  std::vector<void *> owned_;
  void *arena_ = nullptr;
  float *master_block_ = nullptr;
};

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_STATE_H
