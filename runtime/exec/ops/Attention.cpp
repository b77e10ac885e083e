//===- Attention.cpp - Self, cross and decode attention, KV caches --------===//
//
// Training attention saves nothing for the backward op: the grad op
// recomputes the probabilities (and their dropout) from its inputs, with a
// forward call into scratch, or, where the kernels can
// (Kernels::attention_recomputes), inside the backward call itself, block
// by block, with no (B,NH,T,T) tensor anywhere. Each
// decode op keeps a KV cache of the keys and values of the positions fed so
// far; the executor empties them between sequences.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/ops/Op.h"

#include <cmath>

namespace tpc {
namespace {

/// The keys and values one decode op has cached: (B, capacity, C) each.
class KvCache final : public SequenceState {
public:
  KvCache(Device &device, size_t bytes) : device_(device), bytes_(bytes) {
    k = device.alloc(bytes);
    v = device.alloc(bytes);
    reset();
  }
  ~KvCache() override {
    device_.free(k);
    device_.free(v);
  }
  void reset() override {
    device_.zero(k, bytes_);
    device_.zero(v, bytes_);
    filled = 0;
  }
  size_t bytes() const { return bytes_; }

  void *k, *v;
  int filled = 0; // positions [0, filled) hold keys and values

private:
  Device &device_;
  size_t bytes_;
};

/// The cache of the op `c`, allocated on its first prepare: its own, or
/// with a `cache` attribute the one that every op of that name shares, in
/// any entry point.
KvCache &kv_cache(OpContext &c, size_t bytes) {
  const program::Attribute *name = c.find("cache");
  auto &slot = name ? c.s.sequences[{"cache " + c.string("cache"), -1}]
                    : c.s.sequences[{c.fn.name(), c.index}];
  if (!slot)
    slot = std::make_unique<KvCache>(c.s.device, bytes);
  auto *cache = static_cast<KvCache *>(slot.get());
  if (cache->bytes() != bytes)
    throw c.error("its KV cache holds " + std::to_string(cache->bytes()) +
                  " bytes, not " + std::to_string(bytes));
  return *cache;
}

/// Heads, window, rotary positions and where this rank's heads and
/// sequences lie; dropout is filled in per run.
struct Attention {
  AttentionConfig cfg;
  float dropout = 0.0f;
  uint64_t key = 0;

