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

std::vector<MemoryFit>
tpc::fitMemory(ModuleOp module, const CompileOptions &base, int64_t maxTp) {
  std::vector<MemoryFit> rows;
  for (int64_t tp = 1; tp <= maxTp; tp *= 2) {
    MemoryFit row;
    row.tp = tp;
    OwningOpRef<ModuleOp> copy = module.clone();
    CompileOptions options = base;
    options.tp = tp;
    // A tp the model cannot take (heads or the MLP width not divisible) is
    // a row of the table, not an error of the plan: keep its first message.
    std::string reason;
    {
      ScopedDiagnosticHandler capture(
          module.getContext(), [&](Diagnostic &diag) {
            if (reason.empty() &&
                diag.getSeverity() == DiagnosticSeverity::Error)
              reason = diag.str();
            return success();
          });
      if (succeeded(compile(*copy, options))) {
        FailureOr<CostReport> report = computeCostReport(
            *copy, CostReportConfig{options.dp});
        // The recompute figure is planned too, on a copy compiled with it.
        CompileOptions full = options;
        full.recompute = "full";
        OwningOpRef<ModuleOp> recomputed = module.clone();
        FailureOr<int64_t> arena = plannedTrainStepArena(*recomputed, full);
        if (succeeded(report) && succeeded(arena)) {
          report->recomputePlannedBytes = *arena;
          row.report = *report;
        }
      }
    }
    if (!row.report)
      row.reason = reason.empty() ? "the pipeline failed" : reason;
    rows.push_back(std::move(row));
  }
  return rows;
}
