// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @scale_by
// CHECK-SAME: (%[[S:.*]]: tensor<f32>, %[[W:.*]]: tensor<f32>, %[[X:.*]]: tensor<2x8xbf16>, %[[V:.*]]: tensor<bf16>)
func.func @scale_by(%s: tensor<f32>, %w: tensor<f32>, %x: tensor<2x8xbf16>, %v: tensor<bf16>) -> (tensor<f32>, tensor<2x8xbf16>) {
  // CHECK: %[[A:.*]] = tpc.scale_by %[[S]], %[[W]] : tensor<f32>, tensor<f32>
  %a = tpc.scale_by %s, %w : tensor<f32>, tensor<f32>
  // CHECK: %[[B:.*]] = tpc.scale_by %[[X]], %[[V]] : tensor<2x8xbf16>, tensor<bf16>
  %b = tpc.scale_by %x, %v : tensor<2x8xbf16>, tensor<bf16>
  // CHECK: return %[[A]], %[[B]] : tensor<f32>, tensor<2x8xbf16>
  return %a, %b : tensor<f32>, tensor<2x8xbf16>
}
