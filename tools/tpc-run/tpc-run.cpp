//===- tpc-run.cpp - Run a tpc program ------------------------------------===//
//
// `mpirun -np <tp*dp> tpc-run model.tpc <command> ...`, or `./model.tpc
// <command> ...` since a program file starts with a #! line naming tpc-run.
// Flag parsing only: the commands live in runtime/run/ (Command.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/comm/Comm.h"
#include "runtime/run/Command.h"

#include "tools/common/Cli.h"

#include <map>
#include <string>

using namespace tpc;

int main(int argc, char **argv) {
  Comm comm(&argc, &argv);
  bool root = comm.world_rank() == 0;

  CommandOptions opt;
  CLI::App app{"Runs a tpc program: `mpirun -np <tp*dp> tpc-run model.tpc "
               "<command>`, or `./model.tpc <command>`."};
  cli::configure(app);
  app.require_subcommand(1);
  CLI::Option *program = app.add_option(
      "program", opt.program,
      "The program file from tpc-compile (every command but calibrate)");
  app.add_option("--backend", opt.backend,
                 "Device backend: cpu, or cuda in a build with the CUDA "
                 "toolkit")
      ->capture_default_str();
  app.add_option("--device", opt.device,
                 "The GPU of this rank under --backend cuda (default: the "
                 "rank's local rank on its node)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--tf32", opt.tf32,
               "Under --backend cuda, run fp32 GEMMs on TF32 tensor cores "
               "(10-bit mantissas; off by default, so fp32 stays fp32)");
  const std::map<std::string, CpuGemm> cpu_gemms = {
      {"auto", CpuGemm::Auto},
      {"onednn", CpuGemm::OneDnn},
      {"openblas", CpuGemm::OpenBlas}};
  app.add_option_function<std::string>(
         "--cpu-gemm",
         [&](const std::string &name) { opt.cpu_gemm = cpu_gemms.at(name); },
         "The library of the CPU backend's GEMMs: auto (bf16 on "
         "oneDNN; fp32 on OpenBLAS where it runs AVX-512 kernels, "
         "but for GEMMs of fewer than 32 rows, else on oneDNN), onednn or "
         "openblas (bf16 widened to fp32 "
         "for sgemm); `info` says what runs")
      ->check(CLI::IsMember(cpu_gemms))
      ->default_str("auto");
  app.add_option("--threads", opt.threads,
                 "Threads per rank (default: the node's cores divided by the "
                 "ranks on the node)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", opt.seed,
                 "Seed of the initial weights (ignored with --load), of the "
                 "dropout masks and of the random windows (train --load of a "
                 "training checkpoint uses the checkpoint's), and of "
                 "generate's sampling")
      ->capture_default_str();
  app.add_option("--comm-timeout", opt.comm_timeout,
                 "Seconds a rank waits in a collective before it gives up on "
                 "its peers, prints where the job stands and ends the job (0: "
                 "wait forever; also given up: a stop signal while waiting "
                 "for a peer, or a peer on this node that has exited)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();

  struct Subcommand {
    const char *name, *description;
    void (*add_flags)(CLI::App &, CommandOptions &);
  };
  const Subcommand subcommands[] = {
      {"info", "Summarize the program", nullptr},
      {"init", "Write the initial weights as a global safetensors checkpoint",
       add_init_flags},
      {"eval",
       "Mean loss over consecutive windows from the start of a token file",
       add_eval_flags},
      {"forward",
       "Write the logits [B,T,V] of the first batch as raw little-endian "
       "float32",
       add_forward_flags},
      {"train",
       "Train: train_step on --grad-accum micro-batches, then apply_step, "
       "--steps times",
       add_train_flags},
      {"gradcheck",
       "Compare train_step's gradients on the first batch with central "
       "finite differences of forward's loss",
       add_gradcheck_flags},
      {"generate",
       "Continue a prompt: decode_step once per position (KV caches per "
       "attention op, logits gathered over tp), then --tokens sampled "
       "tokens; world rank 0 streams them to stdout, tokens/s goes to stderr",
       add_generate_flags},
      {"calibrate",
       "Measure this machine for the planner: GEMM rates per dtype by "
       "shape, memory bandwidth and, under mpirun, all-reduce, "
       "reduce-scatter, all-gather and send/recv (no program; `tpc-plan "
       "calibrate` writes a cluster file)",
       add_calibrate_flags},
  };
  for (const Subcommand &s : subcommands) {
    CLI::App *sub = app.add_subcommand(s.name, s.description);
    if (s.add_flags)
      s.add_flags(*sub, opt);
    sub->fallthrough();
  }

  // Every rank parses; world rank 0 speaks.
  if (int status = cli::parse(app, argc, argv, root); status >= 0)
    return status;
  opt.command = app.get_subcommands().front()->get_name();
  if (opt.program.empty() && opt.command != "calibrate") {
    CLI::RequiredError missing(program->get_name());
    return root ? app.exit(missing) : missing.get_exit_code();
  }
  opt.train.seed = opt.seed;
  return run_program(comm, opt);
}
