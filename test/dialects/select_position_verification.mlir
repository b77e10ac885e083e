// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @rank(%h: tensor<2x64xf32>) {
  // expected-error @+1 {{'tpc.select_position' op input must have rank 3, got tensor<2x64xf32>}}
  %a = tpc.select_position %h at 0 : tensor<2x64xf32>
  return
}

// -----

func.func @past_the_end(%h: tensor<2x16x64xf32>) {
  // expected-error @+1 {{'tpc.select_position' op position 16 is not one of the 16 positions of tensor<2x16x64xf32>}}
  %a = tpc.select_position %h at 16 : tensor<2x16x64xf32>
  return
}

// -----

func.func @negative(%h: tensor<2x?x64xf32>) {
  // expected-error @+1 {{'tpc.select_position' op position -1 is not one of the ? positions of tensor<2x?x64xf32>}}
  %a = tpc.select_position %h at -1 : tensor<2x?x64xf32>
  return
}

// -----

func.func @result(%h: tensor<2x16x64xf32>) {
  // expected-error @+2 {{'tpc.select_position' op inferred type(s) 'tensor<2x1x64xf32>' are incompatible with return type(s) of operation 'tensor<2x2x64xf32>'}}
  // expected-error @+1 {{'tpc.select_position' op failed to infer returned types}}
  %a = "tpc.select_position"(%h) {position = 0 : i64} : (tensor<2x16x64xf32>) -> tensor<2x2x64xf32>
  return
}
