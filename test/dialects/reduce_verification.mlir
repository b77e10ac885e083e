// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @unknown_keyword(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'tpc.all_reduce' expected string or keyword containing one of the following enum values for attribute 'reduce' [sum, max]}}
  %y = tpc.all_reduce %x mean group tp : tensor<4xf32>
  return
}

// -----

func.func @unknown_value(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {group = 0 : i32, reduce = 7 : i32} for op tpc.all_reduce: Invalid attribute `reduce` in property conversion: 7 : i32}}
  %y = "tpc.all_reduce"(%x) <{group = 0 : i32, reduce = 7 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}
