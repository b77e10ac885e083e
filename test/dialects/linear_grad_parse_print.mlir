// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @with_bias
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x64xf32>, %[[X:.*]]: tensor<?x?x16xf32>, %[[W:.*]]: tensor<16x64xf32>)
func.func @with_bias(%dout: tensor<?x?x64xf32>, %x: tensor<?x?x16xf32>, %w: tensor<16x64xf32>) -> (tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>) {
  // CHECK: %[[DX:.*]], %[[DW:.*]], %[[DB:.*]] = tpc.linear_grad %[[D]], %[[X]], %[[W]] bias : tensor<?x?x64xf32>, tensor<?x?x16xf32>, tensor<16x64xf32>
  %dx, %dw, %db = tpc.linear_grad %dout, %x, %w bias : tensor<?x?x64xf32>, tensor<?x?x16xf32>, tensor<16x64xf32>
  // CHECK: return %[[DX]], %[[DW]], %[[DB]] : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
  return %dx, %dw, %db : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
}

// CHECK-LABEL: func.func @without_bias
func.func @without_bias(%dout: tensor<4x8x48xbf16>, %x: tensor<4x8x16xbf16>, %w: tensor<16x48xbf16>) -> (tensor<4x8x16xbf16>, tensor<16x48xbf16>) {
  // CHECK: %[[DX:.*]], %[[DW:.*]] = tpc.linear_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8x48xbf16>, tensor<4x8x16xbf16>, tensor<16x48xbf16>
  %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<4x8x48xbf16>, tensor<4x8x16xbf16>, tensor<16x48xbf16>
  // CHECK: return %[[DX]], %[[DW]] : tensor<4x8x16xbf16>, tensor<16x48xbf16>
  return %dx, %dw : tensor<4x8x16xbf16>, tensor<16x48xbf16>
}

// The tied output layer: the gradient of the [V, H] table it reads.
// CHECK-LABEL: func.func @transposed
func.func @transposed(%dout: tensor<2x8x128xf32>, %x: tensor<2x8x16xf32>, %wte: tensor<128x16xf32>) -> (tensor<2x8x16xf32>, tensor<128x16xf32>, tensor<128xf32>) {
  // CHECK: tpc.linear_grad %{{.*}}, %{{.*}}, %{{.*}} transposed : tensor<2x8x128xf32>, tensor<2x8x16xf32>, tensor<128x16xf32>
  %dx, %dw = tpc.linear_grad %dout, %x, %wte transposed : tensor<2x8x128xf32>, tensor<2x8x16xf32>, tensor<128x16xf32>
  // CHECK: tpc.linear_grad %{{.*}}, %{{.*}}, %{{.*}} transposed bias : tensor<2x8x128xf32>, tensor<2x8x16xf32>, tensor<128x16xf32>
  %dx2, %dw2, %db2 = tpc.linear_grad %dout, %x, %wte transposed bias : tensor<2x8x128xf32>, tensor<2x8x16xf32>, tensor<128x16xf32>
  // CHECK: return {{.*}} : tensor<2x8x16xf32>, tensor<128x16xf32>, tensor<128xf32>
  return %dx, %dw, %db2 : tensor<2x8x16xf32>, tensor<128x16xf32>, tensor<128xf32>
}
