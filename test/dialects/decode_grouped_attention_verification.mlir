// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @position(%q: tensor<1x2x64xf32>, %k: tensor<1x2x16xf32>, %v: tensor<1x2x16xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_grouped_attention' op q tensor<1x2x64xf32> must hold one position [B, 1, ...]; decode one token at a time}}
  %a = tpc.decode_grouped_attention %q, %k, %v, %pos heads 4 kv_heads 1 capacity 8 : tensor<1x2x64xf32>, tensor<1x2x16xf32>, tensor<i32>
  return
}

// -----

func.func @capacity(%q: tensor<1x1x64xf32>, %k: tensor<1x1x16xf32>, %v: tensor<1x1x16xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_grouped_attention' op capacity must be >= 1, got 0; give the number of positions the cache holds}}
  %a = tpc.decode_grouped_attention %q, %k, %v, %pos heads 4 kv_heads 1 capacity 0 : tensor<1x1x64xf32>, tensor<1x1x16xf32>, tensor<i32>
  return
}

// -----

func.func @kv_width(%q: tensor<1x1x64xf32>, %k: tensor<1x1x32xf32>, %v: tensor<1x1x32xf32>, %pos: tensor<i32>) {
  // expected-error @+1 {{'tpc.decode_grouped_attention' op k tensor<1x1x32xf32> must hold kv_heads 1 heads of the query's head dimension 16, i.e. 16 features}}
  %a = tpc.decode_grouped_attention %q, %k, %v, %pos heads 4 kv_heads 1 capacity 8 : tensor<1x1x64xf32>, tensor<1x1x32xf32>, tensor<i32>
  return
}
