// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// A split parameter's gradient has its local type.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<32x128xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @ln_f.weight : tensor<32xf32> init <ones> layout <replicated>
  // CHECK-LABEL: func.func @sink
  // CHECK-SAME: (%[[DW:.*]]: tensor<32x64xf32>, %[[DG:.*]]: tensor<32xf32>)
  func.func @sink(%dw: tensor<32x64xf32>, %dg: tensor<32xf32>) {
    // CHECK: tpc.accumulate_grad @h.0.mlp.c_fc.weight, %[[DW]] : tensor<32x64xf32>
    tpc.accumulate_grad @h.0.mlp.c_fc.weight, %dw : tensor<32x64xf32>
    // CHECK: tpc.accumulate_grad @ln_f.weight, %[[DG]] : tensor<32xf32>
    tpc.accumulate_grad @ln_f.weight, %dg : tensor<32xf32>
    return
  }
}

// CHECK-LABEL: func.func @f32_buffer
tpc.param @mp : tensor<4xf32> init <zeros> compute bf16 grad f32
func.func @f32_buffer(%g: tensor<4xbf16>) {
  // CHECK: tpc.accumulate_grad @mp, %{{.*}} : tensor<4xbf16>
  tpc.accumulate_grad @mp, %g : tensor<4xbf16>
  return
}
