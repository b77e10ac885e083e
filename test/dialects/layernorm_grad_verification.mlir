// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @dout_shape(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm_grad' op dout tensor<2x8x32xf32> is not an adjoint of the layernorm result tensor<2x8x16xf32>; pass the gradient of that result}}
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<16xf32>
  return
}

// -----

func.func @dout_element(%dout: tensor<2x8x16xbf16>, %x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm_grad' op dout tensor<2x8x16xbf16> is not an adjoint of the layernorm result tensor<2x8x16xf32>}}
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<2x8x16xbf16>, tensor<2x8x16xf32>, tensor<16xf32>
  return
}

// -----

func.func @scale_width(%dout: tensor<2x8x16xf32>, %x: tensor<2x8x16xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'tpc.layernorm_grad' op scale tensor<8xf32> does not match the last dimension of tensor<2x8x16xf32>}}
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<8xf32>
  return
}

// -----

func.func @scale_rank(%dout: tensor<2x8x16xf32>, %x: tensor<2x8x16xf32>, %g: tensor<1x16xf32>) {
  // expected-error @+1 {{'tpc.layernorm_grad' op scale must have rank 1, got tensor<1x16xf32>}}
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<1x16xf32>
  return
}

// -----

func.func @scale_element(%dout: tensor<2x8x16xf32>, %x: tensor<2x8x16xf32>, %g: tensor<16xbf16>) {
  // expected-error @+1 {{'tpc.layernorm_grad' op scale of element type bf16 cannot normalize an input of f32; use the input's element type or f32}}
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<16xbf16>
  return
}

// -----

func.func @epsilon(%dout: tensor<2x8x16xf32>, %x: tensor<2x8x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm_grad' op epsilon must be a finite number > 0, got 0.000000e+00; use the forward layernorm's}}
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 0.0 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<16xf32>
  return
}
