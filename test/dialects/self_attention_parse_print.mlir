// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[QKV:.*]]: tensor<?x?x48xf32>)
func.func @plain(%qkv: tensor<?x?x48xf32>) -> (tensor<?x?x16xf32>, tensor<?x?x16xf32>) {
  // Bidirectional.
  // CHECK: %[[A:.*]] = tpc.self_attention %[[QKV]] heads 4 : tensor<?x?x48xf32>
  %a = tpc.self_attention %qkv heads 4 : tensor<?x?x48xf32>
  // CHECK: %[[B:.*]] = tpc.self_attention %[[QKV]] heads 2 causal : tensor<?x?x48xf32>
  %b = tpc.self_attention %qkv heads 2 causal : tensor<?x?x48xf32>
  // CHECK: return %[[A]], %[[B]] : tensor<?x?x16xf32>, tensor<?x?x16xf32>
  return %a, %b : tensor<?x?x16xf32>, tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @every_option
// CHECK-SAME: (%[[QKV:.*]]: tensor<2x8x24xbf16>)
func.func @every_option(%qkv: tensor<2x8x24xbf16>) -> (tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>) {
  // CHECK: %[[A:.*]] = tpc.self_attention %[[QKV]] heads 2 causal window 4 : tensor<2x8x24xbf16>
  %a = tpc.self_attention %qkv heads 2 causal window 4 : tensor<2x8x24xbf16>
  // CHECK: %[[B:.*]] = tpc.self_attention %[[QKV]] heads 2 causal dropout 1.000000e-01 key 3 : tensor<2x8x24xbf16>
  %b = tpc.self_attention %qkv heads 2 causal dropout 0.1 key 3 : tensor<2x8x24xbf16>
  // CHECK: %[[C:.*]] = tpc.self_attention %[[QKV]] heads 1 head_parallel : tensor<2x8x24xbf16>
  %c = tpc.self_attention %qkv heads 1 head_parallel : tensor<2x8x24xbf16>
  // CHECK: %[[D:.*]] = tpc.self_attention %[[QKV]] heads 2 causal window 1 dropout 5.000000e-01 key 0 head_parallel : tensor<2x8x24xbf16>
  %d = tpc.self_attention %qkv heads 2 causal window 1 dropout 0.5 key 0 head_parallel : tensor<2x8x24xbf16>
  // A zero probability is the default: it prints without a dropout clause.
  // CHECK: %[[E:.*]] = tpc.self_attention %[[QKV]] heads 8 window 2 : tensor<2x8x24xbf16>
  %e = tpc.self_attention %qkv heads 8 window 2 dropout 0.0 key 0 : tensor<2x8x24xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
  return %a, %b, %c, %d, %e : tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>
}

// A dynamic fused width gives a dynamic hidden width.
// CHECK-LABEL: func.func @dynamic_width
func.func @dynamic_width(%qkv: tensor<1x?x?xf16>) -> tensor<1x?x?xf16> {
  // CHECK: %[[A:.*]] = tpc.self_attention %{{.*}} heads 3 causal : tensor<1x?x?xf16>
  %a = tpc.self_attention %qkv heads 3 causal : tensor<1x?x?xf16>
  // CHECK: return %[[A]] : tensor<1x?x?xf16>
  return %a : tensor<1x?x?xf16>
}

// Rotary positions on top of whatever position embedding the model has.
// CHECK-LABEL: func.func @rotary
func.func @rotary(%qkv: tensor<2x8x48xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  // CHECK: tpc.self_attention %{{.*}} heads 2 causal rope 1.000000e+04 : tensor<2x8x48xf32>
  %a = tpc.self_attention %qkv heads 2 causal rope 1.0e+04 : tensor<2x8x48xf32>
  // CHECK: tpc.self_attention %{{.*}} heads 2 causal window 4 rope 5.000000e+05 rope_dims 4 dropout 1.000000e-01 key 2 head_parallel : tensor<2x8x48xf32>
  %b = tpc.self_attention %qkv heads 2 causal window 4 rope 5.0e+05 rope_dims 4 dropout 0.1 key 2 head_parallel : tensor<2x8x48xf32>
  return %a, %b : tensor<2x8x16xf32>, tensor<2x8x16xf32>
}
