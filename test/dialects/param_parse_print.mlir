// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK: tpc.param @wte : tensor<64x16xf32> init <normal, std = 2.000000e-02>
tpc.param @wte : tensor<64x16xf32> init #tpc.init<normal, std = 0.02>
// CHECK: tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
tpc.param @"h.0.attn.c_proj.weight" : tensor<16x16xf32> init #tpc.init<normal, std = 0.02, residual_layers = 2>
// CHECK: tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 2.000000e-02> layout <split 1 blocks 3>
tpc.param @"h.0.attn.c_attn.weight" : tensor<16x48xf32> init #tpc.init<normal, std = 0.02> layout #tpc.layout<split 1 blocks 3>
// CHECK: tpc.param @ln.weight : tensor<16xf32> init <ones> layout <replicated>
tpc.param @ln.weight : tensor<16xf32> init #tpc.init<ones> layout #tpc.layout<replicated>
// CHECK: tpc.param @ln.bias : tensor<16xf32> init <zeros> layout <partial>
tpc.param @ln.bias : tensor<16xf32> init <zeros> layout <partial>
// CHECK: tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xbf16> init <normal, std = 2.000000e-02> layout <split 1>
tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xbf16> init <normal, std = 0.02> layout <split 1>
// CHECK: tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf16> init <normal, std = 2.000000e-02, residual_layers = 1> layout <split 0>
tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf16> init <normal, std = 0.02, residual_layers = 1> layout <split 0>
// A scalar parameter.
// CHECK: tpc.param @scalar : tensor<f32> init <ones>
tpc.param @scalar : tensor<f32> init <ones>

// CHECK-LABEL: func.func @read
func.func @read() -> tensor<64x16xf32> {
  // CHECK: tpc.get_param @wte : tensor<64x16xf32>
  %0 = tpc.get_param @wte : tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}
// Mixed precision: an f32 master with a bf16 working copy, and one whose
// gradients stay f32.
// CHECK: tpc.param @mp.weight : tensor<16x64xf32> init <normal, std = 2.000000e-02> layout <split 1> compute bf16
tpc.param @mp.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1> compute bf16
// CHECK: tpc.param @mp.bias : tensor<64xf32> init <zeros> compute f16 grad f32
tpc.param @mp.bias : tensor<64xf32> init <zeros> compute f16 grad f32
