// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @rank(%q: tensor<8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op q must have rank 3, got tensor<8x64xf32>}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal : tensor<8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @groups(%q: tensor<2x8x64xf32>, %k: tensor<2x8x48xf32>, %v: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op heads 4 must be a positive multiple of kv_heads 3; every key/value head serves a whole group of query heads}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 3 causal : tensor<2x8x64xf32>, tensor<2x8x48xf32>
  return
}

// -----

func.func @kv_width(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op k tensor<2x8x16xf32> must hold kv_heads 2 heads of the query's head dimension 16, i.e. 32 features}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 2 causal : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @sequence(%q: tensor<2x8x64xf32>, %k: tensor<2x4x16xf32>, %v: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op q tensor<2x8x64xf32> and k tensor<2x4x16xf32> must have the same batch and sequence length}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal : tensor<2x8x64xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @heads(%q: tensor<2x8x60xf32>, %k: tensor<2x8x15xf32>, %v: tensor<2x8x15xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op hidden size 60 is not a multiple of heads 8; choose a head count that divides it}}
  %a = tpc.grouped_attention %q, %k, %v heads 8 kv_heads 2 causal : tensor<2x8x60xf32>, tensor<2x8x15xf32>
  return
}

// -----

func.func @element_types(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xbf16>, %v: tensor<2x8x16xbf16>) {
  // expected-error @+1 {{'tpc.grouped_attention' op k has element type bf16 but q has f32; cast them to one element type}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal : tensor<2x8x64xf32>, tensor<2x8x16xbf16>
  return
}

// -----

func.func @rope_theta(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op rope theta must be a finite number >= 0, got -1.000000e+00; Llama uses 1.0e+04 (Llama 3: 5.0e+05), 0 disables it}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal rope -1.0 : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @rope_dims_odd(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op rope_dims must be even and >= 0, got 5; it counts the rotated dimensions of each head}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal rope 1.0e+04 rope_dims 5 : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @rope_dims_wide(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op rope_dims 32 exceeds the head dimension 16}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal rope 1.0e+04 rope_dims 32 : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @rope_dims_without_theta(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op has rope_dims 8 but no rope theta; give `rope THETA` or drop rope_dims}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal rope_dims 8 : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @odd_head_dim(%q: tensor<2x8x36xf32>, %k: tensor<2x8x9xf32>, %v: tensor<2x8x9xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op rotates whole heads of odd dimension 9; give an even rope_dims}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal rope 1.0e+04 : tensor<2x8x36xf32>, tensor<2x8x9xf32>
  return
}

// -----

func.func @window(%q: tensor<2x8x64xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op window must be >= 1, got 0; omit the window to attend to every position}}
  %a = tpc.grouped_attention %q, %k, %v heads 4 kv_heads 1 causal window 0 : tensor<2x8x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @kv_replicated_alone(%q: tensor<2x8x16xf32>, %k: tensor<2x8x32xf32>, %v: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op kv_replicated describes one rank's heads of a split attention; it needs head_parallel}}
  %a = tpc.grouped_attention %q, %k, %v heads 1 kv_heads 2 causal kv_replicated : tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @key_lengths_rank(%q: tensor<2x8x32xf32>, %len: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op key_lengths must have rank 1, got tensor<2x8xi32>}}
  %a = tpc.grouped_attention %q, %q, %q key_lengths %len : tensor<2x8xi32> heads 4 kv_heads 4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @key_lengths_batch(%q: tensor<2x8x32xf32>, %len: tensor<3xi32>) {
  // expected-error @+1 {{'tpc.grouped_attention' op key_lengths tensor<3xi32> must hold one length per sequence of q tensor<2x8x32xf32>}}
  %a = tpc.grouped_attention %q, %q, %q key_lengths %len : tensor<3xi32> heads 4 kv_heads 4 : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  return
}
