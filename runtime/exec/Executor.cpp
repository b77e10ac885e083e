//===- Executor.cpp - Interpreter of tpc programs -------------------------===//

#include "runtime/exec/Executor.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/util/Philox.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace tpc {

using program::Attribute;

/// One instruction being checked or run.
struct Executor::Call {
  const program::Function &fn;
  int index;
  const program::Instruction &inst;

  int in(int i) const { return inst.inputs(i); }
  int out(int i) const { return inst.outputs(i); }
  int num_inputs() const { return inst.inputs_size(); }

  std::string where() const {
    return "instruction " + std::to_string(index) + " (" + inst.op() +
           ") of function '" + fn.name() + "'";
  }
  std::runtime_error error(const std::string &what) const {
    return std::runtime_error(where() + ": " + what);
  }

  const Attribute *find(const std::string &name) const {
    auto it = inst.attrs().find(name);
    return it == inst.attrs().end() ? nullptr : &it->second;
  }
  const Attribute &need(const std::string &name) const {
    const Attribute *a = find(name);
    if (!a)
      throw error("has no attribute '" + name +
                  "'; recompile the model with tpc-compile");
    return *a;
  }
  int64_t integer(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() != Attribute::kI)
      throw error("attribute '" + name + "' is not an integer");
    return a.i();
  }
  std::optional<int64_t> optional_integer(const std::string &name) const {
    if (!find(name))
      return std::nullopt;
    return integer(name);
  }
  double real(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() == Attribute::kI)
      return double(a.i());
    if (a.value_case() != Attribute::kF)
      throw error("attribute '" + name + "' is not a number");
    return a.f();
  }
  std::string string(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() != Attribute::kS)
      throw error("attribute '" + name + "' is not a string");
    return a.s();
  }
  /// Unit attributes: present means true.
  bool flag(const std::string &name) const {
    const Attribute *a = find(name);
    if (!a)
      return false;
    if (a->value_case() != Attribute::kFlag)
      throw error("attribute '" + name + "' is not a flag");
    return a->flag();
  }
  const program::Layout &layout(const std::string &name) const {
    const Attribute &a = need(name);
    if (a.value_case() != Attribute::kLayout)
      throw error("attribute '" + name + "' is not a layout");
    return a.layout();
  }
  Group group() const {
    std::string name = string("group");
    try {
      return parse_group(name);
    } catch (const std::runtime_error &e) {
      throw error(e.what());
    }
  }
};

