//===- tpc-plan.cpp - Compute budgeting and memory fitting ------*- C++ -*-===//
//
// Flag parsing and printing around compiler/Plan.h.
//
//===----------------------------------------------------------------------===//

#include "compiler/CostReport.h"
#include "compiler/Plan.h"
#include "compiler/Search.h"
#include "compiler/StepTime.h"
#include "dialects/tpc/TpcDialect.h"
#include "tools/common/Cli.h"
#include "tools/tpc-plan/Calibrate.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <cmath>

using namespace llvm;

namespace {
// The flags; each subcommand reads its own.
std::string params, tokens, flops, peak;
int64_t devices = 1;
double mfu = 0.4;
std::string modelFile, deviceMemory, precisionName = "fp32";
int64_t microBatch = 1, dp = 1, maxTp = 64, maxPp = 1, microBatches = 0;
std::string schedule = "1f1b";
bool distributedOptimizer = false;
bool sequenceParallel = false;
std::optional<int64_t> seqLength;

int fail(const Twine &message) {
  WithColor::error(errs(), "tpc-plan") << message << "\n";
  return 1;
}

/// A count with an optional decimal suffix: K, M, B or G, T, P.
std::optional<double> parseCount(StringRef text) {
  text = text.trim();
  double scale = 1;
  if (!text.empty()) {
    switch (toUpper(text.back())) {
    case 'K':
      scale = 1e3;
      break;
    case 'M':
      scale = 1e6;
      break;
    case 'B':
    case 'G':
      scale = 1e9;
      break;
    case 'T':
      scale = 1e12;
      break;
    case 'P':
      scale = 1e15;
      break;
    default:
      break;
    }
    if (scale != 1)
      text = text.drop_back();
  }
  double value;
  if (text.empty() || text.getAsDouble(value) || !(value > 0) ||
      !std::isfinite(value))
    return std::nullopt;
  return value * scale;
}

/// Bytes with a binary (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB)
/// suffix, or none.
std::optional<double> parseBytes(StringRef text) {
  text = text.trim();
  struct Unit {
    StringRef suffix;
    double scale;
  };
  const Unit units[] = {{"KiB", 1024.0},  {"MiB", 1048576.0},
                        {"GiB", 1 << 30}, {"TiB", 1099511627776.0},
                        {"KB", 1e3},      {"MB", 1e6},
                        {"GB", 1e9},      {"TB", 1e12},
                        {"B", 1}};
  double scale = 1;
  for (const Unit &unit : units)
    if (text.ends_with_insensitive(unit.suffix)) {
      scale = unit.scale;
      text = text.drop_back(unit.suffix.size()).trim();
      break;
    }
  double value;
  if (text.empty() || text.getAsDouble(value) || !(value > 0) ||
      !std::isfinite(value))
    return std::nullopt;
  return value * scale;
}

/// 1.23e+21 style for FLOPs, and the count in words for humans.
std::string sci(double value) { return formatv("{0:e2}", value).str(); }

std::string words(double value) {
  const struct {
    double scale;
    const char *name;
  } units[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  for (const auto &unit : units)
    if (value >= unit.scale)
      return formatv("{0:f2}{1}", value / unit.scale, unit.name).str();
  return formatv("{0:f0}", value).str();
}

int runCompute() {
  std::optional<double> n = parseCount(params), d = parseCount(tokens);
  if (!n || !d)
    return fail("compute needs --params N and --tokens D as positive "
                "numbers, e.g. --params 124M --tokens 10B");
  double c = tpc::trainingFlops(*n, *d);
  outs() << formatv("C = 6 N D = 6 x {0} x {1} = {2} FLOPs\n", words(*n),
                    words(*d), sci(c));
  return 0;
}

int runOptimal() {
  std::optional<double> c = parseCount(flops);
  if (!c)
    return fail("optimal needs --flops C as a positive number, e.g. "
                "--flops 1e21");
  tpc::ComputeOptimal best = tpc::computeOptimal(*c);
  outs() << formatv("budget C = {0} FLOPs\n", sci(*c));
  outs() << formatv("compute-optimal N = sqrt(C / 120) = {0} parameters\n",
                    words(best.params));
  outs() << formatv("                D = 20 N = {0} tokens\n",
                    words(best.tokens));
  if (!peak.empty()) {
    std::optional<double> p = parseCount(peak);
    if (!p || devices < 1 || !(mfu > 0 && mfu <= 1))
      return fail("--peak must be a positive FLOP/s figure (e.g. 989T), "
                  "--devices >= 1 and 0 < --mfu <= 1");
    double seconds = tpc::wallSeconds(*c, devices, *p, mfu);
    outs() << formatv("wall time on {0} device(s) at {1} FLOP/s, MFU {2}: "
                      "{3}\n",
                      devices, sci(*p), mfu, tpc::humanDuration(seconds));
  }
  return 0;
}

/// The layout that `tpc-plan time model.mlir --cluster FILE` predicts.
tpc::CompileOptions layout;
std::string clusterFile, layoutPrecision = "fp32";
bool printJson = false;
tpc::StepModelOptions stepModel;

/// Reads the cluster file and the model for `time` and `auto`.
struct Inputs {
  std::unique_ptr<mlir::MLIRContext> context = tpc::createCompilerContext();
  SourceMgr sourceMgr;
  std::optional<mlir::SourceMgrDiagnosticHandler> diagnostics;
  std::optional<tpc::Cluster> cluster;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  /// Prints the error and returns false when one does not read.
  bool read() {
    llvm::Expected<tpc::Cluster> c = tpc::readCluster(clusterFile);
    if (!c) {
      fail(toString(c.takeError()));
      return false;
    }
    cluster = *c;
    diagnostics.emplace(sourceMgr, context.get());
    std::string error;
    module = tpc::parseModelFile(modelFile, *context, sourceMgr, error);
    if (!module && !error.empty())
      fail(error);
    return bool(module);
  }
};

/// Predicts one layout's step on a cluster from the compiled program.
int runLayoutTime() {
  layout.precision = *tpc::parsePrecision(layoutPrecision);
  layout.seq = seqLength;
  if (Error e = tpc::validateOptions(layout))
    return fail(toString(std::move(e)));
  Inputs in;
  if (!in.read())
    return 1;
  FailureOr<tpc::StepTime> step =
      tpc::predictLayout(*in.module, layout, *in.cluster, stepModel);
  if (failed(step))
    return 1;
  if (printJson)
    tpc::printStepTimeJson(*step, *in.cluster, outs());
  else
    tpc::printStepTimeText(*step, *in.cluster, outs());
  return 0;
}

/// `tpc-plan auto`: the fastest layouts that fit.
tpc::SearchOptions searchOptions;

int runAuto() {
  if (clusterFile.empty() || modelFile.empty())
    return fail("auto needs a model file, --cluster, --devices and "
                "--global-batch, e.g. tpc-plan auto model.mlir --cluster "
                "compiler/clusters/a100-80gb-sxm.json --devices 64 "
                "--global-batch 512");
  searchOptions.seq = seqLength;
  searchOptions.precision = *tpc::parsePrecision(layoutPrecision);
  searchOptions.model = stepModel;
  if (searchOptions.top < 1)
    return fail("--top must be >= 1");
  Inputs in;
  if (!in.read())
    return 1;
  llvm::Expected<tpc::SearchResult> found =
      tpc::searchLayouts(*in.module, searchOptions, *in.cluster);
  if (!found)
    return fail(toString(found.takeError()));
  if (printJson)
    tpc::printSearchJson(*found, searchOptions, *in.cluster, modelFile, outs());
  else
    tpc::printSearchText(*found, searchOptions, *in.cluster, modelFile, outs());
  return 0;
}

int runTime() {
  if (!clusterFile.empty() || !modelFile.empty()) {
    if (clusterFile.empty() || modelFile.empty())
      return fail("time of a layout needs a model file and --cluster, e.g. "
                  "tpc-plan time model.mlir --cluster "
                  "compiler/clusters/h100-80gb-sxm.json --tp 8");
    return runLayoutTime();
  }
  std::optional<double> c;
  if (!flops.empty()) {
    c = parseCount(flops);
  } else if (!params.empty() && !tokens.empty()) {
    std::optional<double> n = parseCount(params), d = parseCount(tokens);
    if (n && d)
      c = tpc::trainingFlops(*n, *d);
  }
  if (!c)
    return fail("time needs --flops C, or --params N and --tokens D, as "
                "positive numbers");
  std::optional<double> p = parseCount(peak);
  if (!p)
    return fail("time needs --peak, the peak FLOP/s of one device, e.g. "
                "--peak 989T");
  if (devices < 1)
    return fail("--devices must be >= 1");
  if (!(mfu > 0 && mfu <= 1))
    return fail(formatv("--mfu must be in (0, 1], got {0}", mfu));
  double seconds = tpc::wallSeconds(*c, devices, *p, mfu);
  outs() << formatv("C = {0} FLOPs on {1} device(s) x {2} FLOP/s x MFU {3}\n",
                    sci(*c), devices, sci(*p), mfu);
  outs() << formatv("wall time = C / (G peak MFU) = {0:f0} s = {1}\n", seconds,
                    tpc::humanDuration(seconds));
  return 0;
}

int runMemory() {
  if (modelFile.empty())
    return fail("memory needs a model file: tpc-plan memory model.mlir "
                "--device-memory 80GiB");
  std::optional<double> capacity = parseBytes(deviceMemory);
  if (!capacity)
    return fail("memory needs --device-memory, e.g. --device-memory 80GiB");
  tpc::CompileOptions base;
  base.dp = dp;
  base.microBatch = microBatch;
  base.seq = seqLength;
  base.precision = *tpc::parsePrecision(precisionName);
  base.distributedOptimizer = distributedOptimizer;
  base.sequenceParallel = sequenceParallel;
  base.microBatches = microBatches;
  if (Error e = tpc::validateOptions(base))
    return fail(toString(std::move(e)));
  if (maxTp < 1 || maxPp < 1)
    return fail("--max-tp and --max-pp must be >= 1");
  base.schedule = schedule;

  std::unique_ptr<mlir::MLIRContext> context = tpc::createCompilerContext();
  SourceMgr sourceMgr;
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    // Scoped: fitMemory captures the diagnostics of each tp it tries.
    mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, context.get());
    module = tpc::parseModelFile(modelFile, *context, sourceMgr, error);
  }
  if (!module)
    return error.empty() ? 1 : fail(error);

