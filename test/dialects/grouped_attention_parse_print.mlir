// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// Grouped-query attention with rotary positions: 8 query heads of 16 share
// 2 key/value heads; the result has the query's width.
// CHECK-LABEL: func.func @gqa_rope
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x128xf32>, %[[K:.*]]: tensor<?x?x32xf32>, %[[V:.*]]: tensor<?x?x32xf32>)
func.func @gqa_rope(%q: tensor<?x?x128xf32>, %k: tensor<?x?x32xf32>, %v: tensor<?x?x32xf32>) -> tensor<?x?x128xf32> {
  // CHECK: %[[A:.*]] = tpc.grouped_attention %[[Q]], %[[K]], %[[V]] heads 8 kv_heads 2 causal rope 1.000000e+04 : tensor<?x?x128xf32>, tensor<?x?x32xf32>
  %a = tpc.grouped_attention %q, %k, %v heads 8 kv_heads 2 causal rope 1.0e+04 : tensor<?x?x128xf32>, tensor<?x?x32xf32>
  // CHECK: return %[[A]] : tensor<?x?x128xf32>
  return %a : tensor<?x?x128xf32>
}

// Every option: a window, a partial rotation, dropout, head-parallel.
// CHECK-LABEL: func.func @options
func.func @options(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x8x64xf32> {
  // CHECK: tpc.grouped_attention %{{.*}}, %{{.*}}, %{{.*}} heads 4 kv_heads 1 causal window 4 rope 5.000000e+05 rope_dims 8 dropout 1.000000e-01 key 7 head_parallel : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal window 4 rope 5.0e+05 rope_dims 8 dropout 0.1 key 7 head_parallel : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return %a : tensor<2x8x64xf32>
}

// kv_heads = heads is multi-head attention; no rope leaves q and k as they are.
// CHECK-LABEL: func.func @multi_head
func.func @multi_head(%q: tensor<1x4x32xbf16>, %k: tensor<1x4x32xbf16>, %v: tensor<1x4x32xbf16>) -> tensor<1x4x32xbf16> {
  // CHECK: tpc.grouped_attention %{{.*}}, %{{.*}}, %{{.*}} heads 4 kv_heads 4 : tensor<1x4x32xbf16>, tensor<1x4x32xbf16>
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 4 : tensor<1x4x32xbf16>, tensor<1x4x32xbf16>
  return %a : tensor<1x4x32xbf16>
}

// One rank's query head of a tp = 4 split over 2 key/value heads, which every
// rank keeps whole.
// CHECK-LABEL: func.func @kv_replicated
func.func @kv_replicated(%q: tensor<2x8x16xf32>, %k: tensor<2x8x32xf32>, %v: tensor<2x8x32xf32>) -> tensor<2x8x16xf32> {
  // CHECK: tpc.grouped_attention %{{.*}}, %{{.*}}, %{{.*}} heads 1 kv_heads 2 causal rope 1.000000e+04 head_parallel kv_replicated : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  %a = tpc.grouped_attention %q, %k, %v heads 1 kv_heads 2 causal rope 1.0e+04 head_parallel kv_replicated : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return %a : tensor<2x8x16xf32>
}

// A key padding mask: one key length per sequence (BERT).
// CHECK-LABEL: func.func @key_lengths
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x32xf32>, %[[K:.*]]: tensor<2x8x32xf32>, %[[V:.*]]: tensor<2x8x32xf32>, %[[L:.*]]: tensor<2xi32>)
func.func @key_lengths(%q: tensor<2x8x32xf32>, %k: tensor<2x8x32xf32>, %v: tensor<2x8x32xf32>, %len: tensor<2xi32>) -> tensor<2x8x32xf32> {
  // CHECK: tpc.grouped_attention %[[Q]], %[[K]], %[[V]] key_lengths %[[L]] : tensor<2xi32> heads 4 kv_heads 4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  %a = tpc.grouped_attention %q, %k, %v key_lengths %len : tensor<2xi32> heads 4 kv_heads 4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  return %a : tensor<2x8x32xf32>
}
