//===- Pipeline.h - The fixed pipeline of tpc-compile -----------*- C++ -*-===//
//
// tpc-compile is option parsing around one fixed sequence of passes. The
// sequence lives in Pipeline.cpp, in one list; the driver checks the options
// against the model, builds the textual pipeline from that list and runs it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_COMPILER_PIPELINE_H
#define TPC_COMPILER_PIPELINE_H

#include "compiler/CostReport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <string>

namespace tpc {

struct CompileOptions {
  int64_t tp = 1;
  int64_t dp = 1;
  int64_t microBatch = 1;
  /// Unset: the model's number of positions.
  std::optional<int64_t> seq;
  Precision precision = Precision::fp32;
  /// The element type of parameter gradients and their data-parallel
  /// all-reduce under mixed precision: "compute" or "fp32".
  std::string gradReduceDtype = "compute";
  /// The optimizer of apply_step: "adamw" or "sgd".
  std::string optimizer = "adamw";
  /// Activation recompute of train_step (tpc-recompute): "none",
  /// "selective" (what tpc's attention always does) or "full".
  std::string recompute = "none";
  /// The most bytes of local gradients per data-parallel bucket (one
  /// all-reduce or reduce-scatter each); PyTorch DDP's 25 MiB by default.
  int64_t bucketBytes = 25 << 20;
  /// Partition the optimizer over dp (ZeRO stage 1): reduce-scattered
  /// gradients, sharded masters and moments, gathered parameters.
  bool distributedOptimizer = false;
  /// Split the regions between tensor-parallel blocks along the sequence
  /// (tpc-sequence-parallel).
  bool sequenceParallel = false;
  /// Pipeline parallelism (tpc-pipeline-cut, tpc-pipeline): stages, chunks
  /// per stage, the schedule, micro-batches per step (0: as many as
  /// stages) and an explicit cut (layers per chunk; empty: balanced).
  int64_t pp = 1;
  int64_t virtualStages = 1;
  std::string schedule = "1f1b";
  int64_t microBatches = 0;
  std::string pipelineLayout;
  /// Stack-parallel decoding of a StagFormer (tpc-stack-parallel): one
  /// decode entry point per stack, each stack on tp ranks of its own.
  bool stackParallel = false;
};

/// The same options without pipeline stages: the layout whose compiled
/// forward the cost report reads for a pipelined program's whole-model
/// figures.
CompileOptions withoutStages(const CompileOptions &options);

/// Registers every pass the pipeline and the cost report use.
void registerCompilerPasses();

/// The dialects a model file may use.
void registerModelDialects(mlir::DialectRegistry &registry);

/// The context of a compiler tool: the model dialects, every pass
/// registered, and diagnostics that name an op without printing it.
std::unique_ptr<mlir::MLIRContext> createCompilerContext();

/// Reads a model file ("-" for stdin) into `sourceMgr` and parses it; parse
/// errors go to the context's diagnostic handler. Returns null and sets
/// `error` when the file cannot be read.
mlir::OwningOpRef<mlir::ModuleOp> parseModelFile(llvm::StringRef path,
                                                 mlir::MLIRContext &context,
                                                 llvm::SourceMgr &sourceMgr,
                                                 std::string &error);

/// Checks the options that need no model: sizes must be >= 1.
llvm::Error validateOptions(const CompileOptions &options);

/// Fills in what the options leave to the model (the sequence length) and
/// checks the options against it (the sequence must fit the position
/// table). Emits a diagnostic on failure.
mlir::LogicalResult resolveOptions(mlir::ModuleOp module,
                                   CompileOptions &options);

/// The textual pass pipeline for resolved options, or an error naming a
/// pass of the list that this build does not register.
llvm::Expected<std::string> buildPipeline(const CompileOptions &options);

/// Resolves the options, records the data-parallel size on the module and
/// runs the pipeline (specialize, megatron-shard, partition, plan-memory) on
/// `module`. Pass errors surface as diagnostics.
mlir::LogicalResult compile(mlir::ModuleOp module, CompileOptions &options);

/// Compiles `module` with `options` and returns the bytes tpc-plan-memory
/// gives its @train_step.
mlir::FailureOr<int64_t> plannedTrainStepArena(mlir::ModuleOp module,
                                               CompileOptions options);

/// Writes the compiled module as an executable program file whose `#!` line
/// names `interpreter`; the program carries the FLOPs of `cost`, the
/// module's cost report.
mlir::LogicalResult writeProgram(mlir::ModuleOp module, llvm::StringRef path,
                                 llvm::StringRef interpreter,
                                 const CostReport &cost);

} // namespace tpc

#endif // TPC_COMPILER_PIPELINE_H
