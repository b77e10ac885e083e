// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[S:.*]]: tensor<2x4x8xbf16>)
func.func @f(%x: tensor<?x?x16xf32>, %s: tensor<2x4x8xbf16>) -> (tensor<?x?x16xf32>, tensor<2x4x8xbf16>) {
  // CHECK: %[[Y:.*]] = tpc.f %[[X]] group tp : tensor<?x?x16xf32>
  %y = tpc.f %x group tp : tensor<?x?x16xf32>
  // CHECK: %[[Z:.*]] = tpc.f %[[S]] group tp : tensor<2x4x8xbf16>
  %z = tpc.f %s group tp : tensor<2x4x8xbf16>
  // CHECK: return %[[Y]], %[[Z]]
  return %y, %z : tensor<?x?x16xf32>, tensor<2x4x8xbf16>
}
