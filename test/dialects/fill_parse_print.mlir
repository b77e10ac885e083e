// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @seed
func.func @seed() -> (tensor<f32>, tensor<2x3xbf16>) {
  // CHECK: %[[ONE:.*]] = tpc.fill 1.000000e+00 : tensor<f32>
  %one = tpc.fill 1.0 : tensor<f32>
  // CHECK: %[[Z:.*]] = tpc.fill -2.500000e-01 : tensor<2x3xbf16>
  %z = tpc.fill -0.25 : tensor<2x3xbf16>
  // CHECK: return %[[ONE]], %[[Z]]
  return %one, %z : tensor<f32>, tensor<2x3xbf16>
}
