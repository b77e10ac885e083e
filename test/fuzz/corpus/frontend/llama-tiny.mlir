// tpc-model llama --layers 1 --hidden 16 --heads 4 --kv-heads 2 --intermediate 24 --vocab 40 --seq 8 --rope-theta 10000 --norm-eps 1e-05
module attributes {tpc.context = 8 : i64} {
  tpc.param @model.embed_tokens.weight : tensor<40x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.input_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.layers.0.self_attn.q_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.self_attn.k_proj.weight : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.self_attn.v_proj.weight : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.self_attn.o_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.post_attention_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.layers.0.mlp.gate_proj.weight : tensor<24x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.mlp.up_proj.weight : tensor<24x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.mlp.down_proj.weight : tensor<16x24xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.norm.weight : tensor<16xf32> init <ones>
  tpc.param @lm_head.weight : tensor<40x16xf32> init <normal, std = 2.000000e-02>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x40xf32>) {
    %0 = tpc.get_param @model.embed_tokens.weight : tensor<40x16xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<40x16xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @model.layers.0.input_layernorm.weight : tensor<16xf32>
    %3 = tpc.rmsnorm %1, %2 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %4 = tpc.get_param @model.layers.0.self_attn.q_proj.weight : tensor<16x16xf32>
    %5 = tpc.linear %3, %4 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %6 = tpc.get_param @model.layers.0.self_attn.k_proj.weight : tensor<8x16xf32>
    %7 = tpc.linear %3, %6 transposed : tensor<?x?x16xf32>, tensor<8x16xf32>
    %8 = tpc.get_param @model.layers.0.self_attn.v_proj.weight : tensor<8x16xf32>
    %9 = tpc.linear %3, %8 transposed : tensor<?x?x16xf32>, tensor<8x16xf32>
    %10 = tpc.grouped_attention %5, %7, %9 heads 4 kv_heads 2 causal rope 1.000000e+04 : tensor<?x?x16xf32>, tensor<?x?x8xf32>
    %11 = tpc.get_param @model.layers.0.self_attn.o_proj.weight : tensor<16x16xf32>
    %12 = tpc.linear %10, %11 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %13 = tpc.add %1, %12 : tensor<?x?x16xf32>
    %14 = tpc.get_param @model.layers.0.post_attention_layernorm.weight : tensor<16xf32>
    %15 = tpc.rmsnorm %13, %14 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %16 = tpc.get_param @model.layers.0.mlp.gate_proj.weight : tensor<24x16xf32>
    %17 = tpc.linear %15, %16 transposed : tensor<?x?x16xf32>, tensor<24x16xf32>
    %18 = tpc.get_param @model.layers.0.mlp.up_proj.weight : tensor<24x16xf32>
    %19 = tpc.linear %15, %18 transposed : tensor<?x?x16xf32>, tensor<24x16xf32>
    %20 = tpc.swiglu %17, %19 : tensor<?x?x24xf32>
    %21 = tpc.get_param @model.layers.0.mlp.down_proj.weight : tensor<16x24xf32>
    %22 = tpc.linear %20, %21 transposed : tensor<?x?x24xf32>, tensor<16x24xf32>
    %23 = tpc.add %13, %22 : tensor<?x?x16xf32>
    %24 = tpc.get_param @model.norm.weight : tensor<16xf32>
    %25 = tpc.rmsnorm %23, %24 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %26 = tpc.get_param @lm_head.weight : tensor<40x16xf32>
    %27 = tpc.linear %25, %26 transposed : tensor<?x?x16xf32>, tensor<40x16xf32>
    %loss_sum, %count = tpc.cross_entropy %27, %arg1 ignore_index -1 : tensor<?x?x40xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %27 : tensor<f32>, tensor<i32>, tensor<?x?x40xf32>
  }
}
