//===- EncoderOpsExecTest.cpp - BERT's inputs through the executor --------===//
//
// The handlers of grouped_attention with key lengths and of the token-type
// embedding: a program that takes the lengths and the types as inputs runs
// the kernels on them, and lengths or types of the wrong shape are refused
// naming the instruction.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/program/OpSchema.h"
#include "runtime/program/ProgramValidate.h"

using namespace tpc;

namespace {
const int B = 2, T = 5, C = 8, NH = 2;

struct EncoderProgram {
  program::Program prog;
  int64_t offset = 0;

  int tensor(std::vector<int64_t> shape, program::Tensor::Storage storage,
             program::DType dtype = program::F32) {
    program::Tensor *t = prog.add_tensors();
    t->set_id(prog.tensors_size() - 1);
    t->set_name("t" + std::to_string(t->id()));
    t->set_dtype(dtype);
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

  /// forward(q, k, v [B,T,C], lengths [B], types [B,T]) ->
  /// (grouped_attention(q, k, v, lengths), token_type_embedding(table,
  /// types)) with the table a [2, C] parameter.
  explicit EncoderProgram(std::vector<int64_t> lengths_shape = {B},
                          std::vector<int64_t> types_shape = {B, T}) {
    prog.set_version(1);
    prog.set_tp(1);
    prog.set_dp(1);
    int table = tensor({2, C}, program::Tensor::PARAMETER);
    program::Parameter *p = prog.add_parameters();
    p->set_name("types");
    p->set_tensor(table);
    p->mutable_init()->set_std(0.5);
    p->add_global_shape(2);
    p->add_global_shape(C);
    program::Function *fn = prog.add_functions();
    fn->set_name("forward");
    int q = tensor({B, T, C}, program::Tensor::INPUT),
        k = tensor({B, T, C}, program::Tensor::INPUT),
        v = tensor({B, T, C}, program::Tensor::INPUT),
        len = tensor(lengths_shape, program::Tensor::INPUT, program::I32),
        ids = tensor(types_shape, program::Tensor::INPUT, program::I32);
    for (int in : {q, k, v, len, ids})
      fn->add_inputs(in);
    int a = tensor({B, T, C}, program::Tensor::ACTIVATION),
        e = tensor({B, T, C}, program::Tensor::ACTIVATION);
    program::Instruction *att = fn->add_body();
    att->set_op(op::kGroupedAttention);
    for (int in : {q, k, v, len})
      att->add_inputs(in);
    att->add_outputs(a);
    (*att->mutable_attrs())["heads"].set_i(NH);
    (*att->mutable_attrs())["kv_heads"].set_i(NH);
    (*att->mutable_attrs())["rope_theta"].set_f(0.0);
    (*att->mutable_attrs())["rope_dims"].set_i(0);
    (*att->mutable_attrs())["dropout"].set_f(0.0);
    (*att->mutable_attrs())["key"].set_i(0);
    program::Instruction *emb = fn->add_body();
    emb->set_op(op::kTokenTypeEmbedding);
    emb->add_inputs(table);
    emb->add_inputs(ids);
    emb->add_outputs(e);
    fn->add_outputs(a);
    fn->add_outputs(e);
    fn->set_arena_bytes(offset);
  }
};

struct Job {
  std::unique_ptr<Backend> backend = make_backend("cpu");
  Comm comm{nullptr, nullptr};
  Job() { comm.make_groups(1, 1); }
};
} // namespace

TEST(EncoderOpsExec, PaddedAttentionAndTokenTypesRunTheKernels) {
  EncoderProgram p;
  ASSERT_EQ(validate_program(p.prog), "");
  Job job;
  Executor ex(p.prog, *job.backend, job.comm);
  ex.init_parameters(3);
  const program::Function &fn = ex.function("forward");
  ex.check(fn);
  size_t n = size_t(B) * T * C;
  std::vector<float> q = test::random_vector(n, 1),
                     k = test::random_vector(n, 2),
                     v = test::random_vector(n, 3);
  std::vector<int> lengths = {3, 5}, types = {0, 1, 1, 0, 0, 1, 1, 1, 0, 1};
  ex.set_input(fn, 0, q.data(), n * sizeof(float));
  ex.set_input(fn, 1, k.data(), n * sizeof(float));
  ex.set_input(fn, 2, v.data(), n * sizeof(float));
  ex.set_input(fn, 3, lengths.data(), lengths.size() * sizeof(int));
  ex.set_input(fn, 4, types.data(), types.size() * sizeof(int));
  ex.run(fn);
  std::vector<float> att(n), emb(n);
  ex.read_output(fn, 0, att.data(), n * sizeof(float));
  ex.read_output(fn, 1, emb.data(), n * sizeof(float));

  AttentionConfig cfg;
  cfg.B = B;
  cfg.T = T;
  cfg.NH = NH;
  cfg.HS = C / NH;
  cfg.KVH = NH;
  cfg.mask = AttentionMask::Bidirectional;
  cfg.key_lengths = lengths.data();
  std::vector<float> want(n);
  cpu::gqa_attention_forward(want.data(), nullptr, q.data(), k.data(), v.data(),
                             cfg);
  EXPECT_EQ(att, want);
  cfg.key_lengths = nullptr;
  cpu::gqa_attention_forward(want.data(), nullptr, q.data(), k.data(), v.data(),
                             cfg);
  EXPECT_NE(att, want) << "the lengths were not applied";

  std::vector<float> table = ex.read_parameter("types");
  for (int t = 0; t < B * T; ++t)
    for (int c = 0; c < C; ++c)
      ASSERT_EQ(emb[size_t(t) * C + c], table[size_t(types[t]) * C + c]);
}

TEST(EncoderOpsExec, BadLengthsAndTypesAreNamed) {
  Job job;
  for (auto [lengths, types, what] :
       {std::tuple{std::vector<int64_t>{B, 1}, std::vector<int64_t>{B, T},
                   "key_lengths"},
        std::tuple{std::vector<int64_t>{B + 1}, std::vector<int64_t>{B, T},
                   "key_lengths"},
        std::tuple{std::vector<int64_t>{B}, std::vector<int64_t>{B, T - 1},
                   "the result"}}) {
    EncoderProgram p(lengths, types);
    Executor ex(p.prog, *job.backend, job.comm);
    try {
      ex.check(ex.function("forward"));
      FAIL() << "lengths " << lengths.size() << " types " << types.back();
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos)
          << e.what();
    }
  }
}
