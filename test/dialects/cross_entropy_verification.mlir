// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @logits_rank(%logits: tensor<?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op logits must have rank 3, got tensor<?x64xf32>}}
  %s, %c = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x64xf32>, tensor<?x?xi32>
  return
}

// -----

func.func @targets_rank(%logits: tensor<?x?x64xf32>, %targets: tensor<?xi32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op targets must have rank 2, got tensor<?xi32>}}
  %s, %c = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x64xf32>, tensor<?xi32>
  return
}

// -----

func.func @batch(%logits: tensor<2x?x64xf32>, %targets: tensor<4x?xi32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op logits tensor<2x?x64xf32> and targets tensor<4x?xi32> disagree on the batch or sequence dimension}}
  %s, %c = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<2x?x64xf32>, tensor<4x?xi32>
  return
}

// -----

func.func @sequence(%logits: tensor<?x8x64xf32>, %targets: tensor<?x7xi32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op logits tensor<?x8x64xf32> and targets tensor<?x7xi32> disagree on the batch or sequence dimension}}
  %s, %c = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x8x64xf32>, tensor<?x7xi32>
  return
}

// -----

func.func @targets_type(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xf32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op operand #1 must be ranked tensor of 32-bit signless integer values}}
  %s, %c = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xf32>
  return
}

// -----

func.func @result_type(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op result #0 must be 0D tensor of 32-bit float values}}
  %s, %c = "tpc.cross_entropy"(%logits, %targets) <{ignore_index = -1 : i64}> : (tensor<?x?x64xf32>, tensor<?x?xi32>) -> (tensor<bf16>, tensor<i32>)
  return
}

// -----

// Targets are i32: an ignore_index beyond that range would wrap to a token.
func.func @ignore_index_range(%logits: tensor<?x?x64xf32>, %targets: tensor<?x?xi32>) {
  // expected-error @+1 {{'tpc.cross_entropy' op ignore_index -4294967296 is outside the i32 range of the targets; use an index in [-2147483648, 2147483647], such as -1}}
  %s, %c = tpc.cross_entropy %logits, %targets ignore_index -4294967296 : tensor<?x?x64xf32>, tensor<?x?xi32>
  return
}
