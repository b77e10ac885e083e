// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @dout_width(%dout: tensor<2x8x32xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_input_grad' op dout tensor<2x8x32xf32> has 32 features but the weight tensor<16x64xf32> ([in, out]) produces 64; pass the gradient of this weight's linear}}
  %dx = tpc.linear_input_grad %dout, %w : tensor<2x8x32xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @transposed_width(%dout: tensor<2x8x64xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_input_grad' op dout tensor<2x8x64xf32> has 64 features but the weight tensor<16x64xf32> (transposed, [out, in]) produces 16}}
  %dx = tpc.linear_input_grad %dout, %w transposed : tensor<2x8x64xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @weight_rank(%dout: tensor<2x8x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'tpc.linear_input_grad' op weight must have rank 2, got tensor<64xf32>}}
  %dx = tpc.linear_input_grad %dout, %w : tensor<2x8x64xf32>, tensor<64xf32>
  return
}

// -----

func.func @dout_rank(%dout: tensor<f32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear_input_grad' op dout must have rank >= 1, got tensor<f32>}}
  %dx = tpc.linear_input_grad %dout, %w : tensor<f32>, tensor<16x64xf32>
  return
}

// -----

func.func @element_types(%dout: tensor<2x8x64xf32>, %w: tensor<16x64xbf16>) {
  // expected-error @+1 {{'tpc.linear_input_grad' op dout tensor<2x8x64xf32> and weight tensor<16x64xbf16> have different element types; pass the weight the forward linear read}}
  %dx = tpc.linear_input_grad %dout, %w : tensor<2x8x64xf32>, tensor<16x64xbf16>
  return
}

// -----

func.func @result_type(%dout: tensor<2x8x64xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+2 {{'tpc.linear_input_grad' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.linear_input_grad' op inferred type(s) 'tensor<2x8x16xf32>' are incompatible with return type(s) of operation 'tensor<2x8x64xf32>'}}
  %dx = "tpc.linear_input_grad"(%dout, %w) : (tensor<2x8x64xf32>, tensor<16x64xf32>) -> tensor<2x8x64xf32>
  return
}
