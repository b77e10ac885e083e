// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
func.func @dynamic(%x: tensor<?x?x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[Y:.*]] = tpc.layernorm %[[X]], %[[G]], %[[B]] eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
  // CHECK: return %[[Y]] : tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// Any rank >= 1; a dynamic last dimension matches any scale and shift.
// CHECK-LABEL: func.func @static_and_dynamic_features
func.func @static_and_dynamic_features(%x: tensor<4x8xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>,
                                       %d: tensor<?xf16>) -> (tensor<4x8xf16>, tensor<?xf16>) {
  // CHECK: %[[Y:.*]] = tpc.layernorm %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-03 : tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>
  %y = tpc.layernorm %x, %g, %b eps 1.0e-03 : tensor<4x8xf16>, tensor<8xf16>, tensor<8xf16>
  // CHECK: %[[Z:.*]] = tpc.layernorm %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05 : tensor<?xf16>, tensor<8xf16>, tensor<8xf16>
  %z = tpc.layernorm %d, %g, %b eps 1.0e-05 : tensor<?xf16>, tensor<8xf16>, tensor<8xf16>
  // CHECK: return %[[Y]], %[[Z]] : tensor<4x8xf16>, tensor<?xf16>
  return %y, %z : tensor<4x8xf16>, tensor<?xf16>
}

// fp32 scale and shift may normalize a bf16 activation; the result stays bf16.
// CHECK-LABEL: func.func @mixed_precision
func.func @mixed_precision(%x: tensor<2x3x16xbf16>, %g: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x3x16xbf16> {
  // CHECK: %[[Y:.*]] = tpc.layernorm %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05 : tensor<2x3x16xbf16>, tensor<16xf32>, tensor<16xf32>
  %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<2x3x16xbf16>, tensor<16xf32>, tensor<16xf32>
  // CHECK: return %[[Y]] : tensor<2x3x16xbf16>
  return %y : tensor<2x3x16xbf16>
}
