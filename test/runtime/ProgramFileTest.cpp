//===- program_file_test.cpp - Program file reader and writer ---*- C++ -*-===//

#include "runtime/program/ProgramFile.h"

#include <gtest/gtest.h>

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
    readProgramFile(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(ProgramFile, RoundTripAndShebang) {
  std::string path = tempPath("roundtrip.tpc");
  ASSERT_EQ(writeProgramFile(path, tinyProgram(), "/usr/bin/env tpc-run"), "");
  EXPECT_EQ(slurp(path).rfind("#!/usr/bin/env tpc-run\nTPCPROG", 0), 0u);
  EXPECT_EQ(access(path.c_str(), X_OK), 0) << "the program must be executable";
  program::Program back = readProgramFile(path);
  EXPECT_EQ(back.tp(), 2);
  ASSERT_EQ(back.functions_size(), 1);
  EXPECT_EQ(back.functions(0).body(0).op(), "gelu");
  std::remove(path.c_str());
}

TEST(ProgramFile, Truncated) {
  std::string path = tempPath("truncated.tpc");
  ASSERT_EQ(writeProgramFile(path, tinyProgram(), "tpc-run"), "");
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
  ASSERT_EQ(writeProgramFile(path, tinyProgram(), "tpc-run"), "");
  std::string bytes = slurp(path);
  size_t payload = bytes.find("TPCPROG") + 16;
  for (size_t i = payload; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(0xff);
  spit(path, bytes);
  EXPECT_NE(readError(path).find("corrupted"), std::string::npos);
  std::remove(path.c_str());
}

TEST(ProgramFile, WrongVersion) {
  std::string path = tempPath("version.tpc");
  program::Program prog = tinyProgram();
  prog.set_version(kProgramVersion + 1);
  ASSERT_EQ(writeProgramFile(path, prog, "tpc-run"), "");
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
  EXPECT_NE(validateProgram(prog).find("reads tensor 7 out of range"),
            std::string::npos);
  prog = tinyProgram();
  prog.mutable_tensors(1)->set_offset(250);
  EXPECT_NE(validateProgram(prog).find("outside the arena"), std::string::npos);
  prog = tinyProgram();
  prog.set_tp(0);
  EXPECT_NE(validateProgram(prog).find("must both be >= 1"), std::string::npos);
  prog = tinyProgram();
  prog.mutable_parameters(0)->set_tensor(1);
  EXPECT_NE(validateProgram(prog).find("does not name a parameter tensor"),
            std::string::npos);
}
