// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @group_dp(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.f' op works on group tp, not dp: it is the tensor-parallel conjugate of tpc.g; use tpc.all_reduce for group dp}}
  %y = tpc.f %x group dp : tensor<?x16xf32>
  return
}

// -----

func.func @unknown_group(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{custom op 'tpc.f' expected string or keyword containing one of the following enum values for attribute 'group' [tp, dp, pp, embedding]}}
  %y = tpc.f %x group cp : tensor<?x16xf32>
  return
}

// -----

func.func @element_type(%x: tensor<?x16xi32>) {
  // expected-error @+1 {{'tpc.f' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %y = tpc.f %x group tp : tensor<?x16xi32>
  return
}

// -----

func.func @result_type(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.f' op requires the same type for all operands and results}}
  %y = "tpc.f"(%x) <{group = 0 : i32}> : (tensor<?x16xf32>) -> tensor<?x8xf32>
  return
}
