// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-megatron-shard=tp=3
// RUN: not tpc-opt %s -split-input-file --tpc-megatron-shard=tp=0 2>&1 | FileCheck %s --check-prefix=TP0

// TP0: error: tensor-parallel size must be >= 1, got tp = 0; use tp=1 for a single rank

tpc.param @qkv : tensor<12x36xf32> init <normal, std = 0.02>
tpc.param @proj : tensor<12x12xf32> init <normal, std = 0.02>
func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
  %w = tpc.get_param @qkv : tensor<12x36xf32>
  %p = tpc.get_param @proj : tensor<12x12xf32>
  %0 = tpc.linear %x, %w : tensor<2x4x12xf32>, tensor<12x36xf32>
  // expected-error @+1 {{'tpc.self_attention' op has 4 heads, which tp = 3 cannot split into whole heads per rank; choose a tp that divides 4}}
  %1 = tpc.self_attention %0 heads 4 causal : tensor<2x4x36xf32>
  %2 = tpc.linear %1, %p : tensor<2x4x12xf32>, tensor<12x12xf32>
  return %2 : tensor<2x4x12xf32>
}

// -----

tpc.param @q : tensor<12x12xf32> init <normal, std = 0.02>
tpc.param @kv : tensor<12x24xf32> init <normal, std = 0.02>
tpc.param @proj : tensor<12x12xf32> init <normal, std = 0.02>
func.func @forward(%x: tensor<2x4x12xf32>, %y: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
  %wq = tpc.get_param @q : tensor<12x12xf32>
  %wkv = tpc.get_param @kv : tensor<12x24xf32>
  %p = tpc.get_param @proj : tensor<12x12xf32>
  %0 = tpc.linear %x, %wq : tensor<2x4x12xf32>, tensor<12x12xf32>
  %1 = tpc.linear %y, %wkv : tensor<2x4x12xf32>, tensor<12x24xf32>
  // expected-error @+1 {{'tpc.cross_attention' op has 2 heads, which tp = 3 cannot split into whole heads per rank; choose a tp that divides 2}}
  %2 = tpc.cross_attention %0, %1 heads 2 : tensor<2x4x12xf32>, tensor<2x4x24xf32>
  %3 = tpc.linear %2, %p : tensor<2x4x12xf32>, tensor<12x12xf32>
  return %3 : tensor<2x4x12xf32>
}

// -----

// The MLP's 4H = 64 does not divide by 3.
tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros>
tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02>
func.func @forward(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %w1 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
  %b1 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
  %w2 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
  // expected-error @+2 {{'tpc.linear' op cannot split the column-parallel weight of the MLP @h.0.mlp.c_fc.weight: dimension 1 (64) does not divide by tp = 3; choose a tp that divides 64}}
  // expected-error @+1 {{'tpc.linear' op cannot split the column-parallel bias of the MLP @h.0.mlp.c_fc.bias: dimension 0 (64) does not divide by tp = 3; choose a tp that divides 64}}
  %0 = tpc.linear %x, %w1, %b1 : tensor<2x4x16xf32>, tensor<16x64xf32>, tensor<64xf32>
  %1 = tpc.gelu %0 : tensor<2x4x64xf32>
  // expected-error @+1 {{'tpc.linear' op cannot split the row-parallel weight of the MLP @h.0.mlp.c_proj.weight: dimension 0 (64) does not divide by tp = 3; choose a tp that divides 64}}
  %2 = tpc.linear %1, %w2 : tensor<2x4x64xf32>, tensor<64x16xf32>
  return %2 : tensor<2x4x16xf32>
}

// -----

// A layout written by hand that the rule cannot honour.
// expected-error @+1 {{'tpc.param' op layout <split 0> of @fc is not what the Megatron rule needs for the column-parallel weight of the MLP; write `layout <split 1>` or remove the layout}}
tpc.param @fc : tensor<12x48xf32> init <normal, std = 0.02> layout <split 0>
tpc.param @proj : tensor<48x12xf32> init <normal, std = 0.02>
func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
  %w1 = tpc.get_param @fc : tensor<12x48xf32>
  %w2 = tpc.get_param @proj : tensor<48x12xf32>
  // expected-note @+1 {{read here as the column-parallel weight of the MLP}}
  %0 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x48xf32>
  %1 = tpc.gelu %0 : tensor<2x4x48xf32>
  %2 = tpc.linear %1, %w2 : tensor<2x4x48xf32>, tensor<48x12xf32>
  return %2 : tensor<2x4x12xf32>
}

