// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @query_positions(%q: tensor<1x4x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op query tensor<1x4x16xf32> must hold one position [B, 1, ...]}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 8 : tensor<1x4x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  return
}

// -----

func.func @batch(%q: tensor<2x1x16xf32>, %kv: tensor<3x1x32xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op query tensor<2x1x16xf32> and kv tensor<3x1x32xf32> must have the same batch}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 8 : tensor<2x1x16xf32>, tensor<3x1x32xf32>, tensor<i32>
  return
}

// -----

func.func @kv_width(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x48xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op kv tensor<1x1x48xf32> must hold [k | v], twice the query's 16 features}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 8 : tensor<1x1x16xf32>, tensor<1x1x48xf32>, tensor<i32>
  return
}

// -----

func.func @element_types(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xbf16>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op kv has element type bf16 but query has f32}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 8 : tensor<1x1x16xf32>, tensor<1x1x32xbf16>, tensor<i32>
  return
}

// -----

func.func @capacity(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op capacity must be >= 1, got -2}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity -2 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  return
}

// -----

func.func @window(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op window must be >= 1, got 0}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 8 window 0 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  return
}

// -----

func.func @rope_dims_wide(%q: tensor<1x1x16xf32>, %kv: tensor<1x1x32xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_cross_attention' op rope_dims 16 exceeds the head dimension 8}}
  %c = tpc.decode_cross_attention %q, %kv, %pos heads 2 capacity 8 rope 1.0e+04 rope_dims 16 : tensor<1x1x16xf32>, tensor<1x1x32xf32>, tensor<i32>
  return
}
