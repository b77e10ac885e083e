//===- tpc-opt.cpp - Run tpc passes on a module -----------------*- C++ -*-===//

#include "compiler/Pipeline.h"
#include "tools/RepeatedOptions.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tpc::registerModelDialects(registry);
  tpc::registerCompilerPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "tpc-opt: run tpc passes on a module\n", registry);
  if (!tpc::checkRepeatedOptions("tpc-opt"))
    return 1;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
