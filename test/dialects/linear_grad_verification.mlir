// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @input_width(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x32xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_grad' op input tensor<2x8x32xf32> has 32 features but the weight tensor<16x64xf32> ([in, out]) expects 16}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<2x8x64xf32>, tensor<2x8x32xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @transposed_width(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_grad' op input tensor<2x8x16xf32> has 16 features but the weight tensor<16x64xf32> (transposed, [out, in]) expects 64}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w transposed : tensor<2x8x64xf32>, tensor<2x8x16xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @dout_width(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_grad' op dout tensor<2x8x32xf32> is not an adjoint of the linear result tensor<2x8x64xf32>; pass the gradient of that result}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @dout_batch(%dout: tensor<4x8x64xf32>, %x: tensor<2x8x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_grad' op dout tensor<4x8x64xf32> is not an adjoint of the linear result tensor<2x8x64xf32>}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<4x8x64xf32>, tensor<2x8x16xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @weight_rank(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x16xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'tpc.linear_grad' op weight must have rank 2, got tensor<64xf32>}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<2x8x64xf32>, tensor<2x8x16xf32>, tensor<64xf32>
  return
}

// -----

func.func @element_types(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x16xf32>, %w: tensor<16x64xbf16>) {
  // expected-error @+1 {{'tpc.linear_grad' op input tensor<2x8x16xf32> and weight tensor<16x64xbf16> have different element types}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<2x8x64xf32>, tensor<2x8x16xf32>, tensor<16x64xbf16>
  return
}
