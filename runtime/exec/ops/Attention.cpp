//===- Attention.cpp - Self, cross and decode attention, KV caches --------===//
//
// Training attention recomputes its probabilities in the backward op; the
// decode ops keep one KV cache each, allocated on first use.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Call.h"

namespace tpc {

using namespace exec_detail;

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

void Executor::reset_kv_caches() {
  for (auto &[key, cache] : kv_caches_) {
    backend_.zero(cache.k, cache.floats * sizeof(float));
    backend_.zero(cache.v, cache.floats * sizeof(float));
    cache.filled = 0;
  }
}

Executor::KvCache &Executor::kv_cache(const Call &c, size_t floats) {
  KvCache &cache = kv_caches_[{c.fn.name(), c.index}];
  if (!cache.k) {
    cache.k = static_cast<float *>(backend_.alloc(floats * sizeof(float)));
    cache.v = static_cast<float *>(backend_.alloc(floats * sizeof(float)));
    backend_.zero(cache.k, floats * sizeof(float));
    backend_.zero(cache.v, floats * sizeof(float));
    cache.floats = floats;
  }
  if (cache.floats != floats)
    throw c.error("its KV cache holds " + std::to_string(cache.floats) +
                  " values, not " + std::to_string(floats));
  return cache;
}

int Executor::decode_position(const Call &c, int operand, int capacity,
                              int filled) {
  int id = c.in(operand);
  if (tensor(id).dtype() != program::I32 || elements(id) != 1)
    throw c.error("expects the position as an i32 scalar");
  int32_t pos = 0;
  backend_.synchronize();
  backend_.copy_device_to_host(&pos, ptrs_[id], sizeof(pos));
  if (pos < 0)
    throw c.error("position " + std::to_string(pos) + " is negative");
  if (capacity > 0 && pos >= capacity)
    throw c.error("position " + std::to_string(pos) + " reaches the capacity " +
                  std::to_string(capacity) +
                  " of the KV cache (the model's context length); stop "
                  "decoding there or use a model with more positions");
  if (pos > filled)
    throw c.error("position " + std::to_string(pos) +
                  " skips positions: the KV cache holds positions [0, " +
                  std::to_string(filled) +
                  "); feed every position in order from 0");
  return pos;
}

// qkv (B,1,3C), pos () -> out (B,1,C); the op's cache (B,P,C) keys and
// values of positions [0, pos).
void Executor::op_decode_attention(const Call &c) {
  auto qkv = shape(c.in(0));
  if (qkv.size() != 3 || qkv[1] != 1 || qkv[2] % 3 != 0)
    throw c.error("expects qkv [B, 1, 3C], got " + shape_string(qkv));
  AttentionConfig cfg =
      attention_config(c, qkv, int(qkv[2] / 3), comm_.tp_rank(),
                       comm_.tp_size(), comm_.dp_rank(), RunOptions{});
  expect_shape(shape(c.out(0)), {qkv[0], 1, qkv[2] / 3}, c, "the result");
  int capacity = checked_int(c.integer("capacity"), c, "capacity");
  KvCache &cache = kv_cache(c, size_t(cfg.B) * capacity * cfg.C());
  int pos = decode_position(c, 1, capacity, cache.filled);
  backend_.decode_attention_forward(f32(c.out(0)), cache.k, cache.v,
                                    f32(c.in(0)), pos, capacity, cfg);
  cache.filled = pos + 1;
}

// q (B,1,C), kv (B,1,2C), pos () -> out (B,1,C) over the cached positions
// [0, pos); then kv joins the cache at pos.
void Executor::op_decode_cross_attention(const Call &c) {
  auto q = shape(c.in(0));
  if (q.size() != 3 || q[1] != 1)
    throw c.error("expects query [B, 1, C], got " + shape_string(q));
  AttentionConfig cfg =
      attention_config(c, q, int(q[2]), comm_.tp_rank(), comm_.tp_size(),
                       comm_.dp_rank(), RunOptions{});
  expect_shape(shape(c.in(1)), {q[0], 1, 2 * q[2]}, c, "kv");
  expect_shape(shape(c.out(0)), q, c, "the result");
  int capacity = checked_int(c.integer("capacity"), c, "capacity");
  KvCache &cache = kv_cache(c, size_t(cfg.B) * capacity * cfg.C());
  int pos = decode_position(c, 2, capacity, cache.filled);
  backend_.decode_cross_attention_forward(f32(c.out(0)), cache.k, cache.v,
                                          f32(c.in(0)), f32(c.in(1)), pos,
                                          capacity, cfg);
  cache.filled = pos + 1;
}

// Recomputes the probabilities (and their dropout) from qkv, then dqkv.
void Executor::op_self_attention_grad(const Call &c) {
  auto qkv = shape(c.in(1));
  if (qkv.size() != 3 || qkv[2] % 3 != 0)
    throw c.error("expects qkv [B, T, 3C], got " + shape_string(qkv));
  AttentionConfig cfg =
      attention_config(c, qkv, int(qkv[2] / 3), comm_.tp_rank(),
                       comm_.tp_size(), comm_.dp_rank(), options_);
  cfg.mask =
      c.flag("causal") ? AttentionMask::Causal : AttentionMask::Bidirectional;
  expect_shape(shape(c.in(0)), {qkv[0], qkv[1], qkv[2] / 3}, c, "dout");
  float *att = scratch(0, size_t(cfg.B) * cfg.NH * cfg.T * cfg.T);
  float *out = scratch(1, elements(c.in(0)));
  backend_.attention_forward(out, att, f32(c.in(1)), cfg);
  backend_.zero(ptrs_[c.out(0)], tensor_bytes(c.out(0)));
  backend_.attention_backward(f32(c.out(0)), f32(c.in(0)), f32(c.in(1)), att,
                              cfg);
}

void Executor::op_cross_attention_grad(const Call &c) {
  auto q = shape(c.in(1));
  AttentionConfig cfg =
      attention_config(c, q, int(q.back()), comm_.tp_rank(), comm_.tp_size(),
                       comm_.dp_rank(), options_);
  expect_shape(shape(c.in(2)), {q[0], q[1], 2 * q[2]}, c, "kv");
  expect_shape(shape(c.in(0)), q, c, "dout");
  cfg.mask = AttentionMask::StrictlyEarlier;
  float *att = scratch(0, size_t(cfg.B) * cfg.NH * cfg.T * cfg.T);
  float *out = scratch(1, elements(c.in(0)));
  backend_.cross_attention_forward(out, att, f32(c.in(1)), f32(c.in(2)), cfg);
  backend_.zero(ptrs_[c.out(0)], tensor_bytes(c.out(0)));
  backend_.zero(ptrs_[c.out(1)], tensor_bytes(c.out(1)));
  backend_.cross_attention_backward(f32(c.out(0)), f32(c.out(1)), f32(c.in(0)),
                                    f32(c.in(1)), f32(c.in(2)), att, cfg);
}

} // namespace tpc
