// RUN: tpc-opt %s -split-input-file -verify-diagnostics

module attributes {tpc.tp = 2 : i64} {
  func.func @rank_one(%x: tensor<4xf32>) {
    // expected-error @+1 {{'tpc.seq_gather' op moves a tensor of rank >= 2 along its sequence dimension (1) with its element type, not 'tensor<8xf32>' and 'tensor<4xf32>'}}
    %y = tpc.seq_gather %x : tensor<4xf32> -> tensor<8xf32>
    return
  }
}

// -----

module attributes {tpc.tp = 2 : i64} {
  func.func @batch(%x: tensor<2x4x16xf32>) {
    // expected-error @+1 {{'tpc.seq_gather' op changes dimension 0 (4 vs 2); only the sequence dimension (1) is split}}
    %y = tpc.seq_gather %x reduce_grad : tensor<2x4x16xf32> -> tensor<4x8x16xf32>
    return
  }
}

// -----

module attributes {tpc.tp = 4 : i64} {
  func.func @wrong_whole(%x: tensor<2x4x16xf32>) {
    // expected-error @+1 {{'tpc.seq_gather' op splits a sequence of 8 into parts of 4, but tp = 4 needs parts of 2}}
    %y = tpc.seq_gather %x : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    return
  }
}
