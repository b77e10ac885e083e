// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @dim_too_large(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op gathers dimension 2 of a rank-2 tensor}}
  %y = tpc.all_gather %x dim 2 group dp : tensor<4x8xf32> -> tensor<4x8x2xf32>
  return
}

// -----

func.func @dim_negative(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op gathers dimension -1 of a rank-2 tensor}}
  %y = tpc.all_gather %x dim -1 group dp : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @rank(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x8x1xf32>' must have the rank and element type of 'tensor<4x8xf32>'}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x8xf32> -> tensor<4x8x1xf32>
  return
}

// -----

func.func @element_type(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x16xbf16>' must have the rank and element type of 'tensor<4x8xf32>'}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x8xf32> -> tensor<4x16xbf16>
  return
}

// -----

func.func @other_dim_differs(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<2x16xf32>' is not a gather of 'tensor<4x8xf32>' along dimension 1: dimension 0 differs}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x8xf32> -> tensor<2x16xf32>
  return
}

// -----

func.func @dp_not_a_multiple(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x12xf32>' is not a gather of 'tensor<4x8xf32>' along dimension 1: extent 12 is not a multiple of 8}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x8xf32> -> tensor<4x12xf32>
  return
}

// -----

func.func @dp_smaller(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x0xf32>' is not a gather of 'tensor<4x8xf32>' along dimension 1: extent 0 is not a multiple of 8}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x8xf32> -> tensor<4x0xf32>
  return
}

// -----

// An empty input gathers to an empty result.
func.func @dp_empty(%x: tensor<4x0xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x3xf32>' is not a gather of 'tensor<4x0xf32>' along dimension 1: extent 3 is not a multiple of 0}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x0xf32> -> tensor<4x3xf32>
  return
}

// -----

// Without `tpc.tp` the tp group has one rank.
func.func @tp_one(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x16xf32>' is not a gather of 'tensor<4x8xf32>' along dimension 1 over tp = 1; expected extent 8}}
  %y = tpc.all_gather %x dim 1 group tp : tensor<4x8xf32> -> tensor<4x16xf32>
  return
}

// -----

module attributes {tpc.tp = 2 : i64} {
  func.func @tp_two(%x: tensor<4x8xf32>) {
    // expected-error @+1 {{'tpc.all_gather' op result 'tensor<4x32xf32>' is not a gather of 'tensor<4x8xf32>' along dimension 1 over tp = 2; expected extent 16}}
    %y = tpc.all_gather %x dim 1 group tp : tensor<4x8xf32> -> tensor<4x32xf32>
    return
  }
}

// -----

func.func @input_element_type(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{'tpc.all_gather' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %y = tpc.all_gather %x dim 1 group dp : tensor<4x8xi32> -> tensor<4x16xi32>
  return
}
