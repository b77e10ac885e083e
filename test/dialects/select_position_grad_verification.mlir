// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @not_an_adjoint(%d: tensor<2x1x32xf32>, %h: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'tpc.select_position_grad' op dout tensor<2x1x32xf32> is not an adjoint of the select_position result tensor<2x1x64xf32>; pass the gradient of that result}}
  %dh = tpc.select_position_grad %d, %h at 0 : tensor<2x1x32xf32>, tensor<2x16x64xf32>
  return
}

// -----

func.func @position(%d: tensor<2x1x64xf32>, %h: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'tpc.select_position_grad' op position 20 is not one of the 16 positions of tensor<2x16x64xf32>}}
  %dh = tpc.select_position_grad %d, %h at 20 : tensor<2x1x64xf32>, tensor<2x16x64xf32>
  return
}
