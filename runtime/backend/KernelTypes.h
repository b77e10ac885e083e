//===- KernelTypes.h - Parameters shared by all backends --------*- C++ -*-===//
//
// Plain structs that describe a kernel call. The CPU kernels, the Backend
// interface and a future device backend all take these, so a call site does
// not change with the backend.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKEND_KERNELTYPES_H
#define TPC_RUNTIME_BACKEND_KERNELTYPES_H

#include "runtime/backend/ElementType.h"

#include <cstdint>

namespace tpc {

/// Dropout keyed by (seed, step, key, global element index). p = 0 disables
/// it. Kept elements are scaled by 1/(1-p) (inverted dropout).
struct DropoutParams {
  float p = 0.0f;
  uint64_t seed = 0;
  uint64_t step = 0;
  uint64_t key = 0; // e.g. fnv1a64 of the op's name
};

/// Which keys a query at position t may attend to.
enum class AttentionMask {
  Causal,          // s <= t (and s > t - window)
  Bidirectional,   // all s (or |s - t| < window)
  StrictlyEarlier, // s < t (and s >= t - window): StagFormer cross-attention
};

/// Rotary position embedding (Hugging Face's rotate-half convention) applied
/// to q and k: theta = 0 disables it. dims: rotated leading dimensions of each
/// head (even, <= HS; 0 means HS).
struct RopeParams {
  double theta = 0.0;
  int dims = 0;
};

/// Shapes and options of one attention call on this rank. C = NH * HS is
/// the local width; the rank holds global heads [head_offset,
/// head_offset + NH) of nh_global and global sequences [batch_offset,
/// batch_offset + B). With grouped-query attention the rank holds KVH key
/// and value heads, and local query head h reads KV head h / (NH / KVH);
/// NH must be a multiple of KVH.
struct AttentionConfig {
  int B = 0, T = 0, NH = 0, HS = 0;
  int KVH = 0; // local KV heads; 0: same as NH (multi-head)
  // With head_offset/nh_global: every rank holds all KVH key/value heads
  // (tp > kv_heads) and global query head g reads g / (nh_global / KVH).
  bool kv_replicated = false;
  AttentionMask mask = AttentionMask::Causal;
  int window = 0; // 0: no window
  DropoutParams dropout;
  int head_offset = 0;
  int nh_global = 0; // 0: same as NH (unsplit)
  // Global index of local sequence 0 (dp_rank * B), so that data-parallel
  // ranks draw the probability-dropout masks of their own sequences.
  int batch_offset = 0;
  RopeParams rope;
  // A key padding mask, (B) i32 on the device: sequence b attends only to
  // keys at positions below key_lengths[b]. Null: every key is real. Only
  // where Kernels::attention_takes_key_lengths().
  const int *key_lengths = nullptr;

  int C() const { return NH * HS; }
  int global_heads() const { return nh_global ? nh_global : NH; }
  int kv_heads() const { return KVH ? KVH : NH; }
  int C_kv() const { return kv_heads() * HS; }
};

/// A loss as the caller needs it for token-weighted means across
/// micro-batches and ranks.
struct LossSum {
  double sum = 0.0;
  int64_t count = 0;
};

struct AdamWParams {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
  int64_t step = 1;        // 1-based, for bias correction
  float grad_scale = 1.0f; // clipping coefficient or loss-scale inverse
};

/// The 16-bit working copy of an f32 master that an update rounds each new
/// value into, in the same pass; `data` is null for a parameter that is its
/// own master. Rounding is the f32 table's cast, so both paths agree bit for
/// bit.
struct WorkingCopy {
  void *data = nullptr;
  ElementType type = ElementType::F32;
};

struct SgdParams {
  float lr = 1e-2f;
  float momentum = 0.0f; // 0: plain SGD, no momentum buffer needed
  float weight_decay = 0.0f;
  float grad_scale = 1.0f;
};

} // namespace tpc

#endif // TPC_RUNTIME_BACKEND_KERNELTYPES_H
