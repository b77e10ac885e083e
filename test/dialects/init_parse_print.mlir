// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// The attribute standalone (full `#tpc.init` form) and in tpc.param (short form).

// CHECK-LABEL: func.func @standalone
// CHECK-SAME: a = #tpc.init<normal, std = 2.000000e-02>
// CHECK-SAME: b = #tpc.init<normal, std = 1.000000e+00, residual_layers = 12>
// CHECK-SAME: c = #tpc.init<zeros>
// CHECK-SAME: d = #tpc.init<ones>
// CHECK-SAME: e = #tpc.init<normal, std = 5.000000e-01, residual_layers = 1>
func.func @standalone() attributes {
    a = #tpc.init<normal, std = 0.02>,
    b = #tpc.init<normal, std = 1.0, residual_layers = 12>,
    c = #tpc.init<zeros>,
    d = #tpc.init<ones>,
    e = #tpc.init<normal, residual_layers = 1, std = 0.5>} {
  return
}

// CHECK: tpc.param @p0 : tensor<4xf32> init <normal, std = 2.000000e-02>
tpc.param @p0 : tensor<4xf32> init <normal, std = 0.02>
// residual_layers = 0 is the default and is not printed.
// CHECK: tpc.param @p1 : tensor<4xf32> init <normal, std = 2.000000e-02>{{$}}
tpc.param @p1 : tensor<4xf32> init <normal, std = 0.02, residual_layers = 0>
// CHECK: tpc.param @p2 : tensor<4xf32> init <normal, std = 2.000000e-02, residual_layers = 48>
tpc.param @p2 : tensor<4xf32> init #tpc.init<normal, std = 0.02, residual_layers = 48>
// CHECK: tpc.param @p3 : tensor<4xf32> init <zeros>
tpc.param @p3 : tensor<4xf32> init <zeros>
// CHECK: tpc.param @p4 : tensor<4xf32> init <ones>
tpc.param @p4 : tensor<4xf32> init #tpc.init<ones>
