// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[W:.*]]: tensor<16xf32>)
func.func @dynamic(%x: tensor<?x?x16xf32>, %w: tensor<16xf32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[Y:.*]] = tpc.rmsnorm %[[X]], %[[W]] eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
  %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>
  // CHECK: return %[[Y]] : tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// Any epsilon > 0 (Llama 2 uses 1e-5, some checkpoints 1e-6); any rank >= 1.
// CHECK-LABEL: func.func @epsilon_and_rank
func.func @epsilon_and_rank(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  // CHECK: tpc.rmsnorm %{{.*}}, %{{.*}} eps 9.9999999999999995E-7 : tensor<4x8xf32>, tensor<8xf32>
  %y = tpc.rmsnorm %x, %w eps 1.0e-06 : tensor<4x8xf32>, tensor<8xf32>
  return %y : tensor<4x8xf32>
}

// An fp32 weight may normalize a bf16 activation; the result stays bf16.
// CHECK-LABEL: func.func @mixed_precision
func.func @mixed_precision(%x: tensor<2x3x16xbf16>, %w: tensor<16xf32>) -> tensor<2x3x16xbf16> {
  // CHECK: tpc.rmsnorm %{{.*}}, %{{.*}} eps 1.000000e-05 : tensor<2x3x16xbf16>, tensor<16xf32>
  %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<2x3x16xbf16>, tensor<16xf32>
  return %y : tensor<2x3x16xbf16>
}
