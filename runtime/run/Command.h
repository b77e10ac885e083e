//===- Command.h - The commands of tpc-run ----------------------*- C++ -*-===//
//
// tpc-run parses flags and hands over to run_program(), which loads the
// program, forms the communicators and runs one command. Each command lives
// in a file of its own (InfoCommand.cpp, TrainCommand.cpp, ...) with the
// flags it adds to its subcommand, so the tool stays flag parsing only.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_COMMAND_H
#define TPC_RUNTIME_RUN_COMMAND_H

#include "runtime/comm/Comm.h"
#include "runtime/exec/Executor.h"
#include "runtime/run/Train.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tpc {

/// Every flag of every command; a command reads its own.
struct CommandOptions {
  std::string command;
  std::string program;
  std::string backend = "cpu";
  int device = -1; // the GPU; -1: the local rank
  bool tf32 = false;
  CpuGemm cpu_gemm = CpuGemm::Auto;
  int threads = 0;
  double comm_timeout = 600.0;
  uint64_t seed = 1337;
  std::string data, load, save, out;
  int64_t max_batches = 0;
  bool json = false;
  bool quick = false; // calibrate
  MaskOptions masks;  // eval --masks, --mask-id
  // train
  TrainConfig train;
  std::string optimizer, log, plot;
  std::string progress = "auto";
  std::optional<double> beta1, beta2, eps, weight_decay, momentum, clip;
  std::optional<double> peak_flops;
  bool sequential = false;
  // gradcheck
  int per_param = 3;
  double fd_eps = 2e-2, atol = 1e-3, rtol = 1e-2;
  // generate
  std::string prompt, prompt_ids, vocab_dir, tokenizer_json, logits_out;
  std::string tokenizer = "gpt2";
  int tokens = 64;
  double temperature = 1.0;
  int top_k = 0;
  double top_p = 1.0;
  bool recurrent = false;
};

/// What a command runs on: the job's ranks, the program and its executor.
struct Session {
  Comm &comm;
  const program::Program &prog;
  Executor &ex;
  bool root; // world rank 0, which prints
};

// The flags of each command's subcommand.
void add_init_flags(CLI::App &app, CommandOptions &opt);
void add_eval_flags(CLI::App &app, CommandOptions &opt);
void add_forward_flags(CLI::App &app, CommandOptions &opt);
void add_train_flags(CLI::App &app, CommandOptions &opt);
void add_gradcheck_flags(CLI::App &app, CommandOptions &opt);
void add_generate_flags(CLI::App &app, CommandOptions &opt);
/// --mlm, --mlm-probability, --sop and --vocab-dir of train and eval, after
/// their --masks.
void add_mlm_flags(CLI::App &app, MaskOptions &masks);
void add_calibrate_flags(CLI::App &app, CommandOptions &opt);

// The commands; each returns the process's exit status and throws on
// error (see run_program).
int info_command(const std::string &path, const program::Program &prog,
                 const CommandOptions &opt);
int init_command(Session &s, const CommandOptions &opt);
int eval_command(Session &s, const CommandOptions &opt);
int forward_command(Session &s, const CommandOptions &opt);
int train_command(Session &s, const CommandOptions &opt);
int gradcheck_command(Session &s, const CommandOptions &opt);
int generate_command(Session &s, const CommandOptions &opt);
/// Measures the machine (GEMMs, memory bandwidth, collectives) through the
/// backend of opt.backend; reads no program.
int calibrate_command(Comm &comm, const CommandOptions &opt);

/// The weights of --load, or the initial weights of --seed without it; a
/// collective that fails on every rank together. `training` also restores
/// the optimizer state.
CheckpointContents load_weights(Session &s, const CommandOptions &opt,
                                bool training);

/// Rank 0 writes `data` as raw little-endian float32 (atomically); every
/// rank throws if that failed.
void write_f32_on_root(Session &s, const std::string &path,
                       const std::vector<float> &data);

/// Loads the program, forms the groups, runs opt.command and reports an
/// error the way a job must: the rank that saw it prints it, every rank
/// exits non-zero, and no rank is left waiting in a collective.
int run_program(Comm &comm, const CommandOptions &opt);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_COMMAND_H
