// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @table_rank(%t: tensor<2x16x2xf32>, %ids: tensor<?x?xi32>) {
  // expected-error @+1 {{table must have rank 2, got tensor<2x16x2xf32>}}
  %e = tpc.token_type_embedding %t, %ids : tensor<2x16x2xf32>, tensor<?x?xi32>
  return
}

// -----

func.func @ids_rank(%t: tensor<2x16xf32>, %ids: tensor<4x8x1xi32>) {
  // expected-error @+1 {{ids must have rank 2, got tensor<4x8x1xi32>}}
  %e = tpc.token_type_embedding %t, %ids : tensor<2x16xf32>, tensor<4x8x1xi32>
  return
}

// -----

func.func @no_rows(%t: tensor<0x16xf32>, %ids: tensor<4x8xi32>) {
  // expected-error @+1 {{table tensor<0x16xf32> has no rows; it needs one per token type}}
  %e = tpc.token_type_embedding %t, %ids : tensor<0x16xf32>, tensor<4x8xi32>
  return
}

// -----

func.func @float_ids(%t: tensor<2x16xf32>, %ids: tensor<4x8xf32>) {
  // expected-error @+1 {{'tpc.token_type_embedding' op operand #1 must be ranked tensor of 32-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %e = tpc.token_type_embedding %t, %ids : tensor<2x16xf32>, tensor<4x8xf32>
  return
}
