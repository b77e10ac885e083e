// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-export="output=%t.tpc"
// RUN: not tpc-opt %s -split-input-file --tpc-export 2>&1 | FileCheck %s --check-prefix=NOPATH

// NOPATH: tpc-export needs output=<path of the program file>

func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{has no arena offsets; run tpc-plan-memory before tpc-export}}
  %y = tpc.gelu %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{argument 0 of type 'tensor<?x4xf32>' cannot be exported; fix its shape with tpc-specialize}}
func.func @forward(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
