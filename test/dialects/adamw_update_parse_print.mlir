// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

module attributes {tpc.tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>

  // CHECK-LABEL: func.func @adamw_update
  // CHECK-SAME: (%[[LR:.*]]: tensor<f32>, %[[SCALE:.*]]: tensor<f32>)
  func.func @adamw_update(%lr: tensor<f32>, %scale: tensor<f32>) {
    // CHECK: %[[W:.*]] = tpc.get_grad @h.0.mlp.c_fc.weight
    %w = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x32xf32>
    // CHECK: %[[G:.*]] = tpc.get_grad @ln_f.weight
    %g = tpc.get_grad @ln_f.weight : tensor<16xf32>
    // CHECK: tpc.adamw_update @h.0.mlp.c_fc.weight, %[[W]], %[[LR]], %[[SCALE]] beta1 9.000000e-01 beta2 0.94999999999999996 eps 1.000000e-08 weight_decay 1.000000e-01 : tensor<16x32xf32>
    tpc.adamw_update @h.0.mlp.c_fc.weight, %w, %lr, %scale beta1 0.9 beta2 0.95 eps 1.0e-8 weight_decay 0.1 : tensor<16x32xf32>
    // CHECK: tpc.adamw_update @ln_f.weight, %[[G]], %[[LR]], %[[SCALE]] beta1 9.000000e-01 beta2 0.99899999999999999 eps 9.9999999999999995E-7 weight_decay 0.000000e+00 : tensor<16xf32>
    tpc.adamw_update @ln_f.weight, %g, %lr, %scale beta1 0.9 beta2 0.999 eps 1.0e-6 weight_decay 0.0 : tensor<16xf32>
    return
  }
}
