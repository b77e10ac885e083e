// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// The result has the forward input's type.
// CHECK-LABEL: func.func @select_position_grad
// CHECK-SAME: (%[[D:.*]]: tensor<2x1x64xf32>, %[[H:.*]]: tensor<2x16x64xf32>)
func.func @select_position_grad(%d: tensor<2x1x64xf32>, %h: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  // CHECK: %[[DH:.*]] = tpc.select_position_grad %[[D]], %[[H]] at 0 : tensor<2x1x64xf32>, tensor<2x16x64xf32>
  %dh = tpc.select_position_grad %d, %h at 0 : tensor<2x1x64xf32>, tensor<2x16x64xf32>
  // CHECK: return %[[DH]]
  return %dh : tensor<2x16x64xf32>
}