  AttentionConfig config(const RunOptions &o) const {
    AttentionConfig out = cfg;
    if (o.training)
      out.dropout = DropoutParams{dropout, o.seed, o.step, key};
    return out;
  }
};

Attention attention(OpContext &c, const std::vector<int64_t> &query,
                    int width) {
  if (query.size() != 3)
    throw c.error("expects [B, T, C] operands");
  Attention a;
  AttentionConfig &cfg = a.cfg;
  cfg.B = int(query[0]);
  cfg.T = int(query[1]);
  cfg.NH = c.count("heads");
  if (cfg.NH == 0 || width % cfg.NH != 0)
    throw c.error("width " + std::to_string(width) +
                  " is not a multiple of heads " + std::to_string(cfg.NH));
  cfg.HS = width / cfg.NH;
  cfg.window = int(c.optional_integer("window").value_or(0));
  if (c.declares("dropout") && c.find("dropout")) {
    a.dropout = float(c.real("dropout"));
    a.key = uint64_t(c.integer("key"));
  }
  if (c.flag("head_parallel")) {
    cfg.head_offset = c.s.comm.tp_rank() * cfg.NH;
    cfg.nh_global = cfg.NH * c.s.comm.tp_size();
  }
  cfg.batch_offset = c.s.comm.dp_rank() * cfg.B;
  double theta = c.real("rope_theta");
  int64_t dims = c.integer("rope_dims");
  if (!(theta >= 0.0) || !std::isfinite(theta))
    throw c.error("rope theta " + std::to_string(theta) +
                  " is not a finite number >= 0 (Llama uses 10000, Llama 3 "
                  "500000; 0 disables rotary embeddings)");
  if (dims < 0 || dims % 2 != 0 || dims > cfg.HS ||
      (theta == 0.0 && dims != 0) ||
      (theta > 0.0 && dims == 0 && cfg.HS % 2 != 0))
    throw c.error("rope theta " + std::to_string(theta) + " with rope_dims " +
                  std::to_string(dims) + " does not fit head dimension " +
                  std::to_string(cfg.HS));
  cfg.rope = RopeParams{theta, int(dims)};
  return a;
}

Attention self_attention_of(OpContext &c, int qkv_operand) {
  auto qkv = c.shape(c.in(qkv_operand));
  if (qkv.size() != 3 || qkv[2] % 3 != 0)
    throw c.error("expects qkv [B, T, 3C], got " + shape_string(qkv));
  Attention a = attention(c, qkv, int(qkv[2] / 3));
  a.cfg.mask =
      c.flag("causal") ? AttentionMask::Causal : AttentionMask::Bidirectional;
  return a;
}

size_t probabilities(const AttentionConfig &cfg) {
  return size_t(cfg.B) * cfg.NH * cfg.T * cfg.T * sizeof(float);
}

/// Reserves the probabilities of a forward call in scratch 0, unless the
/// kernels do without them; then false, and the calls take a null att.
bool saves_probabilities(OpContext &c, const AttentionConfig &cfg) {
  if (c.kernels().attention_recomputes())
    return false;
  c.s.reserve(0, probabilities(cfg));
  return true;
}

/// Probabilities for a grad op: false where the backward call recomputes
/// them itself; otherwise scratch 0 and 1 are reserved for a forward call
/// (the probabilities and an output of `out_elements`) before it.
bool recomputes_by_forward(OpContext &c, const AttentionConfig &cfg,
                           size_t out_elements) {
  if (!saves_probabilities(c, cfg))
    return false;
  c.s.reserve(1, out_elements * element_size(c.kernels().dtype()));
  return true;
}

// qkv (B,T,3C) -> out (B,T,C).
Thunk self_attention(OpContext &c) {
  Attention a = self_attention_of(c, 0);
  auto fused = c.shape(c.in(0));
  c.expect_result(0, {fused[0], fused[1], fused[2] / 3}, 0);
  const bool saves = saves_probabilities(c, a.cfg);
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *qkv = c.ptr(c.in(0));
  return [&k, s, out, qkv, a, saves](const RunOptions &o) {
    k.attention_forward(out, saves ? s->scratch(0) : nullptr, qkv, a.config(o));
  };
}

// Recomputes the probabilities (and their dropout) from qkv, then dqkv.
Thunk self_attention_grad(OpContext &c) {
  Attention a = self_attention_of(c, 1);
  auto qkv = c.shape(c.in(1));
  c.expect_shape(c.shape(c.in(0)), {qkv[0], qkv[1], qkv[2] / 3}, "dout");
  c.expect_result_like(0, 1);
  const Kernels &k = c.kernels();
  const bool by_forward = recomputes_by_forward(c, a.cfg, c.elements(c.in(0)));
  ExecState *s = &c.s;
  void *dqkv = c.ptr(c.out(0)), *dout = c.ptr(c.in(0)), *x = c.ptr(c.in(1));
  size_t bytes = c.bytes(c.out(0));
  return [&k, s, dqkv, dout, x, bytes, a, by_forward](const RunOptions &o) {
    AttentionConfig cfg = a.config(o);
    float *att = by_forward ? s->scratch(0) : nullptr;
    if (by_forward)
      k.attention_forward(s->scratch(1), att, x, cfg);
    s->device.zero(dqkv, bytes);
    k.attention_backward(dqkv, dout, x, att, cfg);
  };
}

/// Grouped-query attention over q (B,T,NH*HS), k and v (B,T,KVH*HS)
/// starting at operand `q_operand`; with `lengths`, the optional key
/// lengths follow v.
Attention grouped_attention_of(OpContext &c, int q_operand, bool lengths) {
  auto q = c.shape(c.in(q_operand));
  Attention a = attention(c, q, int(q.back()));
  AttentionConfig &cfg = a.cfg;
  int kv_heads = c.count("kv_heads");
  if (kv_heads == 0 ||
      (c.flag("kv_replicated") ? cfg.global_heads() : cfg.NH) % kv_heads != 0)
    throw c.error("heads " + std::to_string(cfg.NH) +
                  " do not form groups over kv_heads " +
                  std::to_string(kv_heads));
  cfg.KVH = kv_heads;
  cfg.kv_replicated = c.flag("kv_replicated");
  if (cfg.kv_replicated && !c.flag("head_parallel"))
    throw c.error("kv_replicated needs head_parallel");
  std::vector<int64_t> kv = {q[0], q[1], int64_t(kv_heads) * cfg.HS};
  c.expect_shape(c.shape(c.in(q_operand + 1)), kv, "k");
  c.expect_shape(c.shape(c.in(q_operand + 2)), kv, "v");
  // The optional key lengths follow v: a key padding mask of (B) i32.
  if (lengths && c.num_inputs() > q_operand + 3) {
    int ids = c.in(q_operand + 3);
    if (c.dtype(ids) != ElementType::I32)
      throw c.error("takes key_lengths that are not i32");
    c.expect_shape(c.shape(ids), {q[0]}, "key_lengths");
    if (!c.kernels().attention_takes_key_lengths())
      throw c.error("takes key_lengths (a key padding mask), which the " +
                    c.s.device.name() +
                    " attention kernels do not take yet (the CUDA path does "
                    "not take padding masks yet); run it on the CPU backend");
    cfg.key_lengths = c.i32(ids);
  }
  return a;
}

// q (B,T,NH*HS), k, v (B,T,KVH*HS) -> out (B,T,NH*HS).
Thunk grouped_attention(OpContext &c) {
  Attention a = grouped_attention_of(c, 0, true);
  c.expect_result_like(0, 0);
  a.cfg.mask =
      c.flag("causal") ? AttentionMask::Causal : AttentionMask::Bidirectional;
  const bool saves = saves_probabilities(c, a.cfg);
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *q = c.ptr(c.in(0)), *kp = c.ptr(c.in(1)),
       *v = c.ptr(c.in(2));
  return [&k, s, out, q, kp, v, a, saves](const RunOptions &o) {
    k.gqa_attention_forward(out, saves ? s->scratch(0) : nullptr, q, kp, v,
                            a.config(o));
  };
}

// Recomputes the probabilities (and their dropout), then dq, dk, dv.
Thunk grouped_attention_grad(OpContext &c) {
  Attention a = grouped_attention_of(c, 1, true);
  a.cfg.mask =
      c.flag("causal") ? AttentionMask::Causal : AttentionMask::Bidirectional;
  c.expect_shape(c.shape(c.in(0)), c.shape(c.in(1)), "dout");
  c.expect_result_like(0, 1);
  c.expect_result_like(1, 2);
  c.expect_result_like(2, 3);
  const Kernels &k = c.kernels();
  const bool by_forward = recomputes_by_forward(c, a.cfg, c.elements(c.in(0)));
  ExecState *s = &c.s;
  void *dq = c.ptr(c.out(0)), *dk = c.ptr(c.out(1)), *dv = c.ptr(c.out(2));
  void *dout = c.ptr(c.in(0)), *q = c.ptr(c.in(1)), *kp = c.ptr(c.in(2)),
       *v = c.ptr(c.in(3));
  size_t bq = c.bytes(c.out(0)), bkv = c.bytes(c.out(1));
  return [&k, s, dq, dk, dv, dout, q, kp, v, bq, bkv, a,
          by_forward](const RunOptions &o) {
    AttentionConfig cfg = a.config(o);
    float *att = by_forward ? s->scratch(0) : nullptr;
    if (by_forward)
      k.gqa_attention_forward(s->scratch(1), att, q, kp, v, cfg);
    s->device.zero(dq, bq);
    s->device.zero(dk, bkv);
    s->device.zero(dv, bkv);
    k.gqa_attention_backward(dq, dk, dv, dout, q, kp, v, att, cfg);
  };
}

Attention cross_attention_of(OpContext &c, int q_operand) {
  auto q = c.shape(c.in(q_operand));
  Attention a = attention(c, q, int(q.back()));
  c.expect_shape(c.shape(c.in(q_operand + 1)), {q[0], q[1], 2 * q[2]}, "kv");
  a.cfg.mask = AttentionMask::StrictlyEarlier;
  return a;
}

// q (B,T,C), kv (B,T,2C) -> out (B,T,C); keys at strictly earlier positions.
Thunk cross_attention(OpContext &c) {
  Attention a = cross_attention_of(c, 0);
  c.expect_result_like(0, 0);
  const bool saves = saves_probabilities(c, a.cfg);
  const Kernels &k = c.kernels();
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *q = c.ptr(c.in(0)), *kv = c.ptr(c.in(1));
  return [&k, s, out, q, kv, a, saves](const RunOptions &o) {
    k.cross_attention_forward(out, saves ? s->scratch(0) : nullptr, q, kv,
                              a.config(o));
  };
}

Thunk cross_attention_grad(OpContext &c) {
  Attention a = cross_attention_of(c, 1);
  c.expect_shape(c.shape(c.in(0)), c.shape(c.in(1)), "dout");
  c.expect_result_like(0, 1);
  c.expect_result_like(1, 2);
  const Kernels &k = c.kernels();
  const bool by_forward = recomputes_by_forward(c, a.cfg, c.elements(c.in(0)));
  ExecState *s = &c.s;
  void *dq = c.ptr(c.out(0)), *dkv = c.ptr(c.out(1));
  void *dout = c.ptr(c.in(0)), *q = c.ptr(c.in(1)), *kv = c.ptr(c.in(2));
  size_t bq = c.bytes(c.out(0)), bkv = c.bytes(c.out(1));
  return [&k, s, dq, dkv, dout, q, kv, bq, bkv, a,
          by_forward](const RunOptions &o) {
    AttentionConfig cfg = a.config(o);
    float *att = by_forward ? s->scratch(0) : nullptr;
    if (by_forward)
      k.cross_attention_forward(s->scratch(1), att, q, kv, cfg);
    s->device.zero(dq, bq);
    s->device.zero(dkv, bkv);
    k.cross_attention_backward(dq, dkv, dout, q, kv, att, cfg);
  };
}

/// Checks the position (operand `operand`) against the cache before each
/// run, from its host copy, and records it as filled after the run. A
/// `lag` of 1 writes position pos - 1 (a lagged cross-attention): the cache
/// must then hold [0, pos - 1) and holds [0, pos) after.
const int *decode_position(OpContext &c, int operand, KvCache &cache,
                           int capacity, int lag = 0) {
  int id = c.position(operand);
  const int32_t *pos = &c.s.host_i32[id];
  std::string where = c.where();
  KvCache *kv = &cache;
  c.plan.before.push_back([pos, kv, capacity, where, lag] {
    if (*pos < 0)
      throw std::runtime_error(where + ": position " + std::to_string(*pos) +
                               " is negative");
    if (*pos >= capacity)
      throw std::runtime_error(
          where + ": position " + std::to_string(*pos) +
          " reaches the capacity " + std::to_string(capacity) +
          " of the KV cache (the model's context length); stop decoding "
          "there or use a model with more positions");
    if (*pos - lag > kv->filled)
      throw std::runtime_error(where + ": position " + std::to_string(*pos) +
                               " skips positions: the KV cache holds "
                               "positions [0, " +
                               std::to_string(kv->filled) +
                               "); feed every position in order from 0");
  });
  c.plan.after.push_back([pos, kv, lag] { kv->filled = *pos + 1 - lag; });
  return c.i32(id);
}

// qkv (B,1,3C), pos () -> out (B,1,C); the op's cache (B,P,C) keys and
// values of positions [0, pos).
Thunk decode_attention(OpContext &c) {
  auto qkv = c.shape(c.in(0));
  if (qkv.size() != 3 || qkv[1] != 1 || qkv[2] % 3 != 0)
    throw c.error("expects qkv [B, 1, 3C], got " + shape_string(qkv));
  Attention a = attention(c, qkv, int(qkv[2] / 3));
  c.expect_shape(c.shape(c.out(0)), {qkv[0], 1, qkv[2] / 3}, "the result");
  int capacity = c.count("capacity");
  const Kernels &k = c.kernels();
  KvCache &cache = kv_cache(c, size_t(a.cfg.B) * capacity * a.cfg.C() *
                                   element_size(k.dtype()));
  const int *pos = decode_position(c, 1, cache, capacity);
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  KvCache *kv = &cache;
  AttentionConfig cfg = a.cfg;
  return [&k, kv, out, x, pos, capacity, cfg](const RunOptions &) {
    k.decode_attention_forward(out, kv->k, kv->v, x, pos, capacity, cfg);
  };
}

// q (B,1,NH*HS), k, v (B,1,KVH*HS), pos () -> out (B,1,NH*HS); the op's
// cache (B,P,KVH*HS) holds rotated keys and values of positions [0, pos).
Thunk decode_grouped_attention(OpContext &c) {
  auto q = c.shape(c.in(0));
  if (q.size() != 3 || q[1] != 1)
    throw c.error("expects q [B, 1, C], got " + shape_string(q));
  Attention a = grouped_attention_of(c, 0, false);
  a.cfg.mask = AttentionMask::Causal;
  c.expect_shape(c.shape(c.out(0)), q, "the result");
  int capacity = c.count("capacity");
  const Kernels &k = c.kernels();
  KvCache &cache = kv_cache(c, size_t(a.cfg.B) * capacity * a.cfg.C_kv() *
                                   element_size(k.dtype()));
  const int *pos = decode_position(c, 3, cache, capacity);
  void *out = c.ptr(c.out(0)), *qp = c.ptr(c.in(0)), *kp = c.ptr(c.in(1)),
       *vp = c.ptr(c.in(2));
  KvCache *kv = &cache;
  AttentionConfig cfg = a.cfg;
  return [&k, kv, out, qp, kp, vp, pos, capacity, cfg](const RunOptions &) {
    k.decode_gqa_attention_forward(out, kv->k, kv->v, qp, kp, vp, pos, capacity,
                                   cfg);
  };
}

// q (B,1,C), kv (B,1,2C), pos () -> out (B,1,C) over the cached positions
// [0, pos); then kv joins the cache at pos. `lagged`: kv is position
// pos - 1's and joins the cache before the attention.
Thunk decode_cross_attention(OpContext &c) {
  auto q = c.shape(c.in(0));
  if (q.size() != 3 || q[1] != 1)
    throw c.error("expects query [B, 1, C], got " + shape_string(q));
  Attention a = attention(c, q, int(q[2]));
  c.expect_shape(c.shape(c.in(1)), {q[0], 1, 2 * q[2]}, "kv");
  c.expect_shape(c.shape(c.out(0)), q, "the result");
  int capacity = c.count("capacity");
  const Kernels &k = c.kernels();
  KvCache &cache = kv_cache(c, size_t(a.cfg.B) * capacity * a.cfg.C() *
                                   element_size(k.dtype()));
  bool lagged = c.flag("lagged");
  const int *pos = decode_position(c, 2, cache, capacity, lagged ? 1 : 0);
  void *out = c.ptr(c.out(0)), *qp = c.ptr(c.in(0)), *kvp = c.ptr(c.in(1));
  KvCache *kv = &cache;
  AttentionConfig cfg = a.cfg;
  return
      [&k, kv, out, qp, kvp, pos, capacity, cfg, lagged](const RunOptions &) {
        k.decode_cross_attention_forward(out, kv->k, kv->v, qp, kvp, pos,
                                         capacity, cfg, lagged);
      };
}

} // namespace

void register_attention_ops(OpRegistry &r) {
  r.add(op::kSelfAttention, self_attention);
  r.add(op::kSelfAttentionGrad, self_attention_grad);
  r.add(op::kCrossAttention, cross_attention);
  r.add(op::kCrossAttentionGrad, cross_attention_grad);
  r.add(op::kDecodeAttention, decode_attention);
  r.add(op::kDecodeCrossAttention, decode_cross_attention);
  r.add(op::kGroupedAttention, grouped_attention);
  r.add(op::kGroupedAttentionGrad, grouped_attention_grad);
  r.add(op::kDecodeGroupedAttention, decode_grouped_attention);
}

} // namespace tpc
