//===- Activation.cpp - GELU ----------------------------------------------===//
//
// GPT-2's GELU, the tanh approximation:
//   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/VecMath.h"

#include <algorithm>
#include <cmath>

namespace tpc::cpu {

static constexpr float kGeluScale = 0.7978845608028654f; // sqrt(2/pi)
static constexpr float kGeluCube = 0.044715f;

/// Elements per parallel task: a few pages each, enough to pay for a task.
static constexpr size_t kChunk = 16384;

TPC_VECTOR_CLONES
static void gelu_forward_chunk(float *out, const float *inp, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    float x = inp[i];
    float u = kGeluScale * (x + kGeluCube * x * x * x);
    out[i] = 0.5f * x * (1.0f + tanh_approx(u));
  }
}

TPC_VECTOR_CLONES
static void gelu_backward_chunk(float *dinp, const float *inp,
                                const float *dout, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    float x = inp[i];
    float u = kGeluScale * (x + kGeluCube * x * x * x);
    float th = tanh_approx(u);
    float du = kGeluScale * (1.0f + 3.0f * kGeluCube * x * x);
    float grad = 0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * du;
    dinp[i] += grad * dout[i];
  }
}

void gelu_forward(float *out, const float *inp, size_t n) {
  size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kChunk;
    gelu_forward_chunk(out + i, inp + i, std::min(kChunk, n - i));
  }
}

void gelu_backward(float *dinp, const float *inp, const float *dout, size_t n) {
  size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kChunk;
    gelu_backward_chunk(dinp + i, inp + i, dout + i, std::min(kChunk, n - i));
  }
}

} // namespace tpc::cpu
