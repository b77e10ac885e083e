// RUN: tpc-opt %s -split-input-file -verify-diagnostics --tpc-split-weight-grad

// The input gradient's type comes from the input in linear_grad, from dout
// in linear_input_grad: a dynamic batch in dout alone cannot be kept.
func.func @dynamic_dout(%dout: tensor<?x8x32xf32>, %x: tensor<2x8x16xf32>, %w: tensor<16x32xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'tpc.linear_grad' op result 'tensor<2x8x16xf32>' differs from 'tensor<?x8x16xf32>', which the split op infers from its operands; give dout, input and weight static shapes (run tpc-specialize first)}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<?x8x32xf32>, tensor<2x8x16xf32>, tensor<16x32xf32>
  return %dx : tensor<2x8x16xf32>
}

// -----

func.func @dynamic_features(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x?xf32>, %w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'tpc.linear_grad' op result 'tensor<16x32xf32>' differs from 'tensor<?x32xf32>'}}
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<2x8x32xf32>, tensor<2x8x?xf32>, tensor<16x32xf32>
  return %dw : tensor<16x32xf32>
}
