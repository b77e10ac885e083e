// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @table
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[E:.*]]: tensor<2x8x16xf16>, %[[I:.*]]: tensor<?x?xi32>, %[[J:.*]]: tensor<2x8xi32>)
func.func @table(%dout: tensor<?x?x16xf32>, %e: tensor<2x8x16xf16>, %ids: tensor<?x?xi32>, %jds: tensor<2x8xi32>) -> (tensor<2x16xf32>, tensor<1x16xf16>) {
  // CHECK: %[[T:.*]] = tpc.token_type_embedding_grad %[[D]], %[[I]] : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<2x16xf32>
  %t = tpc.token_type_embedding_grad %dout, %ids : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<2x16xf32>
  // CHECK: %[[U:.*]] = tpc.token_type_embedding_grad %[[E]], %[[J]] : tensor<2x8x16xf16>, tensor<2x8xi32> -> tensor<1x16xf16>
  %u = tpc.token_type_embedding_grad %e, %jds : tensor<2x8x16xf16>, tensor<2x8xi32> -> tensor<1x16xf16>
  // CHECK: return %[[T]], %[[U]]
  return %t, %u : tensor<2x16xf32>, tensor<1x16xf16>
}
