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

// -----

// A program has one loss: its ops agree on the vocabulary and the ignore
// index, which tpc-run reads from the program's model facts.
func.func @forward(%l: tensor<2x4x8xf32>, %t: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
  %s, %n = tpc.cross_entropy %l, %t ignore_index -1 {tpc.offsets = array<i64: 0, 64>} : tensor<2x4x8xf32>, tensor<2x4xi32>
  // expected-error @+1 {{disagrees with tpc.cross_entropy in function 'forward' on the vocabulary or the ignore index; a program has one loss}}
  %s2, %n2 = tpc.cross_entropy %l, %t ignore_index -100 {tpc.offsets = array<i64: 128, 192>} : tensor<2x4x8xf32>, tensor<2x4xi32>
  return %s, %n : tensor<f32>, tensor<i32>
}
