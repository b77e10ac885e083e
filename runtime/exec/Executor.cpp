//===- Executor.cpp - Runs the entry points of a tpc program --------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/State.h"
#include "runtime/exec/ops/Op.h"
#include "runtime/program/Abi.h"
#include "runtime/program/OpSchema.h"
#include "runtime/program/ProgramFile.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace tpc {

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

Executor::Executor(program::Program program, Backend &backend, Comm &comm)
    : program_(std::move(program)), backend_(backend), comm_(comm) {
  int64_t pp = std::max<int64_t>(1, program_.pp());
  if (program_.tp() != comm_.tp_size() || program_.dp() != comm_.dp_size() ||
      pp != comm_.pp_size()) {
    std::ostringstream msg;
    msg << "the program was compiled for tp " << program_.tp() << " x dp "
        << program_.dp() << " x pp " << pp << " but the job's groups are tp "
        << comm_.tp_size() << " x dp " << comm_.dp_size() << " x pp "
        << comm_.pp_size();
    throw std::runtime_error(msg.str());
  }
  for (const program::Tensor &t : program_.tensors())
    if (t.dtype() != program::I32 &&
        !backend_.kernels(element_type_of(t.dtype())))
      throw std::runtime_error("tensor '" + t.name() + "' is stored as " +
                               dtype_text(t.dtype()) + ", for which the " +
                               backend_.name() +
                               " backend has no kernels; compile the model "
                               "with another --precision");
  state_ = std::make_unique<ExecState>(program_, backend_, comm_);
}

Executor::~Executor() = default;

Collectives &Executor::collectives() { return *state_->collectives; }

void *Executor::device_ptr(int id) const { return state_->ptrs[id]; }

uint64_t Executor::tensor_bytes(int id) const {
  return uint64_t(tpc::tensor_bytes(program_.tensors(id)));
}

int64_t Executor::local_parameter_count() const {
  int64_t n = 0;
  for (const ParamSlice &s : state_->slices)
    n += int64_t(s.local_elements());
  return n;
}

//===----------------------------------------------------------------------===//
// Parameters and gradients
//===----------------------------------------------------------------------===//

void Executor::store_parameter(int param, const float *host) {
  size_t n = state_->slices[param].local_elements();
  auto [begin, end] = state_->owned(param);
  int tensor = program_.parameters(param).tensor();
  if (!state_->has_master(param)) {
    backend_.copy_host_to_device(state_->ptrs[tensor], host, n * sizeof(float));
    return;
  }
  if (state_->masters[param]) {
    backend_.copy_host_to_device(state_->masters[param], host + begin,
                                 (end - begin) * sizeof(float));
    if (end - begin == n) {
      state_->refresh_working_copy(param);
      return;
    }
  }
  // A sharded master, or none (decoding alone): the working copy is whole
  // on every rank all the same.
  void *wide = backend_.alloc(std::max<size_t>(n, 1) * sizeof(float));
  backend_.copy_host_to_device(wide, host, n * sizeof(float));
  backend_.kernels(ElementType::F32)
      ->cast(state_->ptrs[tensor],
             element_type_of(program_.tensors(tensor).dtype()), wide, n);
  backend_.synchronize();
  backend_.free(wide);
}

std::vector<float> Executor::gather_owned(int param, const float *mine) {
  std::vector<float> whole(state_->slices[param].local_elements());
  auto [begin, end] = state_->owned(param);
  backend_.synchronize();
  // Whether the ranks gather must not depend on what this rank owns.
  if (!state_->partitioned()) {
    backend_.copy_device_to_host(whole.data(), mine,
                                 whole.size() * sizeof(float));
    return whole;
  }
  // Every rank's part, padded to the longest.
  int dp = comm_.dp_size();
  size_t longest = 0;
  for (int r = 0; r < dp; ++r) {
    auto [b, e] = state_->owned(param, r);
    longest = std::max(longest, e - b);
  }
  std::vector<float> part(longest), all(longest * size_t(dp));
  backend_.copy_device_to_host(part.data(), mine,
                               (end - begin) * sizeof(float));
  comm_.all_gather(part.data(), all.data(), longest, Group::DP);
  for (int r = 0; r < dp; ++r) {
    auto [b, e] = state_->owned(param, r);
    std::copy(all.begin() + ptrdiff_t(size_t(r) * longest),
              all.begin() + ptrdiff_t(size_t(r) * longest + (e - b)),
              whole.begin() + ptrdiff_t(b));
  }
  return whole;
}

