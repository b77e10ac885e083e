// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[WPE:.*]]: tensor<32x16xf32>, %[[IDS:.*]]: tensor<?x?xi32>)
func.func @dynamic(%wpe: tensor<32x16xf32>, %ids: tensor<?x?xi32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[P:.*]] = tpc.position_embedding %[[WPE]], %[[IDS]] : tensor<32x16xf32>, tensor<?x?xi32>
  %p = tpc.position_embedding %wpe, %ids : tensor<32x16xf32>, tensor<?x?xi32>
  // CHECK: return %[[P]] : tensor<?x?x16xf32>
  return %p : tensor<?x?x16xf32>
}

// A sequence as long as the table is allowed.
// CHECK-LABEL: func.func @static_full_length
func.func @static_full_length(%wpe: tensor<8x16xbf16>, %ids: tensor<4x8xi32>) -> tensor<4x8x16xbf16> {
  // CHECK: %[[P:.*]] = tpc.position_embedding %{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<4x8xi32>
  %p = tpc.position_embedding %wpe, %ids : tensor<8x16xbf16>, tensor<4x8xi32>
  // CHECK: return %[[P]] : tensor<4x8x16xbf16>
  return %p : tensor<4x8x16xbf16>
}

// decode_step reads one position given at run time.
// CHECK-LABEL: func.func @offset
// CHECK-SAME: (%[[WPE:.*]]: tensor<32x16xf32>, %[[IDS:.*]]: tensor<1x1xi32>, %[[POS:.*]]: tensor<i32>)
func.func @offset(%wpe: tensor<32x16xf32>, %ids: tensor<1x1xi32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: %[[P:.*]] = tpc.position_embedding %[[WPE]], %[[IDS]] offset %[[POS]] : tensor<32x16xf32>, tensor<1x1xi32>, tensor<i32>
  %p = tpc.position_embedding %wpe, %ids offset %pos : tensor<32x16xf32>, tensor<1x1xi32>, tensor<i32>
  // CHECK: return %[[P]] : tensor<1x1x16xf32>
  return %p : tensor<1x1x16xf32>
}
