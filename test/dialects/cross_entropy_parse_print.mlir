// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[LOGITS:.*]]: tensor<?x?x64xf32>, %[[TARGETS:.*]]: tensor<?x?xi32>)
func.func @dynamic(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>) {
  // CHECK: %[[SUM:.*]], %[[COUNT:.*]] = tpc.cross_entropy %[[LOGITS]], %[[TARGETS]] ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xi32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xi32>
  // CHECK: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>
  return %sum, %count : tensor<f32>, tensor<i32>
}

// bf16 logits still give an f32 loss sum; any ignore index.
// CHECK-LABEL: func.func @static_bf16
func.func @static_bf16(%logits: tensor<4x8x64xbf16>, %targets: tensor<4x8xi32>) -> (tensor<f32>, tensor<i32>) {
  // CHECK: %[[SUM:.*]], %[[COUNT:.*]] = tpc.cross_entropy %{{.*}}, %{{.*}} ignore_index -100 : tensor<4x8x64xbf16>, tensor<4x8xi32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -100 : tensor<4x8x64xbf16>, tensor<4x8xi32>
  // CHECK: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>
  return %sum, %count : tensor<f32>, tensor<i32>
}
