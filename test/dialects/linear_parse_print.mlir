// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @with_bias
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[W:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<64xf32>)
func.func @with_bias(%x: tensor<?x?x16xf32>, %w: tensor<16x64xf32>, %b: tensor<64xf32>) -> tensor<?x?x64xf32> {
  // CHECK: %[[Y:.*]] = tpc.linear %[[X]], %[[W]], %[[B]] : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
  %y = tpc.linear %x, %w, %b : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
  // CHECK: return %[[Y]] : tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// CHECK-LABEL: func.func @without_bias
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xbf16>, %[[W:.*]]: tensor<16x48xbf16>)
func.func @without_bias(%x: tensor<4x8x16xbf16>, %w: tensor<16x48xbf16>) -> tensor<4x8x48xbf16> {
  // CHECK: %[[Y:.*]] = tpc.linear %[[X]], %[[W]] : tensor<4x8x16xbf16>, tensor<16x48xbf16>
  %y = tpc.linear %x, %w : tensor<4x8x16xbf16>, tensor<16x48xbf16>
  // CHECK: return %[[Y]] : tensor<4x8x48xbf16>
  return %y : tensor<4x8x48xbf16>
}

// The tied output layer reads the [V, H] embedding table.
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[WTE:.*]]: tensor<64x16xf32>, %[[B:.*]]: tensor<64xf32>)
func.func @transposed(%x: tensor<?x?x16xf32>, %wte: tensor<64x16xf32>, %b: tensor<64xf32>) -> (tensor<?x?x64xf32>, tensor<?x?x64xf32>) {
  // CHECK: %[[L:.*]] = tpc.linear %[[X]], %[[WTE]] transposed : tensor<?x?x16xf32>, tensor<64x16xf32>
  %l = tpc.linear %x, %wte transposed : tensor<?x?x16xf32>, tensor<64x16xf32>
  // CHECK: %[[M:.*]] = tpc.linear %[[X]], %[[WTE]], %[[B]] transposed : tensor<?x?x16xf32>, tensor<64x16xf32>, tensor<64xf32>
  %m = tpc.linear %x, %wte, %b transposed : tensor<?x?x16xf32>, tensor<64x16xf32>, tensor<64xf32>
  // CHECK: return %[[L]], %[[M]] : tensor<?x?x64xf32>, tensor<?x?x64xf32>
  return %l, %m : tensor<?x?x64xf32>, tensor<?x?x64xf32>
}

// Any input rank >= 1; dynamic feature and output widths.
// CHECK-LABEL: func.func @dynamic_extents
func.func @dynamic_extents(%x: tensor<?xf16>, %w: tensor<8x?xf16>, %v: tensor<2x?x8xf16>, %u: tensor<?x5xf16>) -> (tensor<?xf16>, tensor<2x?x5xf16>) {
  // CHECK: %[[Y:.*]] = tpc.linear %{{.*}}, %{{.*}} : tensor<?xf16>, tensor<8x?xf16>
  %y = tpc.linear %x, %w : tensor<?xf16>, tensor<8x?xf16>
  // CHECK: %[[Z:.*]] = tpc.linear %{{.*}}, %{{.*}} : tensor<2x?x8xf16>, tensor<?x5xf16>
  %z = tpc.linear %v, %u : tensor<2x?x8xf16>, tensor<?x5xf16>
  // CHECK: return %[[Y]], %[[Z]] : tensor<?xf16>, tensor<2x?x5xf16>
  return %y, %z : tensor<?xf16>, tensor<2x?x5xf16>
}
