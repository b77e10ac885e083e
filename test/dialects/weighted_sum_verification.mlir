// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @no_inputs(%alpha: tensor<0xf32>) {
  // expected-error @+2 {{'tpc.weighted_sum' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.weighted_sum' op needs at least one input}}
  %y = "tpc.weighted_sum"(%alpha) : (tensor<0xf32>) -> tensor<0xf32>
  return
}

// -----

func.func @alpha_rank(%alpha: tensor<1x2xf32>, %a: tensor<?x16xf32>, %b: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum' op alpha must have rank 1, got tensor<1x2xf32>}}
  %y = tpc.weighted_sum %alpha, %a, %b : tensor<1x2xf32>, tensor<?x16xf32>, tensor<?x16xf32>
  return
}

// -----

func.func @alpha_length(%alpha: tensor<3xf32>, %a: tensor<?x16xf32>, %b: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum' op has 2 inputs but alpha tensor<3xf32> holds a different number of weights}}
  %y = tpc.weighted_sum %alpha, %a, %b : tensor<3xf32>, tensor<?x16xf32>, tensor<?x16xf32>
  return
}

// -----

func.func @input_shapes(%alpha: tensor<2xf32>, %a: tensor<?x16xf32>, %b: tensor<?x32xf32>) {
  // expected-error @+1 {{'tpc.weighted_sum' op inputs must share one type; got tensor<?x16xf32> and tensor<?x32xf32>}}
  %y = tpc.weighted_sum %alpha, %a, %b : tensor<2xf32>, tensor<?x16xf32>, tensor<?x32xf32>
  return
}

// -----

func.func @input_element_types(%alpha: tensor<2xf32>, %a: tensor<4xf32>, %b: tensor<4xbf16>) {
  // expected-error @+1 {{'tpc.weighted_sum' op inputs must share one type; got tensor<4xf32> and tensor<4xbf16>}}
  %y = tpc.weighted_sum %alpha, %a, %b : tensor<2xf32>, tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

func.func @result_type(%alpha: tensor<2xf32>, %a: tensor<4xf32>) {
  // expected-error @+2 {{'tpc.weighted_sum' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.weighted_sum' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<8xf32>'}}
  %y = "tpc.weighted_sum"(%alpha, %a, %a) : (tensor<2xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return
}
