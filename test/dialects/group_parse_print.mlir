// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The process-group enum: `tp` and `dp` keywords, stored as i32 0 and 1.

// CHECK-LABEL: func.func @keywords
// GENERIC-LABEL: sym_name = "keywords"
func.func @keywords(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>) {
  // CHECK: tpc.f %{{.*}} group tp
  // GENERIC: "tpc.f"(%{{.*}}) <{group = 0 : i32}>
  %a = tpc.f %x group tp : tensor<4x8xf32>
  // CHECK: tpc.g %{{.*}} group tp
  // GENERIC: "tpc.g"(%{{.*}}) <{group = 0 : i32}>
  %b = tpc.g %x group tp : tensor<4x8xf32>
  // CHECK: tpc.all_reduce %{{.*}} sum group tp
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 0 : i32, reduce = 0 : i32}>
  %c = tpc.all_reduce %x sum group tp : tensor<4x8xf32>
  // CHECK: tpc.all_reduce %{{.*}} sum group dp
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 1 : i32, reduce = 0 : i32}>
  %d = tpc.all_reduce %x sum group dp : tensor<4x8xf32>
  // CHECK: tpc.all_gather %{{.*}} dim 1 group dp
  // GENERIC: "tpc.all_gather"(%{{.*}}) <{dim = 1 : i64, group = 1 : i32}>
  %e = tpc.all_gather %x dim 1 group dp : tensor<4x8xf32> -> tensor<4x16xf32>
  return %a, %b, %c, %d, %e : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x16xf32>
}

// The generic form's integers read back as the keywords.
// CHECK-LABEL: func.func @generic
// GENERIC-LABEL: sym_name = "generic"
func.func @generic(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: tpc.all_reduce %{{.*}} max group tp
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 0 : i32, reduce = 1 : i32}>
  %a = "tpc.all_reduce"(%x) <{group = 0 : i32, reduce = 1 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: tpc.all_reduce %{{.*}} max group dp
  // GENERIC: "tpc.all_reduce"(%{{.*}}) <{group = 1 : i32, reduce = 1 : i32}>
  %b = "tpc.all_reduce"(%x) <{group = 1 : i32, reduce = 1 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}
