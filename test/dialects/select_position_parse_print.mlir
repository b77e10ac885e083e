// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// The result [B, 1, H] is inferred from the input [B, T, H].
// CHECK-LABEL: func.func @select_position
// CHECK-SAME: (%[[H:.*]]: tensor<?x?x64xf32>, %[[S:.*]]: tensor<2x16x8xbf16>)
func.func @select_position(%h: tensor<?x?x64xf32>, %s: tensor<2x16x8xbf16>) -> (tensor<?x1x64xf32>, tensor<2x1x8xbf16>) {
  // CHECK: %[[A:.*]] = tpc.select_position %[[H]] at 0 : tensor<?x?x64xf32>
  %a = tpc.select_position %h at 0 : tensor<?x?x64xf32>
  // CHECK: %[[B:.*]] = tpc.select_position %[[S]] at 15 : tensor<2x16x8xbf16>
  %b = tpc.select_position %s at 15 : tensor<2x16x8xbf16>
  // CHECK: return %[[A]], %[[B]] : tensor<?x1x64xf32>, tensor<2x1x8xbf16>
  return %a, %b : tensor<?x1x64xf32>, tensor<2x1x8xbf16>
}
