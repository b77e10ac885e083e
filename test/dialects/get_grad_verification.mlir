// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @missing() -> tensor<4xf32> {
  // expected-error @+1 {{'tpc.get_grad' op no parameter named @wte; declare it with tpc.param}}
  %g = tpc.get_grad @wte : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @forward() -> tensor<4xf32> {
  // expected-error @+1 {{'tpc.get_grad' op symbol @forward is a 'func.func', not a tpc.param}}
  %g = tpc.get_grad @forward : tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// The gradient buffer holds this rank's slice, not the global tensor.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>

  func.func @global_read() -> tensor<16x64xf32> {
    // expected-error @+1 {{'tpc.get_grad' op read of parameter @h.0.mlp.c_fc.weight is 'tensor<16x64xf32>' but its gradient on each rank is 'tensor<16x32xf32>' (tp = 2); use 'tensor<16x32xf32>'}}
    %g = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    return %g : tensor<16x64xf32>
  }
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @element_type() -> tensor<16xbf16> {
  // expected-error @+1 {{'tpc.get_grad' op read of parameter @ln_f.weight is 'tensor<16xbf16>' but its gradient on each rank is 'tensor<16xf32>' (tp = 1)}}
  %g = tpc.get_grad @ln_f.weight : tensor<16xbf16>
  return %g : tensor<16xbf16>
}

// -----

func.func @integer() {
  // expected-error @+1 {{'tpc.get_grad' op result #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %g = tpc.get_grad @wte : tensor<4xi32>
  return
}

// -----

// The gradient buffer of a parameter with f32 gradients and a bf16 working
// copy is f32.
tpc.param @w : tensor<4xf32> init <zeros> compute bf16 grad f32
func.func @working_type() -> tensor<4xbf16> {
  // expected-error @+1 {{'tpc.get_grad' op read of parameter @w is 'tensor<4xbf16>' but its gradient on each rank is 'tensor<4xf32>' (tp = 1); use 'tensor<4xf32>'}}
  %g = tpc.get_grad @w : tensor<4xbf16>
  return %g : tensor<4xbf16>
}
