// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @input_rank(%x: tensor<f32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm' op input must have rank >= 1, got tensor<f32>}}
  %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<f32>, tensor<16xf32>
  return
}

// -----

func.func @weight_rank(%x: tensor<?x16xf32>, %w: tensor<1x16xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm' op weight must have rank 1, got tensor<1x16xf32>}}
  %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<?x16xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @weight_extent(%x: tensor<?x16xf32>, %w: tensor<8xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm' op weight tensor<8xf32> does not match the last dimension of tensor<?x16xf32>}}
  %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<?x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @weight_type(%x: tensor<?x16xf32>, %w: tensor<16xbf16>) {
  // expected-error @+1 {{'tpc.rmsnorm' op weight of element type bf16 cannot normalize an input of f32; use the input's element type or f32}}
  %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<?x16xf32>, tensor<16xbf16>
  return
}

// -----

func.func @epsilon(%x: tensor<?x16xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.rmsnorm' op epsilon must be a finite number > 0, got 0.000000e+00 (Llama uses 1.0e-05 or 1.0e-06)}}
  %y = tpc.rmsnorm %x, %w eps 0.0 : tensor<?x16xf32>, tensor<16xf32>
  return
}
