// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-cost-report -o /dev/null
// RUN: not tpc-opt %s --split-input-file "--tpc-cost-report=format=yaml" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tpc-opt %s --split-input-file "--tpc-cost-report=dp=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DP

// FORMAT: unknown format 'yaml'; use format=text or format=json
// DP: the data-parallel size must be >= 1, got 0

// The batch and sequence are still open: the report needs tpc-specialize.
tpc.param @wte : tensor<8x4xf32> init <normal, std = 0.02>
// expected-error @+1 {{argument 0 of @forward has 'tensor<?x?xi32>'; the cost report needs static shapes: run tpc-specialize (tpc-compile --micro-batch --seq) first}}
func.func @forward(%tokens: tensor<?x?xi32>) -> tensor<?x?x4xf32> {
  %w = tpc.get_param @wte : tensor<8x4xf32>
  %x = tpc.embedding %w, %tokens : tensor<8x4xf32>, tensor<?x?xi32>
  return %x : tensor<?x?x4xf32>
}

// -----

// expected-error @+1 {{the cost report needs a function @forward (or a single function with a body) to analyze}}
module {
  func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

// expected-error @+1 {{the cost report needs a [batch, seq] i32 token argument on @forward}}
func.func @forward(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = tpc.gelu %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
