// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-optimizer
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer=optimizer=lamb 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer=max-grad-norm=-1 2>&1 | FileCheck %s --check-prefix=CLIP
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer=momentum=0.9 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir '--tpc-optimizer=optimizer=sgd momentum=1.5' 2>&1 | FileCheck %s --check-prefix=SGDMOMENTUM
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer=beta2=1 2>&1 | FileCheck %s --check-prefix=BETA
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer=eps=0 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer=weight-decay=-0.1 2>&1 | FileCheck %s --check-prefix=DECAY

// NAME: error: tpc-optimizer: unknown optimizer 'lamb'; choose adamw or sgd
// CLIP: error: tpc-optimizer: max-grad-norm must be a finite number >= 0 (0 disables clipping), got -1.000000e+00
// MOMENTUM: error: tpc-optimizer: momentum applies to sgd; adamw's are beta1 and beta2
// SGDMOMENTUM: error: tpc-optimizer: momentum must be in [0, 1), got 1.500000e+00
// BETA: error: tpc-optimizer: beta2 must be in [0, 1), got 1.000000e+00
// EPS: error: tpc-optimizer: eps must be a finite number > 0, got 0.000000e+00
// DECAY: error: tpc-optimizer: weight-decay must be in [0, 1], got -1.000000e-01

// expected-error @+1 {{tpc-optimizer needs a partitioned module, but this one is sharded ('tpc.shard_tp') and not partitioned; run tpc-partition first}}
module attributes {tpc.shard_tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
}

// -----

module {
  // expected-error @+1 {{tpc-optimizer: parameter @h.0.mlp.c_fc.weight is split but the module has no 'tpc.tp'; run tpc-partition first, the optimizer step works on local types}}
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
}

// -----

// expected-error @+1 {{tpc-optimizer found no tpc.param: the optimizer step is built from the module's parameters}}
module attributes {tpc.tp = 2 : i64} {
  func.func @forward() {
    return
  }
}

// -----

module attributes {tpc.tp = 1 : i64} {
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  // expected-error @+1 {{tpc-optimizer: '@apply_step' already has an optimizer step ('tpc.get_grad'); run tpc-optimizer once}}
  func.func @apply_step(%lr: tensor<f32>, %inv_count: tensor<f32>) -> tensor<f32> {
    %g = tpc.get_grad @ln_f.weight : tensor<16xf32>
    %sq = tpc.sum_squares %g : tensor<16xf32>
    return %sq : tensor<f32>
  }
}

// -----

module attributes {tpc.tp = 1 : i64} {
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  // expected-error @+1 {{tpc-optimizer: '@apply_step' must be a function of (%lr: tensor<f32>, %inv_count: tensor<f32>); rename this symbol}}
  func.func private @apply_step(tensor<f32>, tensor<f32>)
}
