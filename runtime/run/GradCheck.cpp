//===- GradCheck.cpp - Gradients against finite differences ---------------===//

#include "runtime/run/GradCheck.h"
#include "runtime/io/TokenFile.h"
#include "runtime/program/Abi.h"
#include "runtime/run/Run.h"

#include <cmath>

namespace tpc {

GradCheckResult grad_check(Executor &ex, const std::string &data, int per_param,
                           double eps, double atol, double rtol,
                           const MaskOptions &masks) {
  // A step of eps moves a 16-bit working copy by nothing or by a whole
  // rounding step, so finite differences say nothing about the gradient.
  for (const program::Parameter &p : ex.program().parameters())
    if (p.master_dtype() != program::DTYPE_UNSPECIFIED)
      throw std::runtime_error("gradcheck compares gradients with finite "
                               "differences, which need an fp32 program; '" +
                               p.name() +
                               "' is computed in 16 bits: compile the model "
                               "with --precision fp32");
  Comm &comm = ex.comm();
  ModelEntry train = describe_entry(ex, abi::kTrainStep);
  ModelEntry forward = describe_entry(ex, abi::kForward);
  ex.check(*train.fn);
  ex.check(*forward.fn);
  Batch batch(train);
  together(comm, [&] {
    TokenFile file(data);
    make_batcher(ex, train, file, masks)
        ->next(batch.inputs.data(), batch.targets.data(), batch.extras());
  });
  // A sentence-order head's loss enters the sum at weight 1 where --sop
  // labels it, so that its gradients are checked too.
  batch.sentence_order_weight = masks.sentence_order ? 1.0f : 0.0f;
  for (const ModelEntry *e : {&train, &forward})
    set_batch(ex, *e, batch);
  ex.zero_gradients();
  ex.run(*train.fn);
  auto loss = [&] {
    ex.run(*forward.fn);
    float sum = 0.0f;
    ex.read_output(*forward.fn, 0, &sum, sizeof(sum));
    double total = sum;
    comm.all_reduce(&total, 1, ReduceOp::Sum, Group::DP);
    return total;
  };
  GradCheckResult result;
  for (const program::Parameter &p : ex.program().parameters()) {
    std::vector<float> grad = ex.read_gradient(p.name());
    // DP ranks' gradients are of their own windows: the loss is their sum.
    std::vector<double> g(grad.begin(), grad.end());
    comm.all_reduce(g.data(), g.size(), ReduceOp::Sum, Group::DP);
    std::vector<float> value = ex.read_parameter(p.name());
    bool split = p.layout().kind() == program::Layout::SPLIT;
    bool mine = !split || comm.tp_rank() == 0;
    size_t count = value.size();
    for (int k = 0; k < per_param && count > 0; ++k) {
      size_t i = (size_t(k) * 7919 + 13) % count;
      // Central differences at steps eps and eps/2, extrapolated
      // (Richardson) so that the eps^2 truncation error cancels.
      double d[2];
      for (int half = 0; half < 2; ++half) {
        double h = half ? eps / 2 : eps;
        double loss_at[2];
        for (int side = 0; side < 2; ++side) {
          std::vector<float> moved = value;
          if (mine)
            moved[i] += float(side == 0 ? h : -h);
          ex.write_parameter(p.name(), moved);
          loss_at[side] = loss();
        }
        d[half] = (loss_at[0] - loss_at[1]) / (2.0 * h);
      }
      ex.write_parameter(p.name(), value);
      double fd = (4.0 * d[1] - d[0]) / 3.0;
      // Rank 0 holds the perturbed element; the others agree with it.
      double analytic = g[i];
      comm.broadcast(&analytic, sizeof(analytic), 0, Group::TP);
      double error =
          std::fabs(fd - analytic) / (atol + rtol * std::fabs(analytic));
      ++result.checked;
      if (error > result.worst) {
        result.worst = error;
        result.worst_at = p.name() + "[" + std::to_string(i) + "]: analytic " +
                          std::to_string(analytic) + ", finite difference " +
                          std::to_string(fd);
      }
    }
  }
  return result;
}

} // namespace tpc
