//===- Pipeline.cpp - The fixed pipeline of tpc-compile ---------*- C++ -*-===//

#include "compiler/Pipeline.h"

#include "compiler/Passes.h"
#include "compiler/RuntimeSupport.h"
#include "dialects/tpc/TpcCost.h"
#include "dialects/tpc/TpcOps.h"
#include "passes/Passes.h"
#include "runtime/program/Abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tpc;

namespace {
/// One pass of the pipeline and how its options follow from the driver's.
struct PipelineStep {
  llvm::StringLiteral pass;
  std::string (*options)(const CompileOptions &);
  /// Null: always part of the pipeline.
  bool (*enabled)(const CompileOptions &) = nullptr;
};

/// The pipeline of tpc-compile, in order. Every pass named here must be
/// registered by registerCompilerPasses(); a pass is part of the build, not
/// a user option.
const PipelineStep kPipeline[] = {
    {"tpc-specialize",
     [](const CompileOptions &o) {
       return llvm::formatv("batch={0} seq={1}", o.microBatch, *o.seq).str();
     }},
    {"tpc-megatron-shard",
     [](const CompileOptions &o) {
       return llvm::formatv("tp={0}", o.tp).str();
     }},
    {"tpc-partition", [](const CompileOptions &) { return std::string(); }},
    {"tpc-sequence-parallel",
     [](const CompileOptions &) { return std::string(); },
     [](const CompileOptions &o) { return o.sequenceParallel; }},
    {"tpc-mixed-precision",
     [](const CompileOptions &o) {
       return llvm::formatv("precision={0} grad-reduce-dtype={1}",
                            stringifyPrecision(o.precision), o.gradReduceDtype)
           .str();
     }},
    {"tpc-pipeline-cut",
     [](const CompileOptions &o) {
       return llvm::formatv("stages={0} virtual-stages={1} layout={2}", o.pp,
                            o.virtualStages,
                            o.pipelineLayout.empty() ? "''" : o.pipelineLayout)
           .str();
     },
     [](const CompileOptions &o) { return o.pp > 1; }},
    {"tpc-autodiff",
     [](const CompileOptions &o) {
       // fp16 gradients underflow without dynamic loss scaling.
       return std::string(o.precision == Precision::fp16 ? "loss-scale=true"
                                                         : "");
     }},
    {"tpc-data-parallel",
     [](const CompileOptions &o) {
       return llvm::formatv("bucket-bytes={0} distributed-optimizer={1}",
                            o.bucketBytes, o.distributedOptimizer)
           .str();
     }},
    {"tpc-optimizer",
     [](const CompileOptions &o) {
       return llvm::formatv("optimizer={0}", o.optimizer).str();
     }},
    {"tpc-recompute",
     [](const CompileOptions &o) { return "mode=" + o.recompute; }},
    {"tpc-decode", [](const CompileOptions &) { return std::string(); }},
    {"tpc-stack-parallel", [](const CompileOptions &) { return std::string(); },
     [](const CompileOptions &o) { return o.stackParallel; }},
    {"tpc-split-weight-grad",
     [](const CompileOptions &) { return std::string(); },
     [](const CompileOptions &o) { return o.pp > 1; }},
    {"tpc-pipeline",
     [](const CompileOptions &o) {
       return llvm::formatv("schedule={0} micro-batches={1}", o.schedule,
                            o.microBatches)
           .str();
     },
     [](const CompileOptions &o) { return o.pp > 1; }},
    {"tpc-plan-memory", [](const CompileOptions &) { return std::string(); }},
};
} // namespace

CompileOptions tpc::withoutStages(const CompileOptions &options) {
  CompileOptions flat = options;
  flat.pp = 1;
  flat.virtualStages = 1;
  flat.schedule = "1f1b";
  flat.pipelineLayout.clear();
  flat.microBatches = 0;
  return flat;
}

void tpc::registerModelDialects(DialectRegistry &registry) {
  registry.insert<TpcDialect, func::FuncDialect>();
  registerCostOpModels(registry);
}

