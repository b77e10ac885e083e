// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @missing() -> tensor<4xf32> {
  // expected-error @+1 {{'tpc.get_param' op no parameter named @wte; declare it with tpc.param}}
  %w = tpc.get_param @wte : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

func.func @forward() -> tensor<4xf32> {
  // expected-error @+1 {{'tpc.get_param' op symbol @forward is a 'func.func', not a tpc.param}}
  %w = tpc.get_param @forward : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>

func.func @wrong_shape() -> tensor<16x64xf32> {
  // expected-error @+1 {{'tpc.get_param' op reads parameter @wte as 'tensor<16x64xf32>' but its type on each rank is 'tensor<64x16xf32>' (tp = 1); read it as 'tensor<64x16xf32>'}}
  %w = tpc.get_param @wte : tensor<16x64xf32>
  return %w : tensor<16x64xf32>
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>

func.func @wrong_element_type() -> tensor<64x16xbf16> {
  // expected-error @+1 {{'tpc.get_param' op reads parameter @wte as 'tensor<64x16xbf16>' but its type on each rank is 'tensor<64x16xf32>' (tp = 1)}}
  %w = tpc.get_param @wte : tensor<64x16xbf16>
  return %w : tensor<64x16xbf16>
}

// -----

// After partitioning, a split parameter must be read at its local type.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>

  func.func @global_read() -> tensor<16x64xf32> {
    // expected-error @+1 {{'tpc.get_param' op reads parameter @h.0.mlp.c_fc.weight as 'tensor<16x64xf32>' but its type on each rank is 'tensor<16x32xf32>' (tp = 2); read it as 'tensor<16x32xf32>'}}
    %w = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    return %w : tensor<16x64xf32>
  }
}

// -----

// A replicated parameter is read whole, even after partitioning.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>

  func.func @split_read() -> tensor<8xf32> {
    // expected-error @+1 {{'tpc.get_param' op reads parameter @ln_f.weight as 'tensor<8xf32>' but its type on each rank is 'tensor<16xf32>' (tp = 2)}}
    %w = tpc.get_param @ln_f.weight : tensor<8xf32>
    return %w : tensor<8xf32>
  }
}

// -----

func.func @memref_read() {
  // expected-error @+1 {{custom op 'tpc.get_param' invalid kind of type specified: expected builtin.tensor, but found 'memref<4xf32>'}}
  %w = tpc.get_param @wte : memref<4xf32>
  return
}

// -----

// A parameter with a working copy is read at the working copy's type.
tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02> compute bf16

func.func @reads_master() -> tensor<64x16xf32> {
  // expected-error @+1 {{'tpc.get_param' op reads parameter @wte as 'tensor<64x16xf32>' but its type on each rank is 'tensor<64x16xbf16>' (tp = 1); read it as 'tensor<64x16xbf16>'}}
  %w = tpc.get_param @wte : tensor<64x16xf32>
  return %w : tensor<64x16xf32>
}
