// RUN: tpc-opt %s -split-input-file -verify-diagnostics

func.func @input_rank(%x: tensor<f32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm' op input must have rank >= 1, got tensor<f32>}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @gamma_rank(%x: tensor<?x16xf32>, %g: tensor<1x16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm' op scale and shift must have rank 1, got tensor<1x16xf32>}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x16xf32>, tensor<1x16xf32>, tensor<16xf32>
  return
}

// -----

func.func @beta_rank(%x: tensor<?x16xf32>, %g: tensor<16xf32>, %b: tensor<f32>) {
  // expected-error @+1 {{'tpc.layernorm' op scale and shift must have rank 1, got tensor<f32>}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x16xf32>, tensor<16xf32>, tensor<f32>
  return
}

// -----

func.func @gamma_extent(%x: tensor<?x16xf32>, %g: tensor<8xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm' op scale and shift tensor<8xf32> do not match the last dimension of tensor<?x16xf32>}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x16xf32>, tensor<8xf32>, tensor<16xf32>
  return
}

// -----

func.func @beta_extent(%x: tensor<?x16xf32>, %g: tensor<16xf32>, %b: tensor<32xf32>) {
  // expected-error @+1 {{'tpc.layernorm' op scale and shift tensor<32xf32> do not match the last dimension of tensor<?x16xf32>}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x16xf32>, tensor<16xf32>, tensor<32xf32>
  return
}

// -----

func.func @gamma_beta_types(%x: tensor<?x16xbf16>, %g: tensor<16xf32>, %b: tensor<16xbf16>) {
  // expected-error @+1 {{'tpc.layernorm' op scale has element type f32 but shift has bf16; give them one element type}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x16xbf16>, tensor<16xf32>, tensor<16xbf16>
  return
}

// -----

// Only f32 weights may normalize an input of another element type.
func.func @narrow_weights(%x: tensor<?x16xf32>, %g: tensor<16xbf16>, %b: tensor<16xbf16>) {
  // expected-error @+1 {{'tpc.layernorm' op scale and shift of element type bf16 cannot normalize an input of f32; use the input's element type or f32}}
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x16xf32>, tensor<16xbf16>, tensor<16xbf16>
  return
}

// -----

func.func @epsilon_zero(%x: tensor<?x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'tpc.layernorm' op epsilon must be a finite number > 0, got 0.000000e+00 (GPT-2 uses 1.0e-05)}}
  %y = tpc.layernorm %x, %g, %b eps 0.0 : tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @epsilon_negative(%x: tensor<?x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{epsilon must be a finite number > 0, got -1.000000e-05}}
  %y = tpc.layernorm %x, %g, %b eps -1.0e-05 : tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @epsilon_infinite(%x: tensor<?x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{epsilon must be a finite number > 0, got INF}}
  %y = tpc.layernorm %x, %g, %b eps 0x7FF0000000000000 : tensor<?x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @result_type(%x: tensor<?x16xbf16>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+2 {{'tpc.layernorm' op failed to infer returned types}}
  // expected-error @+1 {{'tpc.layernorm' op inferred type(s) 'tensor<?x16xbf16>' are incompatible with return type(s) of operation 'tensor<?x16xf32>'}}
  %y = "tpc.layernorm"(%x, %g, %b) <{epsilon = 1.0e-05 : f64}> : (tensor<?x16xbf16>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return
}
