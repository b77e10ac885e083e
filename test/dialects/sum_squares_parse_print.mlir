// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @sum_squares
// CHECK-SAME: (%[[W:.*]]: tensor<16x32xf32>, %[[B:.*]]: tensor<32xbf16>)
func.func @sum_squares(%w: tensor<16x32xf32>, %b: tensor<32xbf16>) -> (tensor<f32>, tensor<f32>) {
  // CHECK: %[[ONE:.*]] = tpc.sum_squares %[[W]] : tensor<16x32xf32>
  %one = tpc.sum_squares %w : tensor<16x32xf32>
  // Mixed element types accumulate into one f32 scalar.
  // CHECK: %[[TWO:.*]] = tpc.sum_squares %[[W]], %[[B]] : tensor<16x32xf32>, tensor<32xbf16>
  %two = tpc.sum_squares %w, %b : tensor<16x32xf32>, tensor<32xbf16>
  // CHECK: return %[[ONE]], %[[TWO]] : tensor<f32>, tensor<f32>
  return %one, %two : tensor<f32>, tensor<f32>
}
