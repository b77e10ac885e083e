// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic_rows
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x64xf32>, %[[W:.*]]: tensor<16x64xf32>)
func.func @dynamic_rows(%dout: tensor<?x?x64xf32>, %w: tensor<16x64xf32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[DX:.*]] = tpc.linear_input_grad %[[D]], %[[W]] : tensor<?x?x64xf32>, tensor<16x64xf32>
  %dx = tpc.linear_input_grad %dout, %w : tensor<?x?x64xf32>, tensor<16x64xf32>
  // CHECK: return %[[DX]] : tensor<?x?x16xf32>
  return %dx : tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @bf16
func.func @bf16(%dout: tensor<4x8x48xbf16>, %w: tensor<16x48xbf16>) -> tensor<4x8x16xbf16> {
  // CHECK: %[[DX:.*]] = tpc.linear_input_grad %{{.*}}, %{{.*}} : tensor<4x8x48xbf16>, tensor<16x48xbf16>
  %dx = tpc.linear_input_grad %dout, %w : tensor<4x8x48xbf16>, tensor<16x48xbf16>
  // CHECK: return %[[DX]] : tensor<4x8x16xbf16>
  return %dx : tensor<4x8x16xbf16>
}

// The tied output layer: the [V, H] table is read transposed.
// CHECK-LABEL: func.func @transposed
func.func @transposed(%dout: tensor<2x8x128xf32>, %wte: tensor<128x16xf32>) -> tensor<2x8x16xf32> {
  // CHECK: tpc.linear_input_grad %{{.*}}, %{{.*}} transposed : tensor<2x8x128xf32>, tensor<128x16xf32>
  %dx = tpc.linear_input_grad %dout, %wte transposed : tensor<2x8x128xf32>, tensor<128x16xf32>
  // CHECK: return {{.*}} : tensor<2x8x16xf32>
  return %dx : tensor<2x8x16xf32>
}
