// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-partition

// expected-error @+1 {{module has no tpc.shard_tp attribute; run tpc-megatron-shard{tp=N} before tpc-partition}}
module {
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    return %x : tensor<2x4x12xf32>
  }
}

// -----

// expected-error @+1 {{module is already partitioned (tpc.tp = 2); partition the global model once}}
module attributes {tpc.shard_tp = 2 : i64, tpc.tp = 2 : i64} {
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    return %x : tensor<2x4x12xf32>
  }
}

// -----

// expected-error @+1 {{module has no `forward` function with a body; the Megatron rule reads the model's structure from func.func @forward, so define it}}
module attributes {tpc.shard_tp = 2 : i64} {
  func.func private @forward(tensor<2x4x12xf32>) -> tensor<2x4x12xf32>
}

// -----

// Layouts missing: the module was not sharded by tpc-megatron-shard.
module attributes {tpc.shard_tp = 2 : i64} {
  // expected-error @+1 {{'tpc.param' op parameter @fc has no layout but is the column-parallel weight of the MLP; run tpc-megatron-shard first}}
  tpc.param @fc : tensor<12x48xf32> init <normal, std = 0.02>
  tpc.param @proj : tensor<48x12xf32> init <normal, std = 0.02> layout <split 0>
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    %w1 = tpc.get_param @fc : tensor<12x48xf32>
    %w2 = tpc.get_param @proj : tensor<48x12xf32>
    %0 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x48xf32>
    %1 = tpc.gelu %0 : tensor<2x4x48xf32>
    %2 = tpc.linear %1, %w2 : tensor<2x4x48xf32>, tensor<48x12xf32>
    return %2 : tensor<2x4x12xf32>
  }
}

// -----

// A layout edited after tpc-megatron-shard.
module attributes {tpc.shard_tp = 2 : i64} {
  tpc.param @fc : tensor<12x48xf32> init <normal, std = 0.02> layout <split 1>
  // expected-error @+1 {{'tpc.param' op layout <replicated> of @proj is not what the Megatron rule needs for the row-parallel weight of the MLP; write `layout <split 0>` or remove the layout}}
  tpc.param @proj : tensor<48x12xf32> init <normal, std = 0.02> layout <replicated>
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    %w1 = tpc.get_param @fc : tensor<12x48xf32>
    %w2 = tpc.get_param @proj : tensor<48x12xf32>
    %0 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x48xf32>
    %1 = tpc.gelu %0 : tensor<2x4x48xf32>
    // expected-note @+1 {{read here as the row-parallel weight of the MLP}}
    %2 = tpc.linear %1, %w2 : tensor<2x4x48xf32>, tensor<48x12xf32>
    return %2 : tensor<2x4x12xf32>
  }
}

// -----

// The recorded tp must still split the heads.
module attributes {tpc.shard_tp = 8 : i64} {
  tpc.param @qkv : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>
  tpc.param @proj : tensor<16x16xf32> init <normal, std = 0.02> layout <split 0>
  func.func @forward(%x: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
    %w = tpc.get_param @qkv : tensor<16x48xf32>
    %p = tpc.get_param @proj : tensor<16x16xf32>
    %0 = tpc.linear %x, %w : tensor<2x4x16xf32>, tensor<16x48xf32>
    // expected-error @+1 {{'tpc.self_attention' op has 4 heads, which tp = 8 cannot split into whole heads per rank; choose a tp that divides 4}}
    %1 = tpc.self_attention %0 heads 4 causal : tensor<2x4x48xf32>
    %2 = tpc.linear %1, %p : tensor<2x4x16xf32>, tensor<16x16xf32>
    return %2 : tensor<2x4x16xf32>
  }
}

// -----

// Only @forward is partitioned; another function must not read split weights.
module attributes {tpc.shard_tp = 2 : i64} {
  tpc.param @fc : tensor<12x48xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @proj : tensor<48x12xf32> init <normal, std = 0.02> layout <split 0>
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    %w1 = tpc.get_param @fc : tensor<12x48xf32>
    %w2 = tpc.get_param @proj : tensor<48x12xf32>
    %0 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x48xf32>
    %1 = tpc.gelu %0 : tensor<2x4x48xf32>
    %2 = tpc.linear %1, %w2 : tensor<2x4x48xf32>, tensor<48x12xf32>
    return %2 : tensor<2x4x12xf32>
  }
  func.func @probe(%x: tensor<2x4x12xf32>) -> tensor<2x4x48xf32> {
    // expected-error @+1 {{'tpc.get_param' op reads the split parameter @fc outside @forward, which alone is partitioned; read it from @forward}}
    %w1 = tpc.get_param @fc : tensor<12x48xf32>
    %0 = tpc.linear %x, %w1 : tensor<2x4x12xf32>, tensor<12x48xf32>
    return %0 : tensor<2x4x48xf32>
  }
}

// -----

// A parameter no function reads keeps its layout, which tp must divide.
module attributes {tpc.shard_tp = 2 : i64} {
  // expected-error @+1 {{'tpc.param' op layout <split 0> of @odd cannot be split by tp = 2; give it a layout that divides or remove the layout}}
  tpc.param @odd : tensor<5xf32> init <zeros> layout <split 0>
  func.func @forward(%x: tensor<2x4x12xf32>) -> tensor<2x4x12xf32> {
    return %x : tensor<2x4x12xf32>
  }
}
