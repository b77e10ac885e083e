//===- FrontendFuzzer.cpp - Fuzz the MLIR front end and the pipeline ------===//
//
// Parses the input as a model file, verifies it and, when it verifies, runs
// tpc-compile's whole pipeline (tp 2, dp 2, micro-batch 2, seq 8; every
// other input with full activation recompute), the cost
// report and the check against what tpc-run executes. Diagnostics are
// swallowed: only a crash, an assertion or a sanitizer report is a finding.
//
//===----------------------------------------------------------------------===//

#include "compiler/CostReport.h"
#include "compiler/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdint>

// The MLIR libraries are Debian's, built without AddressSanitizer, while
// LLVM's headers compiled into our instrumented code poison the slabs of a
// BumpPtrAllocator and unpoison what they hand out: memory that an
// uninstrumented copy hands out stays poisoned, and the first read of it
// (building the MLIRContext) reports a use-after-poison that is not ours.
// Manual poisoning is therefore ignored; every other check stays on.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  tpc::registerCompilerPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  tpc::registerModelDialects(registry);
  mlir::MLIRContext context(registry);
  context.allowUnregisteredDialects(false);
  // The pipeline's threads would only slow each input down.
  context.disableMultithreading();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  tpc::CompileOptions options;
  options.tp = 2;
  options.dp = 2;
  options.microBatch = 2;
  options.seq = 8;
  // Half of the inputs (by size) also go through activation recompute.
  options.recompute = size % 2 ? "full" : "none";
  if (mlir::failed(tpc::compile(*module, options)))
    return 0;
  mlir::FailureOr<tpc::CostReport> report = tpc::computeCostReport(
      *module, tpc::CostReportConfig{options.dp});
  (void)report;
  return 0;
}
