// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// The attribute standalone (full `#tpc.layout` form) and in tpc.param and
// tpc.dropout (short form).

// CHECK-LABEL: func.func @standalone
// CHECK-SAME: a = #tpc.layout<replicated>
// CHECK-SAME: b = #tpc.layout<split 0>
// CHECK-SAME: c = #tpc.layout<split 1 blocks 3>
// CHECK-SAME: d = #tpc.layout<partial>
// CHECK-SAME: e = #tpc.layout<split 5>
func.func @standalone() attributes {
    a = #tpc.layout<replicated>,
    b = #tpc.layout<split 0>,
    c = #tpc.layout<split 1 blocks 3>,
    d = #tpc.layout<partial>,
    e = #tpc.layout<split 5 blocks 1>} {
  return
}

// CHECK: tpc.param @p0 : tensor<8x6xf32> init <zeros> layout <replicated>
tpc.param @p0 : tensor<8x6xf32> init <zeros> layout <replicated>
// CHECK: tpc.param @p1 : tensor<8x6xf32> init <zeros> layout <split 0>
tpc.param @p1 : tensor<8x6xf32> init <zeros> layout #tpc.layout<split 0>
// blocks 1 is the default and is not printed.
// CHECK: tpc.param @p2 : tensor<8x6xf32> init <zeros> layout <split 1>{{$}}
tpc.param @p2 : tensor<8x6xf32> init <zeros> layout <split 1 blocks 1>
// CHECK: tpc.param @p3 : tensor<8x6xf32> init <zeros> layout <split 1 blocks 3>
tpc.param @p3 : tensor<8x6xf32> init <zeros> layout <split 1 blocks 3>
// CHECK: tpc.param @p4 : tensor<8x6xf32> init <zeros> layout <partial>
tpc.param @p4 : tensor<8x6xf32> init <zeros> layout <partial>
// CHECK: tpc.param @p5 : tensor<8x6xf32> init <zeros>{{$}}
tpc.param @p5 : tensor<8x6xf32> init <zeros>

// CHECK-LABEL: func.func @dropout
func.func @dropout(%x: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // CHECK: tpc.dropout %{{.*}} p 1.000000e-01 per_rank key 1 layout <split 1 blocks 3> : tensor<8x6xf32>
  %y = tpc.dropout %x p 0.1 per_rank key 1 layout <split 1 blocks 3> : tensor<8x6xf32>
  return %y : tensor<8x6xf32>
}
