//===- GenerateTest.cpp - Sampling and the executor's KV caches -----------===//

#include "TestUtil.h"

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/run/Generate.h"

#include <map>

using namespace tpc;

namespace {
int naive_argmax(const std::vector<float> &x, int n) {
  int best = 0;
  for (int i = 1; i < n; ++i)
    if (x[i] > x[best])
      best = i;
  return best;
}
} // namespace

TEST(SampleTest, GreedyAndTopOneAreTheArgmaxOfTheTrueVocabulary) {
  std::vector<float> logits = test::random_vector(40, 3);
  logits[37] = 100.0f; // a padding column: ignored
  const int vocab = 30;
  int want = naive_argmax(logits, vocab);
  SamplingOptions greedy{0.0, 0, 1};
  EXPECT_EQ(sample_token(logits.data(), vocab, greedy, 0), want);
  for (uint64_t index = 0; index < 20; ++index) {
    SamplingOptions top1{1.5, 1, index};
    EXPECT_EQ(sample_token(logits.data(), vocab, top1, index), want);
  }
}

TEST(SampleTest, SeedReproducesAndDrawsFollowTheSoftmax) {
  // p = softmax([0, ln 3]) = (1/4, 3/4).
  std::vector<float> logits{0.0f, std::log(3.0f), 50.0f};
  std::map<int, int> counts;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    SamplingOptions o{1.0, 0, 7};
    int a = sample_token(logits.data(), 2, o, uint64_t(i));
    EXPECT_EQ(a, sample_token(logits.data(), 2, o, uint64_t(i)));
    ++counts[a];
  }
  EXPECT_EQ(counts.count(2), 0u);
  EXPECT_NEAR(counts[1] / double(draws), 0.75, 0.03);
  // Another seed draws another sequence.
  int differ = 0;
  for (int i = 0; i < 100; ++i)
    differ += sample_token(logits.data(), 2, {1.0, 0, 7}, uint64_t(i)) !=
              sample_token(logits.data(), 2, {1.0, 0, 8}, uint64_t(i));
  EXPECT_GT(differ, 10);
}

TEST(SampleTest, TopPDrawsFromTheNucleusRenormalized) {
  // p = (0.5, 0.3, 0.2): top_p 0.7 keeps the first two, renormalized to
  // (0.625, 0.375); 0.5 keeps only the first, 1 keeps all three.
  std::vector<float> logits{std::log(0.5f), std::log(0.3f), std::log(0.2f)};
  std::map<int, int> nucleus, all;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    SamplingOptions o{1.0, 0, 11, 0.7};
    ++nucleus[sample_token(logits.data(), 3, o, uint64_t(i))];
    o.top_p = 0.5;
    EXPECT_EQ(sample_token(logits.data(), 3, o, uint64_t(i)), 0);
    o.top_p = 1.0;
    ++all[sample_token(logits.data(), 3, o, uint64_t(i))];
  }
  EXPECT_EQ(nucleus.count(2), 0u);
  EXPECT_NEAR(nucleus[0] / double(draws), 0.625, 0.03);
  EXPECT_NEAR(all[2] / double(draws), 0.2, 0.03);
  // top_k first, then the nucleus among the k: top_k 2 leaves (0.625,
  // 0.375), and top_p 0.6 of that keeps only the first.
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(sample_token(logits.data(), 3, {1.0, 2, 11, 0.6}, uint64_t(i)),
              0);
}

namespace {
/// decode(qkv [1,1,6] f32, pos [] i32) -> decode_attention heads 2
/// capacity 3.
program::Program decode_program() {
  program::Program prog;
  prog.set_version(1);
  prog.set_tp(1);
  prog.set_dp(1);
  auto tensor = [&](program::DType dtype, std::vector<int64_t> shape,
                    program::Tensor::Storage storage, int64_t offset) {
    program::Tensor *t = prog.add_tensors();
    t->set_id(prog.tensors_size() - 1);
    t->set_name("t" + std::to_string(t->id()));
    t->set_dtype(dtype);
    for (int64_t d : shape)
      t->add_shape(d);
    t->set_storage(storage);
    t->set_offset(offset);
    return t->id();
  };
  int qkv = tensor(program::F32, {1, 1, 6}, program::Tensor::INPUT, -1);
  int pos = tensor(program::I32, {}, program::Tensor::INPUT, -1);
  int out = tensor(program::F32, {1, 1, 2}, program::Tensor::ACTIVATION, 0);
  program::Function *fn = prog.add_functions();
  fn->set_name("decode");
  fn->add_inputs(qkv);
  fn->add_inputs(pos);
  fn->add_outputs(out);
  fn->set_arena_bytes(64);
  program::Instruction *inst = fn->add_body();
  inst->set_op("decode_attention");
  inst->add_inputs(qkv);
  inst->add_inputs(pos);
  inst->add_outputs(out);
  (*inst->mutable_attrs())["heads"].set_i(2);
  (*inst->mutable_attrs())["capacity"].set_i(3);
  (*inst->mutable_attrs())["rope_theta"].set_f(0.0);
  (*inst->mutable_attrs())["rope_dims"].set_i(0);
  return prog;
}
} // namespace

TEST(ExecutorDecodeTest, CachesPositionsInOrderUpToTheCapacity) {
  std::unique_ptr<Backend> backend = make_backend("cpu");
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  Executor ex(decode_program(), *backend, comm);
  const program::Function &fn = ex.function("decode");
  ex.check(fn);
  std::vector<float> qkv = test::random_vector(3 * 6, 4);
  auto step = [&](int32_t pos, int t) {
    ex.set_input(fn, 0, &qkv[size_t(t) * 6], 6 * sizeof(float));
    ex.set_input(fn, 1, &pos, sizeof(pos));
    ex.run(fn);
    std::vector<float> out(2);
    ex.read_output(fn, 0, out.data(), out.size() * sizeof(float));
    return out;
  };
  std::vector<float> first;
  for (int t = 0; t < 3; ++t)
    first = step(t, t);
  // The last position of a full causal attention over the three rows.
  AttentionConfig cfg;
  cfg.B = 1;
  cfg.T = 3;
  cfg.NH = 2;
  cfg.HS = 1;
  std::vector<float> full(3 * 2), att(2 * 3 * 3);
  cpu::attention_forward(full.data(), att.data(), qkv.data(), cfg);
  EXPECT_EQ(first, std::vector<float>(full.begin() + 4, full.end()));
  try {
    step(3, 0);
    ADD_FAILURE() << "position 3 of a cache of 3 was accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("reaches the capacity 3"),
              std::string::npos)
        << e.what();
  }
  ex.reset_kv_caches();
  try {
    step(1, 0);
    ADD_FAILURE() << "a position after a reset skipped position 0";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("skips positions"), std::string::npos)
        << e.what();
  }
  // After the reset the sequence starts again and gives the same outputs.
  std::vector<float> again;
  for (int t = 0; t < 3; ++t)
    again = step(t, t);
  EXPECT_EQ(again, first);
}
