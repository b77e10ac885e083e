// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @three_stacks
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[A:.*]]: tensor<3xf32>, %[[X1:.*]]: tensor<?x?x16xf32>, %[[X2:.*]]: tensor<?x?x16xf32>, %[[X3:.*]]: tensor<?x?x16xf32>)
func.func @three_stacks(%dout: tensor<?x?x16xf32>, %alpha: tensor<3xf32>, %x1: tensor<?x?x16xf32>, %x2: tensor<?x?x16xf32>, %x3: tensor<?x?x16xf32>) -> (tensor<3xf32>, tensor<?x?x16xf32>) {
  // CHECK: %[[DA:.*]], %[[DX:.*]]:3 = tpc.weighted_sum_grad %[[D]], %[[A]], %[[X1]], %[[X2]], %[[X3]] : tensor<?x?x16xf32>, tensor<3xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
  %da, %dx:3 = tpc.weighted_sum_grad %dout, %alpha, %x1, %x2, %x3 : tensor<?x?x16xf32>, tensor<3xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
  // CHECK: return %[[DA]], %[[DX]]#2 : tensor<3xf32>, tensor<?x?x16xf32>
  return %da, %dx#2 : tensor<3xf32>, tensor<?x?x16xf32>
}
