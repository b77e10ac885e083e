// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @mismatch(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.gelu_grad' op requires the same type for all operands and results}}
  %dx = "tpc.gelu_grad"(%dout, %x) : (tensor<2x8x64xf32>, tensor<2x8x32xf32>) -> tensor<2x8x64xf32>
  return
}

// -----

func.func @integer(%dout: tensor<8xi32>) {
  // expected-error @+1 {{'tpc.gelu_grad' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %dx = tpc.gelu_grad %dout, %dout : tensor<8xi32>
  return
}
