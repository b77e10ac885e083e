// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @plain
// CHECK-SAME: (%[[Q:.*]]: tensor<1x1x16xf32>, %[[KV:.*]]: tensor<1x1x32xf32>, %[[POS:.*]]: tensor<i32>)
func.func @plain(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: %[[C:.*]] = tpc.decode_cross_attention %[[Q]], %[[KV]], %[[POS]] heads 4 capacity 64 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 64 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  // CHECK: return %[[C]] : tensor<1x1x16xf32>
  return %c : tensor<1x1x16xf32>
}

// CHECK-LABEL: func.func @every_option
func.func @every_option(%q: tensor<2x1x8xf32>, %kv: tensor<2x1x16xf32>, %pos: tensor<i32>) -> tensor<2x1x8xf32> {
  // CHECK: tpc.decode_cross_attention %{{.*}}, %{{.*}}, %{{.*}} heads 2 capacity 32 window 4 head_parallel : tensor<2x1x8xf32>, tensor<2x1x16xf32>, tensor<i32>
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 2 capacity 32 window 4 head_parallel : tensor<2x1x8xf32>, tensor<2x1x16xf32>, tensor<i32>
  return %c : tensor<2x1x8xf32>
}

// A dynamic query width takes the width of the static kv.
// CHECK-LABEL: func.func @dynamic_query_width
func.func @dynamic_query_width(%q: tensor<?x1x?xf32>, %kv: tensor<?x1x12xf32>, %pos: tensor<i32>) -> tensor<?x1x6xf32> {
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 3 capacity 8 : tensor<?x1x?xf32>, tensor<?x1x12xf32>, tensor<i32>
  // CHECK: return %{{.*}} : tensor<?x1x6xf32>
  return %c : tensor<?x1x6xf32>
}

// CHECK-LABEL: func.func @rotary
func.func @rotary(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: tpc.decode_cross_attention %{{.*}}, %{{.*}}, %{{.*}} heads 2 capacity 32 window 4 rope 1.000000e+04 rope_dims 6 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 2 capacity 32 window 4 rope 1.0e+04 rope_dims 6 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  return %c : tensor<1x1x16xf32>
}

// Recurrent decoding: k and v of the previous position, in a named cache.
// CHECK-LABEL: func.func @lagged
func.func @lagged(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) -> tensor<1x1x16xf32> {
  // CHECK: tpc.decode_cross_attention %{{.*}}, %{{.*}}, %{{.*}} heads 4 capacity 64 window 3 head_parallel lagged cache "memory" : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 64 window 3 head_parallel lagged cache "memory" : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  return %c : tensor<1x1x16xf32>
}
