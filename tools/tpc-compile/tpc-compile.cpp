//===- tpc-compile.cpp - Compile a model for tp x dp ranks ------*- C++ -*-===//
//
// Option parsing and file handling around tpc::compile (compiler/).
//
//===----------------------------------------------------------------------===//

#include "compiler/CostReport.h"
#include "compiler/Pipeline.h"
#include "compiler/RuntimeSupport.h"
#include "dialects/tpc/TpcDialect.h"
#include "tools/RepeatedOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace {
enum class ReportFormat { none, text, json };
enum class EmitKind { none, mlir };

cl::OptionCategory category("tpc-compile options");

cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                               cl::desc("<model.mlir>"), cl::cat(category));
cl::opt<std::string>
    outputFile("o", cl::value_desc("file"),
               cl::desc("Write the program to <file> (an executable that "
                        "tpc-run runs); with --emit=mlir, the IR instead"),
               cl::cat(category));
cl::opt<int64_t> tp("tp", cl::init(1), cl::value_desc("N"),
                    cl::desc("Tensor-parallel size"), cl::cat(category));
cl::opt<int64_t> dp("dp", cl::init(1), cl::value_desc("N"),
                    cl::desc("Data-parallel size"), cl::cat(category));
cl::opt<int64_t> microBatch("micro-batch", cl::init(1), cl::value_desc("B"),
                            cl::desc("Micro-batch size B per rank"),
                            cl::cat(category));
cl::opt<int64_t>
    seqLength("seq", cl::value_desc("T"),
              cl::desc("Sequence length T (default: the model's positions)"),
              cl::cat(category));
cl::opt<tpc::Precision> precision(
    "precision", cl::init(tpc::Precision::fp32),
    cl::desc("Compute dtype; for now it only changes the report's byte "
             "counts (bf16/fp16 add an fp32 master copy of the weights)"),
    cl::values(clEnumValN(tpc::Precision::fp32, "fp32", "fp32 throughout"),
               clEnumValN(tpc::Precision::bf16, "bf16",
                          "bf16 compute, fp32 master weights and Adam"),
               clEnumValN(tpc::Precision::fp16, "fp16",
                          "fp16 compute, fp32 master weights and Adam")),
    cl::cat(category));
cl::opt<std::string>
    optimizer("optimizer", cl::init("adamw"), cl::value_desc("adamw|sgd"),
              cl::desc("The optimizer of apply_step (its hyperparameters "
                       "are tpc-optimizer's defaults; tpc-run train "
                       "overrides them)"),
              cl::cat(category));
cl::opt<ReportFormat> report(
    "report", cl::ValueOptional, cl::init(ReportFormat::none),
    cl::desc("Print the per-rank cost report to stdout"),
    cl::values(clEnumValN(ReportFormat::text, "text", "aligned text (default)"),
               clEnumValN(ReportFormat::json, "json", "JSON"),
               clEnumValN(ReportFormat::text, "", "")),
    cl::cat(category));
cl::opt<EmitKind>
    emit("emit", cl::init(EmitKind::none),
         cl::desc("Print the compiled IR (to -o if given, else stdout) "
                  "instead of writing a program"),
         cl::values(clEnumValN(EmitKind::mlir, "mlir",
                               "the IR after the last pass")),
         cl::cat(category));

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
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tpc-compile: shard a tpc model for tp x dp ranks and report its cost\n");
  if (!tpc::checkRepeatedOptions("tpc-compile"))
    return 1;

  tpc::CompileOptions options;
  options.tp = tp;
  options.dp = dp;
  options.microBatch = microBatch;
  if (seqLength.getNumOccurrences())
    options.seq = seqLength;
  options.precision = precision;
  options.optimizer = optimizer;
  if (Error e = tpc::validateOptions(options))
    return fail(toString(std::move(e)));
  if (report == ReportFormat::none && emit == EmitKind::none &&
      outputFile.empty())
    return fail("nothing to do: give -o <file>, --report[=text|json] or "
                "--emit=mlir");

  mlir::DialectRegistry registry;
  tpc::registerModelDialects(registry);
  tpc::registerCompilerPasses();
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tpc::parseModelFile(inputFile, context, sourceMgr, error);
  if (!module && !error.empty())
    return fail(error);
  if (!module)
    return 1;
  if (failed(tpc::compile(*module, options)))
    return 1;

  FailureOr<tpc::CostReport> cost = tpc::computeCostReport(
      *module, tpc::CostReportConfig{options.dp, options.precision});
  if (failed(cost))
    return 1;
  tpc::warnAbsurdMemory(*cost, errs());
  if (report != ReportFormat::none) {
    if (report == ReportFormat::json)
      tpc::printCostReportJson(*cost, outs());
    else
      tpc::printCostReportText(*cost, outs());
  }

  if (emit == EmitKind::mlir) {
    std::unique_ptr<ToolOutputFile> out = mlir::openOutputFile(
        outputFile.empty() ? std::string("-") : std::string(outputFile),
        &error);
    if (!out)
      return fail(error);
    module->print(out->os());
    out->keep();
  } else if (!outputFile.empty()) {
    if (failed(tpc::writeProgram(*module, outputFile, interpreter(argv[0]))))
      return 1;
  }
  return 0;
}
