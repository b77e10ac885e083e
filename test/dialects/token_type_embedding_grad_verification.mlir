// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @width(%dout: tensor<2x8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.token_type_embedding_grad' op result 'tensor<2x8xf32>' is not a token-type table for dout 'tensor<2x8x16xf32>'; it must be [S, 16] of 'f32'}}
  %t = tpc.token_type_embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x8xi32> -> tensor<2x8xf32>
  return
}

// -----

func.func @element_type(%dout: tensor<2x8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.token_type_embedding_grad' op result 'tensor<2x16xbf16>' is not a token-type table for dout 'tensor<2x8x16xf32>'; it must be [S, 16] of 'f32'}}
  %t = tpc.token_type_embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x8xi32> -> tensor<2x16xbf16>
  return
}

// -----

func.func @dout_rank(%dout: tensor<8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.token_type_embedding_grad' op dout must have rank 3, got tensor<8x16xf32>}}
  %t = tpc.token_type_embedding_grad %dout, %ids : tensor<8x16xf32>, tensor<2x8xi32> -> tensor<2x16xf32>
  return
}

// -----

func.func @dynamic_table(%dout: tensor<2x8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.token_type_embedding_grad' op result 'tensor<?x16xf32>' must have a static shape with at least one row (the table's)}}
  %t = tpc.token_type_embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x8xi32> -> tensor<?x16xf32>
  return
}

// -----

func.func @ids_shape(%dout: tensor<2x8x16xf32>, %ids: tensor<2x4xi32>) {
  // expected-error @+1 {{'tpc.token_type_embedding_grad' op dout 'tensor<2x8x16xf32>' and ids 'tensor<2x4xi32>' disagree on the batch or sequence dimension}}
  %t = tpc.token_type_embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x4xi32> -> tensor<2x16xf32>
  return
}
