// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @add
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x16xf32>, %[[B:.*]]: tensor<?x?x16xf32>, %[[C:.*]]: tensor<4xf16>)
func.func @add(%a: tensor<?x?x16xf32>, %b: tensor<?x?x16xf32>, %c: tensor<4xf16>) -> (tensor<?x?x16xf32>, tensor<4xf16>) {
  // CHECK: %[[S:.*]] = tpc.add %[[A]], %[[B]] : tensor<?x?x16xf32>
  %s = tpc.add %a, %b : tensor<?x?x16xf32>
  // CHECK: %[[T:.*]] = tpc.add %[[C]], %[[C]] : tensor<4xf16>
  %t = tpc.add %c, %c : tensor<4xf16>
  // CHECK: return %[[S]], %[[T]] : tensor<?x?x16xf32>, tensor<4xf16>
  return %s, %t : tensor<?x?x16xf32>, tensor<4xf16>
}