namespace {
/// What an op needs: operand counts (max_inputs < 0: variadic), results,
/// the attributes that must be present and their kinds (i: integer, f:
/// number, s: string, l: layout).
struct OpDef {
  Executor::Handler handler;
  int min_inputs, max_inputs, outputs;
  std::vector<std::pair<const char *, char>> attrs;
};

const std::map<std::string, OpDef> &op_table() {
  using E = Executor;
  static const std::map<std::string, OpDef> table = {
      {"embedding", {&E::op_embedding, 2, 2, 1, {}}},
      {"position_embedding", {&E::op_position_embedding, 2, 2, 1, {}}},
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

int checked_int(int64_t v, const Executor::Call &c, const char *what) {
  if (v < 0 || v > INT32_MAX)
    throw c.error(std::string(what) + " = " + std::to_string(v) +
                  " is out of range");
  return int(v);
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
  for (const program::Parameter &p : program_.parameters())
    slices_.push_back(param_slice(p, program_.tensors(p.tensor()),
                                  comm_.tp_rank(), comm_.tp_size()));
}

Executor::~Executor() {
  for (void *p : owned_)
    backend_.free(p);
  for (auto &[p, n] : scratch_)
    if (p)
      backend_.free(p);
  if (ones_)
    backend_.free(ones_);
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

void Executor::load_checkpoint(const std::string &path) {
  SafetensorsReader file(path);
  for (int i = 0; i < program_.parameters_size(); ++i) {
    const program::Parameter &p = program_.parameters(i);
    std::vector<float> host(slices_[i].local_elements());
    load_parameter(file, p, slices_[i], host.data());
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

void Executor::save_checkpoint(const std::string &path) {
  // The ranks of DP group 0 hold every slice; world rank 0 is its TP rank 0.
  bool gathers = comm_.dp_rank() == 0;
  bool writes = comm_.world_rank() == 0;
  std::vector<std::vector<float>> globals;
  SafetensorsWriter writer;
  for (int i = 0; i < program_.parameters_size() && gathers; ++i) {
    const program::Parameter &p = program_.parameters(i);
    std::vector<float> local = read_parameter(p.name());
    std::vector<float> all(writes ? local.size() * comm_.tp_size() : 0);
    comm_.gather(local.data(), writes ? all.data() : nullptr, local.size(),
                 Group::TP);
    if (!writes)
      continue;
    globals.push_back(assemble_parameter(p, program_.tensors(p.tensor()),
                                         comm_.tp_size(), all.data()));
    writer.add_f32(checkpoint_name(p.name()), slices_[i].unpadded_shape,
                   globals.back().data());
  }
  std::string error;
  if (writes) {
    writer.set_metadata("format", "pt");
    writer.set_metadata("tpc.source", program_.source());
    try {
      writer.write(path);
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  if (!comm_.all_ok(error.empty()))
    throw std::runtime_error(error.empty() ? "rank 0 could not write " + path
                                           : error);
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
    if (c.inst.outputs_size() != def.outputs)
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

namespace {
struct Rows {
  int N, C; // N rows of C: a tensor [..., C]
};

Rows rows_of(const std::vector<int64_t> &shape, const Executor::Call &c) {
  if (shape.empty())
    throw c.error("expects a tensor of rank >= 1");
  int64_t n = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    n *= shape[d];
  return {checked_int(n, c, "rows"), checked_int(shape.back(), c, "columns")};
}

void expect_shape(const std::vector<int64_t> &got,
                  const std::vector<int64_t> &want, const Executor::Call &c,
                  const char *what) {
  if (got != want)
    throw c.error(std::string(what) + " has shape " + shape_string(got) +
                  ", expected " + shape_string(want));
}
} // namespace

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

// out (B,T,C) = wpe[t]; wpe (P,C) with P >= T.
void Executor::op_position_embedding(const Call &c) {
  auto table = shape(c.in(0)), ids = shape(c.in(1));
  if (table.size() != 2 || ids.size() != 2)
    throw c.error("expects table [P, C] and ids [B, T]");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  if (T > table[0])
    throw c.error("sequence length " + std::to_string(T) + " exceeds the " +
                  std::to_string(table[0]) + " positions of the table");
  float *out = f32(c.out(0));
  backend_.zero(out, size_t(B) * T * C * sizeof(float));
  backend_.position_embedding_forward(out, out, f32(c.in(0)), B, T, C);
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

namespace {
AttentionConfig attention_config(const Executor::Call &c,
                                 const std::vector<int64_t> &query, int width,
                                 int tp_rank, int tp, int dp_rank,
                                 const RunOptions &options) {
  if (query.size() != 3)
    throw c.error("expects [B, T, C] operands");
  AttentionConfig cfg;
  cfg.B = int(query[0]);
  cfg.T = int(query[1]);
  cfg.NH = checked_int(c.integer("heads"), c, "heads");
  if (cfg.NH == 0 || width % cfg.NH != 0)
    throw c.error("width " + std::to_string(width) +
                  " is not a multiple of heads " + std::to_string(cfg.NH));
  cfg.HS = width / cfg.NH;
  cfg.window = int(c.optional_integer("window").value_or(0));
  if (options.training)
    cfg.dropout = DropoutParams{float(c.real("dropout")), options.seed,
                                options.step, uint64_t(c.integer("key"))};
  if (c.flag("head_parallel")) {
    cfg.head_offset = tp_rank * cfg.NH;
    cfg.nh_global = cfg.NH * tp;
  }
  cfg.batch_offset = dp_rank * cfg.B;
  return cfg;
}
} // namespace

// qkv (B,T,3C) -> out (B,T,C).
void Executor::op_self_attention(const Call &c) {
  auto qkv = shape(c.in(0));
  if (qkv.size() != 3 || qkv[2] % 3 != 0)
    throw c.error("expects qkv [B, T, 3C], got " + shape_string(qkv));
  AttentionConfig cfg =
      attention_config(c, qkv, int(qkv[2] / 3), comm_.tp_rank(),
                       comm_.tp_size(), comm_.dp_rank(), options_);
  cfg.mask =
      c.flag("causal") ? AttentionMask::Causal : AttentionMask::Bidirectional;
  float *att = scratch(0, size_t(cfg.B) * cfg.NH * cfg.T * cfg.T);
  backend_.attention_forward(f32(c.out(0)), att, f32(c.in(0)), cfg);
}

// q (B,T,C), kv (B,T,2C) -> out (B,T,C); keys at strictly earlier positions.
void Executor::op_cross_attention(const Call &c) {
  auto q = shape(c.in(0));
  AttentionConfig cfg =
      attention_config(c, q, int(q.back()), comm_.tp_rank(), comm_.tp_size(),
                       comm_.dp_rank(), options_);
  expect_shape(shape(c.in(1)), {q[0], q[1], 2 * q[2]}, c, "kv");
  cfg.mask = AttentionMask::StrictlyEarlier;
  float *att = scratch(0, size_t(cfg.B) * cfg.NH * cfg.T * cfg.T);
  backend_.cross_attention_forward(f32(c.out(0)), att, f32(c.in(0)),
                                   f32(c.in(1)), cfg);
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
  GlobalIndexMap map;
  if (stream == "per_rank" && c.find("layout")) {
    const program::Layout &layout = c.layout("layout");
    if (layout.kind() == program::Layout::SPLIT) {
      std::vector<int64_t> global = shape(c.in(0));
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

} // namespace tpc
