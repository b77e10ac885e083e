// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @groups(%d: tensor<2x8x32xf32>, %q: tensor<2x8x32xf32>, %k: tensor<2x8x24xf32>, %v: tensor<2x8x24xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention_grad' op heads 4 must be a positive multiple of kv_heads 3}}
  %dq, %dk, %dv = tpc.grouped_attention_grad %d, %q, %k, %v heads 4 kv_heads 3 causal : tensor<2x8x32xf32>, tensor<2x8x24xf32>
  return
}

// -----

func.func @dropout_key(%d: tensor<2x8x32xf32>, %q: tensor<2x8x32xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention_grad' op dropout probability must be in [0, 1), got 1.000000e+00}}
  %dq, %dk, %dv = tpc.grouped_attention_grad %d, %q, %k, %v heads 4 kv_heads 2 causal dropout 1.0 key 3 : tensor<2x8x32xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @kv_replicated_without_head_parallel(%dout: tensor<2x8x32xf32>, %q: tensor<2x8x32xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.grouped_attention_grad' op kv_replicated describes one rank's heads of a split attention; it needs head_parallel}}
  %dq, %dk, %dv = tpc.grouped_attention_grad %dout, %q, %k, %v heads 4 kv_heads 2 causal kv_replicated : tensor<2x8x32xf32>, tensor<2x8x16xf32>
  return
}
