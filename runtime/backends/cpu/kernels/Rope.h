//===- Rope.h - Rotary position embedding of the CPU attention --*- C++ -*-===//
//
// q and k rotated by their positions (rotate-half, angles computed in
// double and rounded to float once), for training, its gradients and
// decoding alike, so that a decoded position turns as the forward did.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_ROPE_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_ROPE_H

#include "runtime/backend/KernelTypes.h"
#include "runtime/backends/cpu/kernels/AttentionTiles.h"

#include <cstddef>
#include <utility>

namespace tpc::cpu::attn {

/// The B*T rows of src rotated into dst, row (b, t) by position t; with
/// `back`, dst += src rotated back (the adjoint, for gradients).
void rope_rows(MutRows dst, Rows src, int heads, bool back,
               const AttentionConfig &cfg);

/// Buffers of n floats for rotated operands and their gradients, kept
/// between calls like scratch(); apart from it, since the parallel regions
/// use scratch() on this thread too.
float *operand_buffer(int slot, size_t n);

/// q and k as the scores read them: rotated by position into operand
/// buffers 0 and 1 with RoPE on, as given otherwise.
std::pair<Rows, Rows> scored(Rows q, Rows k, const AttentionConfig &cfg);

/// The same for decoding: the B rows of q and k are position pos's.
std::pair<Rows, Rows> scored_at(Rows q, Rows k, int pos,
                                const AttentionConfig &cfg);

} // namespace tpc::cpu::attn

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_ROPE_H
