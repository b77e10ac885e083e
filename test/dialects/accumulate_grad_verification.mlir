// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @missing(%g: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op no parameter named @wte; declare it with tpc.param}}
  tpc.accumulate_grad @wte, %g : tensor<4xf32>
  return
}

// -----

func.func @not_a_param(%g: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op symbol @not_a_param is a 'func.func', not a tpc.param}}
  tpc.accumulate_grad @not_a_param, %g : tensor<4xf32>
  return
}

// -----

tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
func.func @global_shape(%g: tensor<16x64xf32>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<16x64xf32>' does not match parameter @wte, which functions read as 'tensor<64x16xf32>' on each rank (tp = 1)}}
  tpc.accumulate_grad @wte, %g : tensor<16x64xf32>
  return
}

// -----

// After partitioning the gradient is this rank's slice.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @w : tensor<32x128xf32> init <normal, std = 0.02> layout <split 1>
  func.func @unsplit(%g: tensor<32x128xf32>) {
    // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<32x128xf32>' does not match parameter @w, which functions read as 'tensor<32x64xf32>' on each rank (tp = 2)}}
    tpc.accumulate_grad @w, %g : tensor<32x128xf32>
    return
  }
}

// -----

tpc.param @w : tensor<4xf32> init <zeros>
func.func @element_type(%g: tensor<4xbf16>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<4xbf16>' does not match parameter @w, which functions read as 'tensor<4xf32>' on each rank (tp = 1)}}
  tpc.accumulate_grad @w, %g : tensor<4xbf16>
  return
}

// -----

// Under mixed precision the gradient is of the working copy's type, whatever
// the buffer accumulates in (here f32).
tpc.param @w : tensor<4xf32> init <zeros> compute bf16 grad f32
func.func @master_type(%g: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<4xf32>' does not match parameter @w, which functions read as 'tensor<4xbf16>' on each rank (tp = 1)}}
  tpc.accumulate_grad @w, %g : tensor<4xf32>
  return
}
