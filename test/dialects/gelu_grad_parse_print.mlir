// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grad
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x64xf16>, %[[X:.*]]: tensor<?x?x64xf16>)
func.func @grad(%dout: tensor<?x?x64xf16>, %x: tensor<?x?x64xf16>) -> tensor<?x?x64xf16> {
  // CHECK: %[[DX:.*]] = tpc.gelu_grad %[[D]], %[[X]] : tensor<?x?x64xf16>
  %dx = tpc.gelu_grad %dout, %x : tensor<?x?x64xf16>
  // CHECK: return %[[DX]] : tensor<?x?x64xf16>
  return %dx : tensor<?x?x64xf16>
}

// CHECK-LABEL: func.func @exact
// CHECK-SAME: (%[[D:.*]]: tensor<2x8x64xf32>, %[[X:.*]]: tensor<2x8x64xf32>)
func.func @exact(%dout: tensor<2x8x64xf32>, %x: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  // CHECK: %[[DX:.*]] = tpc.gelu_grad %[[D]], %[[X]] exact : tensor<2x8x64xf32>
  %dx = tpc.gelu_grad %dout, %x exact : tensor<2x8x64xf32>
  // CHECK: return %[[DX]]
  return %dx : tensor<2x8x64xf32>
}
