// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @cast
func.func @cast(%x: tensor<2x8x16xbf16>, %y: tensor<?x16xf32>) -> (tensor<2x8x16xf32>, tensor<?x16xf16>) {
  // CHECK: tpc.cast %{{.*}} : tensor<2x8x16xbf16> to tensor<2x8x16xf32>
  %a = tpc.cast %x : tensor<2x8x16xbf16> to tensor<2x8x16xf32>
  // CHECK: tpc.cast %{{.*}} : tensor<?x16xf32> to tensor<?x16xf16>
  %b = tpc.cast %y : tensor<?x16xf32> to tensor<?x16xf16>
  return %a, %b : tensor<2x8x16xf32>, tensor<?x16xf16>
}
