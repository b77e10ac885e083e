// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[SUM:.*]]: tensor<f32>, %[[COUNT:.*]]: tensor<i32>, %[[H:.*]]: tensor<4xbf16>)
func.func @all_reduce(%x: tensor<?x?x16xf32>, %sum: tensor<f32>, %count: tensor<i32>, %h: tensor<4xbf16>)
    -> (tensor<?x?x16xf32>, tensor<f32>, tensor<i32>, tensor<4xbf16>) {
  // CHECK: %[[A:.*]] = tpc.all_reduce %[[X]] sum group tp : tensor<?x?x16xf32>
  %a = tpc.all_reduce %x sum group tp : tensor<?x?x16xf32>
  // CHECK: %[[B:.*]] = tpc.all_reduce %[[SUM]] sum group dp : tensor<f32>
  %b = tpc.all_reduce %sum sum group dp : tensor<f32>
  // CHECK: %[[C:.*]] = tpc.all_reduce %[[COUNT]] max group dp : tensor<i32>
  %c = tpc.all_reduce %count max group dp : tensor<i32>
  // CHECK: %[[D:.*]] = tpc.all_reduce %[[H]] max group tp : tensor<4xbf16>
  %d = tpc.all_reduce %h max group tp : tensor<4xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
  return %a, %b, %c, %d : tensor<?x?x16xf32>, tensor<f32>, tensor<i32>, tensor<4xbf16>
}
