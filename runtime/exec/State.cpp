//===- State.cpp - What the prepared ops of one executor share ------------===//

#include "runtime/exec/State.h"

#include "runtime/program/Abi.h"
#include "runtime/program/ProgramFile.h"
#include <climits>

#include <algorithm>
#include <stdexcept>

namespace tpc {

ElementType element_type_of(program::DType d) {
  switch (d) {
  case program::BF16:
    return ElementType::BF16;
  case program::F16:
    return ElementType::F16;
  case program::I32:
    return ElementType::I32;
  default:
    return ElementType::F32;
  }
}

namespace {
std::string attr_string(const program::Instruction &inst, const char *name) {
  const program::Attribute *a = find_attr(inst, name);
  return a ? a->s() : "";
}

std::runtime_error inst_error(const program::Function &fn, int k,
                              const std::string &what) {
  return std::runtime_error("instruction " + std::to_string(k) + " (" +
                            fn.body(k).op() + ") of function '" + fn.name() +
                            "': " + what);
}
} // namespace

ExecState::ExecState(const program::Program &program, Backend &backend,
                     Comm &comm)
    : program(program), backend(backend), device(backend.device()), comm(comm),
      collectives(make_collectives(backend, comm)),
      optimizer(backend.device()) {
  try {
    build();
  } catch (...) {
    release();
    throw;
  }
}

bool ExecState::runs(const program::Function &fn) const {
  if (program.pp() > 1) {
    if (fn.has_chunk())
      return fn.chunk().chunk() % program.pp() == comm.pp_rank();
    return fn.name() == abi::stage_apply_step(comm.pp_rank());
  }
  if (program.stacks() <= 1)
    return true;
  int s = comm.stack_rank();
  return fn.name() == abi::kDecodeStackPrefix + std::to_string(s) ||
         (fn.name() == abi::kDecodeHead && s == program.stacks() - 1);
}

void ExecState::build() {
  ptrs.assign(program.tensors_size(), nullptr);
  host_i32.assign(program.tensors_size(), 0);
  // The parameters of the functions this rank runs; the arena they need.
  const bool some = program.stacks() > 1 || program.pp() > 1;
  held.assign(program.parameters_size(), !some);
  std::vector<bool> unheld_tensor(program.tensors_size(), false);
  int64_t arena = 0;
  if (some) {
    std::map<int, int> param_of_tensor;
    for (int i = 0; i < program.parameters_size(); ++i)
      param_of_tensor[program.parameters(i).tensor()] = i;
    for (const program::Function &fn : program.functions()) {
      if (!runs(fn))
        continue;
      for (const program::Instruction &inst : fn.body())
        for (const auto *ids : {&inst.inputs(), &inst.outputs()})
          for (int id : *ids)
            if (auto it = param_of_tensor.find(id); it != param_of_tensor.end())
              held[size_t(it->second)] = true;
    }
    for (int i = 0; i < program.parameters_size(); ++i)
      unheld_tensor[size_t(program.parameters(i).tensor())] = !held[size_t(i)];
  }
  owner_stage.assign(program.parameters_size(), 0);
  if (program.pp() > 1) {
    std::map<int, int> param_of_tensor;
    for (int i = 0; i < program.parameters_size(); ++i)
      param_of_tensor[program.parameters(i).tensor()] = i;
    std::vector<int> first(program.parameters_size(), INT32_MAX);
    for (const program::Function &fn : program.functions()) {
      if (!fn.has_chunk())
        continue;
      int stage = int(fn.chunk().chunk() % program.pp());
      for (const program::Instruction &inst : fn.body())
        for (int id : inst.inputs())
          if (auto it = param_of_tensor.find(id); it != param_of_tensor.end())
            first[size_t(it->second)] =
                std::min(first[size_t(it->second)], stage);
    }
    for (size_t i = 0; i < first.size(); ++i)
      owner_stage[i] = first[i] == INT32_MAX ? 0 : first[i];
  }
  // A pipeline chunk's forward and backward functions keep what outlives
  // each of them in slots of their own, one per micro-batch the chunk has
  // in flight, and their temporaries in a scratch region that the stage's
  // chunk functions share; the other functions share one arena.
  tensor_chunk.assign(program.tensors_size(), -1);
  int64_t scratch = 0;
  for (const program::Function &fn : program.functions()) {
    if (!runs(fn))
      continue;
    if (!in_slots(fn)) {
      arena = std::max(arena, fn.arena_bytes());
      continue;
    }
    int chunk = fn.chunk().chunk();
    int64_t slot_bytes = fn.chunk().slot_bytes() > 0 ? fn.chunk().slot_bytes()
                                                     : fn.arena_bytes();
    if (slot_bytes > fn.arena_bytes())
      throw std::runtime_error("function '" + fn.name() + "' has a slot of " +
                               std::to_string(slot_bytes) +
                               " bytes in an arena of " +
                               std::to_string(fn.arena_bytes()));
    slot_size[chunk] = slot_bytes;
    scratch = std::max(scratch, fn.arena_bytes() - slot_bytes);
    std::vector<void *> &slots = slot_arenas[chunk];
    if (chunk >= program.pipeline().slots_size())
      throw std::runtime_error("the program's pipeline has no slot count for "
                               "chunk " +
                               std::to_string(chunk));
    if (slots.empty())
      for (int64_t k = 0; k < program.pipeline().slots(chunk); ++k) {
        slots.push_back(device.alloc(size_t(std::max<int64_t>(slot_bytes, 1))));
        owned_.push_back(slots.back());
      }
    auto mark = [&](int id) {
      if (program.tensors(id).storage() == program::Tensor::ACTIVATION)
        tensor_chunk[size_t(id)] = chunk;
    };
    for (int id : fn.inputs())
      mark(id);
    for (int id : fn.outputs())
      mark(id);
    for (const program::Instruction &inst : fn.body())
      for (const auto *ids : {&inst.inputs(), &inst.outputs()})
        for (int id : *ids)
          mark(id);
  }
  arena_ = device.alloc(size_t(std::max<int64_t>(arena, 1)));
  if (scratch > 0) {
    scratch_arena = device.alloc(size_t(scratch));
    owned_.push_back(scratch_arena);
  }
  for (const program::Tensor &t : program.tensors()) {
    if (t.storage() == program::Tensor::ACTIVATION) {
      int chunk = tensor_chunk[size_t(t.id())];
      ptrs[t.id()] = chunk >= 0 ? slot_ptr(t.id(), 0)
                                : static_cast<char *>(arena_) + t.offset();
    } else if (t.storage() == program::Tensor::GRADIENT ||
               unheld_tensor[size_t(t.id())]) {
      // get_grad's result is the gradient buffer, set below; another
      // stack's parameter has no buffer on this rank.
      continue;
    } else {
      uint64_t bytes = uint64_t(tensor_bytes(t));
      void *p = device.alloc(std::max<uint64_t>(bytes, 1));
      device.zero(p, bytes);
      owned_.push_back(p);
      ptrs[t.id()] = p;
    }
  }
  for (const program::Parameter &p : program.parameters()) {
    slices.push_back(param_slice(p, program.tensors(p.tensor()), comm.tp_rank(),
                                 comm.tp_size()));
    param_index[p.name()] = int(slices.size()) - 1;
    grad_types.push_back(
        p.grad_dtype() == program::DTYPE_UNSPECIFIED
            ? element_type_of(program.tensors(p.tensor()).dtype())
            : element_type_of(p.grad_dtype()));
  }
  partition();
  size_t master_elements = 0;
  for (int i = 0; i < program.parameters_size(); ++i) {
    auto [begin, end] = owned(i);
    state_offsets.push_back(param_elements);
    param_elements += end - begin;
    // Decoding alone (stack-parallel) keeps no fp32 master: the working
    // copy is written from the loaded values directly.
    if (has_master(i) && held[size_t(i)] && program.stacks() <= 1)
      master_elements += end - begin;
    // Natural alignment; a change of type never falls inside a bucket.
    size_t size = element_size(grad_types[i]);
    grad_bytes = (grad_bytes + size - 1) / size * size;
    grad_byte_offsets.push_back(grad_bytes);
    if (held[size_t(i)])
      grad_bytes += slices[i].local_elements() * size;
    // A partitioned bucket's span ends in zeros up to dp equal shards.
    if (partitioned() && buckets[bucket_of[i]].last == i) {
      const Bucket &b = buckets[bucket_of[i]];
      grad_bytes += (b.shard * size_t(comm.dp_size()) - b.elements) * size;
    }
  }
  optimizer.set_elements(param_elements);
  if (master_elements)
    master_block_ =
        static_cast<float *>(device.alloc(master_elements * sizeof(float)));
  size_t next_master = 0;
  for (int i = 0; i < program.parameters_size(); ++i) {
    auto [begin, end] = owned(i);
    if (!held[size_t(i)] || (has_master(i) && program.stacks() > 1)) {
      masters.push_back(nullptr);
      continue;
    }
    if (!has_master(i)) {
      masters.push_back(
          static_cast<float *>(ptrs[program.parameters(i).tensor()]) + begin);
      continue;
    }
    masters.push_back(master_block_ + next_master);
    device.zero(masters.back(), (end - begin) * sizeof(float));
    next_master += end - begin;
  }
  bool trains = false;
  for (const program::Function &fn : program.functions())
    if (runs(fn))
      for (const program::Instruction &inst : fn.body())
        trains |= inst.op() == op::kAccumulateGrad || inst.op() == op::kGetGrad;
  if (trains) {
    size_t bytes = std::max<size_t>(grad_bytes, 1);
    grads = device.alloc(bytes);
    device.zero(grads, bytes);
    for (const Bucket &b : buckets) {
      shard_sums.push_back(device.alloc(std::max<size_t>(b.shard, 1) *
                                        element_size(grad_types[b.first])));
      owned_.push_back(shard_sums.back());
    }
  }
  // get_grad reads the gradient buffer itself: its result aliases it, before
  // any op is prepared. Only the bucket reductions write the buffers in
  // apply_step, so a get_grad after it sees the reduced gradient, which the
  // checks below make sure of.
  for (const program::Function &fn : program.functions()) {
    std::map<std::string, int> read; // parameter -> instruction of get_grad
    for (int k = 0; k < fn.body_size(); ++k) {
      const program::Instruction &inst = fn.body(k);
      if (inst.op() == op::kGetGrad && inst.outputs_size() == 1) {
        std::string name = attr_string(inst, "name");
        auto it = param_index.find(name);
        if (it == param_index.end())
          throw inst_error(fn, k,
                           "names '" + name +
                               "', which is not a parameter of the program");
        const program::Tensor &t = program.tensors(inst.outputs(0));
        std::vector<int64_t> got(t.shape().begin(), t.shape().end());
        if (got != slices[it->second].local_shape)
          throw inst_error(fn, k,
                           "the result has shape " + shape_string(got) +
                               ", expected " +
                               shape_string(slices[it->second].local_shape));
        if (element_type_of(t.dtype()) != grad_types[it->second])
          throw inst_error(fn, k,
                           std::string("the result is ") +
                               element_type_name(element_type_of(t.dtype())) +
                               " but the gradient of '" + name + "' is " +
                               element_type_name(grad_types[it->second]));
        ptrs[inst.outputs(0)] = grad(it->second);
        read[name] = k;
      }
      std::vector<std::string> written;
      if (inst.op() == op::kBucketAllReduce ||
          inst.op() == op::kBucketReduceScatter)
        written = split_name_list(attr_string(inst, "params"));
      if (inst.op() == op::kAccumulateGrad)
        written = {attr_string(inst, "name")};
      for (const std::string &name : written)
        if (read.count(name))
          throw inst_error(fn, k,
                           "writes the gradient of '" + name +
                               "' after instruction " +
                               std::to_string(read[name]) +
                               " read it; reduce gradients before reading "
                               "them");
    }
  }
}

void ExecState::partition() {
  int count = program.parameters_size();
  bucket_of.assign(count, -1);
  bucket_offsets.assign(count, 0);
  for (const program::Function &fn : program.functions()) {
    // Another pipeline stage's apply_step shards its own parameters.
    if (!runs(fn))
      continue;
    for (int k = 0; k < fn.body_size(); ++k) {
      const program::Instruction &inst = fn.body(k);
      if (inst.op() != op::kBucketReduceScatter)
        continue;
      std::vector<int> members;
      for (const std::string &name :
           split_name_list(attr_string(inst, "params"))) {
        auto it = param_index.find(name);
        if (it == param_index.end())
          throw inst_error(fn, k,
                           "names '" + name +
                               "', which is not a parameter of the program");
        if (bucket_of[it->second] >= 0)
          throw inst_error(fn, k,
                           "puts '" + name +
                               "' in a second bucket; each parameter "
                               "belongs to one");
        bucket_of[it->second] = int(buckets.size());
        members.push_back(it->second);
      }
      if (members.empty())
        throw inst_error(fn, k, "lists no parameters");
      std::sort(members.begin(), members.end());
      Bucket b;
      b.first = members.front();
      b.last = members.back();
      if (b.last - b.first + 1 != int(members.size()))
        throw inst_error(fn, k,
                         "lists parameters that are not consecutive in the "
                         "program, so their gradients are not one span");
      for (int i : members) {
        if (grad_types[i] != grad_types[b.first])
          throw inst_error(fn, k,
                           std::string("lists gradients of ") +
                               element_type_name(grad_types[b.first]) +
                               " and " + element_type_name(grad_types[i]) +
                               ", which are not one span of one type");
        bucket_offsets[i] = b.elements;
        b.elements += slices[i].local_elements();
      }
      size_t dp = size_t(comm.dp_size());
      b.shard = (b.elements + dp - 1) / dp;
      buckets.push_back(b);
    }
  }
  if (!partitioned())
    return;
  for (int i = 0; i < count; ++i)
    if (bucket_of[i] < 0 && held[size_t(i)])
      throw std::runtime_error(
          "parameter '" + program.parameters(i).name() +
          "' is in no bucket_reduce_scatter, but the program partitions its "
          "optimizer over dp, which needs every parameter in a bucket; "
          "recompile the model with tpc-compile --distributed-optimizer");
}

std::pair<size_t, size_t> ExecState::owned(int param, int dp_rank) const {
  // Another stage's (or stack's) parameter has no state on this rank.
  if (!held[size_t(param)])
    return {0, 0};
  size_t n = slices[param].local_elements();
  if (!partitioned())
    return {0, n};
  const Bucket &b = buckets[bucket_of[param]];
  size_t offset = bucket_offsets[param];
  // The shard's bounds within the bucket, then within this parameter.
  auto within = [&](size_t bound) {
    bound = std::min(bound, b.elements);
    return std::min(n, bound > offset ? bound - offset : 0);
  };
  return {within(size_t(dp_rank) * b.shard),
          within(size_t(dp_rank + 1) * b.shard)};
}

ExecState::~ExecState() { release(); }

void ExecState::release() noexcept {
  sequences.clear();
  for (void *p : owned_)
    device.free(p);
  for (auto &[p, n] : scratch_)
    if (p)
      device.free(p);
  for (auto &[p, n] : ones_)
    if (p)
      device.free(p);
  if (grads)
    device.free(grads);
  if (master_block_)
    device.free(master_block_);
  if (arena_)
    device.free(arena_);
  owned_.clear();
  scratch_.clear();
  ones_ = {};
  grads = nullptr;
  master_block_ = nullptr;
  arena_ = nullptr;
}

bool ExecState::in_slots(const program::Function &fn) const {
  return fn.has_chunk() && fn.chunk().role() != program::ChunkFunction::EVAL;
}

void *ExecState::slot_ptr(int id, int slot) const {
  int chunk = tensor_chunk[size_t(id)];
  if (chunk < 0)
    return ptrs[size_t(id)];
  int64_t offset = program.tensors(id).offset();
  int64_t slot_bytes = slot_size.at(chunk);
  if (offset >= slot_bytes)
    return static_cast<char *>(scratch_arena) + (offset - slot_bytes);
  const std::vector<void *> &slots = slot_arenas.at(chunk);
  if (slot < 0 || size_t(slot) >= slots.size())
    throw std::runtime_error("pipeline chunk " + std::to_string(chunk) +
                             " has " + std::to_string(slots.size()) +
                             " activation slots, not slot " +
                             std::to_string(slot));
  return static_cast<char *>(slots[size_t(slot)]) + offset;
}

void ExecState::use_slot(const program::Function &fn, int slot) {
  if (!in_slots(fn))
    return;
  for (size_t id = 0; id < tensor_chunk.size(); ++id)
    if (tensor_chunk[id] == fn.chunk().chunk())
      ptrs[id] = slot_ptr(int(id), slot);
}

WorkingCopy ExecState::working_copy(int param) const {
  if (!has_master(param))
    return {};
  int tensor = program.parameters(param).tensor();
  ElementType type = element_type_of(program.tensors(tensor).dtype());
  auto [begin, end] = owned(param);
  return {static_cast<char *>(ptrs[tensor]) + begin * element_size(type), type};
}

void ExecState::refresh_working_copy(int param) const {
  WorkingCopy working = working_copy(param);
  if (!working.data)
    return;
  auto [begin, end] = owned(param);
  backend.kernels(ElementType::F32)
      ->cast(working.data, working.type, masters[param], end - begin);
}

void *ExecState::kept(const std::string &fn, int index, size_t bytes) {
  auto [it, fresh] = kept_.try_emplace({fn, index}, nullptr, bytes);
  if (fresh) {
    it->second.first = device.alloc(std::max<size_t>(bytes, 1));
    owned_.push_back(it->second.first);
  } else if (it->second.second != bytes) {
    throw std::logic_error(fn + " #" + std::to_string(index) +
                           ": ops disagree on the size of the buffer they " +
                           "share (" + std::to_string(it->second.second) +
                           " and " + std::to_string(bytes) + " bytes)");
  }
  return it->second.first;
}

void ExecState::reserve(int slot, size_t bytes) {
  if (slot >= int(scratch_.size()))
    scratch_.resize(slot + 1, {nullptr, 0});
  auto &[ptr, size] = scratch_[slot];
  if (size < bytes) {
    if (ptr)
      device.free(ptr);
    ptr = device.alloc(bytes);
    size = bytes;
  }
}

void ExecState::reserve_ones(const Kernels &k, size_t n) {
  auto &[ptr, size] = ones_[int(k.dtype())];
  if (size < n) {
    if (ptr)
      device.free(ptr);
    ptr = device.alloc(n * element_size(k.dtype()));
    k.fill(ptr, 1.0f, n);
    size = n;
  }
}

} // namespace tpc
