//===- GradCheck.h - Gradients against finite differences -------*- C++ -*-===//
//
// `tpc-run gradcheck`: the gradients a compiled train_step computes, checked
// against central finite differences of the forward loss, on every rank of
// any tp x dp job.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_GRADCHECK_H
#define TPC_RUNTIME_RUN_GRADCHECK_H

#include "runtime/exec/Executor.h"
#include "runtime/run/Run.h"

#include <string>

namespace tpc {

struct GradCheckResult {
  int checked = 0;
  double worst = 0.0; // largest |fd - analytic| / (atol + rtol * |analytic|)
  std::string worst_at;
};

/// Compares train_step's gradients of the loss sum of the first batch of
/// `data` (dropout off; masked-LM batches under `masks`, with their token
/// types and padding) with central differences of `forward`'s loss sum
/// (steps eps and eps/2, Richardson-extrapolated) at `per_param` elements
/// of every parameter. Split parameters are
/// perturbed on tp rank 0 only, replicated ones on every rank.
GradCheckResult grad_check(Executor &ex, const std::string &data, int per_param,
                           double eps, double atol, double rtol,
                           const MaskOptions &masks = {});

} // namespace tpc

#endif // TPC_RUNTIME_RUN_GRADCHECK_H
