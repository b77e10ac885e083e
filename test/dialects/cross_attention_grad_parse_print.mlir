// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grads
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[Q:.*]]: tensor<?x?x16xf32>, %[[KV:.*]]: tensor<?x?x32xf32>)
func.func @grads(%dout: tensor<?x?x16xf32>, %q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) -> (tensor<?x?x16xf32>, tensor<?x?x32xf32>) {
  // CHECK: %[[DQ:.*]], %[[DKV:.*]] = tpc.cross_attention_grad %[[D]], %[[Q]], %[[KV]] heads 4 : tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x32xf32>
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 4 : tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x32xf32>
  // CHECK: return %[[DQ]], %[[DKV]] : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  return %dq, %dkv : tensor<?x?x16xf32>, tensor<?x?x32xf32>
}

// CHECK-LABEL: func.func @all_attributes
func.func @all_attributes(%dout: tensor<2x8x8xf32>, %q: tensor<2x8x8xf32>, %kv: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // CHECK: tpc.cross_attention_grad %{{.*}}, %{{.*}}, %{{.*}} heads 2 window 3 dropout 2.000000e-01 key 11 head_parallel : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x16xf32>
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 2 window 3 dropout 0.2 key 11 head_parallel : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x16xf32>
  return %dkv : tensor<2x8x16xf32>
}

// CHECK-LABEL: func.func @rotary
func.func @rotary(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x32xf32>) {
  // CHECK: tpc.cross_attention_grad %{{.*}}, %{{.*}}, %{{.*}} heads 2 rope 1.000000e+04 rope_dims 2 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 2 rope 1.0e+04 rope_dims 2 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return %dq, %dkv : tensor<2x8x16xf32>, tensor<2x8x32xf32>
}
