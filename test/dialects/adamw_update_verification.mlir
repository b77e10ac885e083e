// RUN: tpc-opt %s -split-input-file -verify-diagnostics

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @beta1(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.adamw_update' op beta1 must be in [0, 1), got 1.000000e+00 (GPT-2 training uses 0.9)}}
  tpc.adamw_update @ln_f.weight, %g, %lr, %s beta1 1.0 beta2 0.95 eps 1.0e-8 weight_decay 0.0 : tensor<16xf32>
  return
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @beta2(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.adamw_update' op beta2 must be in [0, 1), got -5.000000e-01 (GPT-2 training uses 0.95)}}
  tpc.adamw_update @ln_f.weight, %g, %lr, %s beta1 0.9 beta2 -0.5 eps 1.0e-8 weight_decay 0.0 : tensor<16xf32>
  return
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @eps(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.adamw_update' op eps must be a finite number > 0, got 0.000000e+00 (1.0e-08 is usual)}}
  tpc.adamw_update @ln_f.weight, %g, %lr, %s beta1 0.9 beta2 0.95 eps 0.0 weight_decay 0.0 : tensor<16xf32>
  return
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @weight_decay(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.adamw_update' op weight_decay must be in [0, 1], got 2.000000e+00}}
  tpc.adamw_update @ln_f.weight, %g, %lr, %s beta1 0.9 beta2 0.95 eps 1.0e-8 weight_decay 2.0 : tensor<16xf32>
  return
}

// -----

func.func @missing(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.adamw_update' op no parameter named @ln_f.weight; declare it with tpc.param}}
  tpc.adamw_update @ln_f.weight, %g, %lr, %s beta1 0.9 beta2 0.95 eps 1.0e-8 weight_decay 0.0 : tensor<16xf32>
  return
}

// -----

module attributes {tpc.tp = 4 : i64} {
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>

  func.func @global_gradient(%g: tensor<16x48xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
    // expected-error @+1 {{'tpc.adamw_update' op gradient of parameter @h.0.attn.c_attn.weight is 'tensor<16x48xf32>' but its gradient on each rank is 'tensor<16x12xf32>' (tp = 4); use 'tensor<16x12xf32>'}}
    tpc.adamw_update @h.0.attn.c_attn.weight, %g, %lr, %s beta1 0.9 beta2 0.95 eps 1.0e-8 weight_decay 0.1 : tensor<16x48xf32>
    return
  }
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @vector_lr(%g: tensor<16xf32>, %lr: tensor<1xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.adamw_update' op operand #1 must be 0D tensor of 32-bit float values, but got 'tensor<1xf32>'}}
  "tpc.adamw_update"(%g, %lr, %s) {name = @ln_f.weight, beta1 = 0.9 : f64, beta2 = 0.95 : f64, eps = 1.0e-8 : f64, weight_decay = 0.0 : f64} : (tensor<16xf32>, tensor<1xf32>, tensor<f32>) -> ()
  return
}
