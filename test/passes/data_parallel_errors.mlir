// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-data-parallel
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel=bucket-bytes=0 2>&1 | FileCheck %s --check-prefix=BYTES

// BYTES: error: tpc-data-parallel: bucket-bytes must be >= 1, got 0

// Sharded but not partitioned: gradients are not yet at their local types.
// expected-error @+1 {{tpc-data-parallel needs a partitioned module, but this one is sharded ('tpc.shard_tp') and not partitioned; run tpc-partition first}}
module attributes {tpc.dp = 2 : i64, tpc.shard_tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
}

// -----

module attributes {tpc.dp = 2 : i64} {
  // expected-error @+1 {{tpc-data-parallel: parameter @h.0.mlp.c_fc.weight is split but the module has no 'tpc.tp'; run tpc-partition first, the optimizer step works on local types}}
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
}

// -----

// expected-error @+1 {{tpc-data-parallel found no tpc.param: the optimizer step is built from the module's parameters}}
module attributes {tpc.dp = 2 : i64, tpc.tp = 1 : i64} {
  func.func @forward() {
    return
  }
}

// -----

module attributes {tpc.dp = 2 : i64, tpc.tp = 2 : i64} {
  // expected-error @+1 {{tpc-data-parallel: parameter @h.0.mlp.c_proj.bias has layout <partial>; a parameter must be replicated or split to be updated}}
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros> layout <partial>
}

// -----

// expected-error @+1 {{tpc-data-parallel: 'tpc.dp' must be an integer >= 1 (the data-parallel size), got 0 : i64}}
module attributes {tpc.dp = 0 : i64, tpc.tp = 1 : i64} {
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
}

// -----

module attributes {tpc.dp = 2 : i64, tpc.tp = 1 : i64} {
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  // expected-error @+1 {{tpc-data-parallel: '@apply_step' already reduces gradients over dp; run tpc-data-parallel once}}
  func.func @apply_step(%lr: tensor<f32>, %inv_count: tensor<f32>) {
    tpc.bucket_all_reduce [@ln_f.weight] group dp
    return
  }
}

// -----

module attributes {tpc.dp = 2 : i64, tpc.tp = 1 : i64} {
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  // expected-error @+1 {{tpc-data-parallel: '@apply_step' must be a function of (%lr: tensor<f32>, %inv_count: tensor<f32>); rename this symbol}}
  func.func @apply_step(%lr: tensor<f32>) {
    return
  }
}
