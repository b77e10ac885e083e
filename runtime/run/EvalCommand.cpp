//===- EvalCommand.cpp - tpc-run eval: the loss over a token file ---------===//

#include "runtime/program/Abi.h"
#include "runtime/run/Command.h"
#include "runtime/run/Run.h"

#include <cmath>
#include <cstdio>

namespace tpc {

void add_eval_flags(CLI::App &app, CommandOptions &opt) {
  app.add_option("--data", opt.data, "llm.c token file")->required();
  app.add_option("--load", opt.load, "Checkpoint to evaluate");
  app.add_option("--max-batches", opt.max_batches,
                 "Stop after this many global batches (default: the file)");
  app.add_flag("--json", opt.json, "Print one JSON line");
}

int eval_command(Session &s, const CommandOptions &opt) {
  ModelEntry entry;
  together(s.comm, [&] {
    entry = describe_entry(s.ex, abi::kForward);
    check_loss_entry(s.ex, entry);
  });
  load_weights(s, opt, false);
  EvalResult r = evaluate(s.ex, entry, opt.data, opt.max_batches);
  // Every rank holds the same all-reduced loss, and --json stays JSON.
  if (!std::isfinite(r.loss))
    throw weights_overflow("the eval loss (" + std::to_string(r.loss) + ") is",
                           opt.load);
  if (!s.root)
    return 0;
  if (opt.json)
    std::printf("{\"loss\": %.9g, \"tokens\": %lld, \"batches\": %lld, "
                "\"tp\": %d, \"dp\": %d}\n",
                r.loss, (long long)r.tokens, (long long)r.batches,
                s.comm.tp_size(), s.comm.dp_size());
  else
    std::printf("eval loss %.4f over %lld tokens\n", r.loss,
                (long long)r.tokens);
  return 0;
}

} // namespace tpc
