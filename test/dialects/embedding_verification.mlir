// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @table_rank(%t: tensor<64xf32>, %ids: tensor<?x?xi32>) {
  // expected-error @+1 {{table must have rank 2, got tensor<64xf32>}}
  %x = tpc.embedding %t, %ids : tensor<64xf32>, tensor<?x?xi32>
  return
}

// -----

func.func @ids_rank(%t: tensor<64x16xf32>, %ids: tensor<?xi32>) {
  // expected-error @+1 {{ids must have rank 2, got tensor<?xi32>}}
  %x = tpc.embedding %t, %ids : tensor<64x16xf32>, tensor<?xi32>
  return
}

// -----

func.func @ids_type(%t: tensor<64x16xf32>, %ids: tensor<?x?xi64>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer values}}
  %x = tpc.embedding %t, %ids : tensor<64x16xf32>, tensor<?x?xi64>
  return
}

// -----

func.func @table_type(%t: tensor<64x16xi32>, %ids: tensor<?x?xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %x = tpc.embedding %t, %ids : tensor<64x16xi32>, tensor<?x?xi32>
  return
}

// -----

func.func @result_type(%t: tensor<64x16xf32>, %ids: tensor<?x?xi32>) {
  // expected-error @+2 {{'tpc.embedding' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.embedding' op inferred type(s) 'tensor<?x?x16xf32>' are incompatible with return type(s) of operation 'tensor<?x?x32xf32>'}}
  %x = "tpc.embedding"(%t, %ids) : (tensor<64x16xf32>, tensor<?x?xi32>) -> tensor<?x?x32xf32>
  return
}
