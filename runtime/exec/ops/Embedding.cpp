//===- Embedding.cpp - Token, position and token-type embeddings ---------===//

#include "runtime/exec/ops/Op.h"

namespace tpc {
namespace {

// out (B,T,C) = table[ids]; table (Vl,C) holds rows [vstart, vstart+Vl).
Thunk embedding(OpContext &c) {
  auto table = c.shape(c.in(0)), ids = c.shape(c.in(1));
  if (table.size() != 2 || ids.size() != 2)
    throw c.error("expects table [V, C] and ids [B, T]");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  int vlocal = int(table[0]);
  int vstart = c.flag("vocab_parallel") ? c.s.comm.tp_rank() * vlocal : 0;
  c.expect_shape(c.shape(c.out(0)), {B, T, C}, "the result");
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *wte = c.ptr(c.in(0));
  const int *tok = c.i32(c.in(1));
  return [&k, out, wte, tok, B, T, C, vstart, vlocal](const RunOptions &) {
    k.embedding_forward(out, tok, wte, B, T, C, vstart, vlocal);
  };
}

// out (B,T,C) = wpe[offset + t]; wpe (P,C) with P >= offset + T; the
// offset (decode_step's position) is 0 without a third operand.
Thunk position_embedding(OpContext &c) {
  auto table = c.shape(c.in(0)), ids = c.shape(c.in(1));
  if (table.size() != 2 || ids.size() != 2)
    throw c.error("expects table [P, C] and ids [B, T]");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  int64_t P = table[0];
  const int *offset = nullptr;
  if (c.num_inputs() == 3) {
    int id = c.position(2);
    offset = c.i32(id);
    const int32_t *pos = &c.s.host_i32[id];
    std::string where = c.where();
    c.plan.before.push_back([pos, T, P, where] {
      if (*pos < 0)
        throw std::runtime_error(where + ": position " + std::to_string(*pos) +
                                 " is negative");
      if (*pos + int64_t(T) > P)
        throw std::runtime_error(
            where + ": position " + std::to_string(*pos + T - 1) +
            " is beyond the " + std::to_string(P) +
            " positions of the table (the model's context length)");
    });
  } else if (T > P) {
    throw c.error("position " + std::to_string(T - 1) + " is beyond the " +
                  std::to_string(P) +
                  " positions of the table (the model's context length)");
  }
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *wpe = c.ptr(c.in(0));
  size_t bytes = c.bytes(c.out(0));
  Device *dev = &c.s.device;
  return [&k, dev, out, wpe, offset, B, T, C, bytes](const RunOptions &) {
    dev->zero(out, bytes);
    k.position_embedding_forward(out, out, wpe, offset, B, T, C);
  };
}

// out (B,T,C) = table[ids]: the rows of each token's type, table (S,C)
// replicated; a type outside [0, S) gives zeros.
Thunk token_type_embedding(OpContext &c) {
  auto table = c.shape(c.in(0)), ids = c.shape(c.in(1));
  if (table.size() != 2 || ids.size() != 2 || table[0] < 1)
    throw c.error("expects table [S >= 1, C] and ids [B, T], got " +
                  shape_string(table) + " and " + shape_string(ids));
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]), S = int(table[0]);
  c.expect_shape(c.shape(c.out(0)), {B, T, C}, "the result");
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *rows = c.ptr(c.in(0));
  const int *types = c.i32(c.in(1));
  return [&k, out, rows, types, B, T, C, S](const RunOptions &) {
    k.embedding_forward(out, types, rows, B, T, C, 0, S);
  };
}

// dtable (S,C) = scatter-add of dout (B,T,C) by the types ids (B,T).
Thunk token_type_embedding_grad(OpContext &c) {
  auto dout = c.shape(c.in(0)), ids = c.shape(c.in(1)),
       table = c.shape(c.out(0));
  if (dout.size() != 3 || table.size() != 2 || table[0] < 1 ||
      table[1] != dout[2])
    throw c.error("expects dout [B, T, C] and an [S >= 1, C] result, got " +
                  shape_string(dout) + " and " + shape_string(table));
  c.expect_shape(ids, {dout[0], dout[1]}, "ids");
  int B = int(dout[0]), T = int(dout[1]), C = int(dout[2]), S = int(table[0]);
  const Kernels &k = c.kernels();
  Device *dev = &c.s.device;
  void *dw = c.ptr(c.out(0)), *d = c.ptr(c.in(0));
  const int *types = c.i32(c.in(1));
  size_t bytes = c.bytes(c.out(0));
  return [&k, dev, dw, d, types, bytes, B, T, C, S](const RunOptions &) {
    dev->zero(dw, bytes);
    k.embedding_backward(dw, d, types, B, T, C, 0, S);
  };
}

// dtable (Vl,C) = scatter-add of dout (B,T,C) by ids (B,T).
Thunk embedding_grad(OpContext &c) {
  auto dout = c.shape(c.in(0)), ids = c.shape(c.in(1)),
       table = c.shape(c.out(0));
  if (dout.size() != 3 || ids.size() != 2 || table.size() != 2)
    throw c.error("expects dout [B, T, C], ids [B, T] and a [V, C] result");
  int B = int(ids[0]), T = int(ids[1]), C = int(table[1]);
  c.expect_shape(dout, {B, T, C}, "dout");
  int vlocal = int(table[0]);
  int vstart = c.flag("vocab_parallel") ? c.s.comm.tp_rank() * vlocal : 0;
  const Kernels &k = c.kernels();
  Device *dev = &c.s.device;
  void *dw = c.ptr(c.out(0)), *d = c.ptr(c.in(0));
  const int *tok = c.i32(c.in(1));
  size_t bytes = c.bytes(c.out(0));
  return [&k, dev, dw, d, tok, bytes, B, T, C, vstart,
          vlocal](const RunOptions &) {
    dev->zero(dw, bytes);
    k.embedding_backward(dw, d, tok, B, T, C, vstart, vlocal);
  };
}

// dwpe (P,C): rows t < T sum dout (B,T,C) over the batch.
Thunk position_embedding_grad(OpContext &c) {
  auto dout = c.shape(c.in(0)), table = c.shape(c.out(0));
  if (dout.size() != 3 || table.size() != 2 || table[1] != dout[2] ||
      table[0] < dout[1])
    throw c.error("expects dout [B, T, C] and a [P >= T, C] result, got " +
                  shape_string(dout) + " and " + shape_string(table));
  const Kernels &k = c.kernels();
  Device *dev = &c.s.device;
  void *dw = c.ptr(c.out(0)), *d = c.ptr(c.in(0));
  size_t bytes = c.bytes(c.out(0));
  int B = int(dout[0]), T = int(dout[1]), C = int(dout[2]);
  return [&k, dev, dw, d, bytes, B, T, C](const RunOptions &) {
    dev->zero(dw, bytes);
    k.position_embedding_backward(dw, d, B, T, C);
  };
}

} // namespace

void register_embedding_ops(OpRegistry &r) {
  r.add(op::kEmbedding, embedding);
  r.add(op::kPositionEmbedding, position_embedding);
  r.add(op::kEmbeddingGrad, embedding_grad);
  r.add(op::kPositionEmbeddingGrad, position_embedding_grad);
  r.add(op::kTokenTypeEmbedding, token_type_embedding);
  r.add(op::kTokenTypeEmbeddingGrad, token_type_embedding_grad);
}

} // namespace tpc
