// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @table_rank(%t: tensor<8x16x2xf32>, %ids: tensor<?x?xi32>) {
  // expected-error @+1 {{table must have rank 2, got tensor<8x16x2xf32>}}
  %p = tpc.position_embedding %t, %ids : tensor<8x16x2xf32>, tensor<?x?xi32>
  return
}

// -----

func.func @ids_rank(%t: tensor<8x16xf32>, %ids: tensor<4x8x1xi32>) {
  // expected-error @+1 {{ids must have rank 2, got tensor<4x8x1xi32>}}
  %p = tpc.position_embedding %t, %ids : tensor<8x16xf32>, tensor<4x8x1xi32>
  return
}

// -----

func.func @too_long(%t: tensor<8x16xf32>, %ids: tensor<4x9xi32>) {
  // expected-error @+1 {{sequence length 9 exceeds the 8 positions of the table; use --seq <= 8 or a longer table}}
  %p = tpc.position_embedding %t, %ids : tensor<8x16xf32>, tensor<4x9xi32>
  return
}

// -----

func.func @result_type(%t: tensor<8x16xf32>, %ids: tensor<4x8xi32>) {
  // expected-error @+2 {{'tpc.position_embedding' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.position_embedding' op inferred type(s) 'tensor<4x8x16xf32>' are incompatible with return type(s) of operation 'tensor<4x8x16xbf16>'}}
  %p = "tpc.position_embedding"(%t, %ids) : (tensor<8x16xf32>, tensor<4x8xi32>) -> tensor<4x8x16xbf16>
  return
}

// -----

func.func @offset_type(%wpe: tensor<32x16xf32>, %ids: tensor<1x1xi32>, %pos: tensor<f32>) {
  // expected-error @+1 {{'tpc.position_embedding' op operand #2 must be 0D tensor of 32-bit signless integer values}}
  %p = tpc.position_embedding %wpe, %ids offset %pos : tensor<32x16xf32>, tensor<1x1xi32>, tensor<f32>
  return
}
