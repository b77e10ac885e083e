//===- tpc-compile.cpp - Compile a model for tp x dp ranks ------*- C++ -*-===//
//
// Option parsing and file handling around tpc::compile (compiler/).
//
//===----------------------------------------------------------------------===//

#include "compiler/CostReport.h"
#include "compiler/Pipeline.h"
#include "compiler/RuntimeSupport.h"
#include "compiler/Search.h"
#include "dialects/tpc/TpcDialect.h"
#include "tools/common/Cli.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace {
/// The #! line of a program names the tpc-run installed beside this
/// tpc-compile, so that `./model.tpc eval ...` works from a build tree;
/// otherwise the first tpc-run on PATH.
std::string interpreter(const char *argv0) {
  std::string self =
      sys::fs::getMainExecutable(argv0, reinterpret_cast<void *>(&interpreter));
  SmallString<256> runner(sys::path::parent_path(self));
  sys::path::append(runner, "tpc-run");
  if (!self.empty() && sys::fs::can_execute(runner))
    return std::string(runner);
  return "/usr/bin/env tpc-run";
}

int fail(const Twine &message) {
  WithColor::error(errs(), "tpc-compile") << message << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  std::string inputFile, outputFile, precision = "fp32", report, emit;
  tpc::CompileOptions options;
  std::optional<int64_t> seq;
  CLI::App app{"tpc-compile: shard a tpc model for tp x dp ranks and report "
               "its cost"};
  tpc::cli::configure(app);
  app.add_option("model", inputFile, "The model file (.mlir; - for stdin)")
      ->required();
  app.add_option("-o", outputFile,
                 "Write the program to FILE (an executable that tpc-run "
                 "runs); with --emit=mlir, the IR instead")
      ->type_name("FILE");
  app.add_option("--tp", options.tp, "Tensor-parallel size")
      ->capture_default_str();
  app.add_option("--dp", options.dp, "Data-parallel size")
      ->capture_default_str();
  app.add_option("--micro-batch", options.microBatch,
                 "Micro-batch size B per rank")
      ->capture_default_str();
  app.add_option("--seq", seq,
                 "Sequence length T (default: the model's positions)");
  app.add_option("--precision", precision,
                 "Compute dtype (tpc-mixed-precision): bf16/fp16 keep an "
                 "fp32 master copy of the weights; fp16 programs take a loss "
                 "scale (tpc-run train scales dynamically)")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}))
      ->capture_default_str();
  app.add_option("--grad-reduce-dtype", options.gradReduceDtype,
                 "Element type of parameter gradients and their data-parallel "
                 "all-reduce under bf16/fp16: compute (the compute dtype) or "
                 "fp32 (Megatron's accumulate_allreduce_grads_in_fp32)")
      ->check(CLI::IsMember({"compute", "fp32"}))
      ->capture_default_str();
  app.add_option("--optimizer", options.optimizer,
                 "The optimizer of apply_step, adamw or sgd (its "
                 "hyperparameters are tpc-optimizer's defaults; tpc-run "
                 "train overrides them)")
      ->capture_default_str();
  app.add_option("--recompute", options.recompute,
                 "Activation recompute (tpc-recompute): full keeps only what "
                 "crosses each layer's boundary and re-runs the layer's "
                 "forward in its backward (same losses and weights, bit for "
                 "bit); selective, Megatron's attention-only recompute, is "
                 "what tpc's attention always does, the same program as none")
      ->check(CLI::IsMember({"none", "selective", "full"}))
      ->capture_default_str();
  app.add_option("--dp-bucket-bytes", options.bucketBytes,
                 "Most bytes of local gradients per data-parallel bucket, "
                 "each one all-reduce (or reduce-scatter); a larger "
                 "parameter travels alone")
      ->capture_default_str();
  app.add_flag("--distributed-optimizer", options.distributedOptimizer,
               "Shard the optimizer over the data-parallel group (ZeRO stage "
               "1, Megatron's --use-distributed-optimizer): gradients are "
               "reduce-scattered, each rank keeps and updates 1/dp of the "
               "AdamW moments and fp32 masters, parameters are all-gathered; "
               "checkpoints stay global");
  app.add_flag("--sequence-parallel", options.sequenceParallel,
               "Sequence parallelism (Megatron's --sequence-parallel): "
               "layer norms, dropout and residual adds between the "
               "tensor-parallel blocks run on seq/tp positions per rank, g "
               "becomes a reduce-scatter and f an all-gather along the "
               "sequence; --seq must be a multiple of --tp");
  app.add_flag("--stack-parallel", options.stackParallel,
               "StagFormer decoding with each stack on tp ranks of its own "
               "(world = stacks x tp, --dp=1): all stacks process a token at "
               "once and each sends its final activation to the next stack "
               "once per token. The program only generates; train with a "
               "program compiled without this flag (checkpoints load into "
               "both)");
  app.add_option("--pp", options.pp,
                 "Pipeline-parallel stages (world = tp x dp x pp; rank order "
                 "tp fastest, then dp, then pp): the layers are cut into "
                 "chunks balanced by the cost model, each stage runs its "
                 "chunks' forward, backward-input and backward-weight "
                 "functions in the order of --schedule")
      ->capture_default_str();
  app.add_option("--virtual-stages", options.virtualStages,
                 "Chunks per pipeline stage (Megatron's virtual pipeline "
                 "stages, for --schedule interleaved)")
      ->capture_default_str();
  app.add_option("--schedule", options.schedule,
                 "Pipeline schedule: 1f1b (Megatron's one-forward-one-"
                 "backward), interleaved (its virtual-stage version; "
                 "--micro-batches a multiple of --pp) or zb-h1 (zero bubble "
                 "H1: weight gradients fill the cool-down bubbles)")
      ->check(CLI::IsMember({"1f1b", "interleaved", "zb-h1"}))
      ->capture_default_str();
  app.add_option("--micro-batches", options.microBatches,
                 "Micro-batches per optimizer step of a pipelined program "
                 "(its gradient accumulation; default: --pp)");
  app.add_option("--pipeline-layout", options.pipelineLayout,
                 "Layers of each pipeline chunk, comma-separated (e.g. "
                 "3,5,5,3; uneven counts are fine); default: balanced by "
                 "the cost model, the embedding counted on the first chunk "
                 "and the output layer and loss on the last");
  bool autoLayout = false;
  std::string clusterFile;
  tpc::SearchOptions search;
  search.top = 1;
  app.add_flag("--auto", autoLayout,
               "Compile the fastest layout that fits --devices devices of "
               "--cluster for --global-batch (tpc-plan auto's first); the "
               "layout flags above are then chosen, not read");
  app.add_option("--cluster", clusterFile,
                 "With --auto: the cluster file (compiler/clusters/*.json)");
  app.add_option("--devices", search.devices, "With --auto: devices");
  app.add_option("--global-batch", search.globalBatch,
                 "With --auto: sequences per optimizer step, all ranks");
  app.add_flag("--report{text}", report,
               "Print the per-rank cost report to stdout: --report (aligned "
               "text) or --report=json")
      ->check(CLI::IsMember({"text", "json"}))
      ->option_text("[=text|json]");
  app.add_option("--emit", emit,
                 "mlir: print the IR after the last pass (to -o if given, "
                 "else stdout) instead of writing a program")
      ->check(CLI::IsMember({"mlir"}));
  if (int status = tpc::cli::parse(app, argc, argv); status >= 0)
    return status;
  options.seq = seq;
  options.precision = *tpc::parsePrecision(precision);
  if (Error e = tpc::validateOptions(options))
    return fail(toString(std::move(e)));
  if (report.empty() && emit.empty() && outputFile.empty())
    return fail("nothing to do: give -o <file>, --report[=text|json] or "
                "--emit=mlir");

  std::unique_ptr<mlir::MLIRContext> context = tpc::createCompilerContext();
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, context.get());
  // --report compiles the model a second time, in the other recompute mode,
  // and that compile repeats the first one's warnings: print each once.
  StringSet<> printed;
  mlir::ScopedDiagnosticHandler once(
      context.get(), [&](mlir::Diagnostic &diag) {
        std::string key;
        raw_string_ostream os(key);
        os << diag.getLocation() << ": " << static_cast<int>(diag.getSeverity())
           << ": " << diag;
        return mlir::success(!printed.insert(key).second);
      });
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tpc::parseModelFile(inputFile, *context, sourceMgr, error);
  if (!module && !error.empty())
    return fail(error);
  if (!module)
    return 1;
  // An empty file parses as an empty module: say so, not what the pipeline
  // misses first.
  if (module->getBody()->empty())
    return fail(inputFile + ": holds no model (the file is empty or has no "
                            "operations); write one with tpc-model, e.g. "
                            "`tpc-model gpt2 --preset 124m -o gpt2.mlir`");
  if (autoLayout) {
    if (clusterFile.empty() || search.devices < 1 || search.globalBatch < 1)
      return fail("--auto needs --cluster FILE, --devices N and "
                  "--global-batch B");
    llvm::Expected<tpc::Cluster> cluster = tpc::readCluster(clusterFile);
    if (!cluster)
      return fail(toString(cluster.takeError()));
    search.seq = options.seq;
    search.precision = options.precision;
    llvm::Expected<tpc::SearchResult> found =
        tpc::searchLayouts(*module, search, *cluster);
    if (!found)
      return fail(toString(found.takeError()));
    const tpc::Layout &best = found->best.front();
    errs() << formatv("tpc-compile: --auto chose {0}: step {1:F3} s, MFU "
                      "{2:F1}%, {3} per rank (searched {4} layouts in {5:F1} "
                      "s)\n",
                      tpc::describeLayout(best.options), best.time.seconds,
                      100 * best.time.mfu,
                      tpc::humanBytes(best.time.memoryBytes), found->derived,
                      found->seconds);
    options = best.options;
    if (options.pp == 1 && options.microBatches > 1)
      errs() << formatv("tpc-compile: train it with tpc-run train "
                        "--grad-accum {0}\n",
                        options.microBatches);
    if (options.pp == 1)
      options.microBatches = 0;
  }
  // The report shows the planned activations with and without recompute:
  // the other mode compiles a copy.
  mlir::OwningOpRef<mlir::ModuleOp> other =
      report.empty() ? nullptr : module->clone();
  // The model's figures come from its whole forward, which a pipelined
  // module no longer has: a copy compiled without stages gives them.
  mlir::OwningOpRef<mlir::ModuleOp> whole =
      options.pp > 1 ? module->clone() : nullptr;
  if (failed(tpc::compile(*module, options)))
    return 1;
  tpc::CompileOptions wholeOptions = tpc::withoutStages(options);
  if (whole && failed(tpc::compile(*whole, wholeOptions)))
    return 1;

  bool full = options.recompute == "full";
  FailureOr<tpc::CostReport> cost = tpc::computeCostReport(
      whole ? *whole : *module, tpc::CostReportConfig{options.dp, full});
  if (failed(cost))
    return 1;
  if (other) {
    tpc::CompileOptions otherOptions = whole ? wholeOptions : options;
    otherOptions.recompute = full ? "none" : "full";
    FailureOr<int64_t> arena = tpc::plannedTrainStepArena(*other, otherOptions);
    if (failed(arena))
      return 1;
    if (full) {
      cost->activationBytes = *arena;
      cost->activationsPlanned = true;
    } else {
      cost->recomputePlannedBytes = *arena;
    }
  }
  if (whole) {
    FailureOr<tpc::PipelineCost> stages =
        tpc::computePipelineCost(*module, *cost);
    if (failed(stages))
      return 1;
    cost->pipeline = *stages;
  }
  tpc::warnAbsurdMemory(*cost, errs());
  if (!report.empty()) {
    if (report == "json")
      tpc::printCostReportJson(*cost, outs());
    else
      tpc::printCostReportText(*cost, outs());
  }

  if (emit == "mlir") {
    std::unique_ptr<ToolOutputFile> out = mlir::openOutputFile(
        outputFile.empty() ? std::string("-") : outputFile, &error);
    if (!out)
      return fail(error);
    module->print(out->os());
    out->keep();
  } else if (!outputFile.empty()) {
    if (failed(tpc::writeProgram(*module, outputFile, interpreter(argv[0]),
                                 *cost)))
      return 1;
  }
  return 0;
}
