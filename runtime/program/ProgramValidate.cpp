//===- ProgramValidate.cpp - Structural checks of a program -----*- C++ -*-===//

#include "runtime/program/ProgramValidate.h"
#include "runtime/program/Abi.h"
#include "runtime/program/ProgramTypes.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <sstream>
#include <vector>

namespace tpc {

namespace {
/// The arena checks of one function: every activation it writes is written
/// once, lies inside the arena at an offset aligned for its dtype, is read
/// only after it is written, and shares no byte with another activation
/// live at the same time (live from the instruction that writes it to the
/// last one that reads it, or to the end when the function returns it,
/// exactly as tpc-plan-memory planned it).
std::string check_arena(const program::Program &prog,
                        const program::Function &f,
                        std::vector<char> &written) {
  std::ostringstream msg;
  const int64_t end = f.body_size();
  std::map<int32_t, int64_t> last_use; // activation id -> position
  std::vector<char> is_input(prog.tensors_size(), 0);
  for (int32_t id : f.inputs())
    is_input[id] = 1;
  for (int64_t k = 0; k < end; ++k)
    for (int32_t id : f.body(k).inputs())
      last_use[id] = k;
  for (int32_t id : f.outputs())
    last_use[id] = end;
  // Live activations by offset: offset -> (end byte, id, last use).
  struct Live {
    int64_t end;
    int32_t id;
    int64_t last_use;
  };
  std::map<int64_t, Live> live;
  // (last use, offset) of each live entry, soonest first: a step retires
  // the dead without walking everything live.
  std::priority_queue<std::pair<int64_t, int64_t>,
                      std::vector<std::pair<int64_t, int64_t>>, std::greater<>>
      expiring;
  std::vector<char> defined(prog.tensors_size(), 0);
  // A pipeline chunk's inputs lie in its arena, written before it runs.
  for (int32_t id : f.inputs())
    defined[id] = 1;
  for (int64_t k = 0; k < end; ++k) {
    const program::Instruction &inst = f.body(k);
    for (int32_t id : inst.inputs()) {
      const program::Tensor &t = prog.tensors(id);
      if ((t.storage() == program::Tensor::ACTIVATION && !defined[id]) ||
          (t.storage() == program::Tensor::GRADIENT && !defined[id]) ||
          (t.storage() == program::Tensor::INPUT && !is_input[id])) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " reads tensor " << id << " (" << t.name()
            << ") before anything in " << f.name() << " defines it";
        return msg.str();
      }
    }
    // Inputs read for the last time by an earlier instruction are dead.
    while (!expiring.empty() && expiring.top().first < k) {
      auto [when, offset] = expiring.top();
      expiring.pop();
      auto it = live.find(offset);
      // The entry may have gone already (an in-place result took its bytes).
      if (it != live.end() && it->second.last_use == when)
        live.erase(it);
    }
    for (int32_t id : inst.outputs()) {
      const program::Tensor &t = prog.tensors(id);
      // A gradient tensor names a runtime-owned buffer outside the arena:
      // get_grad's result (which older programs placed in the arena).
      bool gradient = t.storage() == program::Tensor::GRADIENT;
      if (gradient && inst.op() != op::kGetGrad) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " writes tensor " << id << " (" << t.name()
            << "), a gradient buffer, which only get_grad names";
        return msg.str();
      }
      if (!gradient && t.storage() != program::Tensor::ACTIVATION) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " writes tensor " << id << " (" << t.name()
            << "), which is not an activation";
        return msg.str();
      }
      if (written[id]) {
        msg << "tensor " << id << " (" << t.name()
            << ") is written by more than one instruction";
        return msg.str();
      }
      written[id] = defined[id] = 1;
      if (gradient)
        continue;
      int64_t bytes = tensor_bytes(t), stop = 0;
      if (t.offset() < 0 || __builtin_add_overflow(t.offset(), bytes, &stop) ||
          stop > f.arena_bytes()) {
        msg << "tensor " << id << " (" << t.name() << ", " << bytes
            << " bytes at offset " << t.offset()
            << ") lies outside the arena of " << f.name() << " ("
            << f.arena_bytes() << " bytes)";
        return msg.str();
      }
      if (t.offset() % dtype_bytes(t.dtype()) != 0) {
        msg << "tensor " << id << " (" << t.name() << ") at offset "
            << t.offset() << " is not aligned to its " << dtype_bytes(t.dtype())
            << "-byte elements";
        return msg.str();
      }
      if (bytes == 0)
        continue;
      // The result of an in-place op may lie on its operand, read for the
      // last time here.
      if (abi::reuses_operand_bytes(inst.op()) && inst.inputs_size() == 1) {
        auto operand = live.find(t.offset());
        if (operand != live.end() && operand->second.id == inst.inputs(0) &&
            operand->second.end == stop && operand->second.last_use == k)
          live.erase(operand);
      }
      auto next = live.lower_bound(t.offset());
      const Live *clash = nullptr;
      if (next != live.end() && next->first < stop)
        clash = &next->second;
      if (next != live.begin() && std::prev(next)->second.end > t.offset())
        clash = &std::prev(next)->second;
      if (clash) {
        msg << "tensor " << id << " (" << t.name() << ") overlaps tensor "
            << clash->id << " (" << prog.tensors(clash->id).name()
            << ") in the arena of " << f.name() << " while both are live";
        return msg.str();
      }
      auto use = last_use.find(id);
      int64_t until = use == last_use.end() ? k : use->second;
      live[t.offset()] = Live{stop, id, until};
      expiring.emplace(until, t.offset());
    }
  }
  for (int32_t id : f.outputs()) {
    const program::Tensor &t = prog.tensors(id);
    if ((t.storage() == program::Tensor::ACTIVATION && !defined[id]) ||
        (t.storage() == program::Tensor::GRADIENT && !defined[id]) ||
        (t.storage() == program::Tensor::INPUT && !is_input[id])) {
      msg << "function " << f.name() << " returns tensor " << id << " ("
          << t.name() << "), which nothing in it defines";
      return msg.str();
    }
  }
  return "";
}

