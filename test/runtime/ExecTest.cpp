//===- ExecTest.cpp - Communicators, parameter slices, the executor -------===//

#include "TestUtil.h"

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/exec/Parameters.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/util/Philox.h"

#include <cmath>

using namespace tpc;

namespace {

//===----------------------------------------------------------------------===//
// Comm without MPI
//===----------------------------------------------------------------------===//

TEST(CommTest, SingleProcessNeedsNoLauncher) {
  ASSERT_FALSE(launched_by_mpi()) << "run the unit tests without mpirun";
  Comm comm(nullptr, nullptr);
  EXPECT_FALSE(comm.distributed());
  EXPECT_EQ(comm.world_size(), 1);
  comm.make_groups(1, 1);
  EXPECT_EQ(comm.tp_rank(), 0);
  EXPECT_EQ(comm.dp_size(), 1);
  float x[3] = {1, 2, 3};
  comm.all_reduce(x, 3, ReduceOp::Sum, Group::TP);
  EXPECT_EQ(x[1], 2.0f);
  float y[3] = {};
  comm.all_gather(x, y, 3, Group::DP);
  EXPECT_EQ(y[2], 3.0f);
  EXPECT_TRUE(comm.all_ok(true));
  EXPECT_FALSE(comm.all_ok(false));
}

TEST(CommTest, WrongWorldSizeNamesTheFix) {
  Comm comm(nullptr, nullptr);
  try {
    comm.make_groups(2, 2);
    FAIL() << "a job of 1 cannot hold tp 2 x dp 2";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("tp 2 x dp 2 = 4 ranks"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("mpirun -np 4"), std::string::npos);
  }
}

TEST(CommTest, GroupNames) {
  // Messages name a program's groups as the program spells them.
  EXPECT_STREQ(group_name(Group::TP), enums::group::kTp);
  EXPECT_STREQ(group_name(Group::DP), enums::group::kDp);
  EXPECT_STREQ(group_name(Group::Stack), "stack");
}

//===----------------------------------------------------------------------===//
// Parameter slices
//===----------------------------------------------------------------------===//

/// A parameter as the compiler exports it at tensor-parallel size tp: a
/// vocabulary dimension (pad_dim >= 0) padded to a multiple of 128 * tp.
struct ParamCase {
  std::string name;
  std::vector<int64_t> shape; // unpadded
  int split_dim;              // -1: replicated
  int64_t blocks;
  int pad_dim;
  program::Init::Kind init;
};

std::pair<program::Parameter, program::Tensor> make_param(const ParamCase &c,
                                                          int tp) {
  program::Parameter p;
  p.set_name(c.name);
  p.mutable_init()->set_kind(c.init);
  p.mutable_init()->set_std(0.02);
  std::vector<int64_t> global = c.shape;
  if (c.pad_dim >= 0) {
    int64_t multiple = 128 * tp;
    global[c.pad_dim] =
        (global[c.pad_dim] + multiple - 1) / multiple * multiple;
    p.set_valid_extent(c.shape[c.pad_dim]);
  }
  for (int64_t d : global)
    p.add_global_shape(d);
  program::Tensor t;
  t.set_dtype(program::F32);
  t.set_storage(program::Tensor::PARAMETER);
  std::vector<int64_t> local = global;
  if (c.split_dim >= 0) {
    p.mutable_layout()->set_kind(program::Layout::SPLIT);
    p.mutable_layout()->set_dim(c.split_dim);
    p.mutable_layout()->set_blocks(c.blocks);
    local[c.split_dim] /= tp;
  }
  for (int64_t d : local)
    t.add_shape(d);
  return {p, t};
}

const std::vector<ParamCase> kCases = {
    // wte [V, H]: vocabulary rows, padded and split.
    {"wte", {67, 8}, 0, 1, 0, program::Init::NORMAL},
    // bigram table [V, V] split by columns: padding inside each row would
    // shift every later row's indices if indices were taken in the padded
    // shape.
    {"table", {67, 67}, 1, 1, 1, program::Init::NORMAL},
    // fused QKV: split within each of the 3 blocks.
    {"h.0.attn.c_attn.weight", {8, 24}, 1, 3, -1, program::Init::NORMAL},
    {"h.0.ln_1.weight", {8}, -1, 1, -1, program::Init::ONES},
    {"h.0.mlp.c_fc.bias", {32}, 0, 1, -1, program::Init::ZEROS},
};

std::vector<float> slices_at(const ParamCase &c, int tp, uint64_t seed,
                             bool check_padding) {
  auto [p, t] = make_param(c, tp);
  std::vector<float> all;
  for (int r = 0; r < tp; ++r) {
    ParamSlice s = param_slice(p, t, r, tp);
    std::vector<float> local(s.local_elements());
    init_parameter(local.data(), p, s, seed);
    if (check_padding && s.pad_dim >= 0) {
      // Entries at or beyond the valid extent are zero.
      GlobalIndexMap map(s.global_shape, s.slice);
      uint64_t inner = 1;
      for (size_t d = s.pad_dim + 1; d < s.global_shape.size(); ++d)
        inner *= s.global_shape[d];
      for (size_t i = 0; i < local.size(); ++i) {
        if (int64_t(map(i) / inner % s.global_shape[s.pad_dim]) >=
            c.shape[c.pad_dim]) {
          EXPECT_EQ(local[i], 0.0f) << c.name << " padding at " << i;
        }
      }
    }
    all.insert(all.end(), local.begin(), local.end());
  }
  return assemble_parameter(p, t, tp, all.data());
}

TEST(ParametersTest, InitialValuesDoNotDependOnTp) {
  for (const ParamCase &c : kCases) {
    std::vector<float> one = slices_at(c, 1, 42, true);
    uint64_t n = 1;
    for (int64_t d : c.shape)
      n *= d;
    ASSERT_EQ(one.size(), n) << c.name;
    for (int tp : {2, 4}) {
      std::vector<float> many = slices_at(c, tp, 42, true);
      EXPECT_EQ(one, many) << c.name << " at tp " << tp;
    }
    // The unpadded tensor is what a replicated, unpadded init gives.
    if (c.init == program::Init::NORMAL) {
      std::vector<float> direct(n);
      init_normal(direct.data(), c.shape, SliceSpec::whole(), 42, c.name, 0.0f,
                  0.02f);
      EXPECT_EQ(one, direct) << c.name;
      EXPECT_NE(one, slices_at(c, 1, 43, false)) << c.name;
    }
  }
}

TEST(ParametersTest, CheckpointNamesFollowHuggingFace) {
  EXPECT_EQ(checkpoint_name("wte"), "wte.weight");
  EXPECT_EQ(checkpoint_name("wpe"), "wpe.weight");
  EXPECT_EQ(checkpoint_name("h.0.ln_1.weight"), "h.0.ln_1.weight");
}

TEST(ParametersTest, CheckpointSlicesRoundTrip) {
  std::string path = (test::temp_dir() / "global.safetensors").string();
  // Global tensors under Hugging Face names, wte with the prefix.
  std::vector<std::vector<float>> globals;
  SafetensorsWriter writer;
  for (size_t i = 0; i < kCases.size(); ++i) {
    uint64_t n = 1;
    for (int64_t d : kCases[i].shape)
      n *= d;
    globals.push_back(test::random_vector(n, uint32_t(i + 1)));
    std::string name = checkpoint_name(kCases[i].name);
    writer.add_f32(i == 0 ? "transformer." + name : name, kCases[i].shape,
                   globals.back().data());
  }
  writer.write(path);
  SafetensorsReader file(path);
  for (size_t i = 0; i < kCases.size(); ++i)
    for (int tp : {1, 2, 4}) {
      auto [p, t] = make_param(kCases[i], tp);
      std::vector<float> all;
      for (int r = 0; r < tp; ++r) {
        ParamSlice s = param_slice(p, t, r, tp);
        std::vector<float> local(s.local_elements(), -1.0f);
        load_parameter(file, p, s, local.data());
        all.insert(all.end(), local.begin(), local.end());
      }
      EXPECT_EQ(assemble_parameter(p, t, tp, all.data()), globals[i])
          << kCases[i].name << " at tp " << tp;
    }
}

TEST(ParametersTest, CheckpointErrorsNameTensorAndShape) {
  std::string path = (test::temp_dir() / "wrong.safetensors").string();
  std::vector<float> data(67 * 9);
  SafetensorsWriter writer;
  writer.add_f32("wte.weight", {67, 9}, data.data());
  writer.write(path);
  SafetensorsReader file(path);
  auto [wte, wte_t] = make_param(kCases[0], 2);
  ParamSlice s = param_slice(wte, wte_t, 0, 2);
  std::vector<float> out(s.local_elements());
  try {
    load_parameter(file, wte, s, out.data());
    FAIL() << "the shape differs";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("'wte.weight' has shape [67,9] but "
                                         "parameter 'wte' of this model is "
                                         "[67,8]"),
              std::string::npos)
        << e.what();
  }
  auto [table, table_t] = make_param(kCases[1], 1);
  ParamSlice ts = param_slice(table, table_t, 0, 1);
  std::vector<float> tout(ts.local_elements());
  try {
    load_parameter(file, table, ts, tout.data());
    FAIL() << "the tensor is absent";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("no tensor 'table'"),
              std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[67,67]"), std::string::npos);
  }
}

