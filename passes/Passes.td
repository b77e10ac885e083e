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

def PlanMemory : Pass<"tpc-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every activation in one arena by liveness";
  let description = [{
    Walks each function in program order and gives every op result a byte
    offset in a single per-rank arena. A buffer is taken when its op runs
    and given back after its last use (results that a function returns live
    to its end); freed ranges are reused first-fit and merged with their
    neighbours. Parameters and function arguments have storage of their own.
    Offsets are recorded on each op as `tpc.offsets`, the arena size on the
    function as `tpc.arena_bytes`. All shapes must be static: run
    `tpc-specialize` first.

    Input:
    ```mlir
    %a = tpc.gelu %x : tensor<4x8xf32>
    %b = tpc.gelu %a : tensor<4x8xf32>
    %c = tpc.gelu %b : tensor<4x8xf32>
    ```
    Output: `%c` reuses the bytes of `%a`.
    ```mlir
    %a = tpc.gelu %x {tpc.offsets = array<i64: 0>} : tensor<4x8xf32>
    %b = tpc.gelu %a {tpc.offsets = array<i64: 128>} : tensor<4x8xf32>
    %c = tpc.gelu %b {tpc.offsets = array<i64: 0>} : tensor<4x8xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "256",
           "byte alignment of every buffer">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def Export : Pass<"tpc-export", "mlir::ModuleOp"> {
  let summary = "Write the module as a tpc program file";
  let description = [{
    Serializes the partitioned, memory-planned module into the program format
    of runtime/program/program.proto: one tensor per parameter (this rank's
    slice, with its global shape, layout and initializer) and per value, one
    instruction per op with all of its attributes (defaults made explicit),
    one function per `func.func`; tp and dp come from the module's `tpc.tp`
    and `tpc.dp` attributes (absent means 1). The file starts with a `#!` line naming
    tpc-run, so `./model.tpc eval ...` runs it. The IR is left unchanged.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"\"",
           "path of the program file to write">,
    Option<"interpreter", "interpreter", "std::string",
           "\"/usr/bin/env tpc-run\"",
           "the program named on the file's #! line">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

#endif // TPC_PASSES_TD