/// The values the dialect's verifiers allow an attribute of this name, on
/// whichever op carries it. Every bound is finite: an infinite or NaN value
/// is out of range whatever the bounds.
struct AttrRange {
  const char *name;
  double low;
  bool low_open;
  double high; // infinity: no upper bound
  bool high_open;
  const char *usual; // what models use, for the message
};

constexpr double kNoBound = std::numeric_limits<double>::infinity();

const AttrRange kAttrRanges[] = {
    {"beta1", 0.0, false, 1.0, true, "GPT-2 training uses 0.9"},
    {"beta2", 0.0, false, 1.0, true, "GPT-2 training uses 0.95"},
    {"momentum", 0.0, false, 1.0, true, "0 is plain SGD"},
    {"weight_decay", 0.0, false, 1.0, false, "GPT-2 training uses 0.1"},
    {"eps", 0.0, true, kNoBound, true, "1e-8 is usual"},
    {"epsilon", 0.0, true, kNoBound, true, "layer norms use 1e-5"},
    {"max_norm", 0.0, true, kNoBound, true, "GPT-2 training clips at 1"},
    {"dropout", 0.0, false, 1.0, true, "0 disables it"},
    {"p", 0.0, false, 1.0, true, "0 disables it"},
    {"rope_theta", 0.0, false, kNoBound, true,
     "Llama uses 1e4 (Llama 3: 5e5), 0 disables it"},
    {"rope_dims", 0.0, false, kNoBound, true, "0 rotates whole heads"},
    {"heads", 1.0, false, kNoBound, true, "GPT-2 124M has 12"},
    {"kv_heads", 1.0, false, kNoBound, true, "Llama 3 8B has 8"},
    {"capacity", 1.0, false, kNoBound, true, "the model's context length"},
    {"window", 1.0, false, kNoBound, true, "omitted, every position"},
    {"factor", -kNoBound, true, kNoBound, true, "a finite number"},
};

std::string range_text(const AttrRange &r) {
  std::ostringstream out;
  if (r.low == -kNoBound)
    out << "a finite number";
  else if (r.high == kNoBound)
    out << "a finite number " << (r.low_open ? "> " : ">= ") << r.low;
  else
    out << "in " << (r.low_open ? "(" : "[") << r.low << ", " << r.high
        << (r.high_open ? ")" : "]");
  return out.str();
}

