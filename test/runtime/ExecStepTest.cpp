//===- ExecStepTest.cpp - A training step reads nothing back --------------===//
//
// A tied-embedding bigram model as a program: train_step (embedding, tied
// logits, cross-entropy and their gradients) and apply_step (gradient norm,
// clipping scale, AdamW). Running both must not copy anything from the
// device nor wait for it: the loss adjoint, learning rate, gradient scale
// and optimizer step stay on the device. The loss must still go down.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/CpuBackend.h"
#include "runtime/exec/Executor.h"
#include "runtime/util/Float16.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tpc;

namespace {

/// The CPU device, counting what would make a GPU wait.
class CountingDevice final : public Device {
public:
  explicit CountingDevice(Device &inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  void *alloc(size_t bytes) override {
    ++live;
    return inner_.alloc(bytes);
  }
  void free(void *ptr) override {
    --live;
    inner_.free(ptr);
  }
  void copy_host_to_device(void *dst, const void *src, size_t bytes) override {
    inner_.copy_host_to_device(dst, src, bytes);
  }
  void copy_device_to_host(void *dst, const void *src, size_t bytes) override {
    ++reads;
    inner_.copy_device_to_host(dst, src, bytes);
  }
  void copy_device_to_device(void *dst, const void *src,
                             size_t bytes) override {
    inner_.copy_device_to_device(dst, src, bytes);
  }
  void zero(void *ptr, size_t bytes) override { inner_.zero(ptr, bytes); }
  void synchronize() override {
    ++waits;
    inner_.synchronize();
  }
  Event create_event() override { return inner_.create_event(); }
  void destroy_event(Event e) override { inner_.destroy_event(e); }
  void record(Event e, Stream s) override { inner_.record(e, s); }
  void wait(Stream s, Event e) override { inner_.wait(s, e); }

  int reads = 0, waits = 0;
  int live = 0; // buffers allocated and not yet freed

private:
  Device &inner_;
};

class CountingBackend final : public Backend {
public:
  std::string name() const override { return cpu_.name(); }
  Device &device() override { return device_; }
  const Kernels *kernels(ElementType t) const override {
    return cpu_.kernels(t);
  }
  CountingDevice &counter() { return device_; }

private:
  CpuBackend cpu_;
  CountingDevice device_{cpu_.device()};
};

struct Builder {
  program::Program prog;
  int64_t offset = 0;

