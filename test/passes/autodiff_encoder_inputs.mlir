// RUN: tpc-opt %s --tpc-specialize=batch=2 --tpc-autodiff=loss-scale=true | FileCheck %s

// An encoder's forward takes token types [B,T] and key lengths [B] after
// the targets, marked with tpc.input. tpc-specialize fixes B in both;
// train_step keeps the marks and takes an fp16 loss scale after them; the
// token-type gradient scatters by the types and the attention gradient
// masks the same keys as the forward.
tpc.param @word : tensor<16x8xf32> init <normal, std = 0.02>
tpc.param @types : tensor<2x8xf32> init <normal, std = 0.02>

// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%{{.*}}: tensor<2x?xi32>, %{{.*}}: tensor<2x?xi32>, %{{.*}}: tensor<2x?xi32> {tpc.input = "token_types"}, %{{.*}}: tensor<2xi32> {tpc.input = "key_lengths"})

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%{{.*}}: tensor<2x?xi32>, %[[TGT:.*]]: tensor<2x?xi32>, %[[TYPES:.*]]: tensor<2x?xi32> {tpc.input = "token_types"}, %[[LEN:.*]]: tensor<2xi32> {tpc.input = "key_lengths"}, %[[SCALE:.*]]: tensor<f32>)
// CHECK: tpc.grouped_attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths %[[LEN]]
// CHECK: tpc.grouped_attention_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} key_lengths %[[LEN]]
// CHECK: tpc.token_type_embedding_grad %{{.*}}, %[[TYPES]] : tensor<2x?x8xf32>, tensor<2x?xi32> -> tensor<2x8xf32>

func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>,
                   %types: tensor<?x?xi32> {tpc.input = "token_types"},
                   %lengths: tensor<?xi32> {tpc.input = "key_lengths"})
    -> (tensor<f32>, tensor<i32>, tensor<?x?x16xf32>) {
  %w = tpc.get_param @word : tensor<16x8xf32>
  %t = tpc.get_param @types : tensor<2x8xf32>
  %x = tpc.embedding %w, %tokens : tensor<16x8xf32>, tensor<?x?xi32>
  %s = tpc.token_type_embedding %t, %types : tensor<2x8xf32>, tensor<?x?xi32>
  %h = tpc.add %x, %s : tensor<?x?x8xf32>
  %a = tpc.grouped_attention %h, %h, %h key_lengths %lengths : tensor<?xi32> heads 2 kv_heads 2 : tensor<?x?x8xf32>, tensor<?x?x8xf32>
  %r = tpc.add %h, %a : tensor<?x?x8xf32>
  %l = tpc.linear %r, %w transposed : tensor<?x?x8xf32>, tensor<16x8xf32>
  %sum, %count = tpc.cross_entropy %l, %targets ignore_index -1 : tensor<?x?x16xf32>, tensor<?x?xi32>
  return %sum, %count, %l : tensor<f32>, tensor<i32>, tensor<?x?x16xf32>
}
