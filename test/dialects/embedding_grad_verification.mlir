// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @dout_rank(%dout: tensor<8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.embedding_grad' op dout must have rank 3, got tensor<8x16xf32>}}
  %t = tpc.embedding_grad %dout, %ids : tensor<8x16xf32>, tensor<2x8xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @ids_mismatch(%dout: tensor<2x8x16xf32>, %ids: tensor<2x4xi32>) {
  // expected-error @+1 {{'tpc.embedding_grad' op dout 'tensor<2x8x16xf32>' and ids 'tensor<2x4xi32>' disagree on the batch or sequence dimension}}
  %t = tpc.embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x4xi32> -> tensor<64x16xf32>
  return
}

// -----

func.func @row_width(%dout: tensor<2x8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.embedding_grad' op result 'tensor<64x32xf32>' is not a table for rows of dout 'tensor<2x8x16xf32>'; it must be [V, 16] of 'f32'}}
  %t = tpc.embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x8xi32> -> tensor<64x32xf32>
  return
}

// -----

func.func @element_type(%dout: tensor<2x8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.embedding_grad' op result 'tensor<64x16xbf16>' is not a table for rows of dout}}
  %t = tpc.embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x8xi32> -> tensor<64x16xbf16>
  return
}

// -----

func.func @dynamic_table(%dout: tensor<2x8x16xf32>, %ids: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.embedding_grad' op result 'tensor<?x16xf32>' must have a static shape (the table's on this rank)}}
  %t = tpc.embedding_grad %dout, %ids : tensor<2x8x16xf32>, tensor<2x8xi32> -> tensor<?x16xf32>
  return
}
