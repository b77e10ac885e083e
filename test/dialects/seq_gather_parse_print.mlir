// RUN: tpc-opt -split-input-file %s | tpc-opt -split-input-file | FileCheck %s
// RUN: tpc-opt -split-input-file %s --mlir-print-op-generic | tpc-opt -split-input-file | FileCheck %s

// CHECK: module attributes {tpc.tp = 2 : i64}
module attributes {tpc.tp = 2 : i64} {
  // CHECK-LABEL: func.func @gather
  // CHECK-SAME: (%[[X:.*]]: tensor<2x4x16xf32>, %[[D:.*]]: tensor<?x4x4x16xbf16>)
  func.func @gather(%x: tensor<2x4x16xf32>, %d: tensor<?x4x4x16xbf16>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<?x8x4x16xbf16>) {
    // CHECK: %[[A:.*]] = tpc.seq_gather %[[X]] reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    %a = tpc.seq_gather %x reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    // CHECK: %[[B:.*]] = tpc.seq_gather %[[X]] : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    %b = tpc.seq_gather %x : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    // CHECK: %[[C:.*]] = tpc.seq_gather %[[D]] reduce_grad : tensor<?x4x4x16xbf16> -> tensor<?x8x4x16xbf16>
    %c = tpc.seq_gather %d reduce_grad : tensor<?x4x4x16xbf16> -> tensor<?x8x4x16xbf16>
    // CHECK: return %[[A]], %[[B]], %[[C]]
    return %a, %b, %c : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<?x8x4x16xbf16>
  }
}

// -----

// Without `tpc.tp` the tp group has one rank: the split is the whole.
// CHECK-LABEL: func.func @no_tp
func.func @no_tp(%x: tensor<2x8x16xf16>) -> tensor<2x8x16xf16> {
  // CHECK: tpc.seq_gather %{{.*}} reduce_grad : tensor<2x8x16xf16> -> tensor<2x8x16xf16>
  %a = tpc.seq_gather %x reduce_grad : tensor<2x8x16xf16> -> tensor<2x8x16xf16>
  return %a : tensor<2x8x16xf16>
}
