// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grad
func.func @grad(%d: tensor<2x8x64xf32>, %g: tensor<2x8x64xf32>, %u: tensor<2x8x64xf32>) -> (tensor<2x8x64xf32>, tensor<2x8x64xf32>) {
  // CHECK: %[[DG:.*]], %[[DU:.*]] = tpc.swiglu_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x8x64xf32>
  %dg, %du = tpc.swiglu_grad %d, %g, %u : tensor<2x8x64xf32>
  // CHECK: return %[[DG]], %[[DU]]
  return %dg, %du : tensor<2x8x64xf32>, tensor<2x8x64xf32>
}
