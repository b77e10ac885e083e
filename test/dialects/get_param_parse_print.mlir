// RUN: tpc-opt -split-input-file %s | tpc-opt -split-input-file | FileCheck %s
// RUN: tpc-opt -split-input-file %s --mlir-print-op-generic | tpc-opt -split-input-file | FileCheck %s

// Without `tpc.tp` (tp = 1) every parameter is read at its global type,
// whatever its layout.
tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02> layout <split 0>
tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>
tpc.param @ln_f.weight : tensor<16xf32> init <ones>

// CHECK-LABEL: func.func @global
func.func @global() -> (tensor<64x16xf32>, tensor<16x48xf32>, tensor<16xf32>) {
  // CHECK: %[[A:.*]] = tpc.get_param @wte : tensor<64x16xf32>
  %a = tpc.get_param @wte : tensor<64x16xf32>
  // CHECK: %[[B:.*]] = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
  %b = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
  // CHECK: %[[C:.*]] = tpc.get_param @ln_f.weight : tensor<16xf32>
  %c = tpc.get_param @ln_f.weight : tensor<16xf32>
  // CHECK: return %[[A]], %[[B]], %[[C]]
  return %a, %b, %c : tensor<64x16xf32>, tensor<16x48xf32>, tensor<16xf32>
}

// -----

// With tp = 2, a rank reads its slice of a split parameter and the whole of
// a replicated, partial or unlaid-out one.
// CHECK: module attributes {tpc.tp = 2 : i64}
module attributes {tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<64x16xbf16> init <normal, std = 0.02> layout <split 0>
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xbf16> init <normal, std = 0.02> layout <split 1 blocks 3>
  tpc.param @h.0.attn.c_attn.bias : tensor<48xbf16> init <zeros> layout <split 0 blocks 3>
  tpc.param @h.0.ln_1.weight : tensor<16xbf16> init <ones> layout <replicated>
  tpc.param @h.0.ln_1.bias : tensor<16xbf16> init <zeros> layout <partial>
  tpc.param @wpe : tensor<8x16xbf16> init <normal, std = 0.01>

  // CHECK-LABEL: func.func @local
  func.func @local() -> (tensor<32x16xbf16>, tensor<16x24xbf16>, tensor<24xbf16>, tensor<16xbf16>, tensor<16xbf16>, tensor<8x16xbf16>) {
    // CHECK: %[[A:.*]] = tpc.get_param @wte : tensor<32x16xbf16>
    %a = tpc.get_param @wte : tensor<32x16xbf16>
    // CHECK: %[[B:.*]] = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x24xbf16>
    %b = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x24xbf16>
    // CHECK: %[[C:.*]] = tpc.get_param @h.0.attn.c_attn.bias : tensor<24xbf16>
    %c = tpc.get_param @h.0.attn.c_attn.bias : tensor<24xbf16>
    // CHECK: %[[D:.*]] = tpc.get_param @h.0.ln_1.weight : tensor<16xbf16>
    %d = tpc.get_param @h.0.ln_1.weight : tensor<16xbf16>
    // CHECK: %[[E:.*]] = tpc.get_param @h.0.ln_1.bias : tensor<16xbf16>
    %e = tpc.get_param @h.0.ln_1.bias : tensor<16xbf16>
    // CHECK: %[[F:.*]] = tpc.get_param @wpe : tensor<8x16xbf16>
    %f = tpc.get_param @wpe : tensor<8x16xbf16>
    // CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]]
    return %a, %b, %c, %d, %e, %f : tensor<32x16xbf16>, tensor<16x24xbf16>, tensor<24xbf16>, tensor<16xbf16>, tensor<16xbf16>, tensor<8x16xbf16>
  }
}

// CHECK-LABEL: func.func @working_copy
tpc.param @mp : tensor<64x16xf32> init <normal, std = 0.02> compute bf16
func.func @working_copy() -> tensor<64x16xbf16> {
  // CHECK: tpc.get_param @mp : tensor<64x16xbf16>
  %w = tpc.get_param @mp : tensor<64x16xbf16>
  return %w : tensor<64x16xbf16>
}
