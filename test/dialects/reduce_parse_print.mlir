// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The all-reduce kind enum: `sum` and `max` keywords, stored as i32 0 and 1.

// CHECK-LABEL: func.func @keywords
// GENERIC-LABEL: sym_name = "keywords"
func.func @keywords(%x: tensor<f32>, %n: tensor<i32>) -> (tensor<f32>, tensor<f32>, tensor<i32>) {
  // CHECK: tpc.all_reduce %{{.*}} sum group dp : tensor<f32>
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 1 : i32, reduce = 0 : i32}>
  %a = tpc.all_reduce %x sum group dp : tensor<f32>
  // CHECK: tpc.all_reduce %{{.*}} max group tp : tensor<f32>
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 0 : i32, reduce = 1 : i32}>
  %b = tpc.all_reduce %x max group tp : tensor<f32>
  // CHECK: tpc.all_reduce %{{.*}} sum group tp : tensor<i32>
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 0 : i32, reduce = 0 : i32}>
  %c = "tpc.all_reduce"(%n) <{group = 0 : i32, reduce = 0 : i32}> : (tensor<i32>) -> tensor<i32>
  return %a, %b, %c : tensor<f32>, tensor<f32>, tensor<i32>
}
