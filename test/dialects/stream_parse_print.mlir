// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The dropout stream enum: `replicated` and `per_rank` keywords, stored as
// i32 0 and 1.

// CHECK-LABEL: func.func @keywords
// GENERIC-LABEL: sym_name = "keywords"
func.func @keywords(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: tpc.dropout %{{.*}} p 1.000000e-01 replicated key 1 : tensor<4x8xf32>
  // GENERIC: "tpc.dropout"(%{{.*}}) <{key = 1 : i64, p = 1.000000e-01 : f64, stream = 0 : i32}>
  %a = tpc.dropout %x p 0.1 replicated key 1 : tensor<4x8xf32>
  // CHECK: tpc.dropout %{{.*}} p 1.000000e-01 per_rank key 2 : tensor<4x8xf32>
  // GENERIC: "tpc.dropout"(%{{.*}}) <{key = 2 : i64, p = 1.000000e-01 : f64, stream = 1 : i32}>
  %b = tpc.dropout %x p 0.1 per_rank key 2 : tensor<4x8xf32>
  // CHECK: tpc.dropout %{{.*}} p 1.000000e-01 per_rank key 3 layout <split 1> : tensor<4x8xf32>
  // GENERIC: "tpc.dropout"(%{{.*}}) <{key = 3 : i64, layout = #tpc.layout<split 1>, p = 1.000000e-01 : f64, stream = 1 : i32}>
  %c = "tpc.dropout"(%x) <{key = 3 : i64, layout = #tpc.layout<split 1>, p = 0.1 : f64, stream = 1 : i32}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
