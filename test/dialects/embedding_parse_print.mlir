// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[TABLE:.*]]: tensor<64x16xf32>, %[[IDS:.*]]: tensor<?x?xi32>)
func.func @dynamic(%table: tensor<64x16xf32>, %ids: tensor<?x?xi32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[X:.*]] = tpc.embedding %[[TABLE]], %[[IDS]] : tensor<64x16xf32>, tensor<?x?xi32>
  %x = tpc.embedding %table, %ids : tensor<64x16xf32>, tensor<?x?xi32>
  // CHECK: return %[[X]] : tensor<?x?x16xf32>
  return %x : tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @static_vocab_parallel
// CHECK-SAME: (%[[TABLE:.*]]: tensor<32x16xbf16>, %[[IDS:.*]]: tensor<4x8xi32>)
func.func @static_vocab_parallel(%table: tensor<32x16xbf16>, %ids: tensor<4x8xi32>) -> tensor<4x8x16xbf16> {
  // CHECK: %[[X:.*]] = tpc.embedding %[[TABLE]], %[[IDS]] vocab_parallel : tensor<32x16xbf16>, tensor<4x8xi32>
  %x = tpc.embedding %table, %ids vocab_parallel : tensor<32x16xbf16>, tensor<4x8xi32>
  // CHECK: return %[[X]] : tensor<4x8x16xbf16>
  return %x : tensor<4x8x16xbf16>
}

// The bigram model's table is [V, V]; a dynamic table width stays dynamic.
// CHECK-LABEL: func.func @dynamic_table
func.func @dynamic_table(%table: tensor<?x?xf16>, %ids: tensor<2x?xi32>) -> tensor<2x?x?xf16> {
  // CHECK: %[[X:.*]] = tpc.embedding %{{.*}}, %{{.*}} : tensor<?x?xf16>, tensor<2x?xi32>
  %x = tpc.embedding %table, %ids : tensor<?x?xf16>, tensor<2x?xi32>
  // CHECK: return %[[X]] : tensor<2x?x?xf16>
  return %x : tensor<2x?x?xf16>
}