std::unique_ptr<MLIRContext> tpc::createCompilerContext() {
  DialectRegistry registry;
  registerModelDialects(registry);
  registerCompilerPasses();
  auto context = std::make_unique<MLIRContext>(registry);
  context->printOpOnDiagnostic(false);
  return context;
}

OwningOpRef<ModuleOp> tpc::parseModelFile(StringRef path, MLIRContext &context,
                                          llvm::SourceMgr &sourceMgr,
                                          std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(path, &error);
  if (!input)
    return nullptr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

void tpc::registerCompilerPasses() {
  registerTpcPasses();
  registerTpcCompilerPasses();
}

llvm::Error tpc::validateOptions(const CompileOptions &options) {
  auto positive = [](StringRef flag, int64_t value) -> llvm::Error {
    if (value >= 1)
      return llvm::Error::success();
    return llvm::createStringError(
        llvm::formatv("{0} must be >= 1, got {1}", flag, value).str());
  };
  if (llvm::Error e = positive("--tp", options.tp))
    return e;
  if (llvm::Error e = positive("--dp", options.dp))
    return e;
  if (llvm::Error e = positive("--dp-bucket-bytes", options.bucketBytes))
    return e;
  if (llvm::Error e = positive("--micro-batch", options.microBatch))
    return e;
  if (options.seq)
    if (llvm::Error e = positive("--seq", *options.seq))
      return e;
  if (llvm::Error e = positive("--pp", options.pp))
    return e;
  if (llvm::Error e = positive("--virtual-stages", options.virtualStages))
    return e;
  if (options.microBatches != 0)
    if (llvm::Error e = positive("--micro-batches", options.microBatches))
      return e;
  if (options.pp == 1 &&
      (options.virtualStages != 1 || !options.pipelineLayout.empty() ||
       options.schedule != "1f1b"))
    return llvm::createStringError(
        "--virtual-stages, --schedule and --pipeline-layout shape a pipeline; "
        "give --pp > 1 with them");
  if (options.pp > 1 && options.stackParallel)
    return llvm::createStringError(
        "--stack-parallel programs only decode, and a pipelined program does "
        "not; drop --pp or --stack-parallel");
  if (options.stackParallel && options.dp > 1)
    return llvm::createStringError(
        llvm::formatv("--stack-parallel places the stacks on the ranks data "
                      "parallelism would use; it needs --dp=1, got --dp={0}",
                      options.dp)
            .str());
  auto oneOf = [](StringRef flag, StringRef value,
                  ArrayRef<StringRef> choices) -> llvm::Error {
    if (llvm::is_contained(choices, value))
      return llvm::Error::success();
    return llvm::createStringError(
        llvm::formatv("{0} must be {1} or {2}, got '{3}'", flag,
                      llvm::join(choices.drop_back(), ", "), choices.back(),
                      value)
            .str());
  };
  if (llvm::Error e = oneOf("--grad-reduce-dtype", options.gradReduceDtype,
                            {"compute", "fp32"}))
    return e;
  if (llvm::Error e = oneOf("--recompute", options.recompute,
                            {"none", "selective", "full"}))
    return e;
  if (llvm::Error e = oneOf("--schedule", options.schedule,
                            {"1f1b", "interleaved", "zb-h1"}))
    return e;
  return oneOf("--optimizer", options.optimizer, {"adamw", "sgd"});
}

/// Takes an unset sequence length from the model's position table and checks
/// a given one against it.
static LogicalResult resolveSequence(ModuleOp module, CompileOptions &options);

/// Sequence parallelism gives each tp rank seq / tp positions.
static LogicalResult checkSequenceSplit(ModuleOp module,
                                        const CompileOptions &options) {
  if (!options.sequenceParallel || !options.seq ||
      *options.seq % options.tp == 0)
    return success();
  return module.emitError("--seq=")
         << *options.seq << " is not a multiple of --tp=" << options.tp
         << ": --sequence-parallel gives each rank seq / tp positions; use a "
            "--seq that tp divides or drop --sequence-parallel";
}

LogicalResult tpc::resolveOptions(ModuleOp module, CompileOptions &options) {
  // A pipeline needs at least one micro-batch per stage to fill.
  if (options.microBatches == 0)
    options.microBatches = options.pp;
  if (failed(resolveSequence(module, options)))
    return failure();
  return checkSequenceSplit(module, options);
}

static LogicalResult resolveSequence(ModuleOp module, CompileOptions &options) {
  // The smallest position table bounds the sequence length.
  PositionEmbeddingOp shortest;
  int64_t positions = 0;
  module.walk([&](PositionEmbeddingOp op) {
    int64_t rows = op.getTable().getType().getDimSize(0);
    if (ShapedType::isDynamic(rows) || (shortest && rows >= positions))
      return;
    shortest = op;
    positions = rows;
  });
  if (!shortest) {
    if (options.seq)
      return success();
    return module.emitError("the model has no position table to take the "
                            "sequence length from; pass --seq");
  }
  if (!options.seq) {
    options.seq = positions;
    return success();
  }
  if (*options.seq <= positions)
    return success();
  std::string table = "its position table";
  Operation *where = shortest;
  if (auto get = shortest.getTable().getDefiningOp<GetParamOp>()) {
    table = ("@" + get.getName()).str();
    if (auto param = module.lookupSymbol<ParamOp>(get.getNameAttr()))
      where = param;
  }
  return where->emitError("--seq=")
         << *options.seq << " exceeds the model's " << positions
         << " positions (" << table << "); use --seq <= " << positions;
}

llvm::Expected<std::string> tpc::buildPipeline(const CompileOptions &options) {
  SmallVector<std::string> steps;
  for (const PipelineStep &step : kPipeline) {
    if (step.enabled && !step.enabled(options))
      continue;
    if (!PassInfo::lookup(step.pass))
      return llvm::createStringError(
          llvm::formatv("the pipeline names pass '{0}', which this build does "
                        "not register; register it in registerCompilerPasses "
                        "(compiler/Pipeline.cpp)",
                        step.pass)
              .str());
    std::string stepOptions = step.options(options);
    steps.push_back(stepOptions.empty()
                        ? step.pass.str()
                        : (step.pass + "{" + stepOptions + "}").str());
  }
  return llvm::join(steps, ",");
}

LogicalResult tpc::compile(ModuleOp module, CompileOptions &options) {
  if (failed(checkRuntimeSupport(module)))
    return failure();
  if (failed(resolveOptions(module, options)))
    return failure();
  llvm::Expected<std::string> pipeline = buildPipeline(options);
  if (!pipeline)
    return module.emitError(llvm::toString(pipeline.takeError()));
  PassManager pm(module.getContext());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(*pipeline, pm, errorStream)))
    return module.emitError("cannot parse the pipeline '")
           << *pipeline << "': " << errors;
  module->setAttr(
      kDpAttrName,
      IntegerAttr::get(IntegerType::get(module.getContext(), 64), options.dp));
  return pm.run(module);
}

FailureOr<int64_t> tpc::plannedTrainStepArena(ModuleOp module,
                                              CompileOptions options) {
  if (failed(compile(module, options)))
    return failure();
  auto step = module.lookupSymbol<func::FuncOp>(abi::kTrainStep);
  auto arena =
      step ? step->getAttrOfType<IntegerAttr>(abi::kArenaBytesAttr) : nullptr;
  if (!arena)
    return module.emitError("the compiled module has no planned @")
           << abi::kTrainStep;
  return arena.getInt();
}

LogicalResult tpc::writeProgram(ModuleOp module, StringRef path,
                                StringRef interpreter, const CostReport &cost) {
  // The program carries the report's FLOP count, so that tpc-run's MFU and
  // the report are one model.
  module->setAttr(abi::kModelFlopsAttr,
                  IntegerAttr::get(IntegerType::get(module.getContext(), 64),
                                   cost.modelFlopsPerToken));
  PassManager pm(module.getContext());
  ExportOptions exportOptions;
  exportOptions.output = path.str();
  exportOptions.interpreter = interpreter.str();
  pm.addPass(createExport(exportOptions));
  return pm.run(module);
}
