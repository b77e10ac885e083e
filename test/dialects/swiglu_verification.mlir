// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @shapes(%g: tensor<2x64xf32>, %u: tensor<2x32xf32>) {
  // expected-error @+1 {{'tpc.swiglu' op requires the same type for all operands and results}}
  %y = "tpc.swiglu"(%g, %u) : (tensor<2x64xf32>, tensor<2x32xf32>) -> tensor<2x64xf32>
  return
}

// -----

func.func @integer(%g: tensor<2x64xi32>, %u: tensor<2x64xi32>) {
  // expected-error @+1 {{'tpc.swiglu' op operand #0 must be ranked tensor of}}
  %y = "tpc.swiglu"(%g, %u) : (tensor<2x64xi32>, tensor<2x64xi32>) -> tensor<2x64xi32>
  return
}
