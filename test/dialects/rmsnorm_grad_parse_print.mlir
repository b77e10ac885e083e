// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grad
// CHECK-SAME: (%[[D:.*]]: tensor<2x8x32xf32>, %[[X:.*]]: tensor<2x8x32xf32>, %[[W:.*]]: tensor<32xf32>)
func.func @grad(%d: tensor<2x8x32xf32>, %x: tensor<2x8x32xf32>, %w: tensor<32xf32>) -> (tensor<2x8x32xf32>, tensor<32xf32>) {
  // CHECK: %[[DX:.*]], %[[DW:.*]] = tpc.rmsnorm_grad %[[D]], %[[X]], %[[W]] eps 1.000000e-05 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<32xf32>
  %dx, %dw = tpc.rmsnorm_grad %d, %x, %w eps 1.0e-05 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<32xf32>
  // CHECK: return %[[DX]], %[[DW]] : tensor<2x8x32xf32>, tensor<32xf32>
  return %dx, %dw : tensor<2x8x32xf32>, tensor<32xf32>
}
