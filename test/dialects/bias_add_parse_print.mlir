// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x16xf32>, %[[B:.*]]: tensor<16xf32>)
func.func @dynamic(%x: tensor<?x?x16xf32>, %b: tensor<16xf32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[Y:.*]] = tpc.bias_add %[[X]], %[[B]] : tensor<?x?x16xf32>, tensor<16xf32>
  %y = tpc.bias_add %x, %b : tensor<?x?x16xf32>, tensor<16xf32>
  // CHECK: return %[[Y]] : tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// CHECK-LABEL: func.func @static_and_dynamic_bias
func.func @static_and_dynamic_bias(%x: tensor<4x8xbf16>, %b: tensor<?xbf16>) -> tensor<4x8xbf16> {
  // CHECK: %[[Y:.*]] = tpc.bias_add %{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<?xbf16>
  %y = tpc.bias_add %x, %b : tensor<4x8xbf16>, tensor<?xbf16>
  // CHECK: return %[[Y]] : tensor<4x8xbf16>
  return %y : tensor<4x8xbf16>
}
