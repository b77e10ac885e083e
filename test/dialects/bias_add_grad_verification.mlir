// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @scalar(%dout: tensor<f32>) {
  // expected-error @+1 {{'tpc.bias_add_grad' op dout must have rank >= 1, got tensor<f32>}}
  %b = tpc.bias_add_grad %dout : tensor<f32>
  return
}

// -----

func.func @integer(%dout: tensor<4x8xi32>) {
  // expected-error @+1 {{'tpc.bias_add_grad' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %b = tpc.bias_add_grad %dout : tensor<4x8xi32>
  return
}