  std::vector<tpc::MemoryFit> rows =
      tpc::fitMemory(*module, base, maxTp, maxPp);
  outs() << formatv(
      "{0}: micro-batch {1}, {2}, dp {3}{4}{5}; device memory {6}\n\n",
      modelFile, microBatch, tpc::stringifyPrecision(base.precision), dp,
      distributedOptimizer ? " with the distributed optimizer" : "",
      sequenceParallel ? ", sequence-parallel" : "",
      tpc::humanBytes(static_cast<int64_t>(*capacity)));
  // With pipelines the table has a pp column and the figures are those of
  // the fullest stage's ranks.
  const bool pipelines = maxPp > 1;
  std::string layout = pipelines ? "tp x pp" : "tp";
  outs() << formatv("{0,7}  {1,15}  {2,12}  {3,12}  {4,12}  {5,10}  {6,10}\n",
                    layout, "params/rank", "model states", "total",
                    "w/ recompute", "fits", "w/ recomp.");
  // The smallest layout that fits: the fewest ranks, then the fewest
  // stages (tensor parallelism stays inside a node).
  const tpc::MemoryFit *fits = nullptr, *fitsRecompute = nullptr;
  auto better = [](const tpc::MemoryFit *best, const tpc::MemoryFit &row) {
    return !best || row.tp * row.pp < best->tp * best->pp ||
           (row.tp * row.pp == best->tp * best->pp && row.pp < best->pp);
  };
  auto name = [&](const tpc::MemoryFit &row) {
    return pipelines ? formatv("{0} x {1}", row.tp, row.pp).str()
                     : std::to_string(row.tp);
  };
  for (const tpc::MemoryFit &row : rows) {
    if (!row.report) {
      outs() << formatv("{0,7}  {1}\n", name(row), row.reason);
      continue;
    }
    bool ok = row.total <= *capacity,
         okRecompute = row.totalRecompute <= *capacity;
    if (ok && better(fits, row))
      fits = &row;
    if (okRecompute && better(fitsRecompute, row))
      fitsRecompute = &row;
    outs() << formatv("{0,7}  {1,15}  {2,12}  {3,12}  {4,12}  {5,10}  {6,10}\n",
                      name(row), words(static_cast<double>(row.params)),
                      tpc::humanBytes(row.modelStates),
                      tpc::humanBytes(row.total),
                      tpc::humanBytes(row.totalRecompute), ok ? "yes" : "no",
                      okRecompute ? "yes" : "no");
  }
  outs() << "\n";
  std::string up = pipelines
                       ? formatv("tp x pp up to {0} x {1}", maxTp, maxPp).str()
                       : formatv("tp up to {0}", maxTp).str();
  if (fits)
    outs() << formatv("smallest {0} that fits: {1}\n", layout, name(*fits));
  else
    outs() << formatv("no {0} fits without recompute\n", up);
  if (fitsRecompute)
    outs() << formatv("smallest {0} that fits with full recompute: {1}\n",
                      layout, name(*fitsRecompute));
  else
    outs() << formatv("no {0} fits even with full recompute\n", up);
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  CLI::App app{"tpc-plan: compute budgeting (C = 6 N D, compute-optimal N and "
               "D, wall time) and the per-rank memory of a model at each tp"};
  tpc::cli::configure(app);
  app.require_subcommand(0, 1);
  CLI::App *compute = app.add_subcommand(
      "compute", "FLOPs of training N parameters on D tokens: C = 6 N D");
  CLI::App *optimal = app.add_subcommand(
      "optimal", "The compute-optimal model for a FLOP budget: D = 20 N, so "
                 "N = sqrt(C / 120)");
  CLI::App *timeCmd =
      app.add_subcommand("time", "Wall time of a budget on G devices at a "
                                 "peak and an MFU");
  CLI::App *memory = app.add_subcommand(
      "memory", "Per-rank memory of a model file at tp = 1, 2, 4, ... from "
                "the compiler's report, and the smallest tp that fits a "
                "device");
  for (CLI::App *sub : {compute, timeCmd}) {
    sub->add_option("--params", params,
                    "Parameters N (e.g. 124M, 8.3B, 1.2e9)");
    sub->add_option("--tokens", tokens, "Training tokens D (e.g. 300B, 2.5e9)");
  }
  for (CLI::App *sub : {optimal, timeCmd}) {
    sub->add_option("--flops", flops, "FLOP budget C (e.g. 1e21, 3.1e23)");
    sub->add_option("--devices", devices, "Number of devices G")
        ->capture_default_str();
    sub->add_option("--peak", peak,
                    "Peak FLOP/s of one device (e.g. 989T for an H100 in "
                    "bf16, 312T for an A100)");
    sub->add_option("--mfu", mfu, "Model FLOPs utilization, 0 < mfu <= 1")
        ->capture_default_str();
  }
  timeCmd->add_option("model", modelFile,
                      "A model file (.mlir): predict one training step of "
                      "it, compiled with the layout flags below, on --cluster");
  timeCmd->add_option("--cluster", clusterFile,
                      "A cluster file (compiler/clusters/*.json: devices per "
                      "node, peak FLOP/s, HBM and link bandwidths)");
  timeCmd->add_option("--tp", layout.tp, "Tensor-parallel size");
  timeCmd->add_option("--pp", layout.pp, "Pipeline stages");
  timeCmd->add_option("--virtual-stages", layout.virtualStages,
                      "Chunks per pipeline stage");
  timeCmd->add_option("--dp", layout.dp, "Data-parallel size");
  timeCmd->add_option("--micro-batch", layout.microBatch, "Micro-batch size");
  timeCmd->add_option("--micro-batches", layout.microBatches,
                      "Micro-batches per step (default: pp, or 1)");
  timeCmd->add_option("--seq", seqLength, "Sequence length");
  timeCmd->add_flag("--sequence-parallel", layout.sequenceParallel,
                    "Sequence parallelism");
  timeCmd->add_option("--recompute", layout.recompute, "none or full");
  timeCmd->add_flag("--distributed-optimizer", layout.distributedOptimizer,
                    "ZeRO stage 1");
  timeCmd->add_option("--precision", layoutPrecision, "fp32, bf16 or fp16")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  timeCmd->add_option("--schedule", layout.schedule,
                      "Pipeline schedule: 1f1b, interleaved or zb-h1");
  timeCmd->add_flag("--json", printJson, "Print one JSON object");
  CLI::App *autoCmd = app.add_subcommand(
      "auto", "The fastest layouts of a model on N devices of a cluster for "
              "a global batch: tp, pp, virtual stages, dp, sequence "
              "parallelism, recompute, the distributed optimizer, the "
              "micro-batch size and the schedule, where they fit");
  autoCmd->add_option("model", modelFile, "The model file (.mlir)");
  autoCmd->add_option("--devices", searchOptions.devices, "Number of devices");
  autoCmd->add_option("--global-batch", searchOptions.globalBatch,
                      "Sequences per optimizer step, all ranks together");
  autoCmd->add_option("--top", searchOptions.top, "How many layouts to print")
      ->capture_default_str();
  autoCmd->add_option("--max-tp", searchOptions.maxTp,
                      "Largest tp (default: the devices of one node)");
  for (CLI::App *sub : {timeCmd, autoCmd}) {
    sub->add_flag("--overlap-grad-reduce", stepModel.overlapGradReduce,
                  "Time the data-parallel reduction overlapped with the "
                  "backward, as tpc-run train --overlap-grad-reduce runs it");
    sub->add_flag("--unfused-attention", stepModel.unfusedAttention,
                  "Time self-attention as separate kernels that write and "
                  "read every head's [seq, seq] scores in memory (the "
                  "batched QK^T and PV products, softmax, dropout), as "
                  "Megatron-LM ran it in 2021, instead of one fused kernel");
  }
  autoCmd->add_option("--cluster", clusterFile,
                      "A cluster file (compiler/clusters/*.json)");
  autoCmd->add_option("--seq", seqLength,
                      "Sequence length (default: the model's positions)");
  autoCmd->add_option("--precision", layoutPrecision, "fp32, bf16 or fp16")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}))
      ->capture_default_str();
  autoCmd->add_flag("--json", printJson, "Print one JSON object");
  memory->add_option("model", modelFile, "The model file (.mlir)");
  memory->add_option("--device-memory", deviceMemory,
                     "Memory of one device (e.g. 80GiB, 141GiB, 24GB)");
  memory->add_option("--micro-batch", microBatch, "Micro-batch size B per rank")
      ->capture_default_str();
  memory->add_option("--seq", seqLength,
                     "Sequence length T (default: the model's positions)");
  memory->add_option("--dp", dp, "Data-parallel size")->capture_default_str();
  memory->add_flag("--distributed-optimizer", distributedOptimizer,
                   "Shard the fp32 masters and AdamW moments over dp, as "
                   "tpc-compile --distributed-optimizer does");
  memory->add_flag("--sequence-parallel", sequenceParallel,
                   "Split the regions between tensor-parallel blocks along "
                   "the sequence, as tpc-compile --sequence-parallel does (a "
                   "tp that does not divide the sequence is reported as not "
                   "possible)");
  memory
      ->add_option("--max-pp", maxPp,
                   "Largest pipeline size to try with each tp (powers of "
                   "two; the rows then show each layout's fullest stage)")
      ->capture_default_str();
  memory->add_option("--micro-batches", microBatches,
                     "Micro-batches per step of the pipelined layouts "
                     "(default: pp; the in-flight activations follow the "
                     "schedule)");
  memory
      ->add_option("--schedule", schedule,
                   "Pipeline schedule of the pipelined layouts")
      ->check(CLI::IsMember({"1f1b", "zb-h1"}))
      ->capture_default_str();
  memory->add_option("--max-tp", maxTp, "Largest tp to try (powers of two)")
      ->capture_default_str();
  memory
      ->add_option("--precision", precisionName,
                   "Compute dtype of the memory estimate: fp32, or bf16/fp16 "
                   "compute with fp32 master weights and Adam")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}))
      ->capture_default_str();
  tpc::CalibrateOptions calibrateOptions;
  CLI::App *calibrate = tpc::addCalibrateCommand(app, calibrateOptions);
  if (int status = tpc::cli::parse(app, argc, argv); status >= 0)
    return status;
  if (calibrate->parsed())
    return tpc::runCalibrate(calibrateOptions);
  if (compute->parsed())
    return runCompute();
  if (optimal->parsed())
    return runOptimal();
  if (timeCmd->parsed())
    return runTime();
  if (memory->parsed())
    return runMemory();
  if (autoCmd->parsed())
    return runAuto();
  return fail("give a command: compute, optimal, time, memory, auto or "
              "calibrate (see --help)");
}
