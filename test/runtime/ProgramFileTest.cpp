//===- program_file_test.cpp - Program file reader and writer ---*- C++ -*-===//

#include "runtime/program/ProgramFile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

using namespace tpc;

namespace {
program::Program tinyProgram() {
  program::Program prog;
  prog.set_version(kProgramVersion);
  prog.set_tp(2);
  prog.set_dp(1);
  auto *w = prog.add_tensors();
  w->set_id(0);
  w->set_name("w");
  w->set_dtype(program::F32);
  w->add_shape(4);
  w->set_storage(program::Tensor::PARAMETER);
  w->set_offset(-1);
  auto *x = prog.add_tensors();
  x->set_id(1);
  x->set_name("x");
  x->set_dtype(program::F32);
  x->add_shape(4);
  x->set_storage(program::Tensor::ACTIVATION);
  x->set_offset(0);
  auto *p = prog.add_parameters();
  p->set_name("w");
  p->set_tensor(0);
  p->add_global_shape(8);
  p->mutable_init()->set_std(0.02);
  auto *f = prog.add_functions();
  f->set_name("forward");
  f->set_arena_bytes(256);
  auto *inst = f->add_body();
  inst->set_op("gelu");
  inst->add_inputs(0);
  inst->add_outputs(1);
  f->add_outputs(1);
  return prog;
}

std::string tempPath(const char *name) {
  return std::string(::testing::TempDir()) + name + std::to_string(getpid());
}

std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

void spit(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string readError(const std::string &path) {
  try {
    read_program_file(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(ProgramFile, RoundTripAndShebang) {
  std::string path = tempPath("roundtrip.tpc");
  ASSERT_EQ(write_program_file(path, tinyProgram(), "/usr/bin/env tpc-run"),
            "");
  EXPECT_EQ(slurp(path).rfind("#!/usr/bin/env tpc-run\nTPCPROG", 0), 0u);
  EXPECT_EQ(access(path.c_str(), X_OK), 0) << "the program must be executable";
  program::Program back = read_program_file(path);
  EXPECT_EQ(back.tp(), 2);
  ASSERT_EQ(back.functions_size(), 1);
  EXPECT_EQ(back.functions(0).body(0).op(), "gelu");
  std::remove(path.c_str());
}

TEST(ProgramFile, Truncated) {
  std::string path = tempPath("truncated.tpc");
  ASSERT_EQ(write_program_file(path, tinyProgram(), "tpc-run"), "");
  std::string bytes = slurp(path);
  spit(path, bytes.substr(0, bytes.size() - 5));
  std::string error = readError(path);
  EXPECT_NE(error.find("(truncated)"), std::string::npos) << error;
  EXPECT_NE(error.find("recompile"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(ProgramFile, BadMagic) {
  std::string path = tempPath("magic.tpc");
  spit(path, "#!tpc-run\nNOTAPROGRAM-AT-ALL");
  EXPECT_NE(readError(path).find("not a tpc program"), std::string::npos);
  std::remove(path.c_str());
}

TEST(ProgramFile, CorruptedPayload) {
  std::string path = tempPath("corrupt.tpc");
  ASSERT_EQ(write_program_file(path, tinyProgram(), "tpc-run"), "");
  std::string bytes = slurp(path);
  size_t payload = bytes.find("TPCPROG") + 24;
  for (size_t i = payload; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(0xff);
  spit(path, bytes);
  EXPECT_NE(readError(path).find("the file is corrupt"), std::string::npos);
  std::remove(path.c_str());
}

// One damaged byte in a field (here the op name) must read as a corrupt
// file, not as a complaint about that field.
TEST(ProgramFile, ChecksumCatchesOneDamagedField) {
  std::string path = tempPath("onebyte.tpc");
  ASSERT_EQ(write_program_file(path, tinyProgram(), "tpc-run"), "");
  std::string bytes = slurp(path);
  size_t op = bytes.find("gelu");
  ASSERT_NE(op, std::string::npos);
  bytes[op] = 'h';
  spit(path, bytes);
  std::string error = readError(path);
  EXPECT_NE(error.find("checksum does not match"), std::string::npos) << error;
  EXPECT_NE(error.find("the file is corrupt"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(ProgramFile, FormatOneAsksForARecompile) {
  std::string path = tempPath("format1.tpc");
  std::string payload;
  ASSERT_TRUE(tinyProgram().SerializeToString(&payload));
  std::string le(8, '\0');
  for (int i = 0; i < 8; ++i)
    le[i] = static_cast<char>(payload.size() >> (8 * i));
  spit(path, std::string("#!tpc-run\nTPCPROG") + '\0' + le + payload);
  std::string error = readError(path);
  EXPECT_NE(error.find("format 1"), std::string::npos) << error;
  EXPECT_NE(error.find("recompile"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(ProgramFile, WrongVersion) {
  std::string path = tempPath("version.tpc");
  program::Program prog = tinyProgram();
  prog.set_version(kProgramVersion + 1);
  ASSERT_EQ(write_program_file(path, prog, "tpc-run"), "");
  std::string error = readError(path);
  EXPECT_NE(error.find("format version"), std::string::npos) << error;
  std::remove(path.c_str());
}

TEST(ProgramFile, MissingFile) {
  EXPECT_NE(readError("/nonexistent/model.tpc").find("cannot open"),
            std::string::npos);
}

TEST(ProgramFile, ValidationNamesTheProblem) {
  program::Program prog = tinyProgram();
  prog.mutable_functions(0)->mutable_body(0)->set_inputs(0, 7);
  EXPECT_NE(validate_program(prog).find("reads tensor 7 out of range"),
            std::string::npos);
  prog = tinyProgram();
  prog.mutable_tensors(1)->set_offset(250);
  EXPECT_NE(validate_program(prog).find("outside the arena"),
            std::string::npos);
  prog = tinyProgram();
  prog.mutable_tensors(1)->set_offset(1);
  EXPECT_NE(validate_program(prog).find("not aligned"), std::string::npos);
  // An activation that no function writes still gets an address.
  prog = tinyProgram();
  {
    auto *unused = prog.add_tensors();
    unused->set_id(2);
    unused->set_name("unused");
    unused->set_dtype(program::F32);
    unused->add_shape(4);
    unused->set_storage(program::Tensor::ACTIVATION);
    unused->set_offset(-(int64_t(1) << 52));
  }
  EXPECT_NE(validate_program(prog).find(
                "tensor 2 (unused, 16 bytes at offset -4503599627370496) lies "
                "outside the arena of every function (the largest has 256 "
                "bytes)"),
            std::string::npos)
      << validate_program(prog);
  prog.mutable_tensors(2)->set_offset(256);
  EXPECT_NE(validate_program(prog).find("outside the arena of every function"),
            std::string::npos);
  prog.mutable_tensors(2)->set_offset(240);
  EXPECT_EQ(validate_program(prog), "");
  prog = tinyProgram();
  prog.mutable_tensors(1)->add_shape(int64_t(1) << 62);
  EXPECT_NE(validate_program(prog).find("does not fit"), std::string::npos);
  prog = tinyProgram();
  prog.mutable_tensors(1)->set_storage(
      static_cast<program::Tensor::Storage>(9));
  EXPECT_NE(validate_program(prog).find("storage kind 9"), std::string::npos);
  prog = tinyProgram();
  {
    // cross_entropy(x, targets) -> (sum, count), with a wider ignore_index.
    auto *body = prog.mutable_functions(0)->mutable_body(0);
    body->set_op(op::kCrossEntropy);
    body->clear_inputs();
    body->add_inputs(1);
    body->add_inputs(1);
    body->add_outputs(1);
    (*body->mutable_attrs())["ignore_index"].set_i(-4294967296);
  }
  EXPECT_NE(validate_program(prog).find("ignore_index -4294967296, outside "
                                        "the int32 range"),
            std::string::npos);
  prog = tinyProgram();
  prog.set_tp(0);
  EXPECT_NE(validate_program(prog).find("must both be >= 1"),
            std::string::npos);
  prog = tinyProgram();
  prog.mutable_parameters(0)->set_tensor(1);
  EXPECT_NE(validate_program(prog).find("does not name a parameter tensor"),
            std::string::npos);
}

TEST(ProgramFile, MasterAndGradientTypesFitTheTensor) {
  program::Program prog = tinyProgram();
  prog.mutable_parameters(0)->set_master_dtype(program::F32);
  EXPECT_NE(validate_program(prog).find(
                "parameter w: its tensor is f32 and its master copy f32; "
                "only a bf16 or f16 tensor has a master copy, of f32"),
            std::string::npos);
  prog.mutable_tensors(0)->set_dtype(program::BF16);
  prog.mutable_tensors(1)->set_dtype(program::BF16);
  EXPECT_EQ(validate_program(prog), "");
  prog.mutable_parameters(0)->set_master_dtype(program::F16);
  EXPECT_NE(validate_program(prog).find("and its master copy f16"),
            std::string::npos);
  prog.mutable_parameters(0)->set_master_dtype(program::F32);
  for (program::DType ok : {program::F32, program::BF16}) {
    prog.mutable_parameters(0)->set_grad_dtype(ok);
    EXPECT_EQ(validate_program(prog), "");
  }
  prog.mutable_parameters(0)->set_grad_dtype(program::F16);
  EXPECT_NE(validate_program(prog).find(
                "parameter w: its tensor is bf16 and its gradient f16; a "
                "gradient is of the tensor's type or f32"),
            std::string::npos);
  // A 16-bit parameter without its master: the executor would store fp32
  // values into the 16-bit tensor (found by fuzzing).
  prog.mutable_parameters(0)->clear_grad_dtype();
  prog.mutable_parameters(0)->clear_master_dtype();
  EXPECT_NE(validate_program(prog).find(
                "parameter w is a bf16 tensor without a master copy; a 16-bit "
                "parameter keeps an f32 master"),
            std::string::npos);
}

namespace {
/// tinyProgram with a second gelu reading the first's output and a third
/// reading the second's: x -> y -> z.
program::Program chainProgram(int64_t yOffset, int64_t zOffset) {
  program::Program prog = tinyProgram();
  for (int id : {2, 3}) {
    auto *t = prog.add_tensors();
    t->set_id(id);
    t->set_name(id == 2 ? "y" : "z");
    t->set_dtype(program::F32);
    t->add_shape(4);
    t->set_storage(program::Tensor::ACTIVATION);
    t->set_offset(id == 2 ? yOffset : zOffset);
  }
  auto *f = prog.mutable_functions(0);
  f->clear_outputs();
  for (int id : {2, 3}) {
    auto *inst = f->add_body();
    inst->set_op("gelu");
    inst->add_inputs(id - 1);
    inst->add_outputs(id);
  }
  f->add_outputs(3);
  return prog;
}
} // namespace

TEST(ProgramFile, LiveBuffersMustNotOverlap) {
  // x dies when y is computed, so z may take x's place, not y's.
  EXPECT_EQ(validate_program(chainProgram(16, 0)), "");
  std::string error = validate_program(chainProgram(0, 16));
  EXPECT_NE(error.find("tensor 2 (y) overlaps tensor 1 (x)"), std::string::npos)
      << error;
  error = validate_program(chainProgram(16, 24));
  EXPECT_NE(error.find("tensor 3 (z) overlaps tensor 2 (y)"), std::string::npos)
      << error;
}

TEST(ProgramFile, InPlaceOpsMayTakeTheirDyingOperandsBytes) {
  // y on x's bytes: not for gelu, but for f, g and all_reduce, whose
  // operand dies there (abi::reuses_operand_bytes).
  program::Program prog = chainProgram(0, 16);
  auto *body = prog.mutable_functions(0)->mutable_body(1);
  (*body->mutable_attrs())["group"].set_s(enums::group::kTp);
  for (const char *name : {op::kF, op::kG, op::kAllReduce}) {
    body->set_op(name);
    if (name == op::kAllReduce)
      (*body->mutable_attrs())["reduce"].set_s(enums::reduce_kind::kSum);
    EXPECT_EQ(validate_program(prog), "") << name;
  }
  // Not while a later op still reads the operand.
  auto *last = prog.mutable_functions(0)->mutable_body(2);
  last->set_op("add");
  last->add_inputs(1);
  std::string error = validate_program(prog);
  EXPECT_NE(error.find("tensor 2 (y) overlaps tensor 1 (x)"), std::string::npos)
      << error;
}

TEST(ProgramFile, ReadsOnlyWhatIsDefined) {
  program::Program prog = chainProgram(16, 0);
  // The second instruction reads z, which only the third writes.
  prog.mutable_functions(0)->mutable_body(1)->set_inputs(0, 3);
  std::string error = validate_program(prog);
  EXPECT_NE(error.find("before anything in forward defines it"),
            std::string::npos)
      << error;
  prog = chainProgram(16, 0);
  prog.mutable_functions(0)->mutable_body(2)->set_outputs(0, 2);
  EXPECT_NE(validate_program(prog).find("written by more than one"),
            std::string::npos);
}

// get_grad's result names the parameter's gradient buffer: a GRADIENT
// tensor, outside the arena, which no other op may write and nothing may
// read before get_grad defines it.
TEST(ProgramFile, OnlyGetGradNamesAGradientBuffer) {
  program::Program prog = tinyProgram();
  program::Tensor *g = prog.mutable_tensors(1);
  g->set_storage(program::Tensor::GRADIENT);
  g->set_offset(-1);
  program::Instruction *inst = prog.mutable_functions(0)->mutable_body(0);
  // gelu may not write it.
  std::string error = validate_program(prog);
  EXPECT_NE(error.find("instruction 0 (gelu) of forward writes tensor 1 (x), "
                       "a gradient buffer, which only get_grad names"),
            std::string::npos)
      << error;
  // get_grad may, wherever the arena is.
  inst->set_op("get_grad");
  inst->clear_inputs();
  (*inst->mutable_attrs())["name"].set_s("w");
  EXPECT_EQ(validate_program(prog), "");
  // Reading it first is reading an undefined tensor.
  program::Instruction *early = prog.mutable_functions(0)->add_body();
  *early = *inst;
  early->set_op("gelu");
  early->clear_attrs();
  early->clear_outputs();
  early->add_inputs(1);
  early->add_outputs(1);
  prog.mutable_functions(0)->mutable_body()->SwapElements(0, 1);
  error = validate_program(prog);
  EXPECT_NE(error.find("reads tensor 1 (x) before anything in forward "
                       "defines it"),
            std::string::npos)
      << error;
}

TEST(ProgramFile, InstructionsMatchTheirOpsSchema) {
  // Checked when the program is loaded, for every function, before any of
  // them is prepared.
  program::Program prog = tinyProgram();
  prog.mutable_functions(0)->mutable_body(0)->set_op("softplus");
  EXPECT_NE(validate_program(prog).find("instruction 0 (softplus) of forward "
                                        "is no op of this tpc-run's dialect"),
            std::string::npos)
      << validate_program(prog);

  prog = tinyProgram();
  auto *body = prog.mutable_functions(0)->mutable_body(0);
  body->set_op(op::kAllReduce);
  (*body->mutable_attrs())["group"].set_s(enums::group::kDp);
  EXPECT_NE(validate_program(prog).find("has no attribute 'reduce'"),
            std::string::npos);
  (*body->mutable_attrs())["reduce"].set_i(1);
  EXPECT_NE(validate_program(prog).find("attribute 'reduce' is not a string"),
            std::string::npos);
  // An enum keyword the dialect does not know.
  (*body->mutable_attrs())["reduce"].set_s("mean");
  EXPECT_NE(validate_program(prog).find(
                "instruction 0 (all_reduce) of forward has reduce 'mean', "
                "which is none of 'sum', 'max'"),
            std::string::npos)
      << validate_program(prog);
  (*body->mutable_attrs())["reduce"].set_s(enums::reduce_kind::kMax);
  EXPECT_EQ(validate_program(prog), "");
  (*body->mutable_attrs())["group"].set_s("cp");
  EXPECT_NE(validate_program(prog).find("has group 'cp', which is none of "
                                        "'tp', 'dp', 'pp', 'embedding'"),
            std::string::npos)
      << validate_program(prog);
}

TEST(ProgramFile, ModelFactsAreChecked) {
  program::Program prog = tinyProgram();
  prog.mutable_model()->set_vocab(50257);
  prog.mutable_model()->set_ignore_index(-1);
  prog.mutable_model()->set_decode_capacity(1024);
  prog.mutable_model()->set_optimizer(program::Model::ADAMW);
  prog.mutable_functions(0)->set_logits_output(0);
  EXPECT_EQ(validate_program(prog), "");
  prog.mutable_functions(0)->set_logits_output(1);
  EXPECT_NE(validate_program(prog).find("names output 1 as its logits, but "
                                        "it has 1 outputs"),
            std::string::npos);
  prog.mutable_functions(0)->set_logits_output(0);
  prog.mutable_model()->set_ignore_index(int64_t(1) << 40);
  EXPECT_NE(validate_program(prog).find("the model's facts are out of range"),
            std::string::npos);
  prog.mutable_model()->set_ignore_index(-1);
  prog.mutable_model()->set_optimizer(
      static_cast<program::Model::Optimizer>(7));
  EXPECT_NE(validate_program(prog).find("optimizer 7"), std::string::npos);
}

TEST(OpSchema, AttributesAreReadByTheirSchemaNames) {
  program::Instruction inst;
  inst.set_op(op::kCrossEntropy);
  (*inst.mutable_attrs())["ignore_index"].set_i(-100);
  ASSERT_NE(find_attr(inst, "ignore_index"), nullptr);
  EXPECT_EQ(find_attr(inst, "ignore_index")->i(), -100);
  // A name the op's ODS definition does not declare is a programming error,
  // never an absent attribute.
  EXPECT_THROW(find_attr(inst, "ignore_idx"), std::logic_error);
  (*inst.mutable_attrs())["ignore_idx"].set_i(3);
  EXPECT_THROW(find_attr(inst, "ignore_idx"), std::logic_error);
  inst.clear_attrs();
  EXPECT_EQ(find_attr(inst, "ignore_index"), nullptr);
}

// What the dialect's verifiers allow, checked again when a program is
// loaded, in every function: a damaged apply_step is refused by info and
// eval too, never half a training run later.
TEST(ProgramFile, AttributeRangesAreChecked) {
  program::Program prog = tinyProgram();
  prog.mutable_model()->set_optimizer(program::Model::ADAMW);
  auto *apply = prog.add_functions();
  apply->set_name("apply_step");
  for (int id : {2, 3, 4}) {
    auto *t = prog.add_tensors();
    t->set_id(id);
    t->set_name("in" + std::to_string(id));
    t->set_dtype(program::F32);
    t->set_storage(program::Tensor::INPUT);
    t->set_offset(-1);
    apply->add_inputs(id);
  }
  auto *update = apply->add_body();
  update->set_op(op::kAdamwUpdate);
  for (int id : {2, 3, 4})
    update->add_inputs(id);
  auto &attrs = *update->mutable_attrs();
  attrs["name"].set_s("w");
  attrs["beta1"].set_f(0.9);
  attrs["beta2"].set_f(0.95);
  attrs["eps"].set_f(1e-8);
  attrs["weight_decay"].set_f(0.1);
  ASSERT_EQ(validate_program(prog), "");
  attrs["eps"].set_f(0.0);
  EXPECT_NE(validate_program(prog).find(
                "instruction 0 (adamw_update) of apply_step has eps 0, which "
                "must be a finite number > 0 (1e-8 is usual)"),
            std::string::npos)
      << validate_program(prog);
  attrs["eps"].set_f(std::nan(""));
  EXPECT_NE(validate_program(prog).find("has eps nan"), std::string::npos);
  attrs["eps"].set_f(1e-8);
  attrs["beta2"].set_f(1.0);
  EXPECT_NE(validate_program(prog).find("has beta2 1, which must be in [0, 1)"),
            std::string::npos)
      << validate_program(prog);
  attrs["beta2"].set_f(0.95);
  attrs["beta1"].set_f(-0.5);
  EXPECT_NE(validate_program(prog).find("has beta1 -0.5"), std::string::npos);
  attrs["beta1"].set_f(0.9);
  // An update of a name that is no parameter, and of the other optimizer.
  attrs["name"].set_s("v");
  EXPECT_NE(validate_program(prog).find(
                "instruction 0 (adamw_update) of apply_step names 'v', which "
                "is no parameter of the program"),
            std::string::npos);
  attrs["name"].set_s("w");
  prog.mutable_model()->set_optimizer(program::Model::SGD);
  EXPECT_NE(validate_program(prog).find("is not an update of the program's "
                                        "optimizer (SGD)"),
            std::string::npos)
      << validate_program(prog);
  prog.mutable_model()->set_optimizer(program::Model::ADAMW);
  ASSERT_EQ(validate_program(prog), "");

  // Every parameter with a gradient is updated exactly once.
  auto *acc = prog.mutable_functions(0)->add_body();
  acc->set_op(op::kAccumulateGrad);
  acc->add_inputs(1);
  (*acc->mutable_attrs())["name"].set_s("w");
  EXPECT_EQ(validate_program(prog), "");
  *apply->add_body() = *update;
  EXPECT_NE(validate_program(prog).find("parameter 'w' has a gradient but "
                                        "apply_step updates it 2 times"),
            std::string::npos)
      << validate_program(prog);
  apply->clear_body();
  EXPECT_NE(validate_program(prog).find("parameter 'w' has a gradient but "
                                        "apply_step never updates it"),
            std::string::npos);
}

TEST(ProgramFile, ForwardAttributeRangesAndInitAreChecked) {
  program::Program prog = tinyProgram();
  auto *inst = prog.mutable_functions(0)->mutable_body(0);
  inst->set_op(op::kDropout);
  auto &attrs = *inst->mutable_attrs();
  attrs["p"].set_f(0.1);
  attrs["stream"].set_s(enums::rng_stream::kReplicated);
  attrs["key"].set_i(1);
  ASSERT_EQ(validate_program(prog), "") << validate_program(prog);
  attrs["p"].set_f(1.0);
  EXPECT_NE(validate_program(prog).find("has p 1, which must be in [0, 1)"),
            std::string::npos)
      << validate_program(prog);
  // A rope theta that is not a number, and rope_dims without a theta.
  inst->set_op(op::kSelfAttention);
  attrs.clear();
  attrs["heads"].set_i(2);
  attrs["rope_theta"].set_f(std::nan(""));
  attrs["rope_dims"].set_i(0);
  attrs["dropout"].set_f(0.0);
  attrs["key"].set_i(1);
  EXPECT_NE(validate_program(prog).find(
                "instruction 0 (self_attention) of forward has rope_theta "
                "nan, which must be a finite number >= 0"),
            std::string::npos)
      << validate_program(prog);
  attrs["rope_theta"].set_f(0.0);
  attrs["rope_dims"].set_i(4);
  EXPECT_NE(validate_program(prog).find("has rope_dims 4 with rope theta 0"),
            std::string::npos)
      << validate_program(prog);
  prog = tinyProgram();
  prog.mutable_parameters(0)->mutable_init()->set_std(-0.02);
  EXPECT_NE(validate_program(prog).find(
                "parameter w has initializer kind 0 with std -0.02; a normal "
                "initializer needs a finite std > 0"),
            std::string::npos)
      << validate_program(prog);
  prog.mutable_parameters(0)->mutable_init()->set_kind(program::Init::ZEROS);
  prog.mutable_parameters(0)->mutable_init()->set_std(0.0);
  EXPECT_EQ(validate_program(prog), "");
}
