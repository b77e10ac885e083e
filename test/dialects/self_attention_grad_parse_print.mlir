// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[QKV:.*]]: tensor<?x?x48xf32>)
func.func @causal(%dout: tensor<?x?x16xf32>, %qkv: tensor<?x?x48xf32>) -> tensor<?x?x48xf32> {
  // CHECK: %[[G:.*]] = tpc.self_attention_grad %[[D]], %[[QKV]] heads 4 causal : tensor<?x?x16xf32>, tensor<?x?x48xf32>
  %g = tpc.self_attention_grad %dout, %qkv heads 4 causal : tensor<?x?x16xf32>, tensor<?x?x48xf32>
  // CHECK: return %[[G]] : tensor<?x?x48xf32>
  return %g : tensor<?x?x48xf32>
}

// Every attribute of the forward op: the kernel redraws its masks.
// CHECK-LABEL: func.func @all_attributes
func.func @all_attributes(%dout: tensor<2x8x8xbf16>, %qkv: tensor<2x8x24xbf16>) -> (tensor<2x8x24xbf16>, tensor<2x8x24xbf16>) {
  // CHECK: tpc.self_attention_grad %{{.*}}, %{{.*}} heads 2 causal window 4 dropout 1.000000e-01 key 3 head_parallel : tensor<2x8x8xbf16>, tensor<2x8x24xbf16>
  %g = tpc.self_attention_grad %dout, %qkv heads 2 causal window 4 dropout 0.1 key 3 head_parallel : tensor<2x8x8xbf16>, tensor<2x8x24xbf16>
  // Bidirectional.
  // CHECK: tpc.self_attention_grad %{{.*}}, %{{.*}} heads 1 : tensor<2x8x8xbf16>, tensor<2x8x24xbf16>
  %h = tpc.self_attention_grad %dout, %qkv heads 1 : tensor<2x8x8xbf16>, tensor<2x8x24xbf16>
  return %g, %h : tensor<2x8x24xbf16>, tensor<2x8x24xbf16>
}

// CHECK-LABEL: func.func @rotary
func.func @rotary(%dout: tensor<2x8x16xf32>, %qkv: tensor<2x8x48xf32>) -> tensor<2x8x48xf32> {
  // CHECK: tpc.self_attention_grad %{{.*}}, %{{.*}} heads 2 causal rope 1.000000e+04 rope_dims 4 : tensor<2x8x16xf32>, tensor<2x8x48xf32>
  %d = tpc.self_attention_grad %dout, %qkv heads 2 causal rope 1.0e+04 rope_dims 4 : tensor<2x8x16xf32>, tensor<2x8x48xf32>
  return %d : tensor<2x8x48xf32>
}
