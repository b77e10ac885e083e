// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @unknown_keyword(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'tpc.dropout' expected string or keyword containing one of the following enum values for attribute 'stream' [replicated, per_rank]}}
  %y = tpc.dropout %x p 0.1 shared key 1 : tensor<4xf32>
  return
}

// -----

func.func @unknown_value(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {key = 1 : i64, p = 1.000000e-01 : f64, stream = 3 : i32} for op tpc.dropout: Invalid attribute `stream` in property conversion: 3 : i32}}
  %y = "tpc.dropout"(%x) <{key = 1 : i64, p = 0.1 : f64, stream = 3 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// A layout describes a per_rank stream's slice of the global tensor.
func.func @layout_needs_per_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.dropout' op a layout is only meaningful for a per_rank stream}}
  %y = tpc.dropout %x p 0.1 replicated key 1 layout <split 0> : tensor<4xf32>
  return
}
