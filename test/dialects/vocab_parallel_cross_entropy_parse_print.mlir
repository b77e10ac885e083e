// RUN: tpc-opt -split-input-file %s | tpc-opt -split-input-file | FileCheck %s
// RUN: tpc-opt -split-input-file %s --mlir-print-op-generic | tpc-opt -split-input-file | FileCheck %s

// Without `tpc.tp` the logits hold the whole (padded) vocabulary.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<?x?x128xf32>, %[[TARGETS:.*]]: tensor<?x?xi32>)
func.func @dynamic(%logits: tensor<?x?x128xf32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>) {
  // CHECK: %[[SUM:.*]], %[[COUNT:.*]] = tpc.vocab_parallel_cross_entropy %[[LOGITS]], %[[TARGETS]] vocab 100 ignore_index -1 : tensor<?x?x128xf32>, tensor<?x?xi32>
  %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<?x?x128xf32>, tensor<?x?xi32>
  // CHECK: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>
  return %sum, %count : tensor<f32>, tensor<i32>
}

// A dynamic vocabulary slice is not checked against vocab_size.
// CHECK-LABEL: func.func @dynamic_vocab
func.func @dynamic_vocab(%logits: tensor<2x4x?xbf16>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
  // CHECK: %[[SUM:.*]], %[[COUNT:.*]] = tpc.vocab_parallel_cross_entropy %{{.*}}, %{{.*}} vocab 50257 ignore_index 0 : tensor<2x4x?xbf16>, tensor<2x4xi32>
  %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 50257 ignore_index 0 : tensor<2x4x?xbf16>, tensor<2x4xi32>
  // CHECK: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>
  return %sum, %count : tensor<f32>, tensor<i32>
}

// -----

// With tp = 2 each rank holds 128 of the 256 padded columns; vocab 256 uses
// them all.
// CHECK: module attributes {tpc.tp = 2 : i64}
module attributes {tpc.tp = 2 : i64} {
  // CHECK-LABEL: func.func @split
  // CHECK-SAME: (%[[LOGITS:.*]]: tensor<4x8x128xf32>, %[[TARGETS:.*]]: tensor<4x8xi32>)
  func.func @split(%logits: tensor<4x8x128xf32>, %targets: tensor<4x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) {
    // CHECK: %[[SUM:.*]], %[[COUNT:.*]] = tpc.vocab_parallel_cross_entropy %[[LOGITS]], %[[TARGETS]] vocab 200 ignore_index -1 : tensor<4x8x128xf32>, tensor<4x8xi32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 200 ignore_index -1 : tensor<4x8x128xf32>, tensor<4x8xi32>
    // CHECK: %[[S2:.*]], %[[C2:.*]] = tpc.vocab_parallel_cross_entropy %[[LOGITS]], %[[TARGETS]] vocab 256 ignore_index -1 : tensor<4x8x128xf32>, tensor<4x8xi32>
    %s2, %c2 = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 256 ignore_index -1 : tensor<4x8x128xf32>, tensor<4x8xi32>
    // CHECK: return %[[SUM]], %[[COUNT]], %[[S2]], %[[C2]]
    return %sum, %count, %s2, %c2 : tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>
  }
}