/// An attribute of `inst` outside the range the dialect allows (see
/// kAttrRanges), or a rope_dims that is odd or lacks a theta. Empty when
/// none is; the text continues "instruction k (op) of f ".
std::string attribute_range_problem(const program::Instruction &inst) {
  const OpSchema *schema = find_op_schema(inst.op());
  std::ostringstream msg;
  for (const AttrRange &r : kAttrRanges) {
    if (!schema->attr(r.name))
      continue;
    const program::Attribute *a = find_attr(inst, r.name);
    if (!a)
      continue;
    double v =
        a->value_case() == program::Attribute::kF ? a->f() : double(a->i());
    bool fits = std::isfinite(v) && (r.low_open ? v > r.low : v >= r.low) &&
                (r.high_open ? v < r.high : v <= r.high);
    if (!fits) {
      msg << "has " << r.name << " " << v << ", which must be " << range_text(r)
          << " (" << r.usual << ")";
      return msg.str();
    }
  }
  if (schema->attr("rope_dims")) {
    const program::Attribute *dims = find_attr(inst, "rope_dims");
    const program::Attribute *theta = find_attr(inst, "rope_theta");
    int64_t d = dims ? dims->i() : 0;
    double t = !theta ? 0.0
               : theta->value_case() == program::Attribute::kF
                   ? theta->f()
                   : double(theta->i());
    if (d % 2 != 0 || (d > 0 && t == 0.0)) {
      msg << "has rope_dims " << d << " with rope theta " << t
          << "; rope_dims is even and needs a theta > 0";
      return msg.str();
    }
  }
  return "";
}

/// Every parameter name an instruction carries names a parameter, and
/// apply_step updates each parameter that a function accumulates a
/// gradient for exactly once, with the program's optimizer: otherwise a
/// parameter would silently stop training, or train twice per step.
std::string check_updates(const program::Program &prog) {
  std::set<std::string> parameters, with_gradient;
  for (const program::Parameter &p : prog.parameters())
    parameters.insert(p.name());
  const program::Function *apply = nullptr;
  std::ostringstream msg;
  for (const program::Function &f : prog.functions()) {
    if (f.name() == abi::kApplyStep)
      apply = &f;
    for (int k = 0; k < f.body_size(); ++k) {
      const program::Instruction &inst = f.body(k);
      if (inst.op() != op::kAccumulateGrad && inst.op() != op::kGetGrad &&
          inst.op() != op::kAdamwUpdate && inst.op() != op::kSgdUpdate)
        continue;
      const std::string &name = find_attr(inst, "name")->s();
      if (!parameters.count(name)) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " names '" << name << "', which is no parameter of the program";
        return msg.str();
      }
      if (inst.op() == op::kAccumulateGrad)
        with_gradient.insert(name);
    }
  }
  if (!apply)
    return "";
  const program::Model::Optimizer optimizer = prog.model().optimizer();
  std::map<std::string, int> updates;
  for (int k = 0; k < apply->body_size(); ++k) {
    const program::Instruction &inst = apply->body(k);
    bool adamw = inst.op() == op::kAdamwUpdate;
    if (!adamw && inst.op() != op::kSgdUpdate)
      continue;
    if (optimizer != (adamw ? program::Model::ADAMW : program::Model::SGD)) {
      msg << "instruction " << k << " (" << inst.op() << ") of "
          << apply->name() << " is not an update of the program's optimizer ("
          << program::Model::Optimizer_Name(optimizer) << ")";
      return msg.str();
    }
    ++updates[find_attr(inst, "name")->s()];
  }
  for (const std::string &name : with_gradient) {
    int n = updates[name];
    if (n == 1)
      continue;
    msg << "parameter '" << name << "' has a gradient but " << apply->name()
        << (n == 0 ? " never updates it"
                   : " updates it " + std::to_string(n) + " times");
    return msg.str();
  }
  return "";
}
} // namespace

