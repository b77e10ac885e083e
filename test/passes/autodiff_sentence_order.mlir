// RUN: tpc-opt %s "--tpc-specialize=batch=2 seq=4" --tpc-autodiff | FileCheck %s
// RUN: tpc-opt %s "--tpc-specialize=batch=2 seq=4" --tpc-autodiff=loss-scale=true | FileCheck %s --check-prefix=SCALED

// BERT's pooler and sentence-order head: forward adds the classifier's
// loss sum times the weight input to the language-model loss sum and
// returns the classifier's logits last. tpc-specialize fixes B, and T but
// for the labels' [B, 1]. train_step keeps those logits (the trainer logs
// the head's loss and accuracy from them, not the masked-LM logits); the
// classifier's loss adjoint is the seed times the weight; tanh_grad reads
// the forward's result and select_position_grad scatters into the hidden
// state's shape.
tpc.param @word : tensor<16x8xf32> init <normal, std = 0.02>
tpc.param @pool : tensor<8x8xf32> init <normal, std = 0.02>
tpc.param @sop : tensor<2x8xf32> init <normal, std = 0.02>

// CHECK-LABEL: func.func @forward
// CHECK-SAME: %{{.*}}: tensor<2x1xi32> {tpc.input = "sentence_order"}, %{{.*}}: tensor<f32> {tpc.input = "sentence_order_weight"})
// CHECK-SAME: -> (tensor<f32>, tensor<i32>, tensor<2x4x16xf32>, tensor<2x1x2xf32>)

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: %[[LABELS:[^:]*]]: tensor<2x1xi32> {tpc.input = "sentence_order"}, %[[W:[^:]*]]: tensor<f32> {tpc.input = "sentence_order_weight"})
// CHECK-SAME: -> (tensor<f32>, tensor<i32>, tensor<2x1x2xf32>)
// CHECK: %[[H:.*]] = tpc.embedding
// CHECK: %[[FIRST:.*]] = tpc.select_position %[[H]] at 0 : tensor<2x4x8xf32>
// CHECK: %[[P:.*]] = tpc.tanh %{{.*}} : tensor<2x1x8xf32>
// CHECK: %[[S:.*]] = tpc.linear %[[P]]
// CHECK: %[[SOP:.*]], %{{.*}} = tpc.cross_entropy %[[S]], %[[LABELS]] ignore_index -1 classifier
// CHECK: %[[WS:.*]] = tpc.scale_by %[[SOP]], %[[W]]
// CHECK: %[[SEED:.*]] = tpc.fill 1.000000e+00 : tensor<f32>
// CHECK: %[[DSOP:.*]] = tpc.scale_by %[[SEED]], %[[W]] : tensor<f32>, tensor<f32>
// CHECK: tpc.cross_entropy_grad %[[S]], %[[LABELS]], %[[DSOP]] ignore_index -1
// CHECK: tpc.tanh_grad %{{.*}}, %[[P]] : tensor<2x1x8xf32>
// CHECK: tpc.select_position_grad %{{.*}}, %[[H]] at 0 : tensor<2x1x8xf32>, tensor<2x4x8xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[S]] : tensor<f32>, tensor<i32>, tensor<2x1x2xf32>

// An fp16 step's seed is the loss scale, weighted alike.
// SCALED-LABEL: func.func @train_step
// SCALED-SAME: %[[W:[^:]*]]: tensor<f32> {tpc.input = "sentence_order_weight"}, %[[SCALE:[^:]*]]: tensor<f32>)
// SCALED: tpc.scale_by %[[SCALE]], %[[W]] : tensor<f32>, tensor<f32>

func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>,
                   %labels: tensor<?x1xi32> {tpc.input = "sentence_order"},
                   %weight: tensor<f32> {tpc.input = "sentence_order_weight"})
    -> (tensor<f32>, tensor<i32>, tensor<?x?x16xf32>, tensor<?x1x2xf32>) {
  %w = tpc.get_param @word : tensor<16x8xf32>
  %pw = tpc.get_param @pool : tensor<8x8xf32>
  %sw = tpc.get_param @sop : tensor<2x8xf32>
  %h = tpc.embedding %w, %tokens : tensor<16x8xf32>, tensor<?x?xi32>
  %first = tpc.select_position %h at 0 : tensor<?x?x8xf32>
  %d = tpc.linear %first, %pw transposed : tensor<?x1x8xf32>, tensor<8x8xf32>
  %p = tpc.tanh %d : tensor<?x1x8xf32>
  %l = tpc.linear %h, %w transposed : tensor<?x?x8xf32>, tensor<16x8xf32>
  %s = tpc.linear %p, %sw transposed : tensor<?x1x8xf32>, tensor<2x8xf32>
  %sum, %count = tpc.cross_entropy %l, %targets ignore_index -1 : tensor<?x?x16xf32>, tensor<?x?xi32>
  %ssum, %scount = tpc.cross_entropy %s, %labels ignore_index -1 classifier : tensor<?x1x2xf32>, tensor<?x1xi32>
  %ws = tpc.scale_by %ssum, %weight : tensor<f32>, tensor<f32>
  %total = tpc.add %sum, %ws : tensor<f32>
  return %total, %count, %l, %s : tensor<f32>, tensor<i32>, tensor<?x?x16xf32>, tensor<?x1x2xf32>
}
