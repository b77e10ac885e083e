// RUN: tpc-opt -split-input-file %s | tpc-opt -split-input-file | FileCheck %s
// RUN: tpc-opt -split-input-file %s --mlir-print-op-generic | tpc-opt -split-input-file | FileCheck %s

// Without `tpc.tp` the tp group has one rank; a dp gather may be any multiple.
// CHECK-LABEL: func.func @no_tp
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>, %[[D:.*]]: tensor<?x?x16xbf16>)
func.func @no_tp(%x: tensor<4x8x16xf32>, %d: tensor<?x?x16xbf16>) -> (tensor<4x8x16xf32>, tensor<4x8x48xf32>, tensor<?x?x32xbf16>, tensor<?x?x16xbf16>) {
  // CHECK: %[[A:.*]] = tpc.all_gather %[[X]] dim 2 group tp : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  %a = tpc.all_gather %x dim 2 group tp : tensor<4x8x16xf32> -> tensor<4x8x16xf32>
  // CHECK: %[[B:.*]] = tpc.all_gather %[[X]] dim 2 group dp : tensor<4x8x16xf32> -> tensor<4x8x48xf32>
  %b = tpc.all_gather %x dim 2 group dp : tensor<4x8x16xf32> -> tensor<4x8x48xf32>
  // CHECK: %[[C:.*]] = tpc.all_gather %[[D]] dim 2 group dp : tensor<?x?x16xbf16> -> tensor<?x?x32xbf16>
  %c = tpc.all_gather %d dim 2 group dp : tensor<?x?x16xbf16> -> tensor<?x?x32xbf16>
  // CHECK: %[[E:.*]] = tpc.all_gather %[[D]] dim 0 group dp : tensor<?x?x16xbf16> -> tensor<?x?x16xbf16>
  %e = tpc.all_gather %d dim 0 group dp : tensor<?x?x16xbf16> -> tensor<?x?x16xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[E]]
  return %a, %b, %c, %e : tensor<4x8x16xf32>, tensor<4x8x48xf32>, tensor<?x?x32xbf16>, tensor<?x?x16xbf16>
}

// -----

// CHECK: module attributes {tpc.tp = 4 : i64}
module attributes {tpc.tp = 4 : i64} {
  // CHECK-LABEL: func.func @tp4
  // CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>, %[[D:.*]]: tensor<?x8xf16>)
  func.func @tp4(%x: tensor<4x8x16xf32>, %d: tensor<?x8xf16>) -> (tensor<4x8x64xf32>, tensor<16x8x16xf32>, tensor<?x8xf16>, tensor<?x32xf16>) {
    // CHECK: %[[A:.*]] = tpc.all_gather %[[X]] dim 2 group tp : tensor<4x8x16xf32> -> tensor<4x8x64xf32>
    %a = tpc.all_gather %x dim 2 group tp : tensor<4x8x16xf32> -> tensor<4x8x64xf32>
    // CHECK: %[[B:.*]] = tpc.all_gather %[[X]] dim 0 group tp : tensor<4x8x16xf32> -> tensor<16x8x16xf32>
    %b = tpc.all_gather %x dim 0 group tp : tensor<4x8x16xf32> -> tensor<16x8x16xf32>
    // CHECK: %[[C:.*]] = tpc.all_gather %[[D]] dim 0 group tp : tensor<?x8xf16> -> tensor<?x8xf16>
    %c = tpc.all_gather %d dim 0 group tp : tensor<?x8xf16> -> tensor<?x8xf16>
    // CHECK: %[[E:.*]] = tpc.all_gather %[[D]] dim 1 group tp : tensor<?x8xf16> -> tensor<?x32xf16>
    %e = tpc.all_gather %d dim 1 group tp : tensor<?x8xf16> -> tensor<?x32xf16>
    // CHECK: return %[[A]], %[[B]], %[[C]], %[[E]]
    return %a, %b, %c, %e : tensor<4x8x64xf32>, tensor<16x8x16xf32>, tensor<?x8xf16>, tensor<?x32xf16>
  }
}
