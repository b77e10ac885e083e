//===- CostReportPass.cpp - The cost report as a pass -----------*- C++ -*-===//

#include "compiler/CostReport.h"
#include "compiler/Passes.h"

#include "llvm/Support/raw_ostream.h"

namespace tpc {
#define GEN_PASS_DEF_COSTREPORT
#include "compiler/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
struct CostReportPass : public tpc::impl::CostReportBase<CostReportPass> {
  using CostReportBase::CostReportBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (format != "text" && format != "json") {
      module.emitError("tpc-cost-report: unknown format '")
          << format << "'; use format=text or format=json";
      return signalPassFailure();
    }
    FailureOr<CostReport> report =
        computeCostReport(module, CostReportConfig{dp});
    if (failed(report))
      return signalPassFailure();
    if (format == "json")
      printCostReportJson(*report, llvm::outs());
    else
      printCostReportText(*report, llvm::outs());
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
