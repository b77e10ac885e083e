// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grad
// CHECK-SAME: (%[[D:.*]]: tensor<2x8x32xf32>, %[[Q:.*]]: tensor<2x8x32xf32>, %[[K:.*]]: tensor<2x8x16xf32>, %[[V:.*]]: tensor<2x8x16xf32>)
func.func @grad(%d: tensor<2x8x32xf32>, %q: tensor<2x8x32xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> (tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  // CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = tpc.grouped_attention_grad %[[D]], %[[Q]], %[[K]], %[[V]] heads 4 kv_heads 2 causal rope 1.000000e+04 : tensor<2x8x32xf32>, tensor<2x8x16xf32>
  %dq, %dk, %dv = tpc.grouped_attention_grad %d, %q, %k, %v heads 4 kv_heads 2 causal rope 1.0e+04 : tensor<2x8x32xf32>, tensor<2x8x16xf32>
  // CHECK: return %[[DQ]], %[[DK]], %[[DV]] : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return %dq, %dk, %dv : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
}

// The forward op's key lengths come along.
// CHECK-LABEL: func.func @padded
func.func @padded(%d: tensor<2x8x32xf32>, %q: tensor<2x8x32xf32>, %len: tensor<2xi32>) -> tensor<2x8x32xf32> {
  // CHECK: tpc.grouped_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} key_lengths %{{.*}} : tensor<2xi32> heads 4 kv_heads 4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  %dq, %dk, %dv = tpc.grouped_attention_grad %d, %q, %q, %q key_lengths %len : tensor<2xi32> heads 4 kv_heads 4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  return %dq : tensor<2x8x32xf32>
}