TEST(ParametersTest, LayoutMustMatchTheLocalShape) {
  auto [p, t] = make_param(kCases[2], 2);
  t.set_shape(1, 24); // not the tp = 2 slice
  EXPECT_THROW(param_slice(p, t, 0, 2), std::runtime_error);
}

//===----------------------------------------------------------------------===//
// Executor
//===----------------------------------------------------------------------===//

/// forward(x [4,8]) -> gelu(x W + b) + x W', with W [8,6], b [6], W' [6,8]
/// transposed.
struct TinyProgram {
  program::Program prog;

  int tensor(const std::string &name, std::vector<int64_t> shape,
             program::Tensor::Storage storage, int64_t offset = -1) {
    program::Tensor *t = prog.add_tensors();
    t->set_id(prog.tensors_size() - 1);
    t->set_name(name);
    t->set_dtype(program::F32);
    for (int64_t d : shape)
      t->add_shape(d);
    t->set_storage(storage);
    t->set_offset(offset);
    return t->id();
  }
  void param(const std::string &name, int id, std::vector<int64_t> shape) {
    program::Parameter *p = prog.add_parameters();
    p->set_name(name);
    p->set_tensor(id);
    p->mutable_init()->set_std(0.5);
    for (int64_t d : shape)
      p->add_global_shape(d);
  }
  static program::Instruction *inst(program::Function *fn,
                                    const std::string &op, std::vector<int> in,
                                    std::vector<int> out) {
    program::Instruction *i = fn->add_body();
    i->set_op(op);
    for (int x : in)
      i->add_inputs(x);
    for (int x : out)
      i->add_outputs(x);
    return i;
  }

