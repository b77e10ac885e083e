//===- Executor.cpp - Interpreter of tpc programs -------------------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/Call.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/util/Philox.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace tpc {

using namespace exec_detail;

namespace {
/// "a,b,c" -> {a, b, c}: a list of parameter names as the program spells it.
std::vector<std::string> split_names(const std::string &list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

/// What an op needs: operand counts (max_inputs < 0: variadic), results,
/// the attributes that must be present and their kinds (i: integer, f:
/// number, s: string, l: layout).
struct OpDef {
  Executor::Handler handler;
  int min_inputs, max_inputs, outputs; // outputs < 0: checked by the handler
  std::vector<std::pair<const char *, char>> attrs;
};

const std::map<std::string, OpDef> &op_table() {
  using E = Executor;
  static const std::map<std::string, OpDef> table = {
      {"embedding", {&E::op_embedding, 2, 2, 1, {}}},
      {"position_embedding", {&E::op_position_embedding, 2, 3, 1, {}}},
      {"layernorm", {&E::op_layernorm, 3, 3, 1, {{"epsilon", 'f'}}}},
      {"linear", {&E::op_linear, 2, 3, 1, {}}},
      {"bias_add", {&E::op_bias_add, 2, 2, 1, {}}},
      {"gelu", {&E::op_gelu, 1, 1, 1, {}}},
      {"self_attention",
       {&E::op_self_attention,
        1,
        1,
        1,
        {{"heads", 'i'}, {"dropout", 'f'}, {"key", 'i'}}}},
      {"cross_attention",
       {&E::op_cross_attention,
        2,
        2,
        1,
        {{"heads", 'i'}, {"dropout", 'f'}, {"key", 'i'}}}},
      {"decode_attention",
       {&E::op_decode_attention, 2, 2, 1, {{"heads", 'i'}, {"capacity", 'i'}}}},
      {"decode_cross_attention",
       {&E::op_decode_cross_attention,
        3,
        3,
        1,
        {{"heads", 'i'}, {"capacity", 'i'}}}},
      {"dropout",
       {&E::op_dropout, 1, 1, 1, {{"p", 'f'}, {"stream", 's'}, {"key", 'i'}}}},
      {"add", {&E::op_add, 2, 2, 1, {}}},
      {"scale", {&E::op_scale, 1, 1, 1, {{"factor", 'f'}}}},
      {"weighted_sum", {&E::op_weighted_sum, 2, -1, 1, {}}},
      {"cross_entropy",
       {&E::op_cross_entropy, 2, 2, 2, {{"ignore_index", 'i'}}}},
      {"vocab_parallel_cross_entropy",
       {&E::op_vocab_parallel_cross_entropy,
        2,
        2,
        2,
        {{"vocab_size", 'i'}, {"ignore_index", 'i'}}}},
      {"f", {&E::op_f, 1, 1, 1, {{"group", 's'}}}},
      {"g", {&E::op_g, 1, 1, 1, {{"group", 's'}}}},
      {"all_reduce",
       {&E::op_all_reduce, 1, 1, 1, {{"reduce", 's'}, {"group", 's'}}}},
      {"all_gather",
       {&E::op_all_gather, 1, 1, 1, {{"dim", 'i'}, {"group", 's'}}}},
      {"fill", {&E::op_fill, 0, 0, 1, {{"value", 'f'}}}},
      {"accumulate_grad", {&E::op_accumulate_grad, 1, 1, 0, {{"name", 's'}}}},
      {"embedding_grad", {&E::op_embedding_grad, 2, 2, 1, {}}},
      {"position_embedding_grad",
       {&E::op_position_embedding_grad, 1, 1, 1, {}}},
      {"layernorm_grad", {&E::op_layernorm_grad, 3, 3, 3, {{"epsilon", 'f'}}}},
      {"linear_grad", {&E::op_linear_grad, 3, 3, -1, {}}},
      {"bias_add_grad", {&E::op_bias_add_grad, 1, 1, 1, {}}},
      {"gelu_grad", {&E::op_gelu_grad, 2, 2, 1, {}}},
      {"self_attention_grad",
       {&E::op_self_attention_grad,
        2,
        2,
        1,
        {{"heads", 'i'}, {"dropout", 'f'}, {"key", 'i'}}}},
      {"cross_attention_grad",
       {&E::op_cross_attention_grad,
        3,
        3,
        2,
        {{"heads", 'i'}, {"dropout", 'f'}, {"key", 'i'}}}},
      {"weighted_sum_grad", {&E::op_weighted_sum_grad, 3, -1, -1, {}}},
      {"cross_entropy_grad",
       {&E::op_cross_entropy_grad, 3, 3, 1, {{"ignore_index", 'i'}}}},
      {"vocab_parallel_cross_entropy_grad",
       {&E::op_vocab_parallel_cross_entropy_grad,
        3,
        3,
        1,
        {{"vocab_size", 'i'}, {"ignore_index", 'i'}}}},
      {"get_grad", {&E::op_get_grad, 0, 0, 1, {{"name", 's'}}}},
      {"bucket_all_reduce",
       {&E::op_bucket_all_reduce, 0, 0, 0, {{"params", 's'}, {"group", 's'}}}},
      {"sum_squares", {&E::op_sum_squares, 1, -1, 1, {}}},
      {"grad_norm", {&E::op_grad_norm, 2, 2, 2, {}}},
      {"adamw_update",
       {&E::op_adamw_update,
        3,
        3,
        0,
        {{"name", 's'},
         {"beta1", 'f'},
         {"beta2", 'f'},
         {"eps", 'f'},
         {"weight_decay", 'f'}}}},
      {"sgd_update",
       {&E::op_sgd_update,
        3,
        3,
        0,
        {{"name", 's'}, {"momentum", 'f'}, {"weight_decay", 'f'}}}},
  };
  return table;
}

const char *dtype_text(program::DType d) {
  switch (d) {
  case program::F32:
    return "f32";
  case program::BF16:
    return "bf16";
  case program::F16:
    return "f16";
  case program::I32:
    return "i32";
  default:
    return "unspecified";
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

Executor::Executor(program::Program program, Backend &backend, Comm &comm)
    : program_(std::move(program)), backend_(backend), comm_(comm) {
  if (program_.tp() != comm_.tp_size() || program_.dp() != comm_.dp_size()) {
    std::ostringstream msg;
    msg << "the program was compiled for tp " << program_.tp() << " x dp "
        << program_.dp() << " but the job's groups are tp " << comm_.tp_size()
        << " x dp " << comm_.dp_size();
    throw std::runtime_error(msg.str());
  }
  for (const program::Tensor &t : program_.tensors())
    if (t.dtype() != program::F32 && t.dtype() != program::I32)
      throw std::runtime_error(
          "tensor '" + t.name() + "' has dtype " + dtype_text(t.dtype()) +
          "; this runtime executes f32 programs: compile without reduced "
          "precision");
  ptrs_.assign(program_.tensors_size(), nullptr);
  int64_t arena = 0;
  for (const program::Function &fn : program_.functions())
    arena = std::max(arena, fn.arena_bytes());
  arena_ = backend_.alloc(size_t(std::max<int64_t>(arena, 1)));
  for (const program::Tensor &t : program_.tensors()) {
    if (t.storage() == program::Tensor::ACTIVATION) {
      ptrs_[t.id()] = static_cast<char *>(arena_) + t.offset();
    } else {
      void *p = backend_.alloc(std::max<uint64_t>(tensor_bytes(t.id()), 1));
      backend_.zero(p, tensor_bytes(t.id()));
      owned_.push_back(p);
      ptrs_[t.id()] = p;
    }
  }
  for (const program::Parameter &p : program_.parameters()) {
    slices_.push_back(param_slice(p, program_.tensors(p.tensor()),
                                  comm_.tp_rank(), comm_.tp_size()));
    param_index_[p.name()] = int(grad_offsets_.size());
    grad_offsets_.push_back(grad_elements_);
    grad_elements_ += slices_.back().local_elements();
  }
  bool trains = false;
  for (const program::Function &fn : program_.functions())
    for (const program::Instruction &inst : fn.body())
      trains |= inst.op() == "accumulate_grad" || inst.op() == "get_grad";
  if (trains) {
    grads_ = static_cast<float *>(
        backend_.alloc(std::max<size_t>(grad_elements_, 1) * sizeof(float)));
    zero_gradients();
  }
  // get_grad reads the gradient buffer itself: its result aliases it. Only
  // bucket_all_reduce writes the buffers in apply_step, so a get_grad after
  // it sees the reduced gradient, which the checks below make sure of.
  for (const program::Function &fn : program_.functions()) {
    std::map<std::string, int> read; // parameter -> instruction of get_grad
    for (int k = 0; k < fn.body_size(); ++k) {
      const program::Instruction &inst = fn.body(k);
      Call c{fn, k, inst};
      if (inst.op() == "get_grad" && inst.outputs_size() == 1) {
        int param = param_of(c, -1);
        expect_shape(shape(inst.outputs(0)), slices_[param].local_shape, c,
                     "the result");
        ptrs_[inst.outputs(0)] = grad(param);
        read[c.string("name")] = k;
      }
      std::vector<std::string> written;
      if (inst.op() == "bucket_all_reduce")
        written = split_names(c.string("params"));
      if (inst.op() == "accumulate_grad")
        written = {c.string("name")};
      for (const std::string &name : written)
        if (read.count(name))
          throw c.error("writes the gradient of '" + name +
                        "' after instruction " + std::to_string(read[name]) +
                        " read it; reduce gradients before reading them");
    }
  }
}

Executor::~Executor() {
  for (void *p : owned_)
    backend_.free(p);
  for (auto &[p, n] : scratch_)
    if (p)
      backend_.free(p);
  if (ones_)
    backend_.free(ones_);
  for (auto &[key, cache] : kv_caches_) {
    backend_.free(cache.k);
    backend_.free(cache.v);
  }
  for (float *p : {grads_, adam_m_, adam_v_, momentum_})
    if (p)
      backend_.free(p);
  if (arena_)
    backend_.free(arena_);
}

uint64_t Executor::tensor_bytes(int id) const {
  const program::Tensor &t = program_.tensors(id);
  return uint64_t(numElements(t.shape()) * dtypeBytes(t.dtype()));
}

std::vector<int64_t> Executor::shape(int id) const {
  const program::Tensor &t = program_.tensors(id);
  return {t.shape().begin(), t.shape().end()};
}

uint64_t Executor::elements(int id) const {
  return uint64_t(numElements(program_.tensors(id).shape()));
}

int64_t Executor::local_parameter_count() const {
  int64_t n = 0;
  for (const ParamSlice &s : slices_)
    n += int64_t(s.local_elements());
  return n;
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

void Executor::init_parameters(uint64_t seed) {
  for (int i = 0; i < program_.parameters_size(); ++i) {
    const program::Parameter &p = program_.parameters(i);
    std::vector<float> host(slices_[i].local_elements());
    init_parameter(host.data(), p, slices_[i], seed);
    backend_.copy_host_to_device(ptrs_[p.tensor()], host.data(),
                                 host.size() * sizeof(float));
  }
}

std::vector<float> Executor::read_parameter(const std::string &name) {
  for (int i = 0; i < program_.parameters_size(); ++i) {
    const program::Parameter &p = program_.parameters(i);
    if (p.name() != name)
      continue;
    std::vector<float> host(slices_[i].local_elements());
    backend_.synchronize();
    backend_.copy_device_to_host(host.data(), ptrs_[p.tensor()],
                                 host.size() * sizeof(float));
    return host;
  }
  throw std::runtime_error("the program has no parameter '" + name + "'");
}

void Executor::write_parameter(const std::string &name,
                               const std::vector<float> &v) {
  for (int i = 0; i < program_.parameters_size(); ++i) {
    const program::Parameter &p = program_.parameters(i);
    if (p.name() != name)
      continue;
    if (v.size() != slices_[i].local_elements())
      throw std::runtime_error("parameter '" + name + "' holds " +
                               std::to_string(slices_[i].local_elements()) +
                               " elements on this rank, not " +
                               std::to_string(v.size()));
    backend_.copy_host_to_device(ptrs_[p.tensor()], v.data(),
                                 v.size() * sizeof(float));
    return;
  }
  throw std::runtime_error("the program has no parameter '" + name + "'");
}

//===----------------------------------------------------------------------===//
// Functions
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

void Executor::check(const program::Function &fn) const {
  for (int k = 0; k < fn.body_size(); ++k) {
    Call c{fn, k, fn.body(k)};
    auto it = op_table().find(c.inst.op());
    if (it == op_table().end())
      throw c.error("unknown op '" + c.inst.op() +
                    "'; this tpc-run is older than the compiler that wrote "
                    "the program");
    const OpDef &def = it->second;
    int n = c.num_inputs();
    if (n < def.min_inputs || (def.max_inputs >= 0 && n > def.max_inputs))
      throw c.error("has " + std::to_string(n) + " operands");
    if (def.outputs >= 0 && c.inst.outputs_size() != def.outputs)
      throw c.error("has " + std::to_string(c.inst.outputs_size()) +
                    " results, expected " + std::to_string(def.outputs));
    for (auto [name, kind] : def.attrs) {
      switch (kind) {
      case 'i':
        c.integer(name);
        break;
      case 'f':
        c.real(name);
        break;
      case 's':
        c.string(name);
        break;
      default:
        c.layout(name);
      }
    }
    if (c.find("group"))
      c.group();
    if (c.inst.op() == "linear_grad" &&
        c.inst.outputs_size() != 2 + int(c.flag("bias")))
      throw c.error("has " + std::to_string(c.inst.outputs_size()) +
                    " results, expected " +
                    std::to_string(2 + int(c.flag("bias"))));
    if (c.inst.op() == "weighted_sum_grad" &&
        c.inst.outputs_size() != c.num_inputs() - 1)
      throw c.error("has " + std::to_string(c.inst.outputs_size()) +
                    " results, expected " + std::to_string(c.num_inputs() - 1));
    if (c.find("name"))
      param_of(c, -1);
    if (c.inst.op() == "bucket_all_reduce")
      for (const std::string &name : split_names(c.string("params")))
        if (!param_index_.count(name))
          throw c.error("names '" + name + "', which is not a parameter");
  }
}

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
  backend_.copy_host_to_device(ptrs_[id], host, bytes);
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
  backend_.copy_device_to_host(host, ptrs_[id], bytes);
}

void Executor::run(const program::Function &fn, const RunOptions &options) {
  options_ = options;
  for (int k = 0; k < fn.body_size(); ++k) {
    Call c{fn, k, fn.body(k)};
    auto it = op_table().find(c.inst.op());
    if (it == op_table().end())
      throw c.error("unknown op '" + c.inst.op() + "'");
    (this->*it->second.handler)(c);
  }
  backend_.synchronize();
}

float *Executor::scratch(int slot, size_t floats) {
  if (slot >= int(scratch_.size()))
    scratch_.resize(slot + 1, {nullptr, 0});
  auto &[ptr, size] = scratch_[slot];
  if (size < floats) {
    if (ptr)
      backend_.free(ptr);
    ptr = static_cast<float *>(backend_.alloc(floats * sizeof(float)));
    size = floats;
  }
  return ptr;
}

const float *Executor::ones(size_t n) {
  if (ones_size_ < n) {
    if (ones_)
      backend_.free(ones_);
    ones_ = static_cast<float *>(backend_.alloc(n * sizeof(float)));
    std::vector<float> host(n, 1.0f);
    backend_.copy_host_to_device(ones_, host.data(), n * sizeof(float));
    ones_size_ = n;
  }
  return ones_;
}

void Executor::copy(int dst, int src) {
  if (ptrs_[dst] != ptrs_[src])
    backend_.copy_device_to_device(ptrs_[dst], ptrs_[src], tensor_bytes(src));
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

// out (B,T,C) = table[ids]; table (Vl,C) holds rows [vstart, vstart+Vl).
void Executor::op_embedding(const Call &c) {
  auto table = shape(c.in(0)), ids = shape(c.in(1));
  if (table.size() != 2 || ids.size() != 2)
    throw c.error("expects table [V, C] and ids [B, T]");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  int vlocal = int(table[0]);
  int vstart = c.flag("vocab_parallel") ? comm_.tp_rank() * vlocal : 0;
  expect_shape(shape(c.out(0)), {B, T, C}, c, "the result");
  backend_.embedding_forward(f32(c.out(0)), i32(c.in(1)), f32(c.in(0)), B, T, C,
                             vstart, vlocal);
}

// out (B,T,C) = wpe[offset + t]; wpe (P,C) with P >= offset + T; the
// offset (decode_step's position) is 0 without a third operand.
void Executor::op_position_embedding(const Call &c) {
  auto table = shape(c.in(0)), ids = shape(c.in(1));
  if (table.size() != 2 || ids.size() != 2)
    throw c.error("expects table [P, C] and ids [B, T]");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  int offset = 0;
  if (c.num_inputs() == 3)
    offset = decode_position(c, 2, 0, INT32_MAX);
  if (offset + int64_t(T) > table[0])
    throw c.error("position " + std::to_string(offset + T - 1) +
                  " is beyond the " + std::to_string(table[0]) +
                  " positions of the table (the model's context length)");
  float *out = f32(c.out(0));
  backend_.zero(out, size_t(B) * T * C * sizeof(float));
  backend_.position_embedding_forward(
      out, out, f32(c.in(0)) + size_t(offset) * C, B, T, C);
}

void Executor::op_layernorm(const Call &c) {
  double eps = c.real("epsilon");
  if (std::fabs(eps - 1e-5) > 1e-12)
    throw c.error("epsilon " + std::to_string(eps) +
                  " is not supported: the kernels use GPT-2's 1e-5");
  Rows r = rows_of(shape(c.in(0)), c);
  expect_shape(shape(c.in(1)), {r.C}, c, "gamma");
  expect_shape(shape(c.in(2)), {r.C}, c, "beta");
  float *mean = scratch(0, r.N), *rstd = scratch(1, r.N);
  backend_.layernorm_forward(f32(c.out(0)), mean, rstd, f32(c.in(0)),
                             f32(c.in(1)), f32(c.in(2)), r.N, r.C);
}

// out (N,OC) = x (N,C) . W (C,OC) [+ b]; transposed: W (OC,C).
void Executor::op_linear(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  auto w = shape(c.in(1));
  bool transposed = c.flag("transposed");
  if (w.size() != 2 || w[transposed ? 1 : 0] != r.C)
    throw c.error("weight " + shape_string(w) + " does not match input width " +
                  std::to_string(r.C));
  int OC = int(w[transposed ? 0 : 1]);
  const float *bias = nullptr;
  if (c.num_inputs() == 3) {
    expect_shape(shape(c.in(2)), {OC}, c, "the bias");
    bias = f32(c.in(2));
  }
  if (transposed)
    backend_.matmul_nt_forward(f32(c.out(0)), f32(c.in(0)), f32(c.in(1)), bias,
                               r.N, r.C, OC);
  else
    backend_.matmul_forward(f32(c.out(0)), f32(c.in(0)), f32(c.in(1)), bias,
                            r.N, r.C, OC);
}

// out (N,C) = x (N,C) + b (C): a rank-one update ones(N) b^T on a copy of
// x, exact because each element gets a single addition.
void Executor::op_bias_add(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  expect_shape(shape(c.in(1)), {r.C}, c, "the bias");
  copy(c.out(0), c.in(0));
  backend_.gemm(false, false, r.N, r.C, 1, 1.0f, ones(r.N), 1, f32(c.in(1)),
                r.C, 1.0f, f32(c.out(0)), r.C);
}

void Executor::op_gelu(const Call &c) {
  backend_.gelu_forward(f32(c.out(0)), f32(c.in(0)), elements(c.in(0)));
}

GlobalIndexMap Executor::dropout_map(const Call &c, int tensor, bool per_rank) {
  std::vector<int64_t> local = shape(tensor);
  GlobalIndexMap map;
  std::vector<int64_t> global = local;
  if (per_rank && c.find("layout")) {
    const program::Layout &layout = c.layout("layout");
    if (layout.kind() == program::Layout::SPLIT) {
      if (layout.dim() < 0 || layout.dim() >= int64_t(global.size()))
        throw c.error("layout dimension " + std::to_string(layout.dim()) +
                      " is outside " + shape_string(global));
      global[layout.dim()] *= comm_.tp_size();
      map = GlobalIndexMap(
          global, SliceSpec::split(global, int(layout.dim()), comm_.tp_rank(),
                                   comm_.tp_size(),
                                   std::max<int64_t>(1, layout.blocks())));
    }
  }
  // Data-parallel ranks hold consecutive sequences of the global batch
  // along the outermost dimension.
  uint64_t n = 1;
  for (int64_t d : global)
    n *= uint64_t(d);
  map.base = uint64_t(comm_.dp_rank()) * n;
  return map;
}

void Executor::op_dropout(const Call &c) {
  double p = c.real("p");
  std::string stream = c.string("stream");
  if (stream != "replicated" && stream != "per_rank")
    throw c.error("unknown stream '" + stream +
                  "' (expected replicated or per_rank)");
  if (!options_.training || p == 0.0) {
    copy(c.out(0), c.in(0));
    return;
  }
  GlobalIndexMap map = dropout_map(c, c.in(0), stream == "per_rank");
  DropoutParams d{float(p), options_.seed, options_.step,
                  uint64_t(c.integer("key"))};
  backend_.dropout_forward(f32(c.out(0)), nullptr, f32(c.in(0)),
                           elements(c.in(0)), d, map);
}

void Executor::op_add(const Call &c) {
  expect_shape(shape(c.in(1)), shape(c.in(0)), c, "the right operand");
  backend_.residual_forward(f32(c.out(0)), f32(c.in(0)), f32(c.in(1)),
                            elements(c.in(0)));
}

void Executor::op_scale(const Call &c) {
  backend_.scale_forward(f32(c.out(0)), f32(c.in(0)), float(c.real("factor")),
                         elements(c.in(0)));
}

// out = sum_i alpha[i] * x_i.
void Executor::op_weighted_sum(const Call &c) {
  int k = c.num_inputs() - 1;
  expect_shape(shape(c.in(0)), {k}, c, "alpha");
  std::vector<const float *> xs;
  for (int i = 1; i <= k; ++i) {
    expect_shape(shape(c.in(i)), shape(c.in(1)), c, "a combined input");
    xs.push_back(f32(c.in(i)));
  }
  backend_.weighted_sum_forward(f32(c.out(0)), xs.data(), f32(c.in(0)), k,
                                elements(c.in(1)));
}

void Executor::write_loss(const Call &c, const float *totals) {
  float host[2];
  backend_.synchronize();
  backend_.copy_device_to_host(host, totals, sizeof(host));
  int32_t count = int32_t(std::lround(host[1]));
  backend_.copy_host_to_device(ptrs_[c.out(0)], &host[0], sizeof(float));
  backend_.copy_host_to_device(ptrs_[c.out(1)], &count, sizeof(count));
}

// logits (N,V), targets (N) -> loss sum, target count.
void Executor::op_cross_entropy(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  if (elements(c.in(1)) != uint64_t(r.N))
    throw c.error("targets " + shape_string(shape(c.in(1))) +
                  " do not match logits " + shape_string(shape(c.in(0))));
  float *losses = scratch(0, r.N), *totals = scratch(1, 2);
  backend_.zero(totals, 2 * sizeof(float));
  try {
    backend_.crossentropy_forward(losses, totals, f32(c.in(0)), i32(c.in(1)),
                                  r.N, r.C, r.C,
                                  int(c.integer("ignore_index")));
  } catch (const std::invalid_argument &e) {
    throw c.error(e.what());
  }
  write_loss(c, totals);
}

// Megatron's vocabulary-parallel cross-entropy: logits (N,Vl) are columns
// [tp_rank*Vl, (tp_rank+1)*Vl) of the padded vocabulary; only N values per
// phase cross the TP group.
void Executor::op_vocab_parallel_cross_entropy(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  int V = checked_int(c.integer("vocab_size"), c, "vocab_size");
  if (int64_t(r.C) * comm_.tp_size() < V)
    throw c.error("vocab " + std::to_string(V) + " exceeds the " +
                  std::to_string(int64_t(r.C) * comm_.tp_size()) +
                  " columns of the tp group's logits");
  if (elements(c.in(1)) != uint64_t(r.N))
    throw c.error("targets " + shape_string(shape(c.in(1))) +
                  " do not match logits " + shape_string(shape(c.in(0))));
  int vstart = comm_.tp_rank() * r.C;
  int ignore = int(c.integer("ignore_index"));
  float *row_max = scratch(0, r.N);
  float *sums = scratch(1, 2 * size_t(r.N)); // sumexp | target logit
  float *losses = scratch(2, r.N), *totals = scratch(3, 2);
  backend_.vocab_parallel_ce_max(row_max, f32(c.in(0)), r.N, r.C, vstart, V);
  backend_.synchronize();
  comm_.all_reduce(row_max, r.N, ReduceOp::Max, Group::TP);
  backend_.vocab_parallel_ce_sumexp(sums, sums + r.N, f32(c.in(0)),
                                    i32(c.in(1)), row_max, r.N, r.C, vstart, V,
                                    ignore);
  backend_.synchronize();
  comm_.all_reduce(sums, 2 * size_t(r.N), ReduceOp::Sum, Group::TP);
  backend_.zero(totals, 2 * sizeof(float));
  backend_.vocab_parallel_ce_loss(losses, totals, sums, sums + r.N, row_max,
                                  i32(c.in(1)), r.N, ignore);
  write_loss(c, totals);
}

// f: identity forward (its all-reduce is in the backward pass).
void Executor::op_f(const Call &c) {
  c.group();
  copy(c.out(0), c.in(0));
}

// g: all-reduce (sum) forward.
void Executor::op_g(const Call &c) {
  Group group = c.group();
  copy(c.out(0), c.in(0));
  backend_.synchronize();
  comm_.all_reduce(f32(c.out(0)), elements(c.out(0)), ReduceOp::Sum, group);
}

void Executor::op_all_reduce(const Call &c) {
  Group group = c.group();
  std::string reduce = c.string("reduce");
  if (reduce != "sum" && reduce != "max")
    throw c.error("unknown reduction '" + reduce + "' (expected sum or max)");
  ReduceOp op = reduce == "sum" ? ReduceOp::Sum : ReduceOp::Max;
  copy(c.out(0), c.in(0));
  backend_.synchronize();
  if (tensor(c.out(0)).dtype() == program::I32)
    comm_.all_reduce(reinterpret_cast<int32_t *>(i32(c.out(0))),
                     elements(c.out(0)), op, group);
  else
    comm_.all_reduce(f32(c.out(0)), elements(c.out(0)), op, group);
}

// Concatenates the group's tensors along `dim`.
void Executor::op_all_gather(const Call &c) {
  Group group = c.group();
  auto in = shape(c.in(0));
  int64_t dim = c.integer("dim");
  if (dim < 0 || dim >= int64_t(in.size()))
    throw c.error("dim " + std::to_string(dim) + " is outside " +
                  shape_string(in));
  int parts = comm_.size(group);
  std::vector<int64_t> want = in;
  want[dim] *= parts;
  expect_shape(shape(c.out(0)), want, c, "the result");
  size_t n = elements(c.in(0));
  float *gathered = scratch(0, n * parts);
  backend_.synchronize();
  comm_.all_gather(f32(c.in(0)), gathered, n, group);
  uint64_t outer = 1, chunk = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= uint64_t(in[d]);
  for (size_t d = dim; d < in.size(); ++d)
    chunk *= uint64_t(in[d]);
  for (uint64_t o = 0; o < outer; ++o)
    for (int r = 0; r < parts; ++r)
      backend_.copy_device_to_device(f32(c.out(0)) + (o * parts + r) * chunk,
                                     gathered + uint64_t(r) * n + o * chunk,
                                     chunk * sizeof(float));
}

//===----------------------------------------------------------------------===//
// Backward ops. Backend backward kernels accumulate, so results are zeroed
// first.
//===----------------------------------------------------------------------===//

float Executor::read_scalar(int id) {
  float v = 0.0f;
  backend_.synchronize();
  backend_.copy_device_to_host(&v, ptrs_[id], sizeof(v));
  return v;
}

void Executor::write_scalar(int id, float value) {
  backend_.copy_host_to_device(ptrs_[id], &value, sizeof(value));
}

int Executor::param_of(const Call &c, int operand) const {
  std::string name = c.string("name");
  auto it = param_index_.find(name);
  if (it == param_index_.end())
    throw c.error("names '" + name +
                  "', which is not a parameter of the "
                  "program");
  if (operand >= 0)
    expect_shape(shape(c.in(operand)), slices_[it->second].local_shape, c,
                 "the gradient");
  return it->second;
}

void Executor::zero_gradients() {
  if (grads_)
    backend_.zero(grads_, grad_elements_ * sizeof(float));
}

std::vector<float> Executor::read_gradient(const std::string &name) {
  auto it = param_index_.find(name);
  if (it == param_index_.end())
    throw std::runtime_error("the program has no parameter '" + name + "'");
  if (!grads_)
    throw std::runtime_error("the program has no gradients: it has no "
                             "train_step; compile it with tpc-compile");
  std::vector<float> host(slices_[it->second].local_elements());
  backend_.synchronize();
  backend_.copy_device_to_host(host.data(), grad(it->second),
                               host.size() * sizeof(float));
  return host;
}

void Executor::op_fill(const Call &c) {
  std::vector<float> host(elements(c.out(0)), float(c.real("value")));
  backend_.copy_host_to_device(ptrs_[c.out(0)], host.data(),
                               host.size() * sizeof(float));
}

void Executor::op_accumulate_grad(const Call &c) {
  int param = param_of(c, 0);
  float *g = grad(param);
  backend_.residual_forward(g, g, f32(c.in(0)), elements(c.in(0)));
}

// dtable (Vl,C) = scatter-add of dout (B,T,C) by ids (B,T).
void Executor::op_embedding_grad(const Call &c) {
  auto dout = shape(c.in(0)), ids = shape(c.in(1)), table = shape(c.out(0));
  if (dout.size() != 3 || ids.size() != 2 || table.size() != 2)
    throw c.error("expects dout [B, T, C], ids [B, T] and a [V, C] result");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  expect_shape(dout, {B, T, C}, c, "dout");
  int vlocal = int(table[0]);
  int vstart = c.flag("vocab_parallel") ? comm_.tp_rank() * vlocal : 0;
  backend_.zero(ptrs_[c.out(0)], tensor_bytes(c.out(0)));
  backend_.embedding_backward(f32(c.out(0)), f32(c.in(0)), i32(c.in(1)), B, T,
                              C, vstart, vlocal);
}

// dwpe (P,C): rows t < T sum dout (B,T,C) over the batch.
void Executor::op_position_embedding_grad(const Call &c) {
  auto dout = shape(c.in(0)), table = shape(c.out(0));
  if (dout.size() != 3 || table.size() != 2 || table[1] != dout[2] ||
      table[0] < dout[1])
    throw c.error("expects dout [B, T, C] and a [P >= T, C] result, got " +
                  shape_string(dout) + " and " + shape_string(table));
  backend_.zero(ptrs_[c.out(0)], tensor_bytes(c.out(0)));
  backend_.position_embedding_backward(
      f32(c.out(0)), f32(c.in(0)), int(dout[0]), int(dout[1]), int(dout[2]));
}

// Recomputes the row statistics, then (dx, dgamma, dbeta).
void Executor::op_layernorm_grad(const Call &c) {
  double eps = c.real("epsilon");
  if (std::fabs(eps - 1e-5) > 1e-12)
    throw c.error("epsilon " + std::to_string(eps) +
                  " is not supported: the kernels use GPT-2's 1e-5");
  Rows r = rows_of(shape(c.in(1)), c);
  expect_shape(shape(c.in(0)), shape(c.in(1)), c, "dout");
  expect_shape(shape(c.in(2)), {r.C}, c, "gamma");
  float *normed = scratch(0, size_t(r.N) * r.C);
  float *mean = scratch(1, r.N), *rstd = scratch(2, r.N);
  float *beta = scratch(3, r.C);
  backend_.zero(beta, size_t(r.C) * sizeof(float));
  backend_.layernorm_forward(normed, mean, rstd, f32(c.in(1)), f32(c.in(2)),
                             beta, r.N, r.C);
  for (int i = 0; i < 3; ++i)
    backend_.zero(ptrs_[c.out(i)], tensor_bytes(c.out(i)));
  backend_.layernorm_backward(f32(c.out(0)), f32(c.out(1)), f32(c.out(2)),
                              f32(c.in(0)), f32(c.in(1)), f32(c.in(2)), mean,
                              rstd, r.N, r.C);
}

// (dx, dW[, db]) of out = x . W [+ b]; transposed: W (OC,C).
void Executor::op_linear_grad(const Call &c) {
  Rows r = rows_of(shape(c.in(1)), c);
  auto w = shape(c.in(2));
  bool transposed = c.flag("transposed");
  if (w.size() != 2 || w[transposed ? 1 : 0] != r.C)
    throw c.error("weight " + shape_string(w) + " does not match input width " +
                  std::to_string(r.C));
  int OC = int(w[transposed ? 0 : 1]);
  Rows d = rows_of(shape(c.in(0)), c);
  if (d.N != r.N || d.C != OC)
    throw c.error("dout " + shape_string(shape(c.in(0))) +
                  " does not match the input and weight");
  for (int i = 0; i < c.inst.outputs_size(); ++i)
    backend_.zero(ptrs_[c.out(i)], tensor_bytes(c.out(i)));
  float *dbias = c.inst.outputs_size() == 3 ? f32(c.out(2)) : nullptr;
  if (transposed)
    backend_.matmul_nt_backward(f32(c.out(0)), f32(c.out(1)), dbias,
                                f32(c.in(0)), f32(c.in(1)), f32(c.in(2)), r.N,
                                r.C, OC);
  else
    backend_.matmul_backward(f32(c.out(0)), f32(c.out(1)), dbias, f32(c.in(0)),
                             f32(c.in(1)), f32(c.in(2)), r.N, r.C, OC);
}

// db (C) = ones(N)^T . dout (N,C).
void Executor::op_bias_add_grad(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  expect_shape(shape(c.out(0)), {r.C}, c, "the result");
  backend_.gemm(false, false, 1, r.C, r.N, 1.0f, ones(r.N), r.N, f32(c.in(0)),
                r.C, 0.0f, f32(c.out(0)), r.C);
}

void Executor::op_gelu_grad(const Call &c) {
  expect_shape(shape(c.in(1)), shape(c.in(0)), c, "the input");
  backend_.zero(ptrs_[c.out(0)], tensor_bytes(c.out(0)));
  backend_.gelu_backward(f32(c.out(0)), f32(c.in(1)), f32(c.in(0)),
                         elements(c.in(0)));
}

// (dalpha, dx_1..dx_k) of sum_i alpha[i] * x_i.
void Executor::op_weighted_sum_grad(const Call &c) {
  int k = c.num_inputs() - 2;
  expect_shape(shape(c.in(1)), {k}, c, "alpha");
  std::vector<const float *> xs;
  std::vector<float *> dxs;
  for (int i = 0; i < k; ++i) {
    expect_shape(shape(c.in(2 + i)), shape(c.in(0)), c, "a combined input");
    xs.push_back(f32(c.in(2 + i)));
    dxs.push_back(f32(c.out(1 + i)));
  }
  for (int i = 0; i <= k; ++i)
    backend_.zero(ptrs_[c.out(i)], tensor_bytes(c.out(i)));
  backend_.weighted_sum_backward(dxs.data(), f32(c.out(0)), f32(c.in(0)),
                                 xs.data(), f32(c.in(1)), k, elements(c.in(0)));
}

// dlogits = dloss * (softmax - onehot), zero at ignored targets.
void Executor::op_cross_entropy_grad(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  if (elements(c.in(1)) != uint64_t(r.N))
    throw c.error("targets " + shape_string(shape(c.in(1))) +
                  " do not match logits " + shape_string(shape(c.in(0))));
  float dloss = read_scalar(c.in(2));
  try {
    backend_.crossentropy_backward(f32(c.out(0)), f32(c.in(0)), i32(c.in(1)),
                                   r.N, r.C, r.C, dloss,
                                   int(c.integer("ignore_index")));
  } catch (const std::invalid_argument &e) {
    throw c.error(e.what());
  }
}

// Recomputes the row maximum and sum of exponentials over the tp group.
void Executor::op_vocab_parallel_cross_entropy_grad(const Call &c) {
  Rows r = rows_of(shape(c.in(0)), c);
  int V = checked_int(c.integer("vocab_size"), c, "vocab_size");
  if (int64_t(r.C) * comm_.tp_size() < V)
    throw c.error("vocab " + std::to_string(V) + " exceeds the " +
                  std::to_string(int64_t(r.C) * comm_.tp_size()) +
                  " columns of the tp group's logits");
  if (elements(c.in(1)) != uint64_t(r.N))
    throw c.error("targets " + shape_string(shape(c.in(1))) +
                  " do not match logits " + shape_string(shape(c.in(0))));
  int vstart = comm_.tp_rank() * r.C;
  int ignore = int(c.integer("ignore_index"));
  float dloss = read_scalar(c.in(2));
  float *row_max = scratch(0, r.N);
  float *sums = scratch(1, 2 * size_t(r.N)); // sumexp | target logit
  backend_.vocab_parallel_ce_max(row_max, f32(c.in(0)), r.N, r.C, vstart, V);
  backend_.synchronize();
  comm_.all_reduce(row_max, r.N, ReduceOp::Max, Group::TP);
  backend_.vocab_parallel_ce_sumexp(sums, sums + r.N, f32(c.in(0)),
                                    i32(c.in(1)), row_max, r.N, r.C, vstart, V,
                                    ignore);
  backend_.synchronize();
  comm_.all_reduce(sums, size_t(r.N), ReduceOp::Sum, Group::TP);
  backend_.vocab_parallel_ce_backward(f32(c.out(0)), f32(c.in(0)), i32(c.in(1)),
                                      row_max, sums, r.N, r.C, vstart, V, dloss,
                                      ignore);
}

//===----------------------------------------------------------------------===//
// Optimizer ops
//===----------------------------------------------------------------------===//

// The result aliases the gradient buffer (set up by the constructor).
void Executor::op_get_grad(const Call &c) {
  if (ptrs_[c.out(0)] != grad(param_of(c, -1)))
    throw c.error("does not alias its gradient buffer");
}

// One all-reduce over the contiguous span of consecutive parameters.
void Executor::op_bucket_all_reduce(const Call &c) {
  Group group = c.group();
  std::vector<int> params;
  for (const std::string &name : split_names(c.string("params"))) {
    auto it = param_index_.find(name);
    if (it == param_index_.end())
      throw c.error("names '" + name + "', which is not a parameter");
    params.push_back(it->second);
  }
  std::sort(params.begin(), params.end());
  for (size_t i = 1; i < params.size(); ++i)
    if (params[i] != params[i - 1] + 1)
      throw c.error("lists parameters that are not consecutive in the "
                    "program, so their gradients are not one span");
  size_t begin = grad_offsets_[params.front()];
  size_t end =
      grad_offsets_[params.back()] + slices_[params.back()].local_elements();
  backend_.synchronize();
  comm_.all_reduce(grads_ + begin, end - begin, ReduceOp::Sum, group);
}

void Executor::op_sum_squares(const Call &c) {
  float *out = f32(c.out(0));
  backend_.zero(out, sizeof(float));
  for (int i = 0; i < c.num_inputs(); ++i)
    backend_.sum_of_squares(out, f32(c.in(i)), elements(c.in(i)));
}

// norm = inv_count * sqrt(sum_sq); scale = inv_count * clip coefficient.
void Executor::op_grad_norm(const Call &c) {
  double sum_sq = read_scalar(c.in(0)), inv_count = read_scalar(c.in(1));
  double norm = inv_count * std::sqrt(sum_sq);
  double max_norm = overrides_.max_norm.value_or(
      c.find("max_norm") ? c.real("max_norm") : 0.0);
  double coef = 1.0;
  if (max_norm > 0.0)
    coef = std::min(1.0, max_norm / (norm + 1e-6));
  write_scalar(c.out(0), float(norm));
  write_scalar(c.out(1), float(inv_count * coef));
}

} // namespace tpc
