// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dlogits
// CHECK-SAME: (%[[L:.*]]: tensor<?x?x100xf32>, %[[T:.*]]: tensor<?x?xi32>, %[[S:.*]]: tensor<f32>)
func.func @dlogits(%logits: tensor<?x?x100xf32>, %targets: tensor<?x?xi32>, %dloss: tensor<f32>) -> tensor<?x?x100xf32> {
  // CHECK: %[[D:.*]] = tpc.cross_entropy_grad %[[L]], %[[T]], %[[S]] ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
  %d = tpc.cross_entropy_grad %logits, %targets, %dloss ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
  // CHECK: return %[[D]] : tensor<?x?x100xf32>
  return %d : tensor<?x?x100xf32>
}

// bf16 logits; the loss adjoint stays an f32 scalar.
// CHECK-LABEL: func.func @bf16
func.func @bf16(%logits: tensor<2x8x64xbf16>, %targets: tensor<2x8xi32>, %dloss: tensor<f32>) -> tensor<2x8x64xbf16> {
  // CHECK: tpc.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} ignore_index 50256 : tensor<2x8x64xbf16>, tensor<2x8xi32>
  %d = tpc.cross_entropy_grad %logits, %targets, %dloss ignore_index 50256 : tensor<2x8x64xbf16>, tensor<2x8xi32>
  return %d : tensor<2x8x64xbf16>
}
