//===- Op.h - The op registry of the executor -------------------*- C++ -*-===//
//
// Each op family (runtime/exec/ops/<Family>.cpp) registers a prepare
// function per op, forward and grad alike. Executor::prepare calls it once
// per instruction with an OpContext: it checks the operands' shapes and
// dtypes, decodes the attributes into a typed struct, resolves device
// pointers and kernels, reserves scratch, and returns a thunk that captures
// all of it. Running an entry point calls its thunks in order: no string
// look-ups, no attribute parsing, no host round trips.
//
// Operand and result counts and the presence and kind of attributes are
// checked before prepare runs, from the schema generated from the ODS
// definitions (runtime/program/OpSchema.inc).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_EXEC_OPS_OP_H
#define TPC_RUNTIME_EXEC_OPS_OP_H

#include "runtime/exec/Executor.h"
#include "runtime/exec/State.h"
#include "runtime/program/ProgramFile.h"

#include <functional>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace tpc {

/// One prepared instruction.
using Thunk = std::function<void(const RunOptions &)>;

/// What running an entry point does, prepared once.
struct Plan {
  std::vector<Thunk> thunks;
  /// Each thunk's entry in the executor's op times (Executor::op_slot).
  std::vector<size_t> slots;
  /// Host-side checks and per-step device scalar writes before the first
  /// thunk (a decode position against its KV cache), and bookkeeping after
  /// the last one.
  std::vector<std::function<void()>> before, after;
  /// Whether `before` already writes the optimizer step to the device.
  bool writes_optimizer_step = false;
  /// Whether thunks start collectives that later ones wait for: the
  /// executor then lets them progress between thunks.
  bool starts_collectives = false;
};

/// One instruction as a prepare function sees it.
class OpContext {
public:
  OpContext(ExecState &s, Plan &plan, const program::Function &fn, int index)
      : s(s), plan(plan), fn(fn), index(index), inst(fn.body(index)) {}

  ExecState &s;
  Plan &plan;
  const program::Function &fn;
  const int index;
  const program::Instruction &inst;

  int in(int i) const { return inst.inputs(i); }
  int out(int i) const { return inst.outputs(i); }
  int num_inputs() const { return inst.inputs_size(); }
  int num_outputs() const { return inst.outputs_size(); }

  std::string where() const;
  std::runtime_error error(const std::string &what) const;

  //===--------------------------------------------------------------------===//
  // Attributes (their presence, kind and enum keywords were checked against
  // the schema when the program was loaded). Reading a name that the op's
  // schema does not declare throws std::logic_error: a misspelt or renamed
  // attribute never reads as absent.
  //===--------------------------------------------------------------------===//

  /// Whether the op's schema declares attribute `name` (for code shared by
  /// ops of which only some have it).
  bool declares(const std::string &name) const;
  const program::Attribute *find(const std::string &name) const;
  int64_t integer(const std::string &name) const;
  std::optional<int64_t> optional_integer(const std::string &name) const;
  double real(const std::string &name) const;
  std::string string(const std::string &name) const;
  /// Unit attributes: present means true.
  bool flag(const std::string &name) const;
  const program::Layout &layout(const std::string &name) const;
  Group group() const;
  /// An integer attribute that must fit an int and be >= 0.
  int count(const std::string &name) const;

  //===--------------------------------------------------------------------===//
  // Tensors
  //===--------------------------------------------------------------------===//

  std::vector<int64_t> shape(int id) const;
  uint64_t elements(int id) const;
  uint64_t bytes(int id) const;
  ElementType dtype(int id) const;
  void *ptr(int id) const { return s.ptrs[id]; }
  float *f32(int id) const { return static_cast<float *>(s.ptrs[id]); }
  int *i32(int id) const { return static_cast<int *>(s.ptrs[id]); }

  /// The kernel table of the op's storage type: that of its first floating
  /// operand or result. Throws when the backend has none.
  const Kernels &kernels() const;

  /// N rows of C: a tensor [..., C].
  struct Rows {
    int N, C;
  };
  Rows rows(int id) const;
  /// Result `result` must have operand `operand`'s shape and element type:
  /// a kernel writes as many elements as it reads, so a smaller result
  /// buffer in a damaged program would be written past its end.
  void expect_result_like(int result, int operand) const;
  /// Result `result` must have shape `want` and operand `operand`'s element
  /// type.
  void expect_result(int result, const std::vector<int64_t> &want,
                     int operand) const;
  void expect_shape(const std::vector<int64_t> &got,
                    const std::vector<int64_t> &want, const char *what) const;
  int checked_int(int64_t v, const char *what) const;
  /// The index of the parameter named by the `name` attribute; checks that
  /// operand `operand` (if >= 0) has the parameter's local shape.
  int param(int operand) const;
  /// Operand `operand`: a decode position, an i32 scalar input of the
  /// function (its value is known on the host from set_input, so checks of
  /// it read nothing back from the device). Returns the tensor id.
  int position(int operand) const;

  /// Operands that a forward op and its gradient op share: forward operand
  /// `forward` is gradient operand `grad`.
  struct SameOperand {
    int forward, grad;
  };
  /// A buffer of `bytes` that the forward op `forward_op` fills with values
  /// its gradient op `grad_op` reads (row statistics), or null when this op
  /// has no partner in its function. They pair when the gradient op comes
  /// later with the `same` operands and no other such forward op lies
  /// between them (a recomputed forward pairs, the original does not).
  /// Both ops call this while preparing and get the same buffer.
  void *kept_for_grad(const char *forward_op, const char *grad_op,
                      std::initializer_list<SameOperand> same,
                      size_t bytes) const;

  /// The gradient buffer that result `result` may be written into on a
  /// step's first micro-batch, in place of its own buffer and of the copy
  /// that accumulate_grad makes there: when the result's only use is the
  /// parameter's first accumulate_grad in the function, with the
  /// gradient's element type and size, and no instruction in between names
  /// the parameter. Null otherwise. That accumulate_grad then copies
  /// nothing (ExecState::written_into_grad); later micro-batches write the
  /// result's own buffer and accumulate it as before.
  void *first_writes_grad(int result) const;
};

using PrepareFn = Thunk (*)(OpContext &);

class OpRegistry {
public:
  void add(const std::string &op, PrepareFn prepare);
  /// Null when no family registered `op`.
  PrepareFn find(const std::string &op) const;
  std::vector<std::string> ops() const;

private:
  std::unordered_map<std::string, PrepareFn> prepare_;
};

/// Every family's ops.
const OpRegistry &op_registry();

// One per file under runtime/exec/ops/.
void register_embedding_ops(OpRegistry &r);
void register_layernorm_ops(OpRegistry &r);
void register_linear_ops(OpRegistry &r);
void register_attention_ops(OpRegistry &r);
void register_elementwise_ops(OpRegistry &r);
void register_loss_ops(OpRegistry &r);
void register_collective_ops(OpRegistry &r);
void register_optimizer_ops(OpRegistry &r);

/// A data-parallel gradient reduction of apply_step (bucket_all_reduce or
/// bucket_reduce_scatter), which train_step may start early, overlapped
/// with the backward: `start`, run where the bucket's gradients are final,
/// issues it in the last micro-batch of a step (RunOptions), and the op
/// itself then waits for it instead of reducing.
struct BucketReduction {
  std::vector<int> params;
  Thunk start;
};
bool is_bucket_reduction(const std::string &op);
/// `c` is the op's instruction in apply_step.
BucketReduction bucket_reduction_start(OpContext &c);

} // namespace tpc

#endif // TPC_RUNTIME_EXEC_OPS_OP_H
