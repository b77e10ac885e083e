// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tpc.tanh' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %y = tpc.tanh %x : tensor<4xi32>
  return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.tanh' op requires the same type for all operands and results}}
  %y = "tpc.tanh"(%x) : (tensor<4xf32>) -> tensor<4xbf16>
  return
}
