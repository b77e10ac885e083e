//===- GradCheckCommand.cpp - tpc-run gradcheck ---------------------------===//

#include "runtime/run/Command.h"
#include "runtime/run/GradCheck.h"

#include <cstdio>

namespace tpc {

void add_gradcheck_flags(CLI::App &app, CommandOptions &opt) {
  app.add_option("--data", opt.data, "llm.c token file")->required();
  app.add_option("--load", opt.load, "Checkpoint to use");
  app.add_option("--per-param", opt.per_param, "Elements checked per parameter")
      ->capture_default_str();
  app.add_option("--fd-eps", opt.fd_eps, "Finite-difference step")
      ->capture_default_str();
  app.add_option("--atol", opt.atol, "Absolute tolerance")
      ->capture_default_str();
  app.add_option("--rtol", opt.rtol, "Relative tolerance")
      ->capture_default_str();
  auto *masks = app.add_option("--masks", opt.masks.path,
                               "Check on a masked-LM batch (BERT): the mask "
                               "file of --data, as eval --masks reads it");
  auto *mask_id = app.add_option("--mask-id", opt.masks.mask_id,
                                 "The input id of a predicted position");
  masks->needs(mask_id);
  mask_id->needs(masks);
  add_mlm_flags(app, opt.masks);
}

int gradcheck_command(Session &s, const CommandOptions &opt) {
  load_weights(s, opt, false);
  MaskOptions masks = opt.masks;
  masks.seed = opt.seed;
  GradCheckResult r = grad_check(s.ex, opt.data, opt.per_param, opt.fd_eps,
                                 opt.atol, opt.rtol, masks);
  if (s.root)
    std::printf("gradcheck: %d elements, worst error %.3f of the tolerance "
                "(%s)\n",
                r.checked, r.worst, r.worst_at.c_str());
  if (r.worst > 1.0)
    throw std::runtime_error("a gradient differs from its finite "
                             "difference by more than atol + rtol * |g|");
  return 0;
}

} // namespace tpc
