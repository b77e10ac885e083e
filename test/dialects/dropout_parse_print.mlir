// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @replicated
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>)
func.func @replicated(%x: tensor<?x?x16xf32>) -> (tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  // CHECK: %[[Y:.*]] = tpc.dropout %[[X]] p 1.000000e-01 replicated key 7 : tensor<?x?x16xf32>
  %y = tpc.dropout %x p 0.1 replicated key 7 : tensor<?x?x16xf32>
  // A zero probability is allowed (the op is then the identity).
  // CHECK: %[[Z:.*]] = tpc.dropout %[[Y]] p 0.000000e+00 replicated key 0 : tensor<?x?x16xf32>
  %z = tpc.dropout %y p 0.0 replicated key 0 : tensor<?x?x16xf32>
  // CHECK: return %[[Y]], %[[Z]]
  return %y, %z : tensor<?x?x16xf32>, tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @per_rank
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x32xbf16>)
func.func @per_rank(%x: tensor<2x8x32xbf16>) -> (tensor<2x8x32xbf16>, tensor<2x8x32xbf16>, tensor<2x8x32xbf16>, tensor<2x8x32xbf16>) {
  // CHECK: %[[A:.*]] = tpc.dropout %[[X]] p 5.000000e-01 per_rank key 1 : tensor<2x8x32xbf16>
  %a = tpc.dropout %x p 0.5 per_rank key 1 : tensor<2x8x32xbf16>
  // CHECK: %[[B:.*]] = tpc.dropout %[[X]] p 5.000000e-01 per_rank key 2 layout <split 2> : tensor<2x8x32xbf16>
  %b = tpc.dropout %x p 0.5 per_rank key 2 layout <split 2> : tensor<2x8x32xbf16>
  // CHECK: %[[C:.*]] = tpc.dropout %[[X]] p 5.000000e-01 per_rank key 3 layout <split 2 blocks 4> : tensor<2x8x32xbf16>
  %c = tpc.dropout %x p 0.5 per_rank key 3 layout <split 2 blocks 4> : tensor<2x8x32xbf16>
  // CHECK: %[[D:.*]] = tpc.dropout %[[X]] p 2.500000e-01 per_rank key 4 layout <replicated> : tensor<2x8x32xbf16>
  %d = tpc.dropout %x p 0.25 per_rank key 4 layout <replicated> : tensor<2x8x32xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
  return %a, %b, %c, %d : tensor<2x8x32xbf16>, tensor<2x8x32xbf16>, tensor<2x8x32xbf16>, tensor<2x8x32xbf16>
}

// A split of a dynamic dimension cannot be checked against blocks here.
// CHECK-LABEL: func.func @per_rank_dynamic
func.func @per_rank_dynamic(%x: tensor<?x?x?xf16>) -> tensor<?x?x?xf16> {
  // CHECK: %[[A:.*]] = tpc.dropout %{{.*}} p 1.000000e-01 per_rank key 5 layout <split 2 blocks 3> : tensor<?x?x?xf16>
  %a = tpc.dropout %x p 0.1 per_rank key 5 layout <split 2 blocks 3> : tensor<?x?x?xf16>
  // CHECK: return %[[A]]
  return %a : tensor<?x?x?xf16>
}
