// A bigram model at its global size: no position table, batch and sequence
// open.
module {
  tpc.param @wte : tensor<64x64xf32> init <normal, std = 0.02>

  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x64xf32>) {
    %table = tpc.get_param @wte : tensor<64x64xf32>
    %logits = tpc.embedding %table, %tokens : tensor<64x64xf32>, tensor<?x?xi32>
    %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x64xf32>, tensor<?x?xi32>
    return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<?x?x64xf32>
  }
}