// -----

// expected-error @+1 {{'tpc.param' op layout <partial> of @g is not what the Megatron rule needs for the replicated operand of 'tpc.layernorm'; write `layout <replicated>` or remove the layout}}
tpc.param @g : tensor<12xf32> init <ones> layout <partial>
tpc.param @b : tensor<12xf32> init <zeros>
func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
  %g = tpc.get_param @g : tensor<12xf32>
  %b = tpc.get_param @b : tensor<12xf32>
  // expected-note @+1 {{read here as the replicated operand of 'tpc.layernorm'}}
  %0 = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<2x4x12xf32>, tensor<12xf32>, tensor<12xf32>
  return %0 : tensor<2x4x12xf32>
}

// -----

// One parameter in two roles: split as an MLP weight, whole for another op.
// expected-error @+1 {{'tpc.param' op parameter @fc is read as the replicated operand of 'tpc.linear' (<replicated>) and as the column-parallel weight of the MLP (<split 1>); one layout cannot serve both, so give each use its own parameter}}
tpc.param @fc : tensor<12x12xf32> init <normal, std = 0.02>
tpc.param @proj : tensor<12x12xf32> init <normal, std = 0.02>
func.func @forward(%x: tensor<2x4x12xf32>) -> (tensor<2x4x12xf32>, tensor<2x4x12xf32>) {
  %w1 = tpc.get_param @fc : tensor<12x12xf32>
  %w2 = tpc.get_param @proj : tensor<12x12xf32>
  // expected-note @+1 {{read here as the column-parallel weight of the MLP}}
  %0 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x12xf32>
  %1 = tpc.gelu %0 : tensor<2x4x12xf32>
  %2 = tpc.linear %1, %w2 : tensor<2x4x12xf32>, tensor<12x12xf32>
  // expected-note @+1 {{read here as the replicated operand of 'tpc.linear'}}
  %3 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x12xf32>
  return %2, %3 : tensor<2x4x12xf32>, tensor<2x4x12xf32>
}

// -----

// expected-error @+1 {{module has no `forward` function with a body; the Megatron rule reads the model's structure from func.func @forward, so define it}}
module {
  func.func @train(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    return %x : tensor<2x4x12xf32>
  }
}

// -----

// expected-error @+1 {{module is already partitioned (tpc.tp = 2); run tpc-megatron-shard on the global model}}
module attributes {tpc.tp = 2 : i64} {
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    return %x : tensor<2x4x12xf32>
  }
}

// -----

// Every layer repeats the problem: one error, at the first, with the count.
tpc.param @qkv0 : tensor<12x36xf32> init <normal, std = 0.02>
tpc.param @proj0 : tensor<12x12xf32> init <normal, std = 0.02>
tpc.param @qkv1 : tensor<12x36xf32> init <normal, std = 0.02>
tpc.param @proj1 : tensor<12x12xf32> init <normal, std = 0.02>
func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
  %w0 = tpc.get_param @qkv0 : tensor<12x36xf32>
  %p0 = tpc.get_param @proj0 : tensor<12x12xf32>
  %w1 = tpc.get_param @qkv1 : tensor<12x36xf32>
  %p1 = tpc.get_param @proj1 : tensor<12x12xf32>
  %0 = tpc.linear %x, %w0 : tensor<2x4x12xf32>, tensor<12x36xf32>
  // expected-error @+1 {{'tpc.self_attention' op has 4 heads, which tp = 3 cannot split into whole heads per rank; choose a tp that divides 4 (2 tpc.self_attention ops have this problem; this is the first)}}
  %1 = tpc.self_attention %0 heads 4 causal : tensor<2x4x36xf32>
  %2 = tpc.linear %1, %p0 : tensor<2x4x12xf32>, tensor<12x12xf32>
  %3 = tpc.linear %2, %w1 : tensor<2x4x12xf32>, tensor<12x36xf32>
  %4 = tpc.self_attention %3 heads 4 causal : tensor<2x4x36xf32>
  %5 = tpc.linear %4, %p1 : tensor<2x4x12xf32>, tensor<12x12xf32>
  return %5 : tensor<2x4x12xf32>
}
