// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-mixed-precision=precision=bf16
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-mixed-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=PRECISION
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir "--tpc-mixed-precision=precision=bf16 grad-reduce-dtype=f64" 2>&1 | FileCheck %s --check-prefix=GRAD
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-mixed-precision=precision=bf16 --tpc-mixed-precision=precision=bf16 2>&1 | FileCheck %s --check-prefix=TWICE

// PRECISION: error: tpc-mixed-precision: unknown precision 'fp8'; use fp32, bf16 or fp16
// GRAD: error: tpc-mixed-precision: unknown grad-reduce-dtype 'f64'; use compute (the compute type) or fp32
// TWICE: error: tpc-mixed-precision: parameter @wte already has a working copy; run tpc-mixed-precision once

// expected-error @+1 {{tpc-mixed-precision needs a partitioned module (no 'tpc.tp'); run tpc-partition first}}
module {
  tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
}

// -----

// expected-error @+1 {{tpc-mixed-precision runs before tpc-autodiff, but the module already has @train_step; run it between tpc-partition and tpc-autodiff}}
module attributes {tpc.tp = 1 : i64} {
  tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
  func.func @train_step() {
    return
  }
}

// -----

module attributes {tpc.tp = 1 : i64} {
  // expected-error @+1 {{tpc-mixed-precision: parameter @wte is 'tensor<64x16xbf16>', but mixed precision keeps an f32 master copy of every parameter; declare it f32}}
  tpc.param @wte : tensor<64x16xbf16> init <normal, std = 0.02>
}
