//===- Dropout.cpp - Counter-based dropout --------------------------------===//
//
// The keep decision of an element is a pure function of (seed, step, op key,
// global element index), so masks need not be stored and do not depend on
// how a tensor is split across ranks.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Dropout.h"
#include "runtime/backends/cpu/CpuKernels.h"
#include "runtime/backends/cpu/kernels/Kernels.h"

#include <stdexcept>
#include <string>

namespace tpc::cpu {

void dropout_forward(float *out, uint8_t *mask, const float *inp, size_t n,
                     const DropoutParams &d, const GlobalIndexMap &map) {
  check_dropout(d);
  DropoutDraw draw(d);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    bool keep = draw.keep(map(i));
    out[i] = keep ? inp[i] * draw.scale : 0.0f;
    if (mask)
      mask[i] = keep;
  }
}

void dropout_backward(float *dinp, const uint8_t *mask, const float *dout,
                      size_t n, const DropoutParams &d,
                      const GlobalIndexMap &map) {
  check_dropout(d);
  DropoutDraw draw(d);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    bool keep = mask ? mask[i] != 0 : draw.keep(map(i));
    if (keep)
      dinp[i] += dout[i] * draw.scale;
  }
}

//===----------------------------------------------------------------------===//
// Kernel table entries (CpuKernels.h)
//===----------------------------------------------------------------------===//

template <class S>
void CpuKernels<S>::dropout_forward(void *out, const void *inp, size_t n,
                                    const DropoutParams &d,
                                    const GlobalIndexMap &map) const {
  In<S> x(inp, n);
  Out<S> o(out, n, false);
  cpu::dropout_forward(o, nullptr, x, n, d, map);
}

#define TPC_INSTANTIATE(S)                                                     \
  template void CpuKernels<S>::dropout_forward(void *, const void *, size_t,   \
                                               const DropoutParams &,          \
                                               const GlobalIndexMap &) const;
TPC_INSTANTIATE(F32Storage)
TPC_INSTANTIATE(BF16Storage)
TPC_INSTANTIATE(F16Storage)
#undef TPC_INSTANTIATE

} // namespace tpc::cpu
