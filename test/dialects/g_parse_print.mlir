// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @g
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[S:.*]]: tensor<2x4x8xbf16>)
func.func @g(%x: tensor<?x?x16xf32>, %s: tensor<2x4x8xbf16>) -> (tensor<?x?x16xf32>, tensor<2x4x8xbf16>) {
  // CHECK: %[[Y:.*]] = tpc.g %[[X]] group tp : tensor<?x?x16xf32>
  %y = tpc.g %x group tp : tensor<?x?x16xf32>
  // CHECK: %[[Z:.*]] = tpc.g %[[S]] group tp : tensor<2x4x8xbf16>
  %z = tpc.g %s group tp : tensor<2x4x8xbf16>
  // CHECK: return %[[Y]], %[[Z]]
  return %y, %z : tensor<?x?x16xf32>, tensor<2x4x8xbf16>
}
