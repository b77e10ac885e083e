//===- KernelChecks.h - Argument checks every backend makes -----*- C++ -*-===//
//
// The host-side checks of a kernel call's plain arguments (dropout
// probabilities, attention shapes, KV heads, RoPE), shared by the backends
// so that a bad call fails the same way, with the same message, on each.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_KERNELCHECKS_H
#define TPC_RUNTIME_BACKEND_KERNELCHECKS_H

#include "runtime/backend/KernelTypes.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace tpc {

/// Throws std::invalid_argument unless 0 <= p < 1.
inline void check_dropout(const DropoutParams &d) {
  if (!(d.p >= 0.0f && d.p < 1.0f))
    throw std::invalid_argument("dropout probability " + std::to_string(d.p) +
                                " is outside [0, 1)");
}

inline bool rope_on(const AttentionConfig &cfg) { return cfg.rope.theta > 0.0; }

/// The rotated dimensions of each head.
inline int rope_dims(const AttentionConfig &cfg) {
  return cfg.rope.dims ? cfg.rope.dims : cfg.HS;
}

/// KV heads and RoPE parameters.
inline void check_attention_heads(const AttentionConfig &cfg, const char *op) {
  const int kvh = cfg.kv_heads();
  const bool groups =
      kvh > 0 &&
      (cfg.kv_replicated ? cfg.global_heads() % kvh == 0 : cfg.NH % kvh == 0);
  if (cfg.KVH < 0 || cfg.NH <= 0 || !groups)
    throw std::invalid_argument(std::string(op) + ": " +
                                std::to_string(cfg.NH) +
                                " query heads do not form groups over " +
                                std::to_string(cfg.KVH) + " KV heads");
  const RopeParams &r = cfg.rope;
  if (!(r.theta >= 0.0) || !std::isfinite(r.theta))
    throw std::invalid_argument(std::string(op) + ": RoPE theta " +
                                std::to_string(r.theta) +
                                " is not a finite value >= 0");
  if (rope_on(cfg) && (r.dims < 0 || r.dims > cfg.HS || rope_dims(cfg) % 2))
    throw std::invalid_argument(
        std::string(op) + ": RoPE dims " + std::to_string(r.dims) +
        " must be even and within the head size " + std::to_string(cfg.HS) +
        " (0: all of an even head size)");
}

/// The training attention calls of the kernel table.
enum class AttentionCall {
  Forward,
  Backward,
  CrossForward,
  CrossBackward,
  GqaForward,
  GqaBackward
};
/// The decoding ones.
enum class DecodeCall { Self, Cross, Gqa };

inline const char *attention_call_name(AttentionCall call) {
  switch (call) {
  case AttentionCall::Forward:
    return "attention_forward";
  case AttentionCall::Backward:
    return "attention_backward";
  case AttentionCall::CrossForward:
    return "cross_attention_forward";
  case AttentionCall::CrossBackward:
    return "cross_attention_backward";
  case AttentionCall::GqaForward:
    return "gqa_attention_forward";
  case AttentionCall::GqaBackward:
    return "gqa_attention_backward";
  }
  return "attention";
}

inline const char *decode_call_name(DecodeCall call) {
  switch (call) {
  case DecodeCall::Self:
    return "decode_attention_forward";
  case DecodeCall::Cross:
    return "decode_cross_attention_forward";
  case DecodeCall::Gqa:
    return "decode_gqa_attention_forward";
  }
  return "decode_attention";
}

/// The fused and cross-attention kernels hold one KV head per query head.
inline void check_multi_head(const AttentionConfig &cfg, const char *op) {
  if (cfg.kv_heads() != cfg.NH)
    throw std::invalid_argument(
        std::string(op) +
        ": grouped KV heads need the gqa_ kernels, which take q, k and v "
        "apart");
}

/// A training call's arguments: its shapes, its rank's heads, dropout, KV
/// heads and RoPE; one KV head per query head but in the gqa_ calls; the
/// strictly-earlier mask, cross-attention's own, refused by the forward
/// self-attention calls and gqa_attention_backward.
inline void check_attention(const AttentionConfig &cfg, AttentionCall call) {
  const char *op = attention_call_name(call);
  if (cfg.B <= 0 || cfg.T <= 0 || cfg.NH <= 0 || cfg.HS <= 0 ||
      cfg.window < 0 || cfg.head_offset < 0 || cfg.batch_offset < 0 ||
      cfg.head_offset + cfg.NH > cfg.global_heads())
    throw std::invalid_argument(
        std::string(op) + ": bad configuration B=" + std::to_string(cfg.B) +
        " T=" + std::to_string(cfg.T) + " NH=" + std::to_string(cfg.NH) +
        " HS=" + std::to_string(cfg.HS) +
        " window=" + std::to_string(cfg.window) + " heads [" +
        std::to_string(cfg.head_offset) + ", " +
        std::to_string(cfg.head_offset + cfg.NH) + ") of " +
        std::to_string(cfg.global_heads()));
  check_dropout(cfg.dropout);
  check_attention_heads(cfg, op);
  const bool grouped =
      call == AttentionCall::GqaForward || call == AttentionCall::GqaBackward;
  if (!grouped)
    check_multi_head(cfg, op);
  if (cfg.mask == AttentionMask::StrictlyEarlier &&
      (call == AttentionCall::Forward || grouped))
    throw std::invalid_argument(
        std::string(op) +
        ": the strictly-earlier mask is for cross-attention; use " +
        (call == AttentionCall::GqaBackward ? "cross_attention_backward"
                                            : "cross_attention_forward"));
}

/// A decoding call's arguments: shapes, capacity and KV heads, one per
/// query head but in decode_gqa_attention_forward. `pos`: the position,
/// where the caller reads it on the host (the CPU), within the capacity.
inline void check_decode(const AttentionConfig &cfg, int capacity,
                         DecodeCall call, std::optional<int> pos = {}) {
  const char *op = decode_call_name(call);
  if (cfg.B <= 0 || cfg.NH <= 0 || cfg.HS <= 0 || cfg.window < 0 ||
      capacity <= 0 || (pos && (*pos < 0 || *pos >= capacity)))
    throw std::invalid_argument(
        std::string(op) + ": bad configuration B=" + std::to_string(cfg.B) +
        " NH=" + std::to_string(cfg.NH) + " HS=" + std::to_string(cfg.HS) +
        " window=" + std::to_string(cfg.window) +
        (pos ? " position " + std::to_string(*pos) + " of" : "") +
        " capacity " + std::to_string(capacity));
  check_attention_heads(cfg, op);
  if (call != DecodeCall::Gqa)
    check_multi_head(cfg, op);
}

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_KERNELCHECKS_H
