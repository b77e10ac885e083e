// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @same_type(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  // expected-error @+1 {{'tpc.cast' op casts 'tensor<4xbf16>' to its own element type; remove it}}
  %y = tpc.cast %x : tensor<4xbf16> to tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// -----

func.func @reshape(%x: tensor<4xbf16>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'tpc.cast' op requires the same shape for all operands and results}}
  %y = tpc.cast %x : tensor<4xbf16> to tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

func.func @ids(%x: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tpc.cast' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %y = tpc.cast %x : tensor<4xi32> to tensor<4xf32>
  return %y : tensor<4xf32>
}