  TinyProgram() {
    prog.set_version(1);
    prog.set_tp(1);
    prog.set_dp(1);
    int W = tensor("w", {8, 6}, program::Tensor::PARAMETER);
    int b = tensor("b", {6}, program::Tensor::PARAMETER);
    int V = tensor("v", {8, 6}, program::Tensor::PARAMETER);
    param("w", W, {8, 6});
    param("b", b, {6});
    param("v", V, {8, 6});
    int x = tensor("x", {4, 8}, program::Tensor::INPUT);
    int y = tensor("y", {4, 6}, program::Tensor::ACTIVATION, 0);
    int z = tensor("z", {4, 6}, program::Tensor::ACTIVATION, 128);
    int u = tensor("u", {4, 8}, program::Tensor::ACTIVATION, 256);
    program::Function *fn = prog.add_functions();
    fn->set_name("forward");
    fn->add_inputs(x);
    fn->add_outputs(u);
    fn->set_arena_bytes(512);
    inst(fn, "linear", {x, W, b}, {y});
    inst(fn, "gelu", {y}, {z});
    (*inst(fn, "linear", {z, V}, {u})->mutable_attrs())["transposed"].set_flag(
        true);
  }
};

TEST(ExecutorTest, MatchesDirectKernelCalls) {
  TinyProgram tiny;
  std::unique_ptr<Backend> backend = make_backend("cpu");
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  Executor ex(tiny.prog, *backend, comm);
  ex.init_parameters(5);
  const program::Function &fn = ex.function("forward");
  ex.check(fn);
  std::vector<float> x = test::random_vector(32, 9);
  ex.set_input(fn, 0, x.data(), x.size() * sizeof(float));
  ex.run(fn);
  std::vector<float> got(32);
  ex.read_output(fn, 0, got.data(), got.size() * sizeof(float));

  std::vector<float> W = ex.read_parameter("w"), b = ex.read_parameter("b"),
                     V = ex.read_parameter("v");
  std::vector<float> y(24), z(24), want(32);
  cpu::matmul_forward(y.data(), x.data(), W.data(), b.data(), 4, 8, 6);
  cpu::gelu_forward(z.data(), y.data(), 24);
  cpu::matmul_nt_forward(want.data(), z.data(), V.data(), nullptr, 4, 6, 8);
  EXPECT_EQ(got, want);
  EXPECT_EQ(ex.local_parameter_count(), 48 + 6 + 48);
}

TEST(ExecutorTest, BadInstructionsAreNamed) {
  std::unique_ptr<Backend> backend = make_backend("cpu");
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  {
    // The loader refuses what the op schema refuses (ProgramFileTest); what
    // passes it and is still wrong is named by the op family.
    TinyProgram tiny;
    int s = tiny.tensor("s", {3}, program::Tensor::ACTIVATION, 384);
    (*TinyProgram::inst(tiny.prog.mutable_functions(0), op::kScale, {4}, {s})
          ->mutable_attrs())["factor"]
        .set_f(2.0);
    ASSERT_EQ(validate_program(tiny.prog), "");
    Executor ex(tiny.prog, *backend, comm);
    try {
      ex.check(ex.function("forward"));
      FAIL() << "scale's result has the wrong shape";
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find("instruction 3 (scale) of "
                                           "function 'forward'"),
                std::string::npos)
          << e.what();
    }
    EXPECT_THROW(ex.function("train_step"), std::runtime_error);
  }
  {
    // An attribute name that the op's schema does not declare is refused
    // where it is read, so that a rename in the ODS cannot read as absent.
    TinyProgram tiny;
    Executor ex(tiny.prog, *backend, comm);
    program::Instruction inst = tiny.prog.functions(0).body(1);
    EXPECT_THROW(find_attr(inst, "no_such_attribute"), std::logic_error);
  }
}

} // namespace
