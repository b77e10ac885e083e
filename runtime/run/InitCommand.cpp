//===- InitCommand.cpp - tpc-run init: write the initial weights ----------===//

#include "runtime/run/Command.h"

#include <cstdio>

namespace tpc {

void add_init_flags(CLI::App &app, CommandOptions &opt) {
  app.add_option("--save", opt.save, "Checkpoint to write")->required();
}

int init_command(Session &s, const CommandOptions &opt) {
  load_weights(s, opt, false); // init has no --load: the weights of --seed
  s.ex.save_checkpoint(opt.save);
  if (s.root)
    std::printf("wrote %d parameters to %s\n", s.prog.parameters_size(),
                opt.save.c_str());
  return 0;
}

} // namespace tpc
