//===- ForwardCommand.cpp - tpc-run forward: the logits of one batch ------===//

#include "runtime/program/Abi.h"
#include "runtime/run/Command.h"
#include "runtime/run/Run.h"

#include <cstdio>

namespace tpc {

void add_forward_flags(CLI::App &app, CommandOptions &opt) {
  app.add_option("--data", opt.data, "llm.c token file")->required();
  app.add_option("--load", opt.load, "Checkpoint to use");
  app.add_option("--out", opt.out, "Output file")->required();
}

int forward_command(Session &s, const CommandOptions &opt) {
  ModelEntry entry;
  together(s.comm, [&] {
    entry = describe_entry(s.ex, abi::kForward);
    check_loss_entry(s.ex, entry);
  });
  load_weights(s, opt, false);
  std::vector<float> logits = forward_logits(s.ex, entry, opt.data, opt.load);
  write_f32_on_root(s, opt.out, logits);
  if (s.root)
    std::printf("wrote logits [%d,%d,%d] to %s\n", entry.B, entry.T,
                entry.vocab, opt.out.c_str());
  return 0;
}

} // namespace tpc