int Executor::parameter_index(const std::string &name) const {
  auto it = state_->param_index.find(name);
  if (it == state_->param_index.end())
    throw std::runtime_error("the program has no parameter '" + name + "'");
  return it->second;
}

void Executor::init_parameters(uint64_t seed) {
  for (int i = 0; i < program_.parameters_size(); ++i) {
    if (!state_->held[size_t(i)])
      continue; // another stack's
    std::vector<float> host(state_->slices[i].local_elements());
    init_parameter(host.data(), program_.parameters(i), state_->slices[i],
                   seed);
    store_parameter(i, host.data());
  }
}

std::vector<float> Executor::read_parameter(const std::string &name) {
  int i = parameter_index(name);
  if (state_->has_master(i))
    return gather_owned(i, state_->masters[i]);
  // Its own master, whole on every rank.
  std::vector<float> host(state_->slices[i].local_elements());
  backend_.synchronize();
  backend_.copy_device_to_host(host.data(),
                               state_->ptrs[program_.parameters(i).tensor()],
                               host.size() * sizeof(float));
  return host;
}

void Executor::write_parameter(const std::string &name,
                               const std::vector<float> &v) {
  int i = parameter_index(name);
  const ParamSlice &slice = state_->slices[i];
  if (v.size() != slice.local_elements())
    throw std::runtime_error("parameter '" + name + "' holds " +
                             std::to_string(slice.local_elements()) +
                             " elements on this rank, not " +
                             std::to_string(v.size()));
  store_parameter(i, v.data());
}

void Executor::zero_gradients() {
  if (state_->grads)
    backend_.zero(state_->grads, state_->grad_bytes);
}

std::vector<float> Executor::read_gradient(const std::string &name) {
  int i = parameter_index(name);
  if (!state_->grads)
    throw std::runtime_error("the program has no gradients: it has no "
                             "train_step; compile it with tpc-compile");
  size_t n = state_->slices[i].local_elements();
  std::vector<float> host(n);
  ElementType type = state_->grad_types[i];
  const void *grad = state_->grad(i);
  void *wide = nullptr;
  if (type != ElementType::F32) {
    wide = backend_.alloc(std::max<size_t>(n, 1) * sizeof(float));
    backend_.kernels(type)->cast(wide, ElementType::F32, grad, n);
    grad = wide;
  }
  backend_.synchronize();
  backend_.copy_device_to_host(host.data(), grad, n * sizeof(float));
  if (wide)
    backend_.free(wide);
  return host;
}

void Executor::inject_gradient_overflow() {
  if (!state_->grads)
    throw std::runtime_error("the program has no gradients to overflow");
  // On a pipeline stage, of the parameters it holds.
  int param = -1;
  for (int i = 0; i < program_.parameters_size(); ++i)
    if (state_->held[size_t(i)] && param < 0)
      param = i;
  for (int i = 0; i < program_.parameters_size(); ++i)
    if (state_->held[size_t(i)] &&
        program_.parameters(i).layout().kind() == program::Layout::SPLIT) {
      param = i;
      break;
    }
  backend_.kernels(state_->grad_types[param])
      ->fill(state_->grad(param), std::numeric_limits<float>::infinity(), 1);
}

void Executor::set_overlap_grad_reduce(bool on) {
  if (on == overlap_grad_reduce_)
    return;
  overlap_grad_reduce_ = on;
  plans_.clear();
}

double Executor::take_reduction_seconds() {
  return std::exchange(state_->reduction_seconds, 0.0);
}

int64_t Executor::take_reductions_overlapped() {
  return std::exchange(state_->reductions_overlapped, 0);
}

void Executor::set_optimizer_step(int64_t t) { state_->optimizer.step = t; }

