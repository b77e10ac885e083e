//===- Activation.cpp - GELU and SwiGLU -----------------------------------===//
//
// GPT-2's GELU, the tanh approximation:
//   gelu(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// Llama's SwiGLU: silu(gate) * up, silu(x) = x * sigmoid(x).
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

/// 1 / (1 + e^-x) from e^-|x| <= 1: no overflow to infinity for any x, and
/// a tiny result (not 0/0) far below zero.
static inline float sigmoid(float x) {
  float e = exp_approx(-std::fabs(x));
  float r = 1.0f / (1.0f + e);
  return x >= 0.0f ? r : e * r;
}

TPC_VECTOR_CLONES
static void swiglu_forward_chunk(float *out, const float *gate, const float *up,
                                 size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i) {
    float x = gate[i];
    out[i] = x * sigmoid(x) * up[i];
  }
}

TPC_VECTOR_CLONES
static void swiglu_backward_chunk(float *dgate, float *dup, const float *dout,
                                  const float *gate, const float *up,
                                  size_t n) {
  if (dgate) {
#pragma omp simd
    for (size_t i = 0; i < n; ++i) {
      // silu'(x) = sigmoid(x) (1 + x (1 - sigmoid(x))).
      float x = gate[i], sg = sigmoid(x);
      dgate[i] += dout[i] * up[i] * (sg * (1.0f + x * (1.0f - sg)));
    }
  }
  if (dup) {
#pragma omp simd
    for (size_t i = 0; i < n; ++i) {
      float x = gate[i];
      dup[i] += dout[i] * (x * sigmoid(x));
    }
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

void swiglu_forward(float *out, const float *gate, const float *up, size_t n) {
  size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kChunk;
    swiglu_forward_chunk(out + i, gate + i, up + i, std::min(kChunk, n - i));
  }
}

void swiglu_backward(float *dgate, float *dup, const float *dout,
                     const float *gate, const float *up, size_t n) {
  if (!dgate && !dup)
    return;
  size_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kChunk;
    swiglu_backward_chunk(dgate ? dgate + i : nullptr, dup ? dup + i : nullptr,
                          dout + i, gate + i, up + i, std::min(kChunk, n - i));
  }
}

} // namespace tpc::cpu
