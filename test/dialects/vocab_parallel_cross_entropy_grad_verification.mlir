// RUN: tpc-opt %s -split-input-file -verify-diagnostics

module attributes {tpc.tp = 2 : i64} {
  func.func @too_many_columns(%logits: tensor<2x8x128xf32>, %targets: tensor<2x8xi32>, %dloss: tensor<f32>) {
    // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy_grad' op vocab_size 300 exceeds the 256 columns of the padded vocabulary (128 per rank, tp = 2)}}
    %d = tpc.vocab_parallel_cross_entropy_grad %logits, %targets, %dloss vocab 300 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return
  }
}

// -----

func.func @vocab_zero(%logits: tensor<2x8x128xf32>, %targets: tensor<2x8xi32>, %dloss: tensor<f32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy_grad' op vocab_size must be >= 1, got 0}}
  %d = tpc.vocab_parallel_cross_entropy_grad %logits, %targets, %dloss vocab 0 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
  return
}

// -----

func.func @targets(%logits: tensor<2x8x128xf32>, %targets: tensor<4x8xi32>, %dloss: tensor<f32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy_grad' op logits tensor<2x8x128xf32> and targets tensor<4x8xi32> disagree on the batch or sequence dimension}}
  %d = tpc.vocab_parallel_cross_entropy_grad %logits, %targets, %dloss vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<4x8xi32>
  return
}
