// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x64xf32>, %[[S:.*]]: tensor<2x3xbf16>)
func.func @gelu(%x: tensor<?x?x64xf32>, %s: tensor<2x3xbf16>) -> (tensor<?x?x64xf32>, tensor<2x3xbf16>) {
  // CHECK: %[[Y:.*]] = tpc.gelu %[[X]] : tensor<?x?x64xf32>
  %y = tpc.gelu %x : tensor<?x?x64xf32>
  // CHECK: %[[Z:.*]] = tpc.gelu %[[S]] : tensor<2x3xbf16>
  %z = tpc.gelu %s : tensor<2x3xbf16>
  // CHECK: return %[[Y]], %[[Z]] : tensor<?x?x64xf32>, tensor<2x3xbf16>
  return %y, %z : tensor<?x?x64xf32>, tensor<2x3xbf16>
}

// CHECK-LABEL: func.func @exact
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x64xf32>)
func.func @exact(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  // CHECK: %[[Y:.*]] = tpc.gelu %[[X]] exact : tensor<?x?x64xf32>
  %y = tpc.gelu %x exact : tensor<?x?x64xf32>
  // CHECK: return %[[Y]]
  return %y : tensor<?x?x64xf32>
}
