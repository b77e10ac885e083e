// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @factor_rank(%s: tensor<f32>, %w: tensor<1xf32>) {
  // expected-error @+1 {{'tpc.scale_by' op factor must be a 0-d tensor of the input's element type 'f32', got 'tensor<1xf32>'}}
  %a = tpc.scale_by %s, %w : tensor<f32>, tensor<1xf32>
  return
}

// -----

func.func @factor_type(%x: tensor<4xbf16>, %w: tensor<f32>) {
  // expected-error @+1 {{'tpc.scale_by' op factor must be a 0-d tensor of the input's element type 'bf16', got 'tensor<f32>'}}
  %a = tpc.scale_by %x, %w : tensor<4xbf16>, tensor<f32>
  return
}

// -----

func.func @result(%x: tensor<4xf32>, %w: tensor<f32>) {
  // expected-error @+1 {{'tpc.scale_by' op failed to verify that all of {input, result} have same type}}
  %a = "tpc.scale_by"(%x, %w) : (tensor<4xf32>, tensor<f32>) -> tensor<8xf32>
  return
}
