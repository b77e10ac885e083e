// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @input_rank(%x: tensor<f32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear' op input must have rank >= 1, got tensor<f32>}}
  %y = tpc.linear %x, %w : tensor<f32>, tensor<16x64xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<?x16xf32>, %w: tensor<16x64x1xf32>) {
  // expected-error @+1 {{'tpc.linear' op weight must have rank 2, got tensor<16x64x1xf32>}}
  %y = tpc.linear %x, %w : tensor<?x16xf32>, tensor<16x64x1xf32>
  return
}

// -----

func.func @features(%x: tensor<?x?x16xf32>, %w: tensor<32x64xf32>) {
  // expected-error @+1 {{'tpc.linear' op input tensor<?x?x16xf32> has 16 features but the weight tensor<32x64xf32> ([in, out]) expects 32}}
  %y = tpc.linear %x, %w : tensor<?x?x16xf32>, tensor<32x64xf32>
  return
}

// -----

// A [in, out] weight used as [out, in] by mistake.
func.func @features_transposed(%x: tensor<?x?x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear' op input tensor<?x?x16xf32> has 16 features but the weight tensor<16x64xf32> (transposed, [out, in]) expects 64}}
  %y = tpc.linear %x, %w transposed : tensor<?x?x16xf32>, tensor<16x64xf32>
  return
}

// -----

func.func @bias_rank(%x: tensor<?x16xf32>, %w: tensor<16x64xf32>, %b: tensor<1x64xf32>) {
  // expected-error @+1 {{'tpc.linear' op bias tensor<1x64xf32> must be [64] to match the weight tensor<16x64xf32>}}
  %y = tpc.linear %x, %w, %b : tensor<?x16xf32>, tensor<16x64xf32>, tensor<1x64xf32>
  return
}

// -----

func.func @bias_extent(%x: tensor<?x16xf32>, %w: tensor<16x64xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.linear' op bias tensor<16xf32> must be [64] to match the weight tensor<16x64xf32>}}
  %y = tpc.linear %x, %w, %b : tensor<?x16xf32>, tensor<16x64xf32>, tensor<16xf32>
  return
}

// -----

func.func @bias_extent_transposed(%x: tensor<?x16xf32>, %w: tensor<64x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.linear' op bias tensor<16xf32> must be [64] to match the weight tensor<64x16xf32>}}
  %y = tpc.linear %x, %w, %b transposed : tensor<?x16xf32>, tensor<64x16xf32>, tensor<16xf32>
  return
}

// -----

func.func @weight_element_type(%x: tensor<?x16xbf16>, %w: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.linear' op weight has element type f32 but input has bf16; cast them to one element type}}
  %y = tpc.linear %x, %w : tensor<?x16xbf16>, tensor<16x64xf32>
  return
}

// -----

func.func @bias_element_type(%x: tensor<?x16xf16>, %w: tensor<16x64xf16>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'tpc.linear' op bias has element type f32 but input has f16; cast them to one element type}}
  %y = tpc.linear %x, %w, %b : tensor<?x16xf16>, tensor<16x64xf16>, tensor<64xf32>
  return
}

// -----

func.func @result_type(%x: tensor<?x16xf32>, %w: tensor<16x64xf32>) {
  // expected-error @+2 {{'tpc.linear' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.linear' op inferred type(s) 'tensor<?x64xf32>' are incompatible with return type(s) of operation 'tensor<?x16xf32>'}}
  %y = "tpc.linear"(%x, %w) : (tensor<?x16xf32>, tensor<16x64xf32>) -> tensor<?x16xf32>
  return
}
