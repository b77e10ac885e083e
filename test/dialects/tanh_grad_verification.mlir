// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @result_like_dout(%d: tensor<4xf32>, %y: tensor<8xf32>) {
  // expected-error @+1 {{'tpc.tanh_grad' op requires the same type for all operands and results}}
  %dx = "tpc.tanh_grad"(%d, %y) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return
}
