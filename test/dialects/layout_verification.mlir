// RUN: tpc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown layout 'sharded'; expected replicated, split or partial}}
tpc.param @w : tensor<4xf32> init <zeros> layout <sharded 0>

// -----

// expected-error @+1 {{expected integer value}}
tpc.param @w : tensor<4xf32> init <zeros> layout <split>

// -----

// expected-error @+1 {{split layout needs a dimension >= 0, got -1}}
tpc.param @w : tensor<4xf32> init <zeros> layout <split -1>

// -----

// expected-error @+1 {{split layout needs blocks >= 1, got 0}}
tpc.param @w : tensor<4xf32> init <zeros> layout <split 0 blocks 0>

// -----

// expected-error @+1 {{expected integer value}}
tpc.param @w : tensor<4xf32> init <zeros> layout <split 0 blocks>

// -----

// Only split takes a dimension.
// expected-error @+1 {{expected '>'}}
tpc.param @w : tensor<4xf32> init <zeros> layout <replicated 0>

// -----

// Only split takes blocks.
// expected-error @+1 {{expected '>'}}
tpc.param @w : tensor<4xf32> init <zeros> layout <partial blocks 3>

// -----

// A split dimension beyond the tensor's rank.
// expected-error @+1 {{'tpc.param' op layout splits dimension 1 but @w has rank 1; use a dimension below 1}}
tpc.param @w : tensor<4xf32> init <zeros> layout <split 1>

// -----

// A split that does not divide the dimension.
module attributes {tpc.tp = 8 : i64} {
  // expected-error @+1 {{'tpc.param' op split of dimension 0 of @w (4) does not divide by tp = 8; pad the dimension or choose a tp that divides it}}
  tpc.param @w : tensor<4xf32> init <zeros> layout <split 0>
}

// -----

func.func @standalone() attributes {
    // expected-error @+1 {{unknown layout 'tiled'; expected replicated, split or partial}}
    a = #tpc.layout<tiled>} {
  return
}
