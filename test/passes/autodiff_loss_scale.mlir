// RUN: tpc-opt %s --tpc-autodiff=loss-scale=true | FileCheck %s
// RUN: tpc-compile %s --micro-batch=2 --seq=4 --precision=fp16 --emit=mlir | FileCheck %s --check-prefix=COMPILE
// RUN: tpc-compile %s --micro-batch=2 --seq=4 --precision=bf16 --emit=mlir | FileCheck %s --check-prefix=BF16

// With loss-scale=true, train_step takes the loss scale as a third argument
// and seeds the loss adjoint with it instead of tpc.fill 1.0, so every
// gradient comes out multiplied by the scale; forward is unchanged.
tpc.param @table : tensor<16x16xf32> init <normal, std = 0.02>

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%{{.*}}: tensor<2x4xi32>, %{{.*}}: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x4x16xf32>)

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[TOK:.*]]: tensor<2x4xi32>, %[[TGT:.*]]: tensor<2x4xi32>, %[[SCALE:.*]]: tensor<f32>) -> (tensor<f32>, tensor<i32>)
// CHECK: %[[L:.*]] = tpc.embedding
// CHECK-NEXT: %[[SUM:.*]], %[[COUNT:.*]] = tpc.cross_entropy %[[L]], %[[TGT]]
// CHECK-NOT: tpc.fill
// CHECK-NEXT: tpc.cross_entropy_grad %[[L]], %[[TGT]], %[[SCALE]]
// CHECK: return %[[SUM]], %[[COUNT]]

// tpc-compile scales the loss of fp16 programs only.
// COMPILE-LABEL: func.func @train_step
// COMPILE-SAME: tensor<2x4xi32>, %{{.*}}: tensor<f32>) -> (tensor<f32>, tensor<i32>)
// BF16-LABEL: func.func @train_step
// BF16-SAME: (%{{[^:]*}}: tensor<2x4xi32>, %{{[^:]*}}: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>)
// BF16: tpc.fill 1.000000e+00

func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>)
    -> (tensor<f32>, tensor<i32>, tensor<2x4x16xf32>) {
  %t = tpc.get_param @table : tensor<16x16xf32>
  %logits = tpc.embedding %t, %tokens : tensor<16x16xf32>, tensor<2x4xi32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<2x4x16xf32>, tensor<2x4xi32>
  return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<2x4x16xf32>
}
