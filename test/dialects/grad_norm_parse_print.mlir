// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @grad_norm
// CHECK-SAME: (%[[SQ:.*]]: tensor<f32>, %[[INV:.*]]: tensor<f32>)
func.func @grad_norm(%sq: tensor<f32>, %inv: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  // CHECK: %[[N:.*]], %[[S:.*]] = tpc.grad_norm %[[SQ]], %[[INV]] max_norm 1.000000e+00{{$}}
  %norm, %scale = tpc.grad_norm %sq, %inv max_norm 1.0
  // Without max_norm the scale is the normalisation alone.
  // CHECK: %[[N2:.*]], %[[S2:.*]] = tpc.grad_norm %[[SQ]], %[[INV]]{{$}}
  %norm2, %scale2 = tpc.grad_norm %sq, %inv
  // CHECK: return %[[N]], %[[S]], %[[N2]], %[[S2]]
  return %norm, %scale, %norm2, %scale2 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
