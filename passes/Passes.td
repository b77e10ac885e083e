//===- Passes.td - tpc passes ------------------------------*- tablegen -*-===//

#ifndef TPC_PASSES_TD
#define TPC_PASSES_TD

include "mlir/Pass/PassBase.td"

def Specialize : Pass<"tpc-specialize", "mlir::ModuleOp"> {
  let summary = "Fix the batch and sequence dimensions of a model";
  let description = [{
    A model file leaves the batch B and the sequence length T of its token
    inputs open. This pass gives every rank-2 i32 argument of every function
    the shape [batch, seq] and recomputes all result types from there, so
    that later passes and the cost report see static shapes.

    Input:
    ```mlir
    func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<?x?x64xf32>)
    ```
    Output with `batch=4 seq=16`:
    ```mlir
    func.func @forward(%tokens: tensor<4x16xi32>, %targets: tensor<4x16xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<4x16x64xf32>)
    ```
  }];
  let options = [
    Option<"batch", "batch", "int64_t", "0",
           "micro-batch size B (0 keeps the model's own)">,
    Option<"seq", "seq", "int64_t", "0",
           "sequence length T (0 keeps the model's own)">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

#endif // TPC_PASSES_TD
