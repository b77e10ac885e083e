// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @dout_batch(%dout: tensor<4x8x64xf32>, %x: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.linear_weight_grad' op dout tensor<4x8x64xf32> is not an adjoint of the linear result tensor<2x8x64xf32>; pass the gradient of that result}}
  %dw = tpc.linear_weight_grad %dout, %x : tensor<4x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @dout_rank(%dout: tensor<8x64xf32>, %x: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.linear_weight_grad' op dout tensor<8x64xf32> is not an adjoint of the linear result tensor<2x8x64xf32>}}
  %dw = tpc.linear_weight_grad %dout, %x : tensor<8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @element_types(%dout: tensor<2x8x64xbf16>, %x: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.linear_weight_grad' op dout tensor<2x8x64xbf16> is not an adjoint of the linear result tensor<2x8x64xf32>}}
  %dw = tpc.linear_weight_grad %dout, %x : tensor<2x8x64xbf16>, tensor<2x8x16xf32>
  return
}

// -----

func.func @input_rank(%dout: tensor<2x8x64xf32>, %x: tensor<f32>) {
  // expected-error @+1 {{'tpc.linear_weight_grad' op input must have rank >= 1, got tensor<f32>}}
  %dw = tpc.linear_weight_grad %dout, %x : tensor<2x8x64xf32>, tensor<f32>
  return
}

// -----

func.func @result_type(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x16xf32>) {
  // expected-error @+2 {{'tpc.linear_weight_grad' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.linear_weight_grad' op inferred type(s) 'tensor<64x16xf32>' are incompatible with return type(s) of operation 'tensor<16x64xf32>'}}
  %dw = "tpc.linear_weight_grad"(%dout, %x) {transposed} : (tensor<2x8x64xf32>, tensor<2x8x16xf32>) -> tensor<16x64xf32>
  return
}
