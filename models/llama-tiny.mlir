// tpc-model llama --layers 2 --hidden 64 --heads 4 --kv-heads 2 --intermediate 176 --vocab 512 --seq 64 --rope-theta 10000 --norm-eps 1e-05
module attributes {tpc.context = 64 : i64} {
  tpc.param @model.embed_tokens.weight : tensor<512x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.input_layernorm.weight : tensor<64xf32> init <ones>
  tpc.param @model.layers.0.self_attn.q_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.self_attn.k_proj.weight : tensor<32x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.self_attn.v_proj.weight : tensor<32x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.self_attn.o_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.post_attention_layernorm.weight : tensor<64xf32> init <ones>
  tpc.param @model.layers.0.mlp.gate_proj.weight : tensor<176x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.mlp.up_proj.weight : tensor<176x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.0.mlp.down_proj.weight : tensor<64x176xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.input_layernorm.weight : tensor<64xf32> init <ones>
  tpc.param @model.layers.1.self_attn.q_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.self_attn.k_proj.weight : tensor<32x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.self_attn.v_proj.weight : tensor<32x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.self_attn.o_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.post_attention_layernorm.weight : tensor<64xf32> init <ones>
  tpc.param @model.layers.1.mlp.gate_proj.weight : tensor<176x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.mlp.up_proj.weight : tensor<176x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.layers.1.mlp.down_proj.weight : tensor<64x176xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.norm.weight : tensor<64xf32> init <ones>
  tpc.param @lm_head.weight : tensor<512x64xf32> init <normal, std = 2.000000e-02>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x512xf32>) {
    %0 = tpc.get_param @model.embed_tokens.weight : tensor<512x64xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<512x64xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @model.layers.0.input_layernorm.weight : tensor<64xf32>
    %3 = tpc.rmsnorm %1, %2 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>
    %4 = tpc.get_param @model.layers.0.self_attn.q_proj.weight : tensor<64x64xf32>
    %5 = tpc.linear %3, %4 transposed : tensor<?x?x64xf32>, tensor<64x64xf32>
    %6 = tpc.get_param @model.layers.0.self_attn.k_proj.weight : tensor<32x64xf32>
    %7 = tpc.linear %3, %6 transposed : tensor<?x?x64xf32>, tensor<32x64xf32>
    %8 = tpc.get_param @model.layers.0.self_attn.v_proj.weight : tensor<32x64xf32>
    %9 = tpc.linear %3, %8 transposed : tensor<?x?x64xf32>, tensor<32x64xf32>
    %10 = tpc.grouped_attention %5, %7, %9 heads 4 kv_heads 2 causal rope 1.000000e+04 : tensor<?x?x64xf32>, tensor<?x?x32xf32>
    %11 = tpc.get_param @model.layers.0.self_attn.o_proj.weight : tensor<64x64xf32>
    %12 = tpc.linear %10, %11 transposed : tensor<?x?x64xf32>, tensor<64x64xf32>
    %13 = tpc.add %1, %12 : tensor<?x?x64xf32>
    %14 = tpc.get_param @model.layers.0.post_attention_layernorm.weight : tensor<64xf32>
    %15 = tpc.rmsnorm %13, %14 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>
    %16 = tpc.get_param @model.layers.0.mlp.gate_proj.weight : tensor<176x64xf32>
    %17 = tpc.linear %15, %16 transposed : tensor<?x?x64xf32>, tensor<176x64xf32>
    %18 = tpc.get_param @model.layers.0.mlp.up_proj.weight : tensor<176x64xf32>
    %19 = tpc.linear %15, %18 transposed : tensor<?x?x64xf32>, tensor<176x64xf32>
    %20 = tpc.swiglu %17, %19 : tensor<?x?x176xf32>
    %21 = tpc.get_param @model.layers.0.mlp.down_proj.weight : tensor<64x176xf32>
    %22 = tpc.linear %20, %21 transposed : tensor<?x?x176xf32>, tensor<64x176xf32>
    %23 = tpc.add %13, %22 : tensor<?x?x64xf32>
    %24 = tpc.get_param @model.layers.1.input_layernorm.weight : tensor<64xf32>
    %25 = tpc.rmsnorm %23, %24 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>
    %26 = tpc.get_param @model.layers.1.self_attn.q_proj.weight : tensor<64x64xf32>
    %27 = tpc.linear %25, %26 transposed : tensor<?x?x64xf32>, tensor<64x64xf32>
    %28 = tpc.get_param @model.layers.1.self_attn.k_proj.weight : tensor<32x64xf32>
    %29 = tpc.linear %25, %28 transposed : tensor<?x?x64xf32>, tensor<32x64xf32>
    %30 = tpc.get_param @model.layers.1.self_attn.v_proj.weight : tensor<32x64xf32>
    %31 = tpc.linear %25, %30 transposed : tensor<?x?x64xf32>, tensor<32x64xf32>
    %32 = tpc.grouped_attention %27, %29, %31 heads 4 kv_heads 2 causal rope 1.000000e+04 : tensor<?x?x64xf32>, tensor<?x?x32xf32>
    %33 = tpc.get_param @model.layers.1.self_attn.o_proj.weight : tensor<64x64xf32>
    %34 = tpc.linear %32, %33 transposed : tensor<?x?x64xf32>, tensor<64x64xf32>
    %35 = tpc.add %23, %34 : tensor<?x?x64xf32>
    %36 = tpc.get_param @model.layers.1.post_attention_layernorm.weight : tensor<64xf32>
    %37 = tpc.rmsnorm %35, %36 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>
    %38 = tpc.get_param @model.layers.1.mlp.gate_proj.weight : tensor<176x64xf32>
    %39 = tpc.linear %37, %38 transposed : tensor<?x?x64xf32>, tensor<176x64xf32>
    %40 = tpc.get_param @model.layers.1.mlp.up_proj.weight : tensor<176x64xf32>
    %41 = tpc.linear %37, %40 transposed : tensor<?x?x64xf32>, tensor<176x64xf32>
    %42 = tpc.swiglu %39, %41 : tensor<?x?x176xf32>
    %43 = tpc.get_param @model.layers.1.mlp.down_proj.weight : tensor<64x176xf32>
    %44 = tpc.linear %42, %43 transposed : tensor<?x?x176xf32>, tensor<64x176xf32>
    %45 = tpc.add %35, %44 : tensor<?x?x64xf32>
    %46 = tpc.get_param @model.norm.weight : tensor<64xf32>
    %47 = tpc.rmsnorm %45, %46 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>
    %48 = tpc.get_param @lm_head.weight : tensor<512x64xf32>
    %49 = tpc.linear %47, %48 transposed : tensor<?x?x64xf32>, tensor<512x64xf32>
    %loss_sum, %count = tpc.cross_entropy %49, %arg1 ignore_index -1 : tensor<?x?x512xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %49 : tensor<f32>, tensor<i32>, tensor<?x?x512xf32>
  }
}
