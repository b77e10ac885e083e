//===- Dropout.h - The keep decision shared by dropout kernels --*- C++ -*-===//
//
// Plain dropout and attention-probability dropout draw their masks the same
// way; this is that one way.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_BACKENDS_CPU_KERNELS_DROPOUT_H
#define TPC_RUNTIME_BACKENDS_CPU_KERNELS_DROPOUT_H

#include "runtime/backend/KernelChecks.h"
#include "runtime/backend/KernelTypes.h"
#include "runtime/util/Philox.h"

namespace tpc::cpu {

struct DropoutDraw {
  float p;
  float scale;
  uint64_t seed;
  uint64_t stream;

  explicit DropoutDraw(const DropoutParams &d)
      : p(d.p), scale(1.0f / (1.0f - d.p)), seed(d.seed),
        stream(dropout_stream(d.key, d.step)) {}

  bool enabled() const { return p > 0.0f; }
  /// Whether the element with this global index survives.
  bool keep(uint64_t global_index) const {
    return p <= 0.0f || philox_uniform(seed, stream, global_index) >= p;
  }
};

} // namespace tpc::cpu

#endif // TPC_RUNTIME_BACKENDS_CPU_KERNELS_DROPOUT_H
