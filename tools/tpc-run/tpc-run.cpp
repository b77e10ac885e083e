//===- tpc-run.cpp - Run a tpc program
//-------------------------------------===//
//
// `mpirun -np <tp*dp> tpc-run model.tpc <command> ...`, or `./model.tpc
// <command> ...` since a program file starts with a #! line naming tpc-run.
// Every error is reported by the rank that saw it; all ranks then exit with
// a non-zero status.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/io/FileUtil.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/run/Run.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <optional>

using namespace tpc;

namespace {
struct Options {
  std::string program;
  std::string backend = "cpu";
  int threads = 0;
  uint64_t seed = 1337;
  std::string data, load, save, out;
  int64_t max_batches = 0;
  bool json = false;
};

void print_info(const std::string &path, const program::Program &prog) {
  int64_t global = 0, local = 0;
  for (const program::Parameter &p : prog.parameters()) {
    int64_t n = 1;
    for (int64_t d : p.global_shape())
      n *= d;
    global += n;
    local += numElements(prog.tensors(p.tensor()).shape());
  }
  std::printf("program      %s\n", path.c_str());
  if (!prog.source().empty())
    std::printf("source       %s\n", prog.source().c_str());
  std::printf("parallelism  tp %lld x dp %lld = %lld ranks\n",
              (long long)prog.tp(), (long long)prog.dp(),
              (long long)(prog.tp() * prog.dp()));
  std::printf("batch        micro-batch %lld, seq %lld\n",
              (long long)prog.micro_batch(), (long long)prog.seq());
  std::printf(
      "parameters   %d tensors, %lld elements (padded), %lld per rank\n",
      prog.parameters_size(), (long long)global, (long long)local);
  for (const program::Function &fn : prog.functions())
    std::printf("entry point  %s: %d inputs, %d outputs, %d instructions, "
                "arena %lld bytes\n",
                fn.name().c_str(), fn.inputs_size(), fn.outputs_size(),
                fn.body_size(), (long long)fn.arena_bytes());
  if (!prog.summary().empty())
    std::printf("summary      %s\n", prog.summary().c_str());
}

void write_f32(const std::string &path, const std::vector<float> &data) {
  AtomicFileWriter file(path);
  file.write(data.data(), data.size() * sizeof(float));
  file.commit();
}

/// The commands after the program is loaded and the groups are formed.
int run_command(Comm &comm, const program::Program &prog,
                const std::string &command, const Options &opt) {
  bool root = comm.world_rank() == 0;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Executor> ex;
  ModelEntry entry;
  together(comm, [&] {
    backend = make_backend(opt.backend);
    ex = std::make_unique<Executor>(prog, *backend, comm);
    if (command != "init") {
      entry = describe_entry(*ex, "forward");
      ex->check(*entry.fn);
    }
  });
  together(comm, [&] {
    if (opt.load.empty())
      ex->init_parameters(opt.seed);
    else
      ex->load_checkpoint(opt.load);
  });

  if (command == "init") {
    ex->save_checkpoint(opt.save);
    if (root)
      std::printf("wrote %d parameters to %s\n", prog.parameters_size(),
                  opt.save.c_str());
    return 0;
  }
  if (command == "eval") {
    EvalResult r = evaluate(*ex, entry, opt.data, opt.max_batches);
    if (!root)
      return 0;
    if (opt.json)
      std::printf("{\"loss\": %.9g, \"tokens\": %lld, \"batches\": %lld, "
                  "\"tp\": %d, \"dp\": %d}\n",
                  r.loss, (long long)r.tokens, (long long)r.batches,
                  comm.tp_size(), comm.dp_size());
    else
      std::printf("eval loss %.4f over %lld tokens\n", r.loss,
                  (long long)r.tokens);
    return 0;
  }
  // forward
  std::vector<float> logits = forward_logits(*ex, entry, opt.data);
  std::string error;
  if (root) {
    try {
      write_f32(opt.out, logits);
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  if (!comm.all_ok(error.empty()))
    throw std::runtime_error(error.empty() ? "rank 0 failed" : error);
  if (root)
    std::printf("wrote logits [%d,%d,%d] to %s\n", entry.B, entry.T,
                entry.vocab, opt.out.c_str());
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  Comm comm(&argc, &argv);
  bool root = comm.world_rank() == 0;

  Options opt;
  CLI::App app{"Runs a tpc program: `mpirun -np <tp*dp> tpc-run model.tpc "
               "<command>`, or `./model.tpc <command>`."};
  app.require_subcommand(1);
  app.add_option("program", opt.program, "The program file from tpc-compile")
      ->required();
  app.add_option("--backend", opt.backend, "Device backend")
      ->capture_default_str();
  app.add_option("--threads", opt.threads,
                 "Threads per rank (default: the node's cores divided by the "
                 "ranks on the node)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", opt.seed,
                 "Seed of the initial weights (ignored with --load)")
      ->capture_default_str();

  CLI::App *info = app.add_subcommand("info", "Summarize the program");
  CLI::App *init = app.add_subcommand(
      "init", "Write the initial weights as a global safetensors checkpoint");
  init->add_option("--save", opt.save, "Checkpoint to write")->required();
  CLI::App *eval = app.add_subcommand(
      "eval", "Mean loss over consecutive windows from the start of a token "
              "file");
  eval->add_option("--data", opt.data, "llm.c token file")->required();
  eval->add_option("--load", opt.load, "Checkpoint to evaluate");
  eval->add_option("--max-batches", opt.max_batches,
                   "Stop after this many global batches (default: the file)");
  eval->add_flag("--json", opt.json, "Print one JSON line");
  CLI::App *forward = app.add_subcommand(
      "forward", "Write the logits [B,T,V] of the first batch as raw "
                 "little-endian float32");
  forward->add_option("--data", opt.data, "llm.c token file")->required();
  forward->add_option("--load", opt.load, "Checkpoint to use");
  forward->add_option("--out", opt.out, "Output file")->required();
  for (CLI::App *sub : {info, init, eval, forward})
    sub->fallthrough();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    if (root)
      return app.exit(e);
    return e.get_exit_code();
  }
  std::string command = app.get_subcommands().front()->get_name();

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

  // Setup: every rank fails or succeeds together, so none waits forever.
  program::Program prog;
  try {
    together(comm, [&] { prog = readProgramFile(opt.program); });
    if (command == "info") {
      if (root)
        print_info(opt.program, prog);
      return 0;
    }
    together(comm, [&] { comm.make_groups(int(prog.tp()), int(prog.dp())); });
  } catch (const std::exception &e) {
    return report(e);
  }
  set_threads(opt.threads > 0 ? opt.threads
                              : default_threads(comm.local_size()));

  try {
    return run_command(comm, prog, command, opt);
  } catch (const PeerFailure &e) {
    return report(e);
  } catch (const std::exception &e) {
    report(e);
    // An error inside a run may leave other ranks in a collective.
    if (comm.world_size() > 1)
      comm.abort(1);
    return 1;
  }
}
