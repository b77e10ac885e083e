// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @with_bias
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x64xf32>, %[[X:.*]]: tensor<?x?x16xf32>)
func.func @with_bias(%dout: tensor<?x?x64xf32>, %x: tensor<?x?x16xf32>) -> (tensor<16x64xf32>, tensor<64xf32>) {
  // CHECK: %[[DW:.*]], %[[DB:.*]] = tpc.linear_weight_grad %[[D]], %[[X]] bias : tensor<?x?x64xf32>, tensor<?x?x16xf32>
  %dw, %db = tpc.linear_weight_grad %dout, %x bias : tensor<?x?x64xf32>, tensor<?x?x16xf32>
  // CHECK: return %[[DW]], %[[DB]] : tensor<16x64xf32>, tensor<64xf32>
  return %dw, %db : tensor<16x64xf32>, tensor<64xf32>
}

// CHECK-LABEL: func.func @without_bias
func.func @without_bias(%dout: tensor<4x8x48xbf16>, %x: tensor<4x8x16xbf16>) -> tensor<16x48xbf16> {
  // CHECK: %[[DW:.*]] = tpc.linear_weight_grad %{{.*}}, %{{.*}} : tensor<4x8x48xbf16>, tensor<4x8x16xbf16>
  %dw = tpc.linear_weight_grad %dout, %x : tensor<4x8x48xbf16>, tensor<4x8x16xbf16>
  // CHECK: return %[[DW]] : tensor<16x48xbf16>
  return %dw : tensor<16x48xbf16>
}

// The tied output layer: the gradient of the [V, H] table it reads.
// CHECK-LABEL: func.func @transposed
func.func @transposed(%dout: tensor<2x8x128xf32>, %x: tensor<2x8x16xf32>) -> (tensor<128x16xf32>, tensor<128xf32>) {
  // CHECK: tpc.linear_weight_grad %{{.*}}, %{{.*}} transposed : tensor<2x8x128xf32>, tensor<2x8x16xf32>
  %dw = tpc.linear_weight_grad %dout, %x transposed : tensor<2x8x128xf32>, tensor<2x8x16xf32>
  // CHECK: tpc.linear_weight_grad %{{.*}}, %{{.*}} transposed bias : tensor<2x8x128xf32>, tensor<2x8x16xf32>
  %dw2, %db2 = tpc.linear_weight_grad %dout, %x transposed bias : tensor<2x8x128xf32>, tensor<2x8x16xf32>
  // CHECK: return {{.*}} : tensor<128x16xf32>, tensor<128xf32>
  return %dw, %db2 : tensor<128x16xf32>, tensor<128xf32>
}
