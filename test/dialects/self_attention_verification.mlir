// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @qkv_rank(%qkv: tensor<?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op qkv must have rank 3, got tensor<?x48xf32>}}
  %a = tpc.self_attention %qkv heads 4 causal : tensor<?x48xf32>
  return
}

// -----

func.func @not_three_blocks(%qkv: tensor<?x?x50xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op qkv tensor<?x?x50xf32> must hold three equal blocks [q | k | v]; its last dimension is not a multiple of 3}}
  %a = tpc.self_attention %qkv heads 2 causal : tensor<?x?x50xf32>
  return
}

// -----

func.func @heads_zero(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op heads must be >= 1, got 0}}
  %a = tpc.self_attention %qkv heads 0 causal : tensor<?x?x48xf32>
  return
}

// -----

func.func @heads_not_dividing(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op hidden size 16 is not a multiple of heads 3; choose a head count that divides it}}
  %a = tpc.self_attention %qkv heads 3 causal : tensor<?x?x48xf32>
  return
}

// -----

func.func @window_zero(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op window must be >= 1, got 0; omit the window to attend to every position}}
  %a = tpc.self_attention %qkv heads 4 causal window 0 : tensor<?x?x48xf32>
  return
}

// -----

func.func @window_negative(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op window must be >= 1, got -3}}
  %a = tpc.self_attention %qkv heads 4 causal window -3 : tensor<?x?x48xf32>
  return
}

// -----

func.func @dropout_one(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op dropout probability must be in [0, 1), got 1.000000e+00}}
  %a = tpc.self_attention %qkv heads 4 causal dropout 1.0 key 1 : tensor<?x?x48xf32>
  return
}

// -----

func.func @dropout_negative(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op dropout probability must be in [0, 1), got -1.000000e-01}}
  %a = tpc.self_attention %qkv heads 4 causal dropout -0.1 key 1 : tensor<?x?x48xf32>
  return
}

// -----

// The custom form would drop such a key; the verifier rejects it.
func.func @key_without_dropout(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op has dropout key 5 but no dropout; give a probability > 0 or drop the key}}
  %a = "tpc.self_attention"(%qkv) <{heads = 4 : i64, key = 5 : i64}> : (tensor<?x?x48xf32>) -> tensor<?x?x16xf32>
  return
}

// -----

func.func @element_type(%qkv: tensor<?x?x48xi32>) {
  // expected-error @+1 {{'tpc.self_attention' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %a = tpc.self_attention %qkv heads 4 : tensor<?x?x48xi32>
  return
}

// -----

func.func @result_type(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+2 {{'tpc.self_attention' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.self_attention' op inferred type(s) 'tensor<?x?x16xf32>' are incompatible with return type(s) of operation 'tensor<?x?x48xf32>'}}
  %a = "tpc.self_attention"(%qkv) <{heads = 4 : i64}> : (tensor<?x?x48xf32>) -> tensor<?x?x48xf32>
  return
}

// -----

// The head dimension is that of one block of the fused qkv: 48 / 3 / 2.
func.func @rope_dims_wide(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op rope_dims 10 exceeds the head dimension 8}}
  %a = tpc.self_attention %qkv heads 2 causal rope 1.0e+04 rope_dims 10 : tensor<?x?x48xf32>
  return
}

// -----

func.func @rope_theta(%qkv: tensor<?x?x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op rope theta must be a finite number >= 0, got -1.000000e+00}}
  %a = tpc.self_attention %qkv heads 2 causal rope -1.0 : tensor<?x?x48xf32>
  return
}

// -----

func.func @odd_head_dim(%qkv: tensor<?x?x54xf32>) {
  // expected-error @+1 {{'tpc.self_attention' op rotates whole heads of odd dimension 9; give an even rope_dims}}
  %a = tpc.self_attention %qkv heads 2 causal rope 1.0e+04 : tensor<?x?x54xf32>
  return
}
