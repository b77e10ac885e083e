// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @tanh_grad
// CHECK-SAME: (%[[D:.*]]: tensor<2x1x64xbf16>, %[[Y:.*]]: tensor<2x1x64xbf16>)
func.func @tanh_grad(%d: tensor<2x1x64xbf16>, %y: tensor<2x1x64xbf16>) -> tensor<2x1x64xbf16> {
  // CHECK: %[[DX:.*]] = tpc.tanh_grad %[[D]], %[[Y]] : tensor<2x1x64xbf16>
  %dx = tpc.tanh_grad %d, %y : tensor<2x1x64xbf16>
  // CHECK: return %[[DX]]
  return %dx : tensor<2x1x64xbf16>
}
