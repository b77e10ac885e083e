// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @logits_rank(%logits: tensor<16x100xf32>, %targets: tensor<2x8xi32>, %dloss: tensor<f32>) {
  // expected-error @+1 {{'tpc.cross_entropy_grad' op logits must have rank 3, got tensor<16x100xf32>}}
  %d = tpc.cross_entropy_grad %logits, %targets, %dloss ignore_index -1 : tensor<16x100xf32>, tensor<2x8xi32>
  return
}

// -----

func.func @targets(%logits: tensor<2x8x100xf32>, %targets: tensor<2x4xi32>, %dloss: tensor<f32>) {
  // expected-error @+1 {{'tpc.cross_entropy_grad' op logits tensor<2x8x100xf32> and targets tensor<2x4xi32> disagree on the batch or sequence dimension}}
  %d = tpc.cross_entropy_grad %logits, %targets, %dloss ignore_index -1 : tensor<2x8x100xf32>, tensor<2x4xi32>
  return
}

// -----

// The adjoint of the loss sum is an f32 scalar.
func.func @dloss_shape(%logits: tensor<2x8x100xf32>, %targets: tensor<2x8xi32>, %dloss: tensor<1xf32>) {
  // expected-error @+1 {{'tpc.cross_entropy_grad' op operand #2 must be 0D tensor of 32-bit float values}}
  %d = "tpc.cross_entropy_grad"(%logits, %targets, %dloss) <{ignore_index = -1 : i64}> : (tensor<2x8x100xf32>, tensor<2x8xi32>, tensor<1xf32>) -> tensor<2x8x100xf32>
  return
}

// -----

func.func @ignore_index_range(%logits: tensor<2x8x100xf32>, %targets: tensor<2x8xi32>, %dloss: tensor<f32>) {
  // expected-error @+1 {{'tpc.cross_entropy_grad' op ignore_index 2147483648 is outside the i32 range}}
  %d = tpc.cross_entropy_grad %logits, %targets, %dloss ignore_index 2147483648 : tensor<2x8x100xf32>, tensor<2x8xi32>
  return
}
