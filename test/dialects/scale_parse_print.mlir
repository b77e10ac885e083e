// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[A:.*]]: tensor<3xbf16>)
func.func @scale(%x: tensor<?x?x16xf32>, %a: tensor<3xbf16>) -> (tensor<?x?x16xf32>, tensor<3xbf16>, tensor<3xbf16>) {
  // CHECK: %[[Y:.*]] = tpc.scale %[[X]] by 5.000000e-01 : tensor<?x?x16xf32>
  %y = tpc.scale %x by 0.5 : tensor<?x?x16xf32>
  // CHECK: %[[Z:.*]] = tpc.scale %[[A]] by -2.000000e+00 : tensor<3xbf16>
  %z = tpc.scale %a by -2.0 : tensor<3xbf16>
  // CHECK: %[[W:.*]] = tpc.scale %[[A]] by 0.000000e+00 : tensor<3xbf16>
  %w = tpc.scale %a by 0.0 : tensor<3xbf16>
  // CHECK: return %[[Y]], %[[Z]], %[[W]] : tensor<?x?x16xf32>, tensor<3xbf16>, tensor<3xbf16>
  return %y, %z, %w : tensor<?x?x16xf32>, tensor<3xbf16>, tensor<3xbf16>
}
