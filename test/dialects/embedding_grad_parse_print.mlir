// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @table
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[IDS:.*]]: tensor<?x?xi32>)
func.func @table(%dout: tensor<?x?x16xf32>, %ids: tensor<?x?xi32>) -> tensor<64x16xf32> {
  // CHECK: %[[T:.*]] = tpc.embedding_grad %[[D]], %[[IDS]] : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<64x16xf32>
  %t = tpc.embedding_grad %dout, %ids : tensor<?x?x16xf32>, tensor<?x?xi32> -> tensor<64x16xf32>
  // CHECK: return %[[T]]
  return %t : tensor<64x16xf32>
}

// This rank's rows of the vocabulary.
// CHECK-LABEL: func.func @vocab_parallel
func.func @vocab_parallel(%dout: tensor<2x8x32xbf16>, %ids: tensor<2x8xi32>) -> tensor<128x32xbf16> {
  // CHECK: tpc.embedding_grad %{{.*}}, %{{.*}} vocab_parallel : tensor<2x8x32xbf16>, tensor<2x8xi32> -> tensor<128x32xbf16>
  %t = tpc.embedding_grad %dout, %ids vocab_parallel : tensor<2x8x32xbf16>, tensor<2x8xi32> -> tensor<128x32xbf16>
  return %t : tensor<128x32xbf16>
}
