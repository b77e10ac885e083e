// RUN: tpc-opt %s -split-input-file -verify-diagnostics

module attributes {tpc.tp = 2 : i64} {
  func.func @rank_one(%x: tensor<8xf32>) {
    // expected-error @+1 {{'tpc.seq_scatter' op moves a tensor of rank >= 2 along its sequence dimension (1) with its element type, not 'tensor<8xf32>' and 'tensor<4xf32>'}}
    %y = tpc.seq_scatter %x : tensor<8xf32> -> tensor<4xf32>
    return
  }
}

// -----

module attributes {tpc.tp = 2 : i64} {
  func.func @element_type(%x: tensor<2x8xf32>) {
    // expected-error @+1 {{'tpc.seq_scatter' op moves a tensor of rank >= 2 along its sequence dimension (1) with its element type, not 'tensor<2x8xf32>' and 'tensor<2x4xbf16>'}}
    %y = tpc.seq_scatter %x reduce : tensor<2x8xf32> -> tensor<2x4xbf16>
    return
  }
}

// -----

module attributes {tpc.tp = 2 : i64} {
  func.func @other_dim(%x: tensor<2x8x16xf32>) {
    // expected-error @+1 {{'tpc.seq_scatter' op changes dimension 2 (16 vs 8); only the sequence dimension (1) is split}}
    %y = tpc.seq_scatter %x : tensor<2x8x16xf32> -> tensor<2x4x8xf32>
    return
  }
}

// -----

module attributes {tpc.tp = 2 : i64} {
  func.func @wrong_part(%x: tensor<2x8x16xf32>) {
    // expected-error @+1 {{'tpc.seq_scatter' op splits a sequence of 8 into parts of 2, but tp = 2 needs parts of 4}}
    %y = tpc.seq_scatter %x reduce : tensor<2x8x16xf32> -> tensor<2x2x16xf32>
    return
  }
}

// -----

module attributes {tpc.tp = 4 : i64} {
  func.func @not_divisible(%x: tensor<2x6x16xf32>) {
    // expected-error @+1 {{'tpc.seq_scatter' op splits a sequence of 6 positions over tp = 4, which does not divide it}}
    %y = tpc.seq_scatter %x reduce : tensor<2x6x16xf32> -> tensor<2x1x16xf32>
    return
  }
}

// -----

func.func @ids(%x: tensor<2x8xi32>) {
  // expected-error @+1 {{'tpc.seq_scatter' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %y = tpc.seq_scatter %x : tensor<2x8xi32> -> tensor<2x8xi32>
  return
}
