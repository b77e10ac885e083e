//===- Passes.td - passes of the compiler driver -----------*- tablegen -*-===//

#ifndef TPC_COMPILER_PASSES_TD
#define TPC_COMPILER_PASSES_TD

include "mlir/Pass/PassBase.td"

def CostReport : Pass<"tpc-cost-report", "mlir::ModuleOp"> {
  let summary = "Print the per-rank cost of one training step";
  let description = [{
    Reads the module (after `tpc-specialize` and, for tp > 1, the partition
    passes) and prints, for one rank: parameters, the memory of weights,
    gradients and AdamW states, the activation memory of one micro-batch with
    and without per-layer recompute, the FLOPs of one step, and the
    all-reduces over the tensor- and data-parallel groups; for the whole job:
    the unpadded parameter count, the padded vocabulary and the model FLOPs
    per token. Every figure is computed from the IR (the module's `tpc.tp`,
    parameter layouts, local shapes, element types and collectives) of the
    function `@forward`: after `tpc-mixed-precision` the bytes are those of
    the bf16 or f16 working copies and activations, the gradient type and
    the f32 master copies. The IR is left unchanged.

    Input (a partitioned MLP sublayer at tp = 2, B = 4, T = 8, H = 16):
    ```mlir
    module attributes {tpc.tp = 2 : i64} {
      ...
      %m = tpc.f %x group tp : tensor<4x8x16xf32>
      %u = tpc.linear %m, %w1, %b1 : tensor<4x8x16xf32>, tensor<16x32xf32>, tensor<32xf32>
      %v = tpc.linear %u, %w2 : tensor<4x8x32xf32>, tensor<32x16xf32>
      %y = tpc.g %v group tp : tensor<4x8x16xf32>
      %h = tpc.add %x, %y : tensor<4x8x16xf32>
    ```
    Output (excerpt):
    ```
    communication per step, per rank
      TP layer all-reduces  2 x 512  values (1 forward, 1 backward)
    ```
    With `format=json` the same figures come as one JSON object with stable
    keys (`config`, `model`, `rank`, `communication`).
  }];
  let options = [
    Option<"format", "format", "std::string", "\"text\"",
           "text (aligned columns and a legend) or json">,
    Option<"dp", "dp", "int64_t", "1",
           "data-parallel size, as tpc-compile --dp (which tpc-compile also "
           "records on the module as tpc.dp)">,
  ];
}

#endif // TPC_COMPILER_PASSES_TD
