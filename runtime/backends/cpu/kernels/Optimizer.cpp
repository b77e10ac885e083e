//===- Optimizer.cpp - AdamW, SGD and gradient norms ----------------------===//
//
// Elementwise updates on this rank's shard of each parameter. The global
// gradient norm is the square root of the sum, over ranks, of
// sum_of_squares of the shards each rank owns (replicated parameters
// counted once).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include <cmath>

namespace tpc::cpu {

void adamw_update(float *param, const float *grad, float *m, float *v, size_t n,
                  const AdamWParams &p) {
  const float bc1 = 1.0f - float(std::pow(double(p.beta1), double(p.step)));
  const float bc2 = 1.0f - float(std::pow(double(p.beta2), double(p.step)));
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float g = grad[i] * p.grad_scale;
    float mi = p.beta1 * m[i] + (1.0f - p.beta1) * g;
    float vi = p.beta2 * v[i] + (1.0f - p.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    float mhat = mi / bc1, vhat = vi / bc2;
    // Decoupled decay (Loshchilov & Hutter): applied to the weight, not
    // folded into the gradient.
    param[i] -=
        p.lr * (mhat / (std::sqrt(vhat) + p.eps) + p.weight_decay * param[i]);
  }
}

void sgd_update(float *param, const float *grad, float *momentum_buf, size_t n,
                const SgdParams &p) {
  const bool use_momentum = p.momentum != 0.0f && momentum_buf;
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; ++i) {
    float g = grad[i] * p.grad_scale + p.weight_decay * param[i];
    if (use_momentum) {
      g += p.momentum * momentum_buf[i];
      momentum_buf[i] = g;
    }
    param[i] -= p.lr * g;
  }
}

double sum_of_squares(const float *x, size_t n) {
  double acc = 0.0;
#pragma omp parallel for reduction(+ : acc) schedule(static)
  for (size_t i = 0; i < n; ++i)
    acc += double(x[i]) * x[i];
  return acc;
}

} // namespace tpc::cpu
