// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @query_rank(%q: tensor<?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op query must have rank 3, got tensor<?x16xf32>}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x16xf32>, tensor<?x?x32xf32>
  return
}

// -----

func.func @kv_rank(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x2x16xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op kv must have rank 3, got tensor<?x?x2x16xf32>}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x?x16xf32>, tensor<?x?x2x16xf32>
  return
}

// -----

func.func @batch(%q: tensor<2x?x16xf32>, %kv: tensor<3x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op query tensor<2x?x16xf32> and kv tensor<3x?x32xf32> must have the same batch and sequence length}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<2x?x16xf32>, tensor<3x?x32xf32>
  return
}

// -----

func.func @sequence(%q: tensor<?x8x16xf32>, %kv: tensor<?x4x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op query tensor<?x8x16xf32> and kv tensor<?x4x32xf32> must have the same batch and sequence length}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x8x16xf32>, tensor<?x4x32xf32>
  return
}

// -----

func.func @kv_odd(%q: tensor<?x?x?xf32>, %kv: tensor<?x?x33xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op kv tensor<?x?x33xf32> must hold two equal blocks [k | v]; its last dimension is not a multiple of 2}}
  %c = tpc.cross_attention %q, %kv heads 1 : tensor<?x?x?xf32>, tensor<?x?x33xf32>
  return
}

// -----

func.func @kv_width(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op kv tensor<?x?x48xf32> must hold [k | v], twice the query's 16 features}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x?x16xf32>, tensor<?x?x48xf32>
  return
}

// -----

func.func @element_type(%q: tensor<?x?x16xbf16>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op kv has element type f32 but query has bf16; cast them to one element type}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x?x16xbf16>, tensor<?x?x32xf32>
  return
}

// -----

func.func @heads_zero(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op heads must be >= 1, got 0}}
  %c = tpc.cross_attention %q, %kv heads 0 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  return
}

// -----

func.func @heads_not_dividing(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op hidden size 16 is not a multiple of heads 5; choose a head count that divides it}}
  %c = tpc.cross_attention %q, %kv heads 5 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  return
}

// -----

// The hidden size comes from kv when the query's is dynamic.
func.func @heads_not_dividing_kv(%q: tensor<?x?x?xf32>, %kv: tensor<?x?x20xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op hidden size 10 is not a multiple of heads 4}}
  %c = tpc.cross_attention %q, %kv heads 4 : tensor<?x?x?xf32>, tensor<?x?x20xf32>
  return
}

// -----

func.func @window_zero(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op window must be >= 1, got 0; omit the window to attend to every position}}
  %c = tpc.cross_attention %q, %kv heads 4 window 0 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  return
}

// -----

func.func @dropout_above_one(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op dropout probability must be in [0, 1), got 1.500000e+00}}
  %c = tpc.cross_attention %q, %kv heads 4 dropout 1.5 key 2 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  return
}

// -----

func.func @dropout_negative(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op dropout probability must be in [0, 1), got -5.000000e-01}}
  %c = tpc.cross_attention %q, %kv heads 4 dropout -0.5 key 2 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
  return
}

// -----

func.func @key_without_dropout(%q: tensor<?x?x16xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op has dropout key 2 but no dropout; give a probability > 0 or drop the key}}
  %c = "tpc.cross_attention"(%q, %kv) <{heads = 4 : i64, key = 2 : i64}> : (tensor<?x?x16xf32>, tensor<?x?x32xf32>) -> tensor<?x?x16xf32>
  return
}

// -----

func.func @result_type(%q: tensor<?x?x?xf32>, %kv: tensor<?x?x32xf32>) {
  // expected-error @+2 {{'tpc.cross_attention' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.cross_attention' op inferred type(s) 'tensor<?x?x16xf32>' are incompatible with return type(s) of operation 'tensor<?x?x8xf32>'}}
  %c = "tpc.cross_attention"(%q, %kv) <{heads = 4 : i64}> : (tensor<?x?x?xf32>, tensor<?x?x32xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @rope_dims_odd(%q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op rope_dims must be even and >= 0, got 3; it counts the rotated dimensions of each head}}
  %c = tpc.cross_attention %q, %kv heads 2 rope 1.0e+04 rope_dims 3 : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @rope_dims_wide(%q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention' op rope_dims 10 exceeds the head dimension 8}}
  %c = tpc.cross_attention %q, %kv heads 2 rope 1.0e+04 rope_dims 10 : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}