std::string validate_program(const program::Program &prog) {
  std::ostringstream msg;
  if (prog.tp() < 1 || prog.dp() < 1) {
    msg << "tp = " << prog.tp() << " and dp = " << prog.dp()
        << " must both be >= 1";
    return msg.str();
  }
  if (prog.micro_batch() < 0 || prog.seq() < 0) {
    msg << "micro_batch = " << prog.micro_batch() << " and seq = " << prog.seq()
        << " must not be negative";
    return msg.str();
  }
  const program::Model &model = prog.model();
  if (model.vocab() < 0 || model.decode_capacity() < 0 ||
      model.ignore_index() < std::numeric_limits<int32_t>::min() ||
      model.ignore_index() > std::numeric_limits<int32_t>::max() ||
      !program::Model::Optimizer_IsValid(model.optimizer())) {
    msg << "the model's facts are out of range (vocabulary " << model.vocab()
        << ", ignore index " << model.ignore_index() << ", decode capacity "
        << model.decode_capacity() << ", optimizer " << int(model.optimizer())
        << ")";
    return msg.str();
  }
  const int num_tensors = prog.tensors_size();
  int64_t largest_arena = 0;
  for (const program::Function &f : prog.functions())
    largest_arena = std::max(largest_arena, f.arena_bytes());
  for (int i = 0; i < num_tensors; ++i) {
    const program::Tensor &t = prog.tensors(i);
    if (t.id() != i) {
      msg << "tensor " << i << " carries id " << t.id();
      return msg.str();
    }
    if (dtype_bytes(t.dtype()) == 0) {
      msg << "tensor " << i << " (" << t.name() << ") has no dtype";
      return msg.str();
    }
    if (!program::Tensor::Storage_IsValid(t.storage())) {
      msg << "tensor " << i << " (" << t.name() << ") has storage kind "
          << int(t.storage());
      return msg.str();
    }
    for (int64_t d : t.shape())
      if (d < 0) {
        msg << "tensor " << i << " (" << t.name()
            << ") has a negative dimension";
        return msg.str();
      }
    if (tensor_bytes(t) < 0) {
      msg << "tensor " << i << " (" << t.name()
          << ") has a size that does not fit in memory";
      return msg.str();
    }
    // Every activation gets an address in the shared arena, written or not,
    // so even one that no function writes must lie inside it.
    int64_t stop = 0;
    if (t.storage() == program::Tensor::ACTIVATION &&
        (t.offset() < 0 ||
         __builtin_add_overflow(t.offset(), tensor_bytes(t), &stop) ||
         stop > largest_arena)) {
      msg << "tensor " << i << " (" << t.name() << ", " << tensor_bytes(t)
          << " bytes at offset " << t.offset()
          << ") lies outside the arena of every function (the largest has "
          << largest_arena << " bytes)";
      return msg.str();
    }
  }
  auto in_range = [&](int32_t id) { return id >= 0 && id < num_tensors; };
  std::vector<char> is_parameter(num_tensors, 0);
  for (const program::Parameter &p : prog.parameters()) {
    if (!in_range(p.tensor()) ||
        prog.tensors(p.tensor()).storage() != program::Tensor::PARAMETER) {
      msg << "parameter " << p.name() << " does not name a parameter tensor";
      return msg.str();
    }
    if (is_parameter[p.tensor()]) {
      msg << "parameter " << p.name() << " shares tensor " << p.tensor()
          << " with another parameter";
      return msg.str();
    }
    is_parameter[p.tensor()] = 1;
    const program::Tensor &local = prog.tensors(p.tensor());
    if (p.global_shape_size() != local.shape_size()) {
      msg << "parameter " << p.name()
          << " has a global shape of another rank than its local shape";
      return msg.str();
    }
    for (int d = 0; d < p.global_shape_size(); ++d)
      if (p.global_shape(d) < local.shape(d)) {
        msg << "parameter " << p.name()
            << " has a global shape smaller than its local shape";
        return msg.str();
      }
    if (num_elements(p.global_shape()) < 0 || p.valid_extent() < 0) {
      msg << "parameter " << p.name() << " has a global shape or valid "
          << "extent out of range";
      return msg.str();
    }
    // A master copy is fp32 behind a 16-bit working copy; a gradient is of
    // the working copy's type or fp32.
    bool half = local.dtype() == program::BF16 || local.dtype() == program::F16;
    if (p.master_dtype() != program::DTYPE_UNSPECIFIED &&
        (p.master_dtype() != program::F32 || !half)) {
      msg << "parameter " << p.name() << ": its tensor is "
          << dtype_text(local.dtype()) << " and its master copy "
          << dtype_text(p.master_dtype())
          << "; only a bf16 or f16 tensor has a master copy, of f32";
      return msg.str();
    }
    if (half && p.master_dtype() == program::DTYPE_UNSPECIFIED) {
      msg << "parameter " << p.name() << " is a " << dtype_text(local.dtype())
          << " tensor without a master copy; a 16-bit parameter keeps an f32 "
             "master (tpc-compile --precision writes one)";
      return msg.str();
    }
    if (p.grad_dtype() != program::DTYPE_UNSPECIFIED &&
        p.grad_dtype() != program::F32 && p.grad_dtype() != local.dtype()) {
      msg << "parameter " << p.name() << ": its tensor is "
          << dtype_text(local.dtype()) << " and its gradient "
          << dtype_text(p.grad_dtype())
          << "; a gradient is of the tensor's type or f32";
      return msg.str();
    }
    const program::Init &init = p.init();
    if (!program::Init::Kind_IsValid(init.kind()) ||
        (init.kind() == program::Init::NORMAL &&
         !(init.std() > 0.0 && std::isfinite(init.std())))) {
      msg << "parameter " << p.name() << " has initializer kind "
          << int(init.kind()) << " with std " << init.std()
          << "; a normal initializer needs a finite std > 0 (GPT-2 uses "
             "0.02)";
      return msg.str();
    }
    if (local.dtype() == program::I32) {
      msg << "parameter " << p.name() << " is an i32 tensor; parameters are "
          << "floating point";
      return msg.str();
    }
  }
  std::vector<char> written(num_tensors, 0);
  for (const program::Function &f : prog.functions()) {
    if (f.arena_bytes() < 0) {
      msg << "function " << f.name() << " has a negative arena size";
      return msg.str();
    }
    // A pipeline chunk's inputs lie in its arena (ChunkFunction).
    const program::Tensor::Storage input_storage =
        f.has_chunk() ? program::Tensor::ACTIVATION : program::Tensor::INPUT;
    for (int32_t id : f.inputs())
      if (!in_range(id) || prog.tensors(id).storage() != input_storage) {
        msg << "function " << f.name()
            << " has an input out of range or not an input tensor";
        return msg.str();
      }
    for (int32_t id : f.outputs())
      if (!in_range(id)) {
        msg << "function " << f.name() << " has an output out of range";
        return msg.str();
      }
    for (int k = 0; k < f.body_size(); ++k) {
      const program::Instruction &inst = f.body(k);
      for (int32_t id : inst.inputs())
        if (!in_range(id)) {
          msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
              << " reads tensor " << id << " out of range";
          return msg.str();
        }
      for (int32_t id : inst.outputs())
        if (!in_range(id)) {
          msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
              << " writes tensor " << id << " out of range";
          return msg.str();
        }
      std::string problem = schema_problem(inst);
      if (!problem.empty()) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " " << problem;
        return msg.str();
      }
      problem = attribute_range_problem(inst);
      if (!problem.empty()) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " " << problem;
        return msg.str();
      }
      // Targets are int32: a wider ignore_index would wrap onto a token.
      const program::Attribute *ignore =
          find_op_schema(inst.op())->attr("ignore_index")
              ? find_attr(inst, "ignore_index")
              : nullptr;
      if (ignore && (ignore->i() < std::numeric_limits<int32_t>::min() ||
                     ignore->i() > std::numeric_limits<int32_t>::max())) {
        msg << "instruction " << k << " (" << inst.op() << ") of " << f.name()
            << " has ignore_index " << ignore->i()
            << ", outside the int32 range of the targets";
        return msg.str();
      }
    }
    if (f.has_logits_output() &&
        (f.logits_output() < 0 || f.logits_output() >= f.outputs_size())) {
      msg << "function " << f.name() << " names output " << f.logits_output()
          << " as its logits, but it has " << f.outputs_size() << " outputs";
      return msg.str();
    }
    std::string problem = check_arena(prog, f, written);
    if (!problem.empty())
      return problem;
  }
  return check_updates(prog);
}

} // namespace tpc
