// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @weight_extent(%d: tensor<2x16xf32>, %x: tensor<2x16xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm_grad' op weight tensor<8xf32> does not match the last dimension of tensor<2x16xf32>}}
  %dx, %dw = tpc.rmsnorm_grad %d, %x, %w eps 1.0e-05 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @adjoint(%d: tensor<2x8xf32>, %x: tensor<2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm_grad' op}}
  %dx, %dw = tpc.rmsnorm_grad %d, %x, %w eps 1.0e-05 : tensor<2x8xf32>, tensor<2x16xf32>, tensor<16xf32>
  return
}

// -----

func.func @epsilon(%d: tensor<2x16xf32>, %x: tensor<2x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm_grad' op epsilon must be a finite number > 0, got -1.000000e+00; use the forward rmsnorm's}}
  %dx, %dw = tpc.rmsnorm_grad %d, %x, %w eps -1.0 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<16xf32>
  return
}
