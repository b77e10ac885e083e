// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grads
// CHECK-SAME: (%[[D:.*]]: tensor<?x?x16xf32>, %[[X:.*]]: tensor<?x?x16xf32>, %[[G:.*]]: tensor<16xf32>)
func.func @grads(%dout: tensor<?x?x16xf32>, %x: tensor<?x?x16xf32>, %g: tensor<16xf32>) -> (tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = tpc.layernorm_grad %[[D]], %[[X]], %[[G]] eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<16xf32>
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<16xf32>
  // CHECK: return %[[DX]], %[[DG]], %[[DB]] : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
  return %dx, %dg, %db : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
}

// fp32 weights normalizing a bf16 activation: their gradients are fp32.
// CHECK-LABEL: func.func @mixed
func.func @mixed(%dout: tensor<4x16xbf16>, %x: tensor<4x16xbf16>, %g: tensor<16xf32>) -> (tensor<4x16xbf16>, tensor<16xf32>, tensor<16xf32>) {
  // CHECK: tpc.layernorm_grad %{{.*}}, %{{.*}}, %{{.*}} eps 1.000000e-05 : tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<16xf32>
  %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.0e-05 : tensor<4x16xbf16>, tensor<4x16xbf16>, tensor<16xf32>
  // CHECK: return {{.*}} : tensor<4x16xbf16>, tensor<16xf32>, tensor<16xf32>
  return %dx, %dg, %db : tensor<4x16xbf16>, tensor<16xf32>, tensor<16xf32>
}
