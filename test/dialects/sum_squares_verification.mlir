// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @empty() -> tensor<f32> {
  // expected-error @+1 {{'tpc.sum_squares' op needs at least one input}}
  %s = "tpc.sum_squares"() : () -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @integer(%x: tensor<4xi32>) -> tensor<f32> {
  // expected-error @+1 {{'tpc.sum_squares' op operand #0 must be variadic of ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %s = tpc.sum_squares %x : tensor<4xi32>
  return %s : tensor<f32>
}

// -----

func.func @vector_result(%x: tensor<4xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{'tpc.sum_squares' op result #0 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  %s = "tpc.sum_squares"(%x) : (tensor<4xf32>) -> tensor<1xf32>
  return %s : tensor<1xf32>
}
