// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// This rank's 128 columns of the vocabulary padded to 256 for tp = 2.
module attributes {tpc.tp = 2 : i64} {
  // CHECK-LABEL: func.func @dlogits
  // CHECK-SAME: (%[[L:.*]]: tensor<2x8x128xf32>, %[[T:.*]]: tensor<2x8xi32>, %[[S:.*]]: tensor<f32>)
  func.func @dlogits(%logits: tensor<2x8x128xf32>, %targets: tensor<2x8xi32>, %dloss: tensor<f32>) -> tensor<2x8x128xf32> {
    // CHECK: %[[D:.*]] = tpc.vocab_parallel_cross_entropy_grad %[[L]], %[[T]], %[[S]] vocab 200 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    %d = tpc.vocab_parallel_cross_entropy_grad %logits, %targets, %dloss vocab 200 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    // CHECK: return %[[D]] : tensor<2x8x128xf32>
    return %d : tensor<2x8x128xf32>
  }
}