  int tensor(std::vector<int64_t> shape, program::DType dtype,
             program::Tensor::Storage storage) {
    program::Tensor *t = prog.add_tensors();
    t->set_id(prog.tensors_size() - 1);
    t->set_name("t" + std::to_string(t->id()));
    t->set_dtype(dtype);
    for (int64_t d : shape)
      t->add_shape(d);
    t->set_storage(storage);
    t->set_offset(-1);
    if (storage == program::Tensor::ACTIVATION) {
      t->set_offset(offset);
      int64_t n = 4;
      for (int64_t d : shape)
        n *= d;
      offset += (n + 63) / 64 * 64;
    }
    return t->id();
  }
  int act(std::vector<int64_t> shape, program::DType d = program::F32) {
    return tensor(std::move(shape), d, program::Tensor::ACTIVATION);
  }
  int input(std::vector<int64_t> shape, program::DType d = program::F32) {
    return tensor(std::move(shape), d, program::Tensor::INPUT);
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
};

constexpr int B = 2, T = 7, C = 12, V = 13;

/// `dt`: the compute type. A 16-bit program keeps an f32 master of wte and
/// a gradient of `grad`; losses, norms and the loss adjoint stay f32.
program::Program bigram_program(program::DType dt = program::F32,
                                program::DType grad = program::F32) {
  Builder b;
  program::Program &p = b.prog;
  p.set_version(1);
  p.set_tp(1);
  p.set_dp(1);
  int wte = b.tensor({V, C}, dt, program::Tensor::PARAMETER);
  program::Parameter *param = p.add_parameters();
  param->set_name("wte");
  param->set_tensor(wte);
  if (dt != program::F32)
    param->set_master_dtype(program::F32);
  param->set_grad_dtype(dt == program::F32 ? program::F32 : grad);
  param->mutable_init()->set_std(0.02);
  param->add_global_shape(V);
  param->add_global_shape(C);

  program::Function *train = p.add_functions();
  train->set_name("train_step");
  int ids = b.input({B, T}, program::I32), tg = b.input({B, T}, program::I32);
  train->add_inputs(ids);
  train->add_inputs(tg);
  int x = b.act({B, T, C}, dt), logits = b.act({B, T, V}, dt);
  int loss = b.act({}), count = b.act({}, program::I32), one = b.act({});
  int dlogits = b.act({B, T, V}, dt), dx = b.act({B, T, C}, dt),
      dw1 = b.act({V, C}, dt), dw2 = b.act({V, C}, dt);
  Builder::inst(train, "embedding", {wte, ids}, {x});
  (*Builder::inst(train, "linear", {x, wte}, {logits})
        ->mutable_attrs())["transposed"]
      .set_flag(true);
  auto ce = Builder::inst(train, "cross_entropy", {logits, tg}, {loss, count});
  (*ce->mutable_attrs())["ignore_index"].set_i(-1);
  (*Builder::inst(train, "fill", {}, {one})->mutable_attrs())["value"].set_f(
      1.0);
  auto ceg =
      Builder::inst(train, "cross_entropy_grad", {logits, tg, one}, {dlogits});
  (*ceg->mutable_attrs())["ignore_index"].set_i(-1);
  (*Builder::inst(train, "linear_grad", {dlogits, x, wte}, {dx, dw1})
        ->mutable_attrs())["transposed"]
      .set_flag(true);
  Builder::inst(train, "embedding_grad", {dx, ids}, {dw2});
  for (int g : {dw1, dw2})
    (*Builder::inst(train, "accumulate_grad", {g}, {})->mutable_attrs())["name"]
        .set_s("wte");
  train->add_outputs(loss);
  train->add_outputs(count);

  program::Function *apply = p.add_functions();
  apply->set_name("apply_step");
  int lr = b.input({}), inv = b.input({});
  apply->add_inputs(lr);
  apply->add_inputs(inv);
  int g = b.act({V, C}, param->grad_dtype()), ss = b.act({}), norm = b.act({}),
      scale = b.act({});
  (*Builder::inst(apply, "get_grad", {}, {g})->mutable_attrs())["name"].set_s(
      "wte");
  Builder::inst(apply, "sum_squares", {g}, {ss});
  (*Builder::inst(apply, "grad_norm", {ss, inv}, {norm, scale})
        ->mutable_attrs())["max_norm"]
      .set_f(1.0);
  auto adam =
      Builder::inst(apply, "adamw_update", {g, lr, scale}, {})->mutable_attrs();
  (*adam)["name"].set_s("wte");
  (*adam)["beta1"].set_f(0.9);
  (*adam)["beta2"].set_f(0.95);
  (*adam)["eps"].set_f(1e-8);
  (*adam)["weight_decay"].set_f(0.0);
  apply->add_outputs(norm);
  train->set_arena_bytes(b.offset);
  apply->set_arena_bytes(b.offset);
  return p;
}

class ExecutorStepTest : public ::testing::TestWithParam<
                             std::pair<program::DType, program::DType>> {};

std::string
dtypes_name(const ::testing::TestParamInfo<ExecutorStepTest::ParamType> &info) {
  auto name = [](program::DType d) {
    return d == program::F32 ? "f32" : d == program::BF16 ? "bf16" : "f16";
  };
  return std::string(name(info.param.first)) + "_grad_" +
         name(info.param.second);
}

TEST_P(ExecutorStepTest, TrainingStepsReadNothingBack) {
  CountingBackend backend;
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  Executor ex(bigram_program(GetParam().first, GetParam().second), backend,
              comm);
  ex.init_parameters(3);
  const program::Function &train = ex.function("train_step");
  const program::Function &apply = ex.function("apply_step");
  ex.check(train);
  ex.check(apply);

  std::vector<int> ids(B * T), tg(B * T);
  for (int i = 0; i < B * T; ++i) {
    ids[i] = (i * 5) % V;
    tg[i] = (ids[i] * 3 + 1) % V;
  }
  float first = 0, last = 0;
  for (int step = 1; step <= 40; ++step) {
    ex.zero_gradients();
    ex.set_input(train, 0, ids.data(), ids.size() * sizeof(int));
    ex.set_input(train, 1, tg.data(), tg.size() * sizeof(int));
    float lr = 0.05f, inv = 1.0f / (B * T);
    ex.set_input(apply, 0, &lr, sizeof(lr));
    ex.set_input(apply, 1, &inv, sizeof(inv));
    ex.set_optimizer_step(step);
    CountingDevice &dev = backend.counter();
    int reads = dev.reads, waits = dev.waits;
    ex.run(train, RunOptions{true, 1, uint64_t(step)});
    ex.run(apply);
    EXPECT_EQ(dev.reads, reads) << "step " << step;
    EXPECT_EQ(dev.waits, waits) << "step " << step;

    float sum = 0;
    int32_t count = 0;
    ex.read_output(train, 0, &sum, sizeof(sum));
    ex.read_output(train, 1, &count, sizeof(count));
    ASSERT_EQ(count, B * T);
    EXPECT_GT(dev.reads, reads); // the counter sees reads
    float loss = sum / count;
    if (step == 1)
      first = loss;
    last = loss;
  }
  EXPECT_NEAR(first, std::log(float(V)), 0.1f);
  EXPECT_LT(last, 0.6f * first) << "first " << first << " last " << last;
}

// The first micro-batch of a step writes the gradients instead of adding
// to them (no zeroing between steps): the program's first accumulate_grad
// of wte writes, its second (the embedding's part) adds; a later
// micro-batch adds both.
TEST_P(ExecutorStepTest, FirstMicroBatchWritesTheGradients) {
  CountingBackend backend;
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  Executor ex(bigram_program(GetParam().first, GetParam().second), backend,
              comm);
  ex.init_parameters(5);
  const program::Function &train = ex.function("train_step");
  std::vector<int> ids(B * T), tg(B * T);
  for (int i = 0; i < B * T; ++i) {
    ids[i] = (i * 7) % V;
    tg[i] = (ids[i] + 2) % V;
  }
  ex.set_input(train, 0, ids.data(), ids.size() * sizeof(int));
  ex.set_input(train, 1, tg.data(), tg.size() * sizeof(int));
  RunOptions options{true, 1, 1};
  ex.zero_gradients();
  ex.run(train, options);
  std::vector<float> once = ex.read_gradient("wte");
  ex.run(train, options);
  std::vector<float> twice = ex.read_gradient("wte");
  options.first_micro_batch = true;
  ex.run(train, options);
  EXPECT_EQ(ex.read_gradient("wte"), once);
  options.first_micro_batch = false;
  ex.run(train, options);
  EXPECT_EQ(ex.read_gradient("wte"), twice);
  bool nonzero = false;
  for (float x : once)
    nonzero |= x != 0.0f;
  EXPECT_TRUE(nonzero);
}

/// `p` with each linear_grad rewritten into its B and W halves at its
/// place, B first, as tpc-split-weight-grad rewrites the IR.
program::Program split_linear_grads(program::Program p) {
  for (program::Function &fn : *p.mutable_functions()) {
    google::protobuf::RepeatedPtrField<program::Instruction> body;
    for (const program::Instruction &inst : fn.body()) {
      if (inst.op() != "linear_grad") {
        *body.Add() = inst;
        continue;
      }
      auto copy_flags = [&](program::Instruction *half, bool bias) {
        for (const char *name : {"transposed", "bias"})
          if (inst.attrs().count(name) && (bias || name[0] == 't'))
            (*half->mutable_attrs())[name] = inst.attrs().at(name);
      };
      program::Instruction *b = body.Add();
      b->set_op("linear_input_grad");
      b->add_inputs(inst.inputs(0));
      b->add_inputs(inst.inputs(2));
      b->add_outputs(inst.outputs(0));
      copy_flags(b, false);
      program::Instruction *w = body.Add();
      w->set_op("linear_weight_grad");
      w->add_inputs(inst.inputs(0));
      w->add_inputs(inst.inputs(1));
      for (int k = 1; k < inst.outputs_size(); ++k)
        w->add_outputs(inst.outputs(k));
      copy_flags(w, true);
    }
    *fn.mutable_body() = std::move(body);
  }
  return p;
}

// On a step's first micro-batch, linear_grad writes wte's first gradient
// term straight into the gradient buffer, where accumulate_grad would have
// copied it from the term's own buffer; later micro-batches write that
// buffer and add it, as before. The gradients match, bit for bit, those of
// a program whose term is also an output of train_step (so it stays in its
// own buffer), and a second micro-batch adds the same terms again. A
// gradient of another type than the term (bf16 compute, f32 gradient) is
// still converted by accumulate_grad. linear_weight_grad, the W half of a
// split linear_grad, does all the same.
TEST_P(ExecutorStepTest, FirstWeightGradientGoesStraightIntoItsBuffer) {
  const auto [compute, grad] = GetParam();
  program::Program direct = bigram_program(compute, grad), kept = direct;
  int term = -1;
  for (program::Function &fn : *kept.mutable_functions())
    if (fn.name() == "train_step")
      for (const program::Instruction &inst : fn.body())
        if (inst.op() == "linear_grad") {
          term = inst.outputs(1);
          fn.add_outputs(term);
        }
  ASSERT_GE(term, 0);
  std::vector<int> ids(B * T), tg(B * T);
  for (int i = 0; i < B * T; ++i) {
    ids[i] = (i * 3) % V;
    tg[i] = (ids[i] + 5) % V;
  }
  const size_t term_bytes = size_t(V) * C * (compute == program::F32 ? 4 : 2);
  struct Run {
    std::vector<float> first, second;
    std::vector<char> term; // the term's own buffer after the first
  };
  auto run = [&](program::Program p) {
    CpuBackend backend;
    Comm comm(nullptr, nullptr);
    comm.make_groups(1, 1);
    Executor ex(std::move(p), backend, comm);
    ex.init_parameters(7);
    // Memory that a previous run freed may still hold its term.
    std::vector<char> stale(term_bytes, char(0x7f));
    backend.copy_host_to_device(ex.device_ptr(term), stale.data(), term_bytes);
    const program::Function &train = ex.function("train_step");
    ex.set_input(train, 0, ids.data(), ids.size() * sizeof(int));
    ex.set_input(train, 1, tg.data(), tg.size() * sizeof(int));
    Run r;
    RunOptions options{true, 1, 1};
    options.first_micro_batch = true;
    ex.run(train, options);
    r.first = ex.read_gradient("wte");
    r.term.resize(term_bytes);
    backend.synchronize();
    backend.copy_device_to_host(r.term.data(), ex.device_ptr(term), term_bytes);
    options.first_micro_batch = false;
    ex.run(train, options);
    r.second = ex.read_gradient("wte");
    return r;
  };
  Run got = run(direct), want = run(kept);
  EXPECT_EQ(got.first, want.first);
  EXPECT_EQ(got.second, want.second);
  const float tolerance = compute == program::F32 ? 1e-6f : 2e-2f;
  float largest = 0.0f;
  for (size_t i = 0; i < got.first.size(); ++i) {
    largest = std::max(largest, std::fabs(got.first[i]));
    EXPECT_NEAR(got.second[i], 2.0f * got.first[i],
                tolerance * (1.0f + std::fabs(got.first[i])))
        << "element " << i;
  }
  EXPECT_GT(largest, 0.0f);
  // Only where the types agree did the term skip its own buffer.
  EXPECT_EQ(got.term == want.term, compute != grad);
  Run split = run(split_linear_grads(direct));
  EXPECT_EQ(split.first, got.first);
  EXPECT_EQ(split.second, got.second);
  EXPECT_EQ(split.term == want.term, compute != grad);
}

// The split program trains as the unsplit one, bit for bit: five optimizer
// steps give the same losses and weights.
TEST_P(ExecutorStepTest, SplitLinearGradTrainsAsLinearGrad) {
  const auto [compute, grad] = GetParam();
  program::Program whole = bigram_program(compute, grad);
  program::Program split = split_linear_grads(whole);
  int halves = 0;
  for (const program::Instruction &inst : split.functions(0).body())
    halves +=
        inst.op() == "linear_input_grad" || inst.op() == "linear_weight_grad";
  ASSERT_EQ(halves, 2);
  std::vector<int> ids(B * T), tg(B * T);
  for (int i = 0; i < B * T; ++i) {
    ids[i] = (i * 5) % V;
    tg[i] = (ids[i] * 3 + 1) % V;
  }
  auto train = [&](program::Program p, std::vector<float> &weights) {
    CpuBackend backend;
    Comm comm(nullptr, nullptr);
    comm.make_groups(1, 1);
    Executor ex(std::move(p), backend, comm);
    ex.init_parameters(11);
    const program::Function &step = ex.function("train_step");
    const program::Function &apply = ex.function("apply_step");
    std::vector<float> losses;
    for (int k = 1; k <= 5; ++k) {
      ex.zero_gradients();
      ex.set_input(step, 0, ids.data(), ids.size() * sizeof(int));
      ex.set_input(step, 1, tg.data(), tg.size() * sizeof(int));
      float lr = 0.05f, inv = 1.0f / (B * T);
      ex.set_input(apply, 0, &lr, sizeof(lr));
      ex.set_input(apply, 1, &inv, sizeof(inv));
      ex.set_optimizer_step(k);
      ex.run(step, RunOptions{true, 1, uint64_t(k)});
      ex.run(apply);
      float sum = 0;
      ex.read_output(step, 0, &sum, sizeof(sum));
      losses.push_back(sum);
    }
    weights = ex.read_parameter("wte");
    return losses;
  };
  std::vector<float> got_weights, want_weights;
  std::vector<float> got = train(split, got_weights),
                     want = train(whole, want_weights);
  EXPECT_EQ(got, want);
  EXPECT_EQ(got_weights, want_weights);
  EXPECT_LT(got.back(), got.front());
}

// A linear with a bias, not transposed: B gives linear_grad's dx, W its
// weight and bias gradients, which accumulate over two micro-batches as
// linear_grad's do; each half also runs without the other.
TEST_P(ExecutorStepTest, SplitLinearGradWithBias) {
  // Plain variables: lambdas cannot capture structured bindings in C++17.
  const program::DType compute = GetParam().first, grad = GetParam().second;
  constexpr int OC = 9;
  auto program = [&] {
    Builder b;
    program::Program &p = b.prog;
    p.set_version(1);
    p.set_tp(1);
    p.set_dp(1);
    auto param = [&](const std::string &name, std::vector<int64_t> shape) {
      int id = b.tensor(shape, compute, program::Tensor::PARAMETER);
      program::Parameter *q = p.add_parameters();
      q->set_name(name);
      q->set_tensor(id);
      if (compute != program::F32)
        q->set_master_dtype(program::F32);
      q->set_grad_dtype(grad);
      q->mutable_init()->set_std(0.5);
      for (int64_t d : shape)
        q->add_global_shape(d);
      return id;
    };
    int w = param("w", {C, OC});
    param("b", {OC});
    program::Function *fn = p.add_functions();
    fn->set_name("train_step");
    int x = b.input({B, T, C}, compute), dout = b.input({B, T, OC}, compute);
    fn->add_inputs(x);
    fn->add_inputs(dout);
    int dx = b.act({B, T, C}, compute), dw = b.act({C, OC}, compute),
        db = b.act({OC}, compute);
    (*Builder::inst(fn, "linear_grad", {dout, x, w}, {dx, dw, db})
          ->mutable_attrs())["bias"]
        .set_flag(true);
    (*Builder::inst(fn, "accumulate_grad", {dw}, {})->mutable_attrs())["name"]
        .set_s("w");
    (*Builder::inst(fn, "accumulate_grad", {db}, {})->mutable_attrs())["name"]
        .set_s("b");
    fn->add_outputs(dx);
    fn->set_arena_bytes(b.offset);
    return p;
  };
  const size_t width = compute == program::F32 ? 4 : 2;
  auto storage = [&](const std::vector<float> &v) {
    std::vector<uint16_t> half(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      half[i] = compute == program::BF16 ? f32_to_bf16(v[i]) : f32_to_f16(v[i]);
    return half;
  };
  std::vector<float> x = test::random_vector(B * T * C, 3),
                     dout = test::random_vector(B * T * OC, 4);
  std::vector<uint16_t> x16 = storage(x), dout16 = storage(dout);
  struct Run {
    std::vector<float> w, b;
    std::vector<char> dx;
  };
  auto run = [&](program::Program p) {
    CpuBackend backend;
    Comm comm(nullptr, nullptr);
    comm.make_groups(1, 1);
    Executor ex(std::move(p), backend, comm);
    ex.init_parameters(13);
    const program::Function &fn = ex.function("train_step");
    const void *xs = width == 4 ? (const void *)x.data() : x16.data();
    const void *ds = width == 4 ? (const void *)dout.data() : dout16.data();
    ex.set_input(fn, 0, xs, x.size() * width);
    ex.set_input(fn, 1, ds, dout.size() * width);
    Run r;
    RunOptions options{true, 1, 1};
    for (bool first : {true, false}) {
      options.first_micro_batch = first;
      ex.run(fn, options);
    }
    for (const program::Instruction &inst : fn.body())
      if (inst.op() == "accumulate_grad") {
        r.w = ex.read_gradient("w");
        r.b = ex.read_gradient("b");
        break;
      }
    if (fn.outputs_size() > 0) {
      r.dx.resize(size_t(B) * T * C * width);
      ex.read_output(fn, 0, r.dx.data(), r.dx.size());
    }
    return r;
  };
  Run want = run(program()), got = run(split_linear_grads(program()));
  EXPECT_EQ(got.w, want.w);
  EXPECT_EQ(got.b, want.b);
  EXPECT_EQ(got.dx, want.dx);
  float largest = 0.0f;
  for (float v : got.b)
    largest = std::max(largest, std::fabs(v));
  EXPECT_GT(largest, 0.0f);

  // Only the bias's gradient read: W alone (its dW unread).
  program::Program bias_only = split_linear_grads(program());
  program::Function *fn = bias_only.mutable_functions(0);
  ASSERT_EQ(fn->body(0).op(), "linear_input_grad");
  fn->mutable_body()->DeleteSubrange(2, 1); // accumulate_grad of w
  fn->mutable_body()->DeleteSubrange(0, 1);
  fn->clear_outputs();
  EXPECT_EQ(run(bias_only).b, want.b);
  // Only the input's gradient read: B alone.
  program::Program input_only = split_linear_grads(program());
  input_only.mutable_functions(0)->mutable_body()->DeleteSubrange(1, 3);
  EXPECT_EQ(run(input_only).dx, want.dx);
}

INSTANTIATE_TEST_SUITE_P(
    Dtypes, ExecutorStepTest,
    ::testing::Values(std::pair{program::F32, program::F32},
                      std::pair{program::BF16, program::BF16},
                      std::pair{program::BF16, program::F32},
                      std::pair{program::F16, program::F16}),
    dtypes_name);

/// The working copy of wte as the ops read it, widened.
std::vector<float> working_copy(Executor &ex, Backend &backend) {
  const program::Parameter &p = ex.program().parameters(0);
  size_t n = size_t(V) * C;
  std::vector<uint16_t> raw(n);
  backend.synchronize();
  backend.copy_device_to_host(raw.data(), ex.device_ptr(p.tensor()),
                              n * sizeof(uint16_t));
  std::vector<float> wide(n);
  for (size_t i = 0; i < n; ++i)
    wide[i] = bf16_to_f32(raw[i]);
  return wide;
}

// Steps of 1e-4 on weights of 1.0 round away in bf16 (whose spacing at 1.0
// is 2^-7) but add up in the f32 master, which the optimizer updates and
// checkpoints read; the working copy follows once the master has moved by
// more than half a spacing.
// A program refused while the executor's state is built (here: get_grad of
// a parameter the program does not have) frees every buffer allocated up
// to then: a loop that tries damaged programs must not leak device memory.
TEST(ExecutorStateTest, RefusedProgramFreesWhatItAllocated) {
  CountingBackend backend;
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  program::Program p = bigram_program();
  for (program::Function &fn : *p.mutable_functions())
    for (program::Instruction &inst : *fn.mutable_body())
      if (inst.op() == "get_grad")
        (*inst.mutable_attrs())["name"].set_s("nope");
  for (int i = 0; i < 3; ++i) {
    try {
      Executor ex(p, backend, comm);
      FAIL() << "the program was accepted";
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(backend.counter().live, 0) << "attempt " << i;
  }
  // The undamaged program allocates and, once destroyed, frees it all.
  {
    Executor ex(bigram_program(), backend, comm);
    EXPECT_GT(backend.counter().live, 0);
  }
  EXPECT_EQ(backend.counter().live, 0);
}

TEST(ExecutorMasterTest, SmallUpdatesAddUpInTheF32Master) {
  CpuBackend backend;
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  Executor ex(bigram_program(program::BF16), backend, comm);
  ex.write_parameter("wte", std::vector<float>(size_t(V) * C, 1.0f));
  const program::Function &train = ex.function("train_step");
  const program::Function &apply = ex.function("apply_step");
  std::vector<int> ids(B * T), tg(B * T);
  for (int i = 0; i < B * T; ++i) {
    ids[i] = i % V;
    tg[i] = (i + 1) % V;
  }
  ex.set_input(train, 0, ids.data(), ids.size() * sizeof(int));
  ex.set_input(train, 1, tg.data(), tg.size() * sizeof(int));
  float lr = 1e-4f, inv = 1.0f / (B * T);
  ex.set_input(apply, 0, &lr, sizeof(lr));
  ex.set_input(apply, 1, &inv, sizeof(inv));
  auto step = [&](int t) {
    ex.zero_gradients();
    ex.set_optimizer_step(t);
    ex.run(train, RunOptions{true, 1, uint64_t(t)});
    ex.run(apply);
  };
  step(1);
  std::vector<float> master = ex.read_parameter("wte");
  std::vector<float> working = working_copy(ex, backend);
  int moved = 0;
  for (size_t i = 0; i < master.size(); ++i) {
    moved += master[i] != 1.0f;
    EXPECT_NEAR(master[i], 1.0f, 1.01e-4f) << i;
    EXPECT_EQ(working[i], 1.0f) << i;
  }
  EXPECT_GT(moved, int(master.size()) / 2);
  // Adam's steps are about lr each while the gradient keeps its sign: after
  // 60 more, the largest move (about 6e-3) passes half of bf16's spacing.
  for (int t = 2; t <= 61; ++t)
    step(t);
  master = ex.read_parameter("wte");
  working = working_copy(ex, backend);
  int rounded_away = 0;
  for (size_t i = 0; i < master.size(); ++i) {
    EXPECT_EQ(working[i], bf16_to_f32(f32_to_bf16(master[i]))) << i;
    rounded_away += working[i] != 1.0f;
  }
  EXPECT_GT(rounded_away, 0);
}

} // namespace

// A norm's gradient op reads the row statistics that its forward op (the
// one on the same x and weight) kept, and recomputes them when it has no
// partner. RMSNorm's epsilon is free, so gradient ops given another
// epsilon than their forward ops show which statistics they used.
TEST(ExecutorNormTest, GradientsReadTheStatisticsTheirForwardKept) {
  constexpr int N = 6, W = 40;
  Builder b;
  program::Program &p = b.prog;
  p.set_version(1);
  p.set_tp(1);
  p.set_dp(1);
  int x1 = b.input({N, W}), x2 = b.input({N, W}), w = b.input({W}),
      beta = b.input({W}), d = b.input({N, W});
  auto with_eps = [](program::Instruction *i, double eps) {
    (*i->mutable_attrs())["epsilon"].set_f(eps);
  };
  /// The gradients of both norms at x1 and x2, each op's own results.
  auto grads = [&](program::Function *fn, double rms_eps) {
    for (int x : {x2, x1}) {
      int dx = b.act({N, W}), dw = b.act({W}), db = b.act({W});
      with_eps(Builder::inst(fn, "layernorm_grad", {d, x, w}, {dx, dw, db}),
               1e-5);
      int rx = b.act({N, W}), rw = b.act({W});
      with_eps(Builder::inst(fn, "rmsnorm_grad", {d, x, w}, {rx, rw}), rms_eps);
      for (int out : {dx, dw, db, rx, rw})
        fn->add_outputs(out);
    }
  };
  auto function = [&](const char *name) {
    program::Function *fn = p.add_functions();
    fn->set_name(name);
    for (int in : {x1, x2, w, beta, d})
      fn->add_inputs(in);
    return fn;
  };
  program::Function *paired = function("paired");
  for (int x : {x1, x2}) {
    with_eps(Builder::inst(paired, "layernorm", {x, w, beta}, {b.act({N, W})}),
             1e-5);
    with_eps(Builder::inst(paired, "rmsnorm", {x, w}, {b.act({N, W})}), 1e-5);
  }
  grads(paired, 0.5);
  grads(function("alone"), 1e-5);
  grads(function("alone_other_epsilon"), 0.5);
  for (program::Function &fn : *p.mutable_functions())
    fn.set_arena_bytes(b.offset);

  CpuBackend backend;
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  Executor ex(p, backend, comm);
  std::vector<std::vector<float>> inputs = {
      test::random_vector(N * W, 1, 1.5f), test::random_vector(N * W, 2, 0.5f),
      test::random_vector(W, 3), test::random_vector(W, 4),
      test::random_vector(N * W, 5)};
  auto run = [&](const char *name) {
    const program::Function &fn = ex.function(name);
    ex.check(fn);
    for (int i = 0; i < 5; ++i)
      ex.set_input(fn, i, inputs[i].data(), inputs[i].size() * sizeof(float));
    ex.run(fn);
    std::vector<std::vector<float>> out;
    for (int i = 0; i < fn.outputs_size(); ++i) {
      int sizes[] = {N * W, W, W, N * W, W};
      out.emplace_back(sizes[i % 5]);
      ex.read_output(fn, i, out.back().data(), out.back().size() * 4);
    }
    return out;
  };
  auto got = run("paired"), alone = run("alone"),
       other = run("alone_other_epsilon");
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], alone[i]) << "output " << i;
    if (i % 5 >= 3) { // RMSNorm's: the forward's epsilon, not the gradient's
      EXPECT_NE(got[i], other[i]) << "output " << i;
    }
  }
}
