// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tpc.add' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %y = tpc.add %x, %x : tensor<4xi32>
  return
}

// -----

func.func @operand_types(%x: tensor<4xf32>, %z: tensor<8xf32>) {
  // expected-error @+1 {{'tpc.add' op requires the same type for all operands and results}}
  %y = "tpc.add"(%x, %z) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+2 {{'tpc.add' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<?xf32>'}}
  %y = "tpc.add"(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  return
}
