// RUN: tpc-opt %s -split-input-file --tpc-decode -verify-diagnostics

// expected-error @+1 {{tpc-decode needs a partitioned module (tpc.tp absent); run tpc-partition first}}
module {
  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) {
    return
  }
}

// -----

module attributes {tpc.tp = 1 : i64} {
  // expected-error @+1 {{'func.func' op computes 0 vocab_parallel_cross_entropy ops; decode_step takes the logits of exactly one}}
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) {
    return
  }
}

// -----

module attributes {tpc.tp = 1 : i64} {
  tpc.param @t : tensor<128x16xf32> init <zeros> layout <split 0> {vocab_size = 100 : i64}
  tpc.param @w : tensor<16x48xf32> init <zeros>
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>) {
    %t = tpc.get_param @t : tensor<128x16xf32>
    %w = tpc.get_param @w : tensor<16x48xf32>
    %e = tpc.embedding %t, %tokens vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
    %qkv = tpc.linear %e, %w : tensor<2x8x16xf32>, tensor<16x48xf32>
    // expected-warning @+1 {{bidirectional self-attention cannot be decoded one position at a time; the program gets no @decode_step}}
    %s = tpc.self_attention %qkv heads 2 : tensor<2x8x48xf32>
    %logits = tpc.linear %s, %t transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return %sum, %count : tensor<f32>, tensor<i32>
  }
}

// -----

// Of two bidirectional attentions, the first in program order is named.
module attributes {tpc.tp = 1 : i64} {
  tpc.param @t : tensor<128x16xf32> init <zeros> layout <split 0> {vocab_size = 100 : i64}
  tpc.param @w : tensor<16x48xf32> init <zeros>
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>) {
    %t = tpc.get_param @t : tensor<128x16xf32>
    %w = tpc.get_param @w : tensor<16x48xf32>
    %e = tpc.embedding %t, %tokens vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
    %qkv = tpc.linear %e, %w : tensor<2x8x16xf32>, tensor<16x48xf32>
    // expected-warning @+1 {{bidirectional self-attention cannot be decoded one position at a time; the program gets no @decode_step}}
    %s = tpc.self_attention %qkv heads 2 : tensor<2x8x48xf32>
    %qkv2 = tpc.linear %s, %w : tensor<2x8x16xf32>, tensor<16x48xf32>
    %s2 = tpc.self_attention %qkv2 heads 2 : tensor<2x8x48xf32>
    %logits = tpc.linear %s2, %t transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return %sum, %count : tensor<f32>, tensor<i32>
  }
}

// -----

module attributes {tpc.tp = 1 : i64} {
  tpc.param @t : tensor<128x16xf32> init <zeros> layout <split 0> {vocab_size = 100 : i64}
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>) {
    %t = tpc.get_param @t : tensor<128x16xf32>
    // expected-error @+1 {{'tpc.embedding' op computes the logits from argument 1 of @forward; decode_step feeds only the tokens (argument 0)}}
    %e = tpc.embedding %t, %targets vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
    %logits = tpc.linear %e, %t transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return %sum, %count : tensor<f32>, tensor<i32>
  }
}

// -----

// expected-error @+1 {{module already has @decode_step; run tpc-decode once}}
module attributes {tpc.tp = 1 : i64} {
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) {
    return
  }
  func.func @decode_step() {
    return
  }
}
