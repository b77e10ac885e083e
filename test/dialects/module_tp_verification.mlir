// RUN: tpc-opt %s -split-input-file -verify-diagnostics

// The module attribute `tpc.tp`: the tensor-parallel size, an integer >= 1.

// expected-error @+1 {{'tpc.tp' must be >= 1, got 0}}
module attributes {tpc.tp = 0 : i64} {
}

// -----

// expected-error @+1 {{'tpc.tp' must be >= 1, got -2}}
module attributes {tpc.tp = -2 : i64} {
}

// -----

// expected-error @+1 {{'tpc.tp' must be an integer (the tensor-parallel size), got 2.000000e+00 : f64}}
module attributes {tpc.tp = 2.0 : f64} {
}

// -----

// expected-error @+1 {{'tpc.tp' must be an integer (the tensor-parallel size), got "2"}}
module attributes {tpc.tp = "2"} {
}

// -----

// expected-error @+1 {{'tpc.tp' must be an integer (the tensor-parallel size), got 2 : index}}
module attributes {tpc.tp = 2 : index} {
}

// -----

// expected-error @+1 {{'tpc.tp' is the tensor-parallel size of a module; put it on the builtin.module, not on 'func.func'}}
func.func @forward() attributes {tpc.tp = 2 : i64} {
  return
}

// -----

// An invalid size is reported once, before the ops that would use it.
// expected-error @+1 {{'tpc.tp' must be >= 1, got 0}}
module attributes {tpc.tp = 0 : i64} {
  tpc.param @w : tensor<4xf32> init <zeros> layout <split 0>
  func.func @read() -> tensor<4xf32> {
    %w = tpc.get_param @w : tensor<4xf32>
    return %w : tensor<4xf32>
  }
}
