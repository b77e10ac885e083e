// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @missing(%g: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op no parameter named @wte; gradients accumulate into a tpc.param}}
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
  // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<16x64xf32>' does not match parameter @wte, whose gradient buffer on each rank is 'tensor<64x16xf32>' (tp = 1)}}
  tpc.accumulate_grad @wte, %g : tensor<16x64xf32>
  return
}

// -----

// After partitioning the gradient is this rank's slice.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @w : tensor<32x128xf32> init <normal, std = 0.02> layout <split 1>
  func.func @unsplit(%g: tensor<32x128xf32>) {
    // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<32x128xf32>' does not match parameter @w, whose gradient buffer on each rank is 'tensor<32x64xf32>' (tp = 2)}}
    tpc.accumulate_grad @w, %g : tensor<32x128xf32>
    return
  }
}

// -----

tpc.param @w : tensor<4xf32> init <zeros>
func.func @element_type(%g: tensor<4xbf16>) {
  // expected-error @+1 {{'tpc.accumulate_grad' op gradient 'tensor<4xbf16>' does not match parameter @w, whose gradient buffer on each rank is 'tensor<4xf32>' (tp = 1)}}
  tpc.accumulate_grad @w, %g : tensor<4xbf16>
  return
}
