// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

module attributes {tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<256x16xf32> init <normal, std = 0.02> layout <split 0> {vocab_size = 100 : i64}
  tpc.param @ln_f.bias : tensor<16xbf16> init <zeros> layout <replicated>

  // CHECK-LABEL: func.func @sgd_update
  // CHECK-SAME: (%[[LR:.*]]: tensor<f32>, %[[SCALE:.*]]: tensor<f32>)
  func.func @sgd_update(%lr: tensor<f32>, %scale: tensor<f32>) {
    // CHECK: %[[W:.*]] = tpc.get_grad @wte
    %w = tpc.get_grad @wte : tensor<128x16xf32>
    // CHECK: %[[B:.*]] = tpc.get_grad @ln_f.bias
    %b = tpc.get_grad @ln_f.bias : tensor<16xbf16>
    // CHECK: tpc.sgd_update @wte, %[[W]], %[[LR]], %[[SCALE]] momentum 9.000000e-01 weight_decay 1.000000e-04 : tensor<128x16xf32>
    tpc.sgd_update @wte, %w, %lr, %scale momentum 0.9 weight_decay 1.0e-4 : tensor<128x16xf32>
    // CHECK: tpc.sgd_update @ln_f.bias, %[[B]], %[[LR]], %[[SCALE]] momentum 0.000000e+00 weight_decay 0.000000e+00 : tensor<16xbf16>
    tpc.sgd_update @ln_f.bias, %b, %lr, %scale momentum 0.0 weight_decay 0.0 : tensor<16xbf16>
    return
  }
}
