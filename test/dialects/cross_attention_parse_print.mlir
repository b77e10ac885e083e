// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x16xf32>, %[[KV:.*]]: tensor<?x?x32xf32>)
func.func @plain(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[C:.*]] = tpc.cross_attention %[[Q]], %[[KV]] heads 4 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  // CHECK: return %[[C]] : tensor<?x?x16xf32>
  return %c : tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @every_option
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x8xbf16>, %[[KV:.*]]: tensor<2x8x16xbf16>)
func.func @every_option(%q: tensor<2x8x8xbf16>, %kv: tensor<2x8x16xbf16>) -> (tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>) {
  // CHECK: %[[A:.*]] = tpc.cross_attention %[[Q]], %[[KV]] heads 2 window 8 : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  %a = tpc.cross_attention %q, %kv heads 2 window 8 : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  // CHECK: %[[B:.*]] = tpc.cross_attention %[[Q]], %[[KV]] heads 2 dropout 1.000000e-01 key 9 : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  %b = tpc.cross_attention %q, %kv heads 2 dropout 0.1 key 9 : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  // CHECK: %[[C:.*]] = tpc.cross_attention %[[Q]], %[[KV]] heads 1 head_parallel : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  %c = tpc.cross_attention %q, %kv heads 1 head_parallel : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  // CHECK: %[[D:.*]] = tpc.cross_attention %[[Q]], %[[KV]] heads 4 window 3 dropout 2.500000e-01 key 1 head_parallel : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  %d = tpc.cross_attention %q, %kv heads 4 window 3 dropout 0.25 key 1 head_parallel : tensor<2x8x8xbf16>, tensor<2x8x16xbf16>
  // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
  return %a, %b, %c, %d : tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>, tensor<2x8x8xbf16>
}

// A dynamic query width takes the width of the static kv.
// CHECK-LABEL: func.func @dynamic_query_width
func.func @dynamic_query_width(%q: tensor<?x?x?xf16>, %kv: tensor<?x?x12xf16>) -> tensor<?x?x6xf16> {
  // CHECK: %[[C:.*]] = tpc.cross_attention %{{.*}}, %{{.*}} heads 3 : tensor<?x?x?xf16>, tensor<?x?x12xf16>
  %c = tpc.cross_attention %q, %kv heads 3 : tensor<?x?x?xf16>, tensor<?x?x12xf16>
  // CHECK: return %[[C]] : tensor<?x?x6xf16>
  return %c : tensor<?x?x6xf16>
}

// CHECK-LABEL: func.func @rotary
func.func @rotary(%q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) -> tensor<2x8x16xf32> {
  // CHECK: tpc.cross_attention %{{.*}}, %{{.*}} heads 2 window 3 rope 1.000000e+04 head_parallel : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  %c = tpc.cross_attention %q, %kv heads 2 window 3 rope 1.0e+04 head_parallel : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return %c : tensor<2x8x16xf32>
}
