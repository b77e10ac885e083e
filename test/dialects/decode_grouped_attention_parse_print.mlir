// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @decode
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1x64xf32>, %[[K:.*]]: tensor<1x1x16xf32>, %[[V:.*]]: tensor<1x1x16xf32>, %[[P:.*]]: tensor<i32>)
func.func @decode(%q: tensor<1x1x64xf32>, %k: tensor<1x1x16xf32>, %v: tensor<1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x1x64xf32> {
  // CHECK: %[[A:.*]] = tpc.decode_grouped_attention %[[Q]], %[[K]], %[[V]], %[[P]] heads 4 kv_heads 1 capacity 128 window 16 rope 1.000000e+04 rope_dims 8 head_parallel : tensor<1x1x64xf32>, tensor<1x1x16xf32>, tensor<i32>
  %a = tpc.decode_grouped_attention %q, %k, %v, %pos heads 4 kv_heads 1 capacity 128 window 16 rope 1.0e+04 rope_dims 8 head_parallel : tensor<1x1x64xf32>, tensor<1x1x16xf32>, tensor<i32>
  // CHECK: return %[[A]] : tensor<1x1x64xf32>
  return %a : tensor<1x1x64xf32>
}

// CHECK-LABEL: func.func @shared_cache
func.func @shared_cache(%q: tensor<1x1x64xf32>, %k: tensor<1x1x16xf32>, %v: tensor<1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x1x64xf32> {
  // CHECK: tpc.decode_grouped_attention %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} heads 4 kv_heads 1 capacity 128 head_parallel kv_replicated cache "stack.1" : tensor<1x1x64xf32>, tensor<1x1x16xf32>, tensor<i32>
  %a = tpc.decode_grouped_attention %q, %k, %v, %pos heads 4 kv_heads 1 capacity 128 head_parallel kv_replicated cache "stack.1" : tensor<1x1x64xf32>, tensor<1x1x16xf32>, tensor<i32>
  return %a : tensor<1x1x64xf32>
}
