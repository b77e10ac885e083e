//===- Activation.cpp - GELU ----------------------------------------------===//
//
// GPT-2's GELU, the tanh approximation:
//   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cmath>

namespace tpc::cpu {

static constexpr float kGeluScale = 0.7978845608028654f; // sqrt(2/pi)
static constexpr float kGeluCube = 0.044715f;

void gelu_forward(float *out, const float *inp, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float x = inp[i];
    float u = kGeluScale * (x + kGeluCube * x * x * x);
    out[i] = 0.5f * x * (1.0f + std::tanh(u));
  }
}

void gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float x = inp[i];
    float u = kGeluScale * (x + kGeluCube * x * x * x);
    float th = std::tanh(u);
    float du = kGeluScale * (1.0f + 3.0f * kGeluCube * x * x);
    float grad = 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * du;
    dinp[i] += grad * dout[i];
  }
}

} // namespace tpc::cpu
