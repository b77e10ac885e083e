//===- Main.cpp - Load a program and run one command on every rank --------===//
//
// Every error is reported by the rank that saw it; all ranks then exit with
// a non-zero status. Setup steps run on every rank together (see together()
// in Run.h), so a rank that fails there never leaves the others waiting.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/backends/cpu/Threads.h"
#include "runtime/comm/Faults.h"
#include "runtime/io/FileUtil.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/program/ProgramMemory.h"
#include "runtime/run/Command.h"
#include "runtime/run/Run.h"
#include "runtime/run/Signals.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace tpc {

namespace {
int dispatch(Session &s, const CommandOptions &opt) {
  const std::string &c = opt.command;
  if (c == "init")
    return init_command(s, opt);
  if (c == "eval")
    return eval_command(s, opt);
  if (c == "forward")
    return forward_command(s, opt);
  if (c == "train")
    return train_command(s, opt);
  if (c == "gradcheck")
    return gradcheck_command(s, opt);
  if (c == "generate")
    return generate_command(s, opt);
  throw std::runtime_error("unknown command '" + c + "'");
}
} // namespace

CheckpointContents load_weights(Session &s, const CommandOptions &opt,
                                bool training) {
  CheckpointContents loaded;
  together(s.comm, [&] {
    if (opt.load.empty())
      s.ex.init_parameters(opt.seed);
    else
      loaded = s.ex.load_checkpoint(opt.load, training);
  });
  return loaded;
}

void write_f32_on_root(Session &s, const std::string &path,
                       const std::vector<float> &data) {
  std::string error;
  if (s.root) {
    try {
      AtomicFileWriter file(path);
      file.write(data.data(), data.size() * sizeof(float));
      file.commit();
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  if (!s.comm.all_ok(error.empty()))
    throw std::runtime_error(error.empty() ? "rank 0 failed" : error);
}

int run_program(Comm &comm, const CommandOptions &opt) {
  bool root = comm.world_rank() == 0;
  if (opt.command == "generate" && opt.prompt.empty() &&
      opt.prompt_ids.empty()) {
    if (root)
      std::fprintf(stderr, "tpc-run: error: generate needs --prompt TEXT or "
                           "--prompt-ids 1,2,3 (a non-empty prompt)\n");
    return 1;
  }
  auto report = [&](const std::exception &e) {
    if (!dynamic_cast<const PeerFailure *>(&e)) {
      if (comm.world_size() > 1)
        std::fprintf(stderr, "tpc-run: error (rank %d): %s\n",
                     comm.world_rank(), e.what());
      else
        std::fprintf(stderr, "tpc-run: error: %s\n", e.what());
    }
    return 1;
  };
  if (opt.command == "calibrate") {
    try {
      return calibrate_command(comm, opt);
    } catch (const std::exception &e) {
      report(e);
      if (comm.world_size() > 1)
        comm.abort(1);
      return 1;
    }
  }

  program::Program prog;
  try {
    // A test's TPC_FAULTS that cannot be read fails the job here, not at
    // the point it names.
    together(comm, [&] { fault_point("start", comm.world_rank(), 0); });
    together(comm, [&] { prog = read_program_file(opt.program); });
    if (opt.command == "info")
      return root ? info_command(opt.program, prog, opt) : 0;
    together(comm, [&] {
      try {
        comm.make_groups(int(prog.tp()), int(prog.dp()),
                         int(std::max<int64_t>(1, prog.stacks())),
                         int(std::max<int64_t>(1, prog.pp())));
      } catch (const std::runtime_error &e) {
        // The program's sizes against the job's: the same on every rank,
        // so rank 0 says it once.
        throw AgreedFailure(e.what());
      }
    });
    if (prog.stacks() > 1 && opt.command != "generate")
      throw std::runtime_error(
          "the program was compiled with --stack-parallel, which places the "
          "stacks on ranks of their own for decoding; it only runs "
          "`generate`. " +
          opt.command +
          " runs on a program compiled "
          "without --stack-parallel (checkpoints load into either)");
  } catch (const AgreedFailure &e) {
    if (root)
      std::fprintf(stderr, "tpc-run: error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    return report(e);
  }
  set_threads(opt.threads > 0 ? opt.threads
                              : default_threads(comm.local_size()));
  comm.set_watchdog(stop_watchdog(opt.comm_timeout));

  try {
    std::unique_ptr<Backend> backend;
    std::unique_ptr<Executor> ex;
    together(comm, [&] {
      backend = make_backend(opt.backend, {opt.device, opt.tf32, opt.cpu_gemm});
      ex = std::make_unique<Executor>(prog, *backend, comm);
    });
    Session session{comm, prog, *ex, root};
    return dispatch(session, opt);
  } catch (const AgreedFailure &e) {
    // Every rank stops here together; rank 0 speaks for them.
    if (root)
      std::fprintf(stderr, "tpc-run: error: %s\n", e.what());
    return 1;
  } catch (const PeerFailure &e) {
    return report(e);
  } catch (const std::bad_alloc &) {
    report(std::runtime_error(describe_memory_need(prog)));
    if (comm.world_size() > 1)
      comm.abort(1);
    return 1;
  } catch (const std::exception &e) {
    report(e);
    // An error inside a run may leave other ranks in a collective.
    if (comm.world_size() > 1)
      comm.abort(1);
    return 1;
  }
}

} // namespace tpc
