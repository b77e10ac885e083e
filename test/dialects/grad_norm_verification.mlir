// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @zero(%sq: tensor<f32>, %inv: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tpc.grad_norm' op max_norm must be a finite number > 0, got 0.000000e+00; omit it to disable clipping}}
  %norm, %scale = tpc.grad_norm %sq, %inv max_norm 0.0
  return %scale : tensor<f32>
}

// -----

func.func @negative(%sq: tensor<f32>, %inv: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tpc.grad_norm' op max_norm must be a finite number > 0, got -1.000000e+00}}
  %norm, %scale = tpc.grad_norm %sq, %inv max_norm -1.0
  return %scale : tensor<f32>
}

// -----

func.func @vector(%sq: tensor<2xf32>, %inv: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'tpc.grad_norm' op operand #0 must be 0D tensor of 32-bit float values, but got 'tensor<2xf32>'}}
  %norm, %scale = "tpc.grad_norm"(%sq, %inv) : (tensor<2xf32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  return %scale : tensor<f32>
}
