// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[E:.*]]: tensor<4x48xbf16>)
func.func @row_sum(%dout: tensor<?x?x16xf32>, %e: tensor<4x48xbf16>) -> (tensor<16xf32>, tensor<48xbf16>) {
  // CHECK: %[[B:.*]] = tpc.bias_add_grad %[[D]] : tensor<?x?x16xf32>
  %b = tpc.bias_add_grad %dout : tensor<?x?x16xf32>
  // CHECK: %[[C:.*]] = tpc.bias_add_grad %[[E]] : tensor<4x48xbf16>
  %c = tpc.bias_add_grad %e : tensor<4x48xbf16>
  // CHECK: return %[[B]], %[[C]] : tensor<16xf32>, tensor<48xbf16>
  return %b, %c : tensor<16xf32>, tensor<48xbf16>
}
