// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @unknown_keyword(%x: tensor<4xf32>) {
  // expected-error @+1 {{custom op 'tpc.all_reduce' expected string or keyword containing one of the following enum values for attribute 'group' [tp, dp, pp, embedding]}}
  %y = tpc.all_reduce %x sum group cp : tensor<4xf32>
  return
}

// -----

func.func @unknown_value(%x: tensor<4xf32>) {
  // expected-error @+1 {{invalid properties {group = 7 : i32, reduce = 0 : i32} for op tpc.all_reduce: Invalid attribute `group` in property conversion: 7 : i32}}
  %y = "tpc.all_reduce"(%x) <{group = 7 : i32, reduce = 0 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// f and g belong to the tensor-parallel group.
func.func @g_on_dp(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.g' op works on group tp, not dp}}
  %y = tpc.g %x group dp : tensor<4xf32>
  return
}
