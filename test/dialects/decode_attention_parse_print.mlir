// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[QKV:.*]]: tensor<1x1x48xf32>, %[[POS:.*]]: tensor<i32>)
func.func @plain(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: %[[A:.*]] = tpc.decode_attention %[[QKV]], %[[POS]] heads 4 capacity 64 : tensor<1x1x48xf32>, tensor<i32>
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 64 : tensor<1x1x48xf32>, tensor<i32>
  // CHECK: return %[[A]] : tensor<1x1x16xf32>
  return %a : tensor<1x1x16xf32>
}

// CHECK-LABEL: func.func @every_option
func.func @every_option(%qkv: tensor<2x1x24xbf16>, %pos: tensor<i32>) -> tensor<2x1x8xbf16> {
  // CHECK: tpc.decode_attention %{{.*}}, %{{.*}} heads 2 capacity 1024 window 128 head_parallel : tensor<2x1x24xbf16>, tensor<i32>
  %a = tpc.decode_attention %qkv, %pos heads 2 capacity 1024 window 128 head_parallel : tensor<2x1x24xbf16>, tensor<i32>
  return %a : tensor<2x1x8xbf16>
}

// The op reads and writes its KV cache: it stays even when its result is
// unused.
// CHECK-LABEL: func.func @unused_result_stays
func.func @unused_result_stays(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) {
  // CHECK: tpc.decode_attention
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 8 : tensor<1x1x48xf32>, tensor<i32>
  return
}

// CHECK-LABEL: func.func @rotary
func.func @rotary(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: tpc.decode_attention %{{.*}}, %{{.*}} heads 2 capacity 32 rope 1.000000e+04 : tensor<1x1x48xf32>, tensor<i32>
  %a = tpc.decode_attention %qkv, %pos heads 2 capacity 32 rope 1.0e+04 : tensor<1x1x48xf32>, tensor<i32>
  return %a : tensor<1x1x16xf32>
}

// Ops of any entry point with one cache name share a cache.
// CHECK-LABEL: func.func @shared_cache
func.func @shared_cache(%qkv: tensor<1x1x48xf32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: tpc.decode_attention %{{.*}}, %{{.*}} heads 4 capacity 64 head_parallel cache "stack.0" : tensor<1x1x48xf32>, tensor<i32>
  %a = tpc.decode_attention %qkv, %pos heads 4 capacity 64 head_parallel cache "stack.0" : tensor<1x1x48xf32>, tensor<i32>
  return %a : tensor<1x1x16xf32>
}
