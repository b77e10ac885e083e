// RUN: tpc-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{unknown initializer 'uniform'; expected normal, zeros or ones}}
tpc.param @w : tensor<4xf32> init <uniform, std = 0.02>

// -----

// expected-error @+1 {{unknown initializer field 'mean'; expected std or residual_layers}}
tpc.param @w : tensor<4xf32> init <normal, mean = 0.0>

// -----

// expected-error @+1 {{initializer field 'std' is given twice}}
tpc.param @w : tensor<4xf32> init <normal, std = 0.02, std = 0.01>

// -----

// expected-error @+1 {{initializer field 'residual_layers' is given twice}}
tpc.param @w : tensor<4xf32> init <normal, std = 0.02, residual_layers = 2, residual_layers = 2>

// -----

// expected-error @+1 {{normal initializer needs a finite std > 0, got 0}}
tpc.param @w : tensor<4xf32> init <normal>

// -----

// expected-error @+1 {{normal initializer needs a finite std > 0, got 0}}
tpc.param @w : tensor<4xf32> init <normal, std = 0.0>

// -----

// expected-error @+1 {{normal initializer needs a finite std > 0, got -2.000000e-02}}
tpc.param @w : tensor<4xf32> init <normal, std = -0.02>

// -----

// expected-error @+1 {{normal initializer needs a finite std > 0, got INF}}
tpc.param @w : tensor<4xf32> init <normal, std = 0x7FF0000000000000>

// -----

// expected-error @+1 {{'zeros' initializer takes no std or residual_layers}}
tpc.param @w : tensor<4xf32> init <zeros, std = 0.02>

// -----

// expected-error @+1 {{'ones' initializer takes no std or residual_layers}}
tpc.param @w : tensor<4xf32> init <ones, residual_layers = 2>

// -----

// expected-error @+1 {{residual_layers must be >= 0, got -1}}
tpc.param @w : tensor<4xf32> init <normal, std = 0.02, residual_layers = -1>

// -----

// expected-error @+1 {{expected integer value}}
tpc.param @w : tensor<4xf32> init <normal, std = 0.02, residual_layers = 1.5>

// -----

// expected-error @+1 {{expected '='}}
tpc.param @w : tensor<4xf32> init <normal, std 0.02>

// -----

// expected-error @+1 {{expected '>'}}
tpc.param @w : tensor<4xf32> init <normal, std = 0.02

// -----

func.func @standalone() attributes {
    // expected-error @+1 {{unknown initializer 'orthogonal'; expected normal, zeros or ones}}
    a = #tpc.init<orthogonal>} {
  return
}

// -----

// The init attribute must be a #tpc.init.
// expected-error @+1 {{invalid properties {init = 1 : i64, sym_name = "w", type = tensor<4xf32>} for op tpc.param: Invalid attribute `init` in property conversion: 1 : i64}}
"tpc.param"() <{init = 1 : i64, sym_name = "w", type = tensor<4xf32>}> : () -> ()
