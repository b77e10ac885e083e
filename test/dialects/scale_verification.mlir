// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @infinite(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.scale' op factor must be finite, got INF}}
  %y = tpc.scale %x by 0x7FF0000000000000 : tensor<4xf32>
  return
}

// -----

func.func @nan(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.scale' op factor must be finite, got nan}}
  %y = tpc.scale %x by 0x7FF8000000000000 : tensor<4xf32>
  return
}

// -----

func.func @integer(%x: tensor<4xi32>) {
  // expected-error @+1 {{'tpc.scale' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values, but got 'tensor<4xi32>'}}
  %y = tpc.scale %x by 2.0 : tensor<4xi32>
  return
}

// -----

func.func @result_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tpc.scale' op requires the same type for all operands and results}}
  %y = "tpc.scale"(%x) <{factor = 2.0 : f64}> : (tensor<4xf32>) -> tensor<4xf16>
  return
}
