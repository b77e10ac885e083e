//===- PoolerOpsExecTest.cpp - BERT's pooler and loss weight ops ----------===//
//
// The handlers of select_position (token 0 of each row) and its grad, tanh
// and tanh_grad, and scale_by (a run-time scalar) through the executor:
// values against plain loops, and a position past the sequence refused
// naming the instruction.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/program/OpSchema.h"
#include "runtime/program/ProgramValidate.h"

#include <cmath>

using namespace tpc;

namespace {
const int B = 3, T = 4, C = 5;

struct PoolerProgram {
  program::Program prog;
  int64_t offset = 0;

  int tensor(std::vector<int64_t> shape, program::Tensor::Storage storage) {
    program::Tensor *t = prog.add_tensors();
    t->set_id(prog.tensors_size() - 1);
    t->set_name("t" + std::to_string(t->id()));
    t->set_dtype(program::F32);
    int64_t n = 1;
    for (int64_t d : shape) {
      t->add_shape(d);
      n *= d;
    }
    t->set_storage(storage);
    if (storage == program::Tensor::ACTIVATION) {
      t->set_offset(offset);
      offset += (n * 4 + 63) / 64 * 64;
    }
    return t->id();
  }

  program::Instruction *op(program::Function *fn, const char *name,
                           std::vector<int> in, int out) {
    program::Instruction *i = fn->add_body();
    i->set_op(name);
    for (int x : in)
      i->add_inputs(x);
    i->add_outputs(out);
    return i;
  }

  /// forward(h [B,T,C], d [B,1,C], s, w) -> (select_position(h, position),
  /// select_position_grad(d, h, position), tanh(d), tanh_grad(d, tanh(d)),
  /// scale_by(s, w)).
  explicit PoolerProgram(int64_t position = 0) {
    prog.set_version(1);
    prog.set_tp(1);
    prog.set_dp(1);
    program::Function *fn = prog.add_functions();
    fn->set_name("forward");
    int h = tensor({B, T, C}, program::Tensor::INPUT),
        d = tensor({B, 1, C}, program::Tensor::INPUT),
        s = tensor({}, program::Tensor::INPUT),
        w = tensor({}, program::Tensor::INPUT);
    for (int in : {h, d, s, w})
      fn->add_inputs(in);
    int first = tensor({B, 1, C}, program::Tensor::ACTIVATION),
        dh = tensor({B, T, C}, program::Tensor::ACTIVATION),
        y = tensor({B, 1, C}, program::Tensor::ACTIVATION),
        dy = tensor({B, 1, C}, program::Tensor::ACTIVATION),
        ws = tensor({}, program::Tensor::ACTIVATION);
    (*op(fn, op::kSelectPosition, {h}, first)->mutable_attrs())["position"]
        .set_i(position);
    (*op(fn, op::kSelectPositionGrad, {d, h}, dh)->mutable_attrs())["position"]
        .set_i(position);
    op(fn, op::kTanh, {d}, y);
    op(fn, op::kTanhGrad, {d, y}, dy);
    op(fn, op::kScaleBy, {s, w}, ws);
    for (int out : {first, dh, y, dy, ws})
      fn->add_outputs(out);
    fn->set_arena_bytes(offset);
  }
};

struct Job {
  std::unique_ptr<Backend> backend = make_backend("cpu");
  Comm comm{nullptr, nullptr};
  Job() { comm.make_groups(1, 1); }
};

std::vector<float> output(Executor &ex, const program::Function &fn, int i,
                          size_t n) {
  std::vector<float> v(n);
  ex.read_output(fn, i, v.data(), n * sizeof(float));
  return v;
}
} // namespace

TEST(PoolerOpsExec, SelectTanhAndScaleBy) {
  for (int64_t position : {0, T - 1}) {
    PoolerProgram p(position);
    ASSERT_EQ(validate_program(p.prog), "");
    Job job;
    Executor ex(p.prog, *job.backend, job.comm);
    const program::Function &fn = ex.function("forward");
    ex.check(fn);
    size_t n = size_t(B) * T * C, m = size_t(B) * C;
    std::vector<float> h = test::random_vector(n, 1),
                       d = test::random_vector(m, 2);
    float s = 3.5f, w = 0.25f;
    ex.set_input(fn, 0, h.data(), n * sizeof(float));
    ex.set_input(fn, 1, d.data(), m * sizeof(float));
    ex.set_input(fn, 2, &s, sizeof(s));
    ex.set_input(fn, 3, &w, sizeof(w));
    // Twice: select_position_grad zeroes what it does not write.
    for (int run = 0; run < 2; ++run) {
      ex.run(fn);
      std::vector<float> first = output(ex, fn, 0, m),
                         dh = output(ex, fn, 1, n), y = output(ex, fn, 2, m),
                         dy = output(ex, fn, 3, m), ws = output(ex, fn, 4, 1);
      for (int b = 0; b < B; ++b)
        for (int t = 0; t < T; ++t)
          for (int c = 0; c < C; ++c) {
            size_t at = (size_t(b) * T + size_t(t)) * C + size_t(c);
            size_t row = size_t(b) * C + size_t(c);
            if (t == position) {
              ASSERT_EQ(first[row], h[at]) << b << " " << c;
            }
            ASSERT_EQ(dh[at], t == position ? d[row] : 0.0f)
                << b << " " << t << " " << c;
          }
      for (size_t i = 0; i < m; ++i) {
        double want = std::tanh(double(d[i]));
        EXPECT_NEAR(y[i], want, 1e-7 * std::max(1.0, std::fabs(want)));
        EXPECT_NEAR(dy[i], d[i] * (1.0 - want * want), 1e-6);
      }
      EXPECT_EQ(ws[0], s * w);
    }
  }
}

TEST(PoolerOpsExec, PositionPastTheSequenceIsNamed) {
  PoolerProgram p(T);
  Job job;
  Executor ex(p.prog, *job.backend, job.comm);
  try {
    ex.check(ex.function("forward"));
    FAIL() << "position " << T << " of " << T << " was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("select_position"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("selects position 4 of 4"),
              std::string::npos)
        << e.what();
  }
}
