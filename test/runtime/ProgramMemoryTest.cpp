//===- ProgramMemoryTest.cpp - The memory one rank of a program needs -----===//

#include "runtime/program/ProgramMemory.h"
#include "runtime/program/ProgramTypes.h"

#include <gtest/gtest.h>

#include <string>

using namespace tpc;

namespace {
/// A parameter tensor of `rows` x `cols` elements of `dtype`.
void addParameter(program::Program &prog, const std::string &name,
                  program::DType dtype, int64_t rows, int64_t cols,
                  program::DType master, program::DType grad) {
  auto *t = prog.add_tensors();
  t->set_id(prog.tensors_size() - 1);
  t->set_name(name);
  t->set_dtype(dtype);
  t->add_shape(rows);
  t->add_shape(cols);
  t->set_storage(program::Tensor::PARAMETER);
  auto *p = prog.add_parameters();
  p->set_name(name);
  p->set_tensor(t->id());
  p->set_master_dtype(master);
  p->set_grad_dtype(grad);
}

program::Program twoParameters() {
  program::Program prog;
  prog.set_tp(2);
  prog.set_dp(4);
  prog.set_micro_batch(8);
  prog.set_seq(64);
  // 12 f32 elements with f32 gradients, 100 bf16 ones with an f32 master
  // and gradients of their own type.
  addParameter(prog, "w", program::F32, 3, 4, program::DTYPE_UNSPECIFIED,
               program::DTYPE_UNSPECIFIED);
  addParameter(prog, "e", program::BF16, 10, 10, program::F32,
               program::DTYPE_UNSPECIFIED);
  prog.add_functions()->set_arena_bytes(3 << 20);
  prog.add_functions()->set_arena_bytes(1 << 20);
  return prog;
}
} // namespace

TEST(ProgramMemory, CountsEachKindOfBuffer) {
  ProgramMemory m = memory_of(twoParameters());
  EXPECT_EQ(m.parameters, 12 * 4 + 100 * 2 + 100 * 4);
  EXPECT_EQ(m.gradients, 12 * 4 + 100 * 2);
  EXPECT_EQ(m.optimizer_state, (12 + 100) * 8);
  // The entry points share one arena, of the largest one's size.
  EXPECT_EQ(m.arena, 3 << 20);
  EXPECT_EQ(m.total(),
            m.parameters + m.gradients + m.optimizer_state + m.arena);
}

TEST(ProgramMemory, GradientsOfTheirOwnType) {
  program::Program prog;
  addParameter(prog, "h", program::F16, 2, 8, program::F32, program::F32);
  ProgramMemory m = memory_of(prog);
  EXPECT_EQ(m.parameters, 16 * 2 + 16 * 4);
  EXPECT_EQ(m.gradients, 16 * 4);
  EXPECT_EQ(m.arena, 0);
}

TEST(ProgramMemory, OutOfMemoryMessage) {
  EXPECT_EQ(describe_memory_need(twoParameters()),
            "out of memory: one rank of this program (tp 2, dp 4, micro-batch "
            "8, seq 64) allocates an arena of 3.0 MiB and parameters of 648 "
            "bytes (four times that with gradients and AdamW state); compile "
            "with a smaller --micro-batch or --seq, or a larger --tp "
            "(tpc-compile --report shows the memory per rank)");
}

TEST(ProgramTypes, TensorBytes) {
  program::Tensor t;
  t.set_dtype(program::BF16);
  t.add_shape(3);
  t.add_shape(5);
  EXPECT_EQ(tensor_bytes(t), 30);
  EXPECT_EQ(tensor_bytes(t.shape(), program::F32), 60);
  EXPECT_EQ(tensor_bytes(t.shape(), program::DTYPE_UNSPECIFIED), -1);
  t.add_shape(int64_t(1) << 61);
  EXPECT_EQ(tensor_bytes(t), -1) << "a size past 62 bits is a damaged shape";
  t.set_shape(2, -1);
  EXPECT_EQ(tensor_bytes(t), -1);
}
