// RUN: tpc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'tpc.param' op parameter @wte must have a static global shape, got 'tensor<?x16xf32>'}}
tpc.param @wte : tensor<?x16xf32> init <normal, std = 0.02>

// -----

// expected-error @+1 {{'tpc.param' op parameter @ids has element type 'i32'; parameters are f32, bf16 or f16 tensors}}
tpc.param @ids : tensor<16xi32> init <zeros>

// -----

// expected-error @+1 {{'tpc.param' op attribute 'type' failed to satisfy constraint: type attribute of ranked tensor of any type values}}
tpc.param @w : memref<16xf32> init <zeros>

// -----

// expected-error @+1 {{'tpc.param' op layout splits dimension 2 but @h.0.mlp.c_fc.weight has rank 2; use a dimension below 2}}
tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 2>

// -----

// expected-error @+1 {{'tpc.param' op dimension 1 of @h.0.attn.c_attn.weight (50) is not made of 3 equal blocks}}
tpc.param @h.0.attn.c_attn.weight : tensor<16x50xf32> init <normal, std = 0.02> layout <split 1 blocks 3>

// -----

module attributes {tpc.tp = 4 : i64} {
  // expected-error @+1 {{'tpc.param' op split of dimension 0 of @wte (66) does not divide by tp = 4; pad the dimension or choose a tp that divides it}}
  tpc.param @wte : tensor<66x16xf32> init <normal, std = 0.02> layout <split 0>
}

// -----

// 48 = 3 blocks of 16, and 16 does not divide by tp = 32.
module attributes {tpc.tp = 32 : i64} {
  // expected-error @+1 {{'tpc.param' op split of dimension 1 of @h.0.attn.c_attn.weight (48 in 3 blocks) does not divide by tp = 32; pad the dimension or choose a tp that divides it}}
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>
}

// -----

// 48 divides by tp = 6, but its 3 blocks of 16 do not.
module attributes {tpc.tp = 6 : i64} {
  // expected-error @+1 {{'tpc.param' op split of dimension 1 of @h.0.attn.c_attn.weight (48 in 3 blocks) does not divide by tp = 6}}
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>
}

// -----

// expected-note @+1 {{see existing symbol definition here}}
tpc.param @wte : tensor<4xf32> init <zeros>
// expected-error @+1 {{redefinition of symbol named 'wte'}}
tpc.param @wte : tensor<4xf32> init <zeros>

// -----

func.func @nested() {
  // expected-error @+1 {{'tpc.param' op expects parent op 'builtin.module'}}
  tpc.param @w : tensor<4xf32> init <zeros>
  return
}

// -----

// expected-error @+1 {{expected 'init'}}
tpc.param @w : tensor<4xf32> layout <replicated>

// -----

// expected-error @+1 {{'tpc.param' op parameter @w has a compute type but is declared 'bf16'; the declared type is the master copy, which is f32}}
tpc.param @w : tensor<4xbf16> init <zeros> compute f16

// -----

// expected-error @+1 {{'tpc.param' op parameter @w computes in 'f32'; a working copy is bf16 or f16 (drop `compute` for f32)}}
tpc.param @w : tensor<4xf32> init <zeros> compute f32

// -----

// expected-error @+1 {{'tpc.param' op parameter @w has 'f16' gradients but computes in 'bf16'; gradients are of the compute type or f32}}
tpc.param @w : tensor<4xf32> init <zeros> compute bf16 grad f16
