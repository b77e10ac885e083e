// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @input_rank(%x: tensor<f32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.bias_add' op input must have rank >= 1, got tensor<f32>}}
  %y = tpc.bias_add %x, %b : tensor<f32>, tensor<16xf32>
  return
}

// -----

func.func @bias_rank(%x: tensor<?x16xf32>, %b: tensor<1x16xf32>) {
  // expected-error @+1 {{'tpc.bias_add' op bias tensor<1x16xf32> must be a vector matching the last dimension of tensor<?x16xf32>}}
  %y = tpc.bias_add %x, %b : tensor<?x16xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @bias_extent(%x: tensor<?x16xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'tpc.bias_add' op bias tensor<8xf32> must be a vector matching the last dimension of tensor<?x16xf32>}}
  %y = tpc.bias_add %x, %b : tensor<?x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @element_type(%x: tensor<?x16xbf16>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.bias_add' op bias has element type f32 but input has bf16; cast them to one element type}}
  %y = tpc.bias_add %x, %b : tensor<?x16xbf16>, tensor<16xf32>
  return
}

// -----

func.func @result_type(%x: tensor<4x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{'tpc.bias_add' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.bias_add' op inferred type(s) 'tensor<4x16xf32>' are incompatible with return type(s) of operation 'tensor<5x16xf32>'}}
  %y = "tpc.bias_add"(%x, %b) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<5x16xf32>
  return
}
