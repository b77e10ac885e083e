// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @types
// CHECK-SAME: (%[[T:.*]]: tensor<2x16xf32>, %[[IDS:.*]]: tensor<?x?xi32>, %[[U:.*]]: tensor<1x8xbf16>, %[[JDS:.*]]: tensor<4x8xi32>)
func.func @types(%t: tensor<2x16xf32>, %ids: tensor<?x?xi32>, %u: tensor<1x8xbf16>, %jds: tensor<4x8xi32>) -> (tensor<?x?x16xf32>, tensor<4x8x8xbf16>) {
  // CHECK: %[[E:.*]] = tpc.token_type_embedding %[[T]], %[[IDS]] : tensor<2x16xf32>, tensor<?x?xi32>
  %e = tpc.token_type_embedding %t, %ids : tensor<2x16xf32>, tensor<?x?xi32>
  // One token type is enough.
  // CHECK: %[[F:.*]] = tpc.token_type_embedding %[[U]], %[[JDS]] : tensor<1x8xbf16>, tensor<4x8xi32>
  %f = tpc.token_type_embedding %u, %jds : tensor<1x8xbf16>, tensor<4x8xi32>
  // CHECK: return %[[E]], %[[F]] : tensor<?x?x16xf32>, tensor<4x8x8xbf16>
  return %e, %f : tensor<?x?x16xf32>, tensor<4x8x8xbf16>
}
