// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @count(%dout: tensor<2x8x16xf32>, %alpha: tensor<3xf32>, %x: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum_grad' op has 2 inputs but alpha tensor<3xf32> holds a different number of weights}}
  %da, %dx:2 = tpc.weighted_sum_grad %dout, %alpha, %x, %x : tensor<2x8x16xf32>, tensor<3xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @input_types(%dout: tensor<2x8x16xf32>, %alpha: tensor<2xf32>, %x: tensor<2x8x16xf32>, %y: tensor<2x4x16xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum_grad' op inputs must share one type; got tensor<2x8x16xf32> and tensor<2x4x16xf32>}}
  %da, %dx:2 = tpc.weighted_sum_grad %dout, %alpha, %x, %y : tensor<2x8x16xf32>, tensor<2xf32>, tensor<2x8x16xf32>, tensor<2x4x16xf32>
  return
}

// -----

func.func @dout(%dout: tensor<2x8x32xf32>, %alpha: tensor<2xf32>, %x: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum_grad' op dout tensor<2x8x32xf32> is not an adjoint of the weighted_sum result tensor<2x8x16xf32>; pass the gradient of that result}}
  %da, %dx:2 = tpc.weighted_sum_grad %dout, %alpha, %x, %x : tensor<2x8x32xf32>, tensor<2xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @alpha_rank(%dout: tensor<2x8x16xf32>, %alpha: tensor<1x2xf32>, %x: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum_grad' op alpha must have rank 1, got tensor<1x2xf32>}}
  %da, %dx:2 = tpc.weighted_sum_grad %dout, %alpha, %x, %x : tensor<2x8x16xf32>, tensor<1x2xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
  return
}
