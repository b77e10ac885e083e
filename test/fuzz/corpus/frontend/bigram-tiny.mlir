// tpc-model bigram --vocab 512
module {
  tpc.param @table : tensor<512x512xf32> init <zeros>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x512xf32>) {
    %0 = tpc.get_param @table : tensor<512x512xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<512x512xf32>, tensor<?x?xi32>
    %loss_sum, %count = tpc.cross_entropy %1, %arg1 ignore_index -1 : tensor<?x?x512xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %1 : tensor<f32>, tensor<i32>, tensor<?x?x512xf32>
  }
}