int64_t Executor::optimizer_step() const { return state_->optimizer.step; }

void Executor::set_optimizer_overrides(const OptimizerOverrides &o) {
  state_->optimizer.overrides = o;
  plans_.clear();
}

std::string Executor::optimizer() const {
  if (state_->optimizer.overrides.optimizer)
    return *state_->optimizer.overrides.optimizer;
  return compiled_optimizer();
}

std::string Executor::compiled_optimizer() const {
  switch (program_.model().optimizer()) {
  case program::Model::ADAMW:
    return abi::kAdamW;
  case program::Model::SGD:
    return abi::kSgd;
  default:
    return "";
  }
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool Executor::has_function(const std::string &name) const {
  for (const program::Function &fn : program_.functions())
    if (fn.name() == name)
      return true;
  return false;
}

const program::Function &Executor::function(const std::string &name) const {
  std::string names;
  for (const program::Function &fn : program_.functions()) {
    if (fn.name() == name)
      return fn;
    names += (names.empty() ? "" : ", ") + fn.name();
  }
  throw std::runtime_error("the program has no entry point '" + name +
                           "' (it has: " + (names.empty() ? "none" : names) +
                           "); compile the model with that function");
}

Plan &Executor::prepare(const program::Function &fn, int slot) {
  auto found = plans_.find({&fn, slot});
  if (found != plans_.end())
    return *found->second;
  if (program_.pp() > 1 && !state_->runs(fn))
    throw std::runtime_error("function '" + fn.name() +
                             "' belongs to another pipeline stage than this "
                             "rank's (" +
                             std::to_string(comm_.pp_rank()) + ")");
  if (!state_->runs(fn))
    throw std::runtime_error(
        "function '" + fn.name() +
        "' belongs to another stack: under "
        "stack-parallel decoding this rank (stack " +
        std::to_string(comm_.stack_rank()) +
        ") holds only its own stack's parameters and runs only its entry "
        "points");
  // A chunk's functions read and write the arena of the micro-batch's slot.
  state_->use_slot(fn, slot);
  auto plan = std::make_unique<Plan>();
  const OpRegistry &registry = op_registry();
  for (int k = 0; k < fn.body_size(); ++k) {
    // The loader checked the instruction against its op's schema.
    OpContext c(*state_, *plan, fn, k);
    PrepareFn prepare = registry.find(c.inst.op());
    if (!prepare)
      throw c.error("has no implementation in this tpc-run");
    plan->thunks.push_back(prepare(c));
    plan->slots.push_back(op_slot(fn.name(), c.inst.op()));
  }
  if (overlap_grad_reduce_ && fn.name() == abi::kTrainStep &&
      has_function(abi::kApplyStep))
    start_reductions_early(fn, *plan);
  return *plans_.emplace(std::make_pair(&fn, slot), std::move(plan))
              .first->second;
}

void Executor::start_reductions_early(const program::Function &train_step,
                                      Plan &plan) {
  // The instruction after which each parameter's gradient is final: its
  // last accumulation.
  std::vector<int> final_at(size_t(program_.parameters_size()), -1);
  for (int k = 0; k < train_step.body_size(); ++k) {
    const program::Instruction &inst = train_step.body(k);
    if (inst.op() == op::kAccumulateGrad)
      final_at[size_t(parameter_index(find_attr(inst, "name")->s()))] = k;
  }
  if (plan.thunks.empty())
    return;
  // In apply_step's order, which is the order every rank starts them in.
  const program::Function &apply = function(abi::kApplyStep);
  std::vector<std::vector<Thunk>> after(plan.thunks.size());
  std::vector<std::vector<size_t>> after_slots(plan.thunks.size());
  for (int k = 0; k < apply.body_size(); ++k) {
    if (!is_bucket_reduction(apply.body(k).op()))
      continue;
    OpContext c(*state_, plan, apply, k);
    BucketReduction r = bucket_reduction_start(c);
    int at = -1;
    for (int p : r.params)
      at = std::max(at, final_at[size_t(p)]);
    // A bucket no instruction writes is final from the start.
    after[size_t(std::max(at, 0))].push_back(std::move(r.start));
    after_slots[size_t(std::max(at, 0))].push_back(
        op_slot(train_step.name(), apply.body(k).op() + " (started early)"));
    plan.starts_collectives = true;
  }
  std::vector<Thunk> thunks;
  std::vector<size_t> slots;
  for (size_t k = 0; k < plan.thunks.size(); ++k) {
    thunks.push_back(std::move(plan.thunks[k]));
    slots.push_back(plan.slots[k]);
    for (Thunk &start : after[k])
      thunks.push_back(std::move(start));
    slots.insert(slots.end(), after_slots[k].begin(), after_slots[k].end());
  }
  plan.thunks = std::move(thunks);
  plan.slots = std::move(slots);
}

void Executor::check(const program::Function &fn) { prepare(fn); }

void Executor::set_input(const program::Function &fn, int index,
                         const void *host, size_t bytes) {
  if (index < 0 || index >= fn.inputs_size())
    throw std::runtime_error("function '" + fn.name() + "' has no input " +
                             std::to_string(index));
  int id = fn.inputs(index);
  if (bytes != tensor_bytes(id))
    throw std::runtime_error("input " + std::to_string(index) + " of '" +
                             fn.name() + "' holds " +
                             std::to_string(tensor_bytes(id)) + " bytes, not " +
                             std::to_string(bytes));
  if (program_.tensors(id).dtype() == program::I32 && bytes == sizeof(int32_t))
    std::memcpy(&state_->host_i32[id], host, sizeof(int32_t));
  backend_.copy_host_to_device(state_->ptrs[id], host, bytes);
}

void Executor::read_output(const program::Function &fn, int index, void *host,
                           size_t bytes) {
  if (index < 0 || index >= fn.outputs_size())
    throw std::runtime_error("function '" + fn.name() + "' has no output " +
                             std::to_string(index));
  int id = fn.outputs(index);
  if (bytes != tensor_bytes(id))
    throw std::runtime_error("output " + std::to_string(index) + " of '" +
                             fn.name() + "' holds " +
                             std::to_string(tensor_bytes(id)) + " bytes, not " +
                             std::to_string(bytes));
  backend_.synchronize();
  backend_.copy_device_to_host(host, state_->ptrs[id], bytes);
}

void *Executor::slot_ptr(int id, int slot) const {
  return state_->slot_ptr(id, slot);
}

void Executor::run(const program::Function &fn, const RunOptions &options,
                   int slot) {
  Plan &plan = prepare(fn, slot);
  for (const auto &check : plan.before)
    check();
  if (profiling_) {
    using Clock = std::chrono::steady_clock;
    for (size_t k = 0; k < plan.thunks.size(); ++k) {
      Clock::time_point start = Clock::now();
      plan.thunks[k](options);
      if (plan.starts_collectives)
        state_->collectives->progress();
      backend_.synchronize();
      OpTime &t = op_times_[plan.slots[k]];
      t.seconds += std::chrono::duration<double>(Clock::now() - start).count();
      ++t.calls;
    }
  } else if (plan.starts_collectives) {
    for (const Thunk &thunk : plan.thunks) {
      thunk(options);
      state_->collectives->progress();
    }
  } else {
    for (const Thunk &thunk : plan.thunks)
      thunk(options);
  }
  for (const auto &update : plan.after)
    update();
}

size_t Executor::op_slot(const std::string &function, const std::string &op) {
  auto [it, added] = op_slots_.try_emplace({function, op}, op_times_.size());
  if (added)
    op_times_.push_back(OpTime{function, op});
  return it->second;
}

std::vector<Executor::OpTime> Executor::op_times() const {
  std::vector<OpTime> ran;
  for (const OpTime &t : op_times_)
    if (t.calls > 0)
      ran.push_back(t);
  std::stable_sort(
      ran.begin(), ran.end(),
      [](const OpTime &a, const OpTime &b) { return a.seconds > b.seconds; });
  return ran;
}

void Executor::reset_kv_caches() {
  for (auto &[key, sequence] : state_->sequences)
    sequence->reset();
}

} // namespace tpc
