// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-autodiff

// expected-error @+1 {{module has no func.func @forward to differentiate}}
module {
  func.func @eval(%tokens: tensor<2x4xi32>) -> tensor<2x4xi32> {
    return %tokens : tensor<2x4xi32>
  }
}

// -----

func.func @forward(%sum: tensor<f32>, %count: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  return %sum, %count : tensor<f32>, tensor<i32>
}
// expected-error @+1 {{module already has @train_step; run tpc-autodiff once, on a module without it}}
func.func @train_step(%sum: tensor<f32>, %count: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  return %sum, %count : tensor<f32>, tensor<i32>
}

// -----

// expected-error @+1 {{@forward must return the loss sum (tensor<f32>) and the target count (tensor<i32>) first, got '(tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<f32>)'}}
func.func @forward(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<f32>) {
  %z = tpc.fill 0.0 : tensor<f32>
  return %x, %z : tensor<2x4x8xf32>, tensor<f32>
}

// -----

// An op without the VJP interface between the parameters and the loss.
tpc.param @w : tensor<8x16xf32> init <normal, std = 0.02>
func.func private @helper(tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
  %w = tpc.get_param @w : tensor<8x16xf32>
  %x = tpc.embedding %w, %tokens : tensor<8x16xf32>, tensor<2x4xi32>
  // expected-error @+1 {{'func.call' op is on the path from the parameters to the loss but has no vector-Jacobian product; implement tpc::VjpOpInterface (dialects/tpc/TpcInterfaces.td) for 'func.call' to make it trainable}}
  %y = func.call @helper(%x) : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %sum, %count = tpc.cross_entropy %y, %targets ignore_index -1 : tensor<2x4x16xf32>, tensor<2x4xi32>
  return %sum, %count : tensor<f32>, tensor<i32>
}

// -----

module attributes {tpc.tp = 2 : i64} {
  tpc.param @w : tensor<8x32xf32> init <normal, std = 0.02> layout <split 1>
  func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
    %w = tpc.get_param @w : tensor<8x16xf32>
    %x = tpc.embedding %w, %tokens : tensor<8x16xf32>, tensor<2x4xi32>
    // expected-error @+1 {{'tpc.all_gather' op has no VJP: the gradient of a gathered tensor is this rank's slice of the adjoint, for which no backward op exists; in a trained function keep tensor-parallel activations split up to a row-parallel linear and tpc.g (Megatron), and gather only for evaluation}}
    %y = tpc.all_gather %x dim 2 group tp : tensor<2x4x16xf32> -> tensor<2x4x32xf32>
    %sum, %count = tpc.cross_entropy %y, %targets ignore_index -1 : tensor<2x4x32xf32>, tensor<2x4xi32>
    return %sum, %count : tensor<f32>, tensor<i32>
  }
}

// -----

tpc.param @w : tensor<8x16xf32> init <normal, std = 0.02>
func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
  %w = tpc.get_param @w : tensor<8x16xf32>
  %x = tpc.embedding %w, %tokens : tensor<8x16xf32>, tensor<2x4xi32>
  // expected-error @+1 {{'tpc.all_reduce' op has no VJP: the gradient of a max all-reduce depends on which rank holds each extremum; train through sums only (a max inside a loss belongs in the loss op)}}
  %y = tpc.all_reduce %x max group dp : tensor<2x4x16xf32>
  %sum, %count = tpc.cross_entropy %y, %targets ignore_index -1 : tensor<2x4x16xf32>, tensor<2x4xi32>
  return %sum, %count : tensor<f32>, tensor<i32>
}
