//===- Op.cpp - The op registry of the executor ---------------------------===//

#include "runtime/exec/ops/Op.h"

#include <algorithm>

namespace tpc {

using program::Attribute;

std::string OpContext::where() const {
  return "instruction " + std::to_string(index) + " (" + inst.op() +
         ") of function '" + fn.name() + "'";
}

std::runtime_error OpContext::error(const std::string &what) const {
  return std::runtime_error(where() + ": " + what);
}

bool OpContext::declares(const std::string &name) const {
  const OpSchema *schema = find_op_schema(inst.op());
  return schema && schema->attr(name);
}

const Attribute *OpContext::find(const std::string &name) const {
  return find_attr(inst, name);
}

namespace {
const Attribute &need(const OpContext &c, const std::string &name) {
  const Attribute *a = c.find(name);
  if (!a)
    throw c.error("has no attribute '" + name +
                  "'; recompile the model with tpc-compile");
  return *a;
}
} // namespace

int64_t OpContext::integer(const std::string &name) const {
  const Attribute &a = need(*this, name);
  if (a.value_case() != Attribute::kI)
    throw error("attribute '" + name + "' is not an integer");
  return a.i();
}

std::optional<int64_t>
OpContext::optional_integer(const std::string &name) const {
  if (!find(name))
    return std::nullopt;
  return integer(name);
}

double OpContext::real(const std::string &name) const {
  const Attribute &a = need(*this, name);
  if (a.value_case() == Attribute::kI)
    return double(a.i());
  if (a.value_case() != Attribute::kF)
    throw error("attribute '" + name + "' is not a number");
  return a.f();
}

std::string OpContext::string(const std::string &name) const {
  const Attribute &a = need(*this, name);
  if (a.value_case() != Attribute::kS)
    throw error("attribute '" + name + "' is not a string");
  return a.s();
}

bool OpContext::flag(const std::string &name) const {
  const Attribute *a = find(name);
  if (!a)
    return false;
  if (a->value_case() != Attribute::kFlag)
    throw error("attribute '" + name + "' is not a flag");
  return a->flag();
}

const program::Layout &OpContext::layout(const std::string &name) const {
  const Attribute &a = need(*this, name);
  if (a.value_case() != Attribute::kLayout)
    throw error("attribute '" + name + "' is not a layout");
  return a.layout();
}

Group OpContext::group() const {
  // The loader accepted only the schema's keywords.
  std::string group = string("group");
  if (group == enums::group::kTp)
    return Group::TP;
  if (group == enums::group::kPp)
    return Group::PP;
  if (group == enums::group::kEmbedding)
    return Group::Embedding;
  return Group::DP;
}

int OpContext::count(const std::string &name) const {
  return checked_int(integer(name), name.c_str());
}

std::vector<int64_t> OpContext::shape(int id) const {
  const program::Tensor &t = s.program.tensors(id);
  return {t.shape().begin(), t.shape().end()};
}

uint64_t OpContext::elements(int id) const {
  return uint64_t(num_elements(s.program.tensors(id).shape()));
}

uint64_t OpContext::bytes(int id) const {
  return uint64_t(tensor_bytes(s.program.tensors(id)));
}

ElementType OpContext::dtype(int id) const {
  return element_type_of(s.program.tensors(id).dtype());
}

const Kernels &OpContext::kernels() const {
  ElementType storage = ElementType::F32;
  bool found = false;
  for (int i = 0; i < num_inputs() && !found; ++i)
    if (dtype(in(i)) != ElementType::I32) {
      storage = dtype(in(i));
      found = true;
    }
  for (int i = 0; i < num_outputs() && !found; ++i)
    if (dtype(out(i)) != ElementType::I32) {
      storage = dtype(out(i));
      found = true;
    }
  const Kernels *k = s.backend.kernels(storage);
  if (!k)
    throw error(std::string("the ") + s.backend.name() +
                " backend has no kernels for " + element_type_name(storage) +
                " tensors");
  return *k;
}

int OpContext::checked_int(int64_t v, const char *what) const {
  if (v < 0 || v > INT32_MAX)
    throw error(std::string(what) + " = " + std::to_string(v) +
                " is out of range");
  return int(v);
}

OpContext::Rows OpContext::rows(int id) const {
  std::vector<int64_t> sh = shape(id);
  if (sh.empty())
    throw error("expects a tensor of rank >= 1");
  int64_t n = 1;
  for (size_t d = 0; d + 1 < sh.size(); ++d)
    n *= sh[d];
  return {checked_int(n, "rows"), checked_int(sh.back(), "columns")};
}

void OpContext::expect_shape(const std::vector<int64_t> &got,
                             const std::vector<int64_t> &want,
                             const char *what) const {
  if (got != want)
    throw error(std::string(what) + " has shape " + shape_string(got) +
                ", expected " + shape_string(want));
}

void OpContext::expect_result(int result, const std::vector<int64_t> &want,
                              int operand) const {
  std::string what = "result " + std::to_string(result);
  expect_shape(shape(out(result)), want, what.c_str());
  if (dtype(out(result)) != dtype(in(operand)))
    throw error(what + " has element type " +
                element_type_name(dtype(out(result))) + ", expected " +
                element_type_name(dtype(in(operand))));
}

void OpContext::expect_result_like(int result, int operand) const {
  expect_result(result, shape(in(operand)), operand);
}

int OpContext::param(int operand) const {
  std::string name = string("name");
  auto it = s.param_index.find(name);
  if (it == s.param_index.end())
    throw error("names '" + name +
                "', which is not a parameter of the "
                "program");
  if (operand >= 0)
    expect_shape(shape(in(operand)), s.slices[it->second].local_shape,
                 "the gradient");
  return it->second;
}

int OpContext::position(int operand) const {
  int id = in(operand);
  if (dtype(id) != ElementType::I32 || elements(id) != 1)
    throw error("expects the position as an i32 scalar");
  if (std::find(fn.inputs().begin(), fn.inputs().end(), id) ==
      fn.inputs().end())
    throw error("expects the position as an input of the function");
  return id;
}

void *OpContext::kept_for_grad(const char *forward_op, const char *grad_op,
                               std::initializer_list<SameOperand> same,
                               size_t bytes) const {
  const bool is_grad = inst.op() == grad_op;
  // Whether instruction j is a forward op (as_grad false) or a gradient op
  // on the operands this op has in its own role.
  auto matches = [&](int j, bool as_grad) {
    const program::Instruction &other = fn.body(j);
    if (other.op() != (as_grad ? grad_op : forward_op))
      return false;
    for (const SameOperand &o : same) {
      int mine = is_grad ? o.grad : o.forward;
      int theirs = as_grad ? o.grad : o.forward;
      if (mine >= inst.inputs_size() || theirs >= other.inputs_size() ||
          inst.inputs(mine) != other.inputs(theirs))
        return false;
    }
    return true;
  };
  int forward = -1;
  if (is_grad) {
    for (int j = index - 1; j >= 0 && forward < 0; --j)
      if (matches(j, false))
        forward = j;
  } else {
    for (int j = index + 1; j < fn.body_size(); ++j) {
      if (matches(j, false))
        break; // a later forward op pairs instead
      if (matches(j, true)) {
        forward = index;
        break;
      }
    }
  }
  if (forward < 0)
    return nullptr;
  return s.kept(fn.name(), forward, bytes);
}

void *OpContext::first_writes_grad(int result) const {
  const int value = out(result);
  if (std::find(fn.outputs().begin(), fn.outputs().end(), value) !=
      fn.outputs().end())
    return nullptr;
  int sink = -1;
  for (int j = index + 1; j < fn.body_size(); ++j) {
    const program::Instruction &other = fn.body(j);
    for (int operand : other.inputs())
      if (operand == value) {
        if (sink >= 0 || other.op() != op::kAccumulateGrad)
          return nullptr; // a second use, or one that reads it
        sink = j;
      }
  }
  if (sink < 0)
    return nullptr;
  const std::string &name = find_attr(fn.body(sink), "name")->s();
  auto param = s.param_index.find(name);
  if (param == s.param_index.end() || !s.grads)
    return nullptr;
  // Nothing before the sink may name the parameter: an earlier
  // accumulate_grad would make the sink add, a get_grad between the two
  // would read the new gradient early.
  for (int j = 0; j < sink; ++j) {
    const program::Instruction &other = fn.body(j);
    if (find_op_schema(other.op())->attr("name") &&
        find_attr(other, "name")->s() == name)
      return nullptr;
  }
  const int p = param->second;
  if (s.grad_types[p] != dtype(value) ||
      s.slices[p].local_elements() != elements(value))
    return nullptr;
  s.written_into_grad.insert({fn.name(), value});
  return s.grad(p);
}

void OpRegistry::add(const std::string &op, PrepareFn prepare) {
  if (!prepare_.emplace(op, prepare).second)
    throw std::logic_error("op '" + op + "' is registered twice");
}

PrepareFn OpRegistry::find(const std::string &op) const {
  auto it = prepare_.find(op);
  return it == prepare_.end() ? nullptr : it->second;
}

std::vector<std::string> OpRegistry::ops() const {
  std::vector<std::string> names;
  for (const auto &[name, fn] : prepare_)
    names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

const OpRegistry &op_registry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_embedding_ops(r);
    register_layernorm_ops(r);
    register_linear_ops(r);
    register_attention_ops(r);
    register_elementwise_ops(r);
    register_loss_ops(r);
    register_collective_ops(r);
    register_optimizer_ops(r);
    return r;
  }();
  return registry;
}

} // namespace tpc
