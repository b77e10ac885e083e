//===- Dropout.cpp - Counter-based dropout --------------------------------===//
//
// The keep decision of an element is a pure function of (seed, step, op key,
// global element index), so masks need not be stored and do not depend on
// how a tensor is split across ranks.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Dropout.h"
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

} // namespace tpc::cpu
