// Bigram: a [V, V] table of next-token logits, V=100.
// In the canonical form that tpc-model emits, kept small; an input of the
// tpc-megatron-shard and tpc-partition tests.
module {
  tpc.param @wte : tensor<100x100xf32> init <normal, std = 0.02>
  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x100xf32>) {
    %0 = tpc.get_param @wte : tensor<100x100xf32>
    %1 = tpc.embedding %0, %tokens : tensor<100x100xf32>, tensor<?x?xi32>
    %sum, %count = tpc.cross_entropy %1, %targets ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
    return %sum, %count, %1 : tensor<f32>, tensor<i32>, tensor<?x?x100xf32>
  }
}
