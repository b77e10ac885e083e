// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @tanh
// CHECK-SAME: (%[[X:.*]]: tensor<?x1x64xf32>, %[[S:.*]]: tensor<2x3xbf16>)
func.func @tanh(%x: tensor<?x1x64xf32>, %s: tensor<2x3xbf16>) -> (tensor<?x1x64xf32>, tensor<2x3xbf16>) {
  // CHECK: %[[Y:.*]] = tpc.tanh %[[X]] : tensor<?x1x64xf32>
  %y = tpc.tanh %x : tensor<?x1x64xf32>
  // CHECK: %[[Z:.*]] = tpc.tanh %[[S]] : tensor<2x3xbf16>
  %z = tpc.tanh %s : tensor<2x3xbf16>
  // CHECK: return %[[Y]], %[[Z]] : tensor<?x1x64xf32>, tensor<2x3xbf16>
  return %y, %z : tensor<?x1x64xf32>, tensor<2x3xbf16>
}
