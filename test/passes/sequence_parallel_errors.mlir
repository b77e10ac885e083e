// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-sequence-parallel

// expected-error @+1 {{tpc-sequence-parallel needs a partitioned module (tpc.tp absent); run tpc-partition first}}
module {
  func.func @forward(%t: tensor<2x8xi32>) {
    return
  }
}

// -----

// expected-error @+1 {{module has no `forward` function with a body}}
module attributes {tpc.tp = 2 : i64} {
  func.func @eval(%t: tensor<2x8xi32>) {
    return
  }
}

// -----

module attributes {tpc.tp = 2 : i64} {
  // expected-error @+1 {{'func.func' op has no static sequence length (argument 0 is 'tensor<?x?xi32>'); sequence parallelism splits it over tp, so run tpc-specialize first}}
  func.func @forward(%t: tensor<?x?xi32>) {
    return
  }
}

// -----

module attributes {tpc.tp = 4 : i64} {
  // expected-error @+1 {{'func.func' op sequence length 6 does not divide by tp = 4; sequence parallelism gives each rank seq / tp positions, so choose a sequence length that is a multiple of 4}}
  func.func @forward(%t: tensor<2x6xi32>) {
    return
  }
}

// -----

// expected-error @+1 {{module is already sequence-parallel; run tpc-sequence-parallel once}}
module attributes {tpc.tp = 2 : i64} {
  func.func @forward(%t: tensor<2x8xi32>, %p: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
    %r = tpc.seq_scatter %p reduce : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
    return %r : tensor<2x4x16xf32>
  }
}

// -----

// A dropout that already draws a tensor-parallel slice's mask cannot also
// be split along the sequence.
module attributes {tpc.tp = 2 : i64} {
  func.func @forward(%t: tensor<2x8xi32>, %p: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %r = tpc.g %p group tp : tensor<2x8x16xf32>
    // expected-error @+1 {{'tpc.dropout' op already has layout <split 2> but drops out a sequence-parallel activation; only the duplicated dropouts between tensor-parallel blocks are split along the sequence}}
    %d = tpc.dropout %r p 0.1 per_rank key 1 layout <split 2> : tensor<2x8x16xf32>
    return %d : tensor<2x8x16xf32>
  }
}
