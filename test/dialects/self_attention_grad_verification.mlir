// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @qkv_rank(%dout: tensor<8x16xf32>, %qkv: tensor<8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op qkv must have rank 3, got tensor<8x48xf32>}}
  %g = tpc.self_attention_grad %dout, %qkv heads 4 causal : tensor<8x16xf32>, tensor<8x48xf32>
  return
}

// -----

func.func @not_three_blocks(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x50xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op qkv tensor<2x8x50xf32> must hold three equal blocks [q | k | v]}}
  %g = tpc.self_attention_grad %dout, %qkv heads 2 causal : tensor<2x8x16xf32>, tensor<2x8x50xf32>
  return
}

// -----

func.func @heads(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op hidden size 16 is not a multiple of heads 3}}
  %g = tpc.self_attention_grad %dout, %qkv heads 3 causal : tensor<2x8x16xf32>, tensor<2x8x48xf32>
  return
}

// -----

func.func @dout_shape(%dout: tensor<2x8x48xf32>, %qkv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op dout tensor<2x8x48xf32> is not an adjoint of the self_attention result tensor<2x8x16xf32>; pass the gradient of that result}}
  %g = tpc.self_attention_grad %dout, %qkv heads 4 causal : tensor<2x8x48xf32>, tensor<2x8x48xf32>
  return
}

// -----

func.func @window(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op window must be >= 1, got 0; omit the window to attend to every position}}
  %g = tpc.self_attention_grad %dout, %qkv heads 4 causal window 0 : tensor<2x8x16xf32>, tensor<2x8x48xf32>
  return
}

// -----

func.func @dropout(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op dropout probability must be in [0, 1), got 1.000000e+00}}
  %g = tpc.self_attention_grad %dout, %qkv heads 4 causal dropout 1.0 key 1 : tensor<2x8x16xf32>, tensor<2x8x48xf32>
  return
}

// -----

func.func @key_without_dropout(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op has dropout key 5 but no dropout; give a probability > 0 or drop the key}}
  %g = "tpc.self_attention_grad"(%dout, %qkv) <{heads = 4 : i64, key = 5 : i64}> : (tensor<2x8x16xf32>, tensor<2x8x48xf32>) -> tensor<2x8x48xf32>
  return
}

// -----

func.func @rope_dims_without_theta(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.self_attention_grad' op has rope_dims 4 but no rope theta; give `rope THETA` or drop rope_dims}}
  %d = tpc.self_attention_grad %dout, %qkv heads 2 causal rope_dims 4 : tensor<2x8x16xf32>, tensor<2x8x48xf32>
  return
}
