// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @kv_width(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x48xf32>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op kv tensor<2x8x48xf32> must hold [k | v], twice the query's 16 features}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 4 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x48xf32>
  return
}

// -----

func.func @kv_sequence(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x4x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op query tensor<2x8x16xf32> and kv tensor<2x4x32xf32> must have the same batch and sequence length}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 4 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x4x32xf32>
  return
}

// -----

func.func @dout_shape(%dout: tensor<2x8x32xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op dout tensor<2x8x32xf32> is not an adjoint of the cross_attention result tensor<2x8x16xf32>; pass the gradient of that result}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 4 : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @heads(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op heads must be >= 1, got 0}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 0 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @element_types(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xbf16>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op kv has element type bf16 but query has f32; cast them to one element type}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 4 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xbf16>
  return
}

// -----

func.func @window(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op window must be >= 1, got -1}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 4 window -1 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}

// -----

func.func @rope_dims_wide(%dout: tensor<2x8x16xf32>, %q: tensor<2x8x16xf32>, %kv: tensor<2x8x32xf32>) {
  // expected-error @+1 {{'tpc.cross_attention_grad' op rope_dims 12 exceeds the head dimension 8}}
  %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 2 rope 1.0e+04 rope_dims 12 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
  return
}
