// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @p_one(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op dropout probability must be in [0, 1), got 1.000000e+00}}
  %y = tpc.dropout %x p 1.0 replicated key 1 : tensor<?x16xf32>
  return
}

// -----

func.func @p_negative(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op dropout probability must be in [0, 1), got -2.500000e-01}}
  %y = tpc.dropout %x p -0.25 replicated key 1 : tensor<?x16xf32>
  return
}

// -----

func.func @p_nan(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op dropout probability must be in [0, 1), got}}
  %y = tpc.dropout %x p 0x7FF8000000000000 replicated key 1 : tensor<?x16xf32>
  return
}

// -----

func.func @layout_on_replicated_stream(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op a layout is only meaningful for a per_rank stream; drop the layout or use per_rank}}
  %y = tpc.dropout %x p 0.1 replicated key 1 layout <split 1> : tensor<?x16xf32>
  return
}

// -----

func.func @partial_layout(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op cannot drop out a partial sum: the masks of the summands would not be one mask of the sum; apply it after tpc.g}}
  %y = tpc.dropout %x p 0.1 per_rank key 1 layout <partial> : tensor<?x16xf32>
  return
}

// -----

func.func @split_dim_out_of_range(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op layout splits dimension 2 of a rank-2 tensor; use a dimension below 2}}
  %y = tpc.dropout %x p 0.1 per_rank key 1 layout <split 2> : tensor<?x16xf32>
  return
}

// -----

func.func @blocks_not_dividing(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{'tpc.dropout' op dimension 1 of 'tensor<?x16xf32>' (16) is not made of 3 equal blocks}}
  %y = tpc.dropout %x p 0.1 per_rank key 1 layout <split 1 blocks 3> : tensor<?x16xf32>
  return
}

// -----

func.func @unknown_stream(%x: tensor<?x16xf32>) {
  // expected-error @+1 {{custom op 'tpc.dropout' expected string or keyword containing one of the following enum values for attribute 'stream' [replicated, per_rank]}}
  %y = tpc.dropout %x p 0.1 everywhere key 1 : tensor<?x16xf32>
  return
}

// -----

func.func @element_type(%x: tensor<?x16xi32>) {
  // expected-error @+1 {{'tpc.dropout' op operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %y = tpc.dropout %x p 0.1 replicated key 1 : tensor<?x16xi32>
  return
}

// -----

func.func @result_type(%x: tensor<?x16xf32>) {
  // expected-error @+2 {{'tpc.dropout' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.dropout' op inferred type(s) 'tensor<?x16xf32>' are incompatible with return type(s) of operation 'tensor<4x16xf32>'}}
  %y = "tpc.dropout"(%x) <{key = 1 : i64, p = 0.1 : f64, stream = 0 : i32}> : (tensor<?x16xf32>) -> tensor<4x16xf32>
  return
}
