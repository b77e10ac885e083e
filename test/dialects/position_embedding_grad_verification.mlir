// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @too_long(%dout: tensor<2x64x16xf32>) {
  // expected-error @+1 {{'tpc.position_embedding_grad' op sequence length 64 of dout exceeds the 32 positions of the table}}
  %t = tpc.position_embedding_grad %dout : tensor<2x64x16xf32> -> tensor<32x16xf32>
  return
}

// -----

func.func @width(%dout: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.position_embedding_grad' op result 'tensor<32x8xf32>' is not a position table for dout 'tensor<2x8x16xf32>'; it must be [P, 16] of 'f32'}}
  %t = tpc.position_embedding_grad %dout : tensor<2x8x16xf32> -> tensor<32x8xf32>
  return
}

// -----

func.func @result_rank(%dout: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.position_embedding_grad' op result must have rank 2, got tensor<16xf32>}}
  %t = tpc.position_embedding_grad %dout : tensor<2x8x16xf32> -> tensor<16xf32>
  return
}

// -----

func.func @dynamic_table(%dout: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.position_embedding_grad' op result 'tensor<?x16xf32>' must have a static shape (the table's on this rank)}}
  %t = tpc.position_embedding_grad %dout : tensor<2x8x16xf32> -> tensor<?x16xf32>
  return
}
