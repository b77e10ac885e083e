// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// A gradient is read at the parameter's local type: the split weight's
// slice, the replicated gain whole.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @ln_f.weight : tensor<16xbf16> init <ones> layout <replicated>
  tpc.param @wpe : tensor<32x16xf32> init <normal, std = 0.02>

  // CHECK-LABEL: func.func @get_grad
  func.func @get_grad() -> (tensor<16x32xf32>, tensor<16xbf16>, tensor<32x16xf32>) {
    // CHECK: %[[A:.*]] = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x32xf32>
    %a = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x32xf32>
    // CHECK: %[[B:.*]] = tpc.get_grad @ln_f.weight : tensor<16xbf16>
    %b = tpc.get_grad @ln_f.weight : tensor<16xbf16>
    // CHECK: %[[C:.*]] = tpc.get_grad @wpe : tensor<32x16xf32>
    %c = tpc.get_grad @wpe : tensor<32x16xf32>
    // CHECK: return %[[A]], %[[B]], %[[C]]
    return %a, %b, %c : tensor<16x32xf32>, tensor<16xbf16>, tensor<32x16xf32>
  }
}
