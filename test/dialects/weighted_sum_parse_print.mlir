// RUN: tpc-opt %s | tpc-opt | FileCheck %s
// RUN: tpc-opt %s --mlir-print-op-generic | tpc-opt | FileCheck %s

// CHECK-LABEL: func.func @three_stacks
// CHECK-SAME: (%[[ALPHA:.*]]: tensor<3xf32>, %[[S1:.*]]: tensor<?x?x16xf32>, %[[S2:.*]]: tensor<?x?x16xf32>, %[[S3:.*]]: tensor<?x?x16xf32>)
func.func @three_stacks(%alpha: tensor<3xf32>, %s1: tensor<?x?x16xf32>, %s2: tensor<?x?x16xf32>, %s3: tensor<?x?x16xf32>) -> tensor<?x?x16xf32> {
  // CHECK: %[[Y:.*]] = tpc.weighted_sum %[[ALPHA]], %[[S1]], %[[S2]], %[[S3]] : tensor<3xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
  %y = tpc.weighted_sum %alpha, %s1, %s2, %s3 : tensor<3xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
  // CHECK: return %[[Y]] : tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// One input; fp32 weights may combine bf16 activations; a dynamic alpha
// length matches any count.
// CHECK-LABEL: func.func @one_input_mixed
func.func @one_input_mixed(%alpha: tensor<1xf32>, %beta: tensor<?xf32>, %s: tensor<2x4x8xbf16>) -> (tensor<2x4x8xbf16>, tensor<2x4x8xbf16>) {
  // CHECK: %[[Y:.*]] = tpc.weighted_sum %{{.*}}, %{{.*}} : tensor<1xf32>, tensor<2x4x8xbf16>
  %y = tpc.weighted_sum %alpha, %s : tensor<1xf32>, tensor<2x4x8xbf16>
  // CHECK: %[[Z:.*]] = tpc.weighted_sum %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xf32>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>
  %z = tpc.weighted_sum %beta, %s, %s : tensor<?xf32>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>
  // CHECK: return %[[Y]], %[[Z]] : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>
  return %y, %z : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>
}
