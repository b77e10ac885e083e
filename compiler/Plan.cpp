//===- Plan.cpp - Compute budgeting and memory fitting ----------*- C++ -*-===//

#include "compiler/Plan.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace tpc;

double tpc::trainingFlops(double params, double tokens) {
  return 6.0 * params * tokens;
}

ComputeOptimal tpc::computeOptimal(double flops) {
  ComputeOptimal optimal;
  optimal.params = std::sqrt(flops / 120.0);
  optimal.tokens = 20.0 * optimal.params;
  return optimal;
}

double tpc::wallSeconds(double flops, int64_t devices, double peakFlops,
                        double mfu) {
  return flops / (static_cast<double>(devices) * peakFlops * mfu);
}

std::string tpc::humanDuration(double seconds) {
  if (seconds >= 2 * 86400.0)
    return llvm::formatv("{0:f1} days", seconds / 86400.0).str();
  if (seconds >= 2 * 3600.0)
    return llvm::formatv("{0:f1} h", seconds / 3600.0).str();
  if (seconds >= 120.0)
    return llvm::formatv("{0:f0} min", seconds / 60.0).str();
  return llvm::formatv("{0:f1} s", seconds).str();
}

/// The fullest stage of a pipeline: the one with the largest total.
static const StageCost &fullest(const PipelineCost &p) {
  const StageCost *most = &p.perStage.front();
  for (const StageCost &s : p.perStage)
    if (s.totalBytes() > most->totalBytes())
      most = &s;
  return *most;
}

/// Compiles a copy of `module` with `options` and reports it; for a
/// pipeline also its stages (whose whole-model figures come from a copy
/// compiled without them).
static FailureOr<std::pair<CostReport, std::optional<PipelineCost>>>
reportOf(ModuleOp module, CompileOptions options) {
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(compile(*copy, options)))
    return failure();
  if (options.pp <= 1) {
    FailureOr<CostReport> report =
        computeCostReport(*copy, CostReportConfig{options.dp});
    if (failed(report))
      return failure();
    return std::make_pair(*report, std::optional<PipelineCost>());
  }
  CompileOptions flat = withoutStages(options);
  OwningOpRef<ModuleOp> whole = module.clone();
  if (failed(compile(*whole, flat)))
    return failure();
  FailureOr<CostReport> report =
      computeCostReport(*whole, CostReportConfig{options.dp});
  if (failed(report))
    return failure();
  FailureOr<PipelineCost> stages = computePipelineCost(*copy, *report);
  if (failed(stages))
    return failure();
  return std::make_pair(*report, std::optional<PipelineCost>(*stages));
}

std::vector<MemoryFit> tpc::fitMemory(ModuleOp module,
                                      const CompileOptions &base, int64_t maxTp,
                                      int64_t maxPp) {
  std::vector<MemoryFit> rows;
  for (int64_t tp = 1; tp <= maxTp; tp *= 2)
    for (int64_t pp = 1; pp <= maxPp; pp *= 2) {
      MemoryFit row;
      row.tp = tp;
      row.pp = pp;
      CompileOptions options = base;
      options.tp = tp;
      options.pp = pp;
      if (pp == 1)
        options = withoutStages(options);
      // A layout the model cannot take (heads or the MLP width not
      // divisible, fewer layers than stages) is a row of the table, not an
      // error of the plan: keep its first message.
      std::string reason;
      {
        ScopedDiagnosticHandler capture(
            module.getContext(), [&](Diagnostic &diag) {
              if (reason.empty() &&
                  diag.getSeverity() == DiagnosticSeverity::Error)
                reason = diag.str();
              return success();
            });
        auto plain = reportOf(module, options);
        // The recompute figure is planned too, on a copy compiled with it.
        CompileOptions full = options;
        full.recompute = "full";
        if (succeeded(plain) && plain->second) {
          auto recomputed = reportOf(module, full);
          if (succeeded(recomputed)) {
            const StageCost &most = fullest(*plain->second);
            row.params = most.params;
            row.modelStates = most.modelStateBytes();
            row.total = most.totalBytes();
            row.totalRecompute = fullest(*recomputed->second).totalBytes();
            row.report = plain->first;
            row.report->pipeline = plain->second;
          }
        } else if (succeeded(plain)) {
          OwningOpRef<ModuleOp> copy = module.clone();
          FailureOr<int64_t> arena = plannedTrainStepArena(*copy, full);
          if (succeeded(arena)) {
            CostReport report = plain->first;
            report.recomputePlannedBytes = *arena;
            row.params = report.rankParams;
            row.modelStates = report.modelStateBytes();
            row.total = report.modelStateBytes() + report.activationBytes;
            row.totalRecompute =
                report.modelStateBytes() + report.recomputeActivationBytes();
            row.report = report;
          }
        }
      }
      if (!row.report)
        row.reason = reason.empty() ? "the pipeline failed" : reason;
      rows.push_back(std::move(row));
    }
  return rows;
}
