// RUN: tpc-opt %s -split-input-file -verify-diagnostics

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @momentum(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.sgd_update' op momentum must be in [0, 1), got 1.000000e+00 (0 is plain SGD)}}
  tpc.sgd_update @ln_f.weight, %g, %lr, %s momentum 1.0 weight_decay 0.0 : tensor<16xf32>
  return
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @weight_decay(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.sgd_update' op weight_decay must be in [0, 1], got -1.000000e-01}}
  tpc.sgd_update @ln_f.weight, %g, %lr, %s momentum 0.0 weight_decay -0.1 : tensor<16xf32>
  return
}

// -----

func.func @wte(%g: tensor<16xf32>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.sgd_update' op symbol @wte is a 'func.func', not a tpc.param}}
  tpc.sgd_update @wte, %g, %lr, %s momentum 0.0 weight_decay 0.0 : tensor<16xf32>
  return
}

// -----

tpc.param @ln_f.weight : tensor<16xf32> init <ones>

func.func @element_type(%g: tensor<16xf16>, %lr: tensor<f32>, %s: tensor<f32>) {
  // expected-error @+1 {{'tpc.sgd_update' op gradient of parameter @ln_f.weight is 'tensor<16xf16>' but its gradient on each rank is 'tensor<16xf32>' (tp = 1); use 'tensor<16xf32>'}}
  tpc.sgd_update @ln_f.weight, %g, %lr, %s momentum 0.0 weight_decay 0.0 : tensor<16xf16>
  return
}
