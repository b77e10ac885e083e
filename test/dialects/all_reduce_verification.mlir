// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @element_type(%x: tensor<4xi64>) {
  // expected-error @+1 {{'tpc.all_reduce' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float or 32-bit signless integer values, but got 'tensor<4xi64>'}}
  %y = tpc.all_reduce %x sum group dp : tensor<4xi64>
  return
}

// -----

func.func @unknown_reduce(%x: tensor<f32>) {
  // expected-error @+1 {{custom op 'tpc.all_reduce' expected string or keyword containing one of the following enum values for attribute 'reduce' [sum, max]}}
  %y = tpc.all_reduce %x min group dp : tensor<f32>
  return
}

// -----

func.func @unknown_group(%x: tensor<f32>) {
  // expected-error @+1 {{custom op 'tpc.all_reduce' expected string or keyword containing one of the following enum values for attribute 'group' [tp, dp, pp, embedding]}}
  %y = tpc.all_reduce %x sum group world : tensor<f32>
  return
}

// -----

func.func @result_type(%x: tensor<f32>) {
  // expected-error @+1 {{'tpc.all_reduce' op requires the same type for all operands and results}}
  %y = "tpc.all_reduce"(%x) <{group = 1 : i32, reduce = 0 : i32}> : (tensor<f32>) -> tensor<i32>
  return
}
