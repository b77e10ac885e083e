// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @vocab_zero(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op vocab_size must be >= 1, got 0}}
  %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 0 ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xi32>
  return
}

// -----

// Without `tpc.tp` the logits must hold the whole vocabulary.
func.func @vocab_too_large(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op vocab_size 65 exceeds the 64 columns of the padded vocabulary (64 per rank, tp = 1); logits must hold every vocabulary column}}
  %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 65 ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xi32>
  return
}

// -----

module attributes {tpc.tp = 4 : i64} {
  func.func @vocab_too_large_tp(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) {
    // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op vocab_size 257 exceeds the 256 columns of the padded vocabulary (64 per rank, tp = 4)}}
    %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 257 ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xi32>
    return
  }
}

// -----

func.func @logits_rank(%logits: tensor<?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op logits must have rank 3, got tensor<?x64xf32>}}
  %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 64 ignore_index -1 : tensor<?x64xf32>, tensor<?x?xi32>
  return
}

// -----

func.func @targets_rank(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?x1xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op targets must have rank 2, got tensor<?x?x1xi32>}}
  %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 64 ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?x1xi32>
  return
}

// -----

func.func @batch(%logits: tensor<2x8x64xf32>, %targets: tensor<2x9xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op logits tensor<2x8x64xf32> and targets tensor<2x9xi32> disagree on the batch or sequence dimension}}
  %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 64 ignore_index -1 : tensor<2x8x64xf32>, tensor<2x9xi32>
  return
}

// -----

func.func @result_type(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op result #1 must be 0D tensor of 32-bit signless integer values}}
  %s, %c = "tpc.vocab_parallel_cross_entropy"(%logits, %targets) <{ignore_index = -1 : i64, vocab_size = 64 : i64}> : (tensor<?x?x64xf32>, tensor<?x?xi32>) -> (tensor<f32>, tensor<1xi32>)
  return
}

// -----

func.func @ignore_index_range(%logits: tensor<2x8x128xf32>, %targets: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.vocab_parallel_cross_entropy' op ignore_index -4294967296 is outside the i32 range}}
  %s, %c = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -4294967296 : tensor<2x8x128xf32>, tensor<2x8xi32>
  return
}
