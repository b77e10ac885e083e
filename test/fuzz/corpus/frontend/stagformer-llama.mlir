// tpc-model stagformer --blocks llama --stacks 2 --layers 1 --hidden 16 --heads 2 --kv-heads 1 --intermediate 24 --vocab 40 --seq 8 --rope-theta 10000 --norm-eps 1e-05 --window 2
module attributes {tpc.context = 8 : i64} {
  tpc.param @model.embed_tokens.weight : tensor<40x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.input_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.s1.layers.0.self_attn.q_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.self_attn.k_proj.weight : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.self_attn.v_proj.weight : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.self_attn.o_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.post_attention_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.s1.layers.0.mlp.gate_proj.weight : tensor<24x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.mlp.up_proj.weight : tensor<24x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s1.layers.0.mlp.down_proj.weight : tensor<16x24xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.input_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.s2.layers.0.self_attn.q_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.self_attn.k_proj.weight : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.self_attn.v_proj.weight : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.self_attn.o_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.cross_attn_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.s2.layers.0.cross_attn.q_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.cross_attn.kv_proj.weight : tensor<32x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.cross_attn.o_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.post_attention_layernorm.weight : tensor<16xf32> init <ones>
  tpc.param @model.s2.layers.0.mlp.gate_proj.weight : tensor<24x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.mlp.up_proj.weight : tensor<24x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.s2.layers.0.mlp.down_proj.weight : tensor<16x24xf32> init <normal, std = 2.000000e-02>
  tpc.param @model.norm.weight : tensor<16xf32> init <ones>
  tpc.param @lm_head.weight : tensor<40x16xf32> init <normal, std = 2.000000e-02>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x40xf32>) {
    %0 = tpc.get_param @model.embed_tokens.weight : tensor<40x16xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<40x16xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @model.s1.layers.0.input_layernorm.weight : tensor<16xf32>
    %3 = tpc.rmsnorm %1, %2 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %4 = tpc.get_param @model.s1.layers.0.self_attn.q_proj.weight : tensor<16x16xf32>
    %5 = tpc.linear %3, %4 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %6 = tpc.get_param @model.s1.layers.0.self_attn.k_proj.weight : tensor<8x16xf32>
    %7 = tpc.linear %3, %6 transposed : tensor<?x?x16xf32>, tensor<8x16xf32>
    %8 = tpc.get_param @model.s1.layers.0.self_attn.v_proj.weight : tensor<8x16xf32>
    %9 = tpc.linear %3, %8 transposed : tensor<?x?x16xf32>, tensor<8x16xf32>
    %10 = tpc.grouped_attention %5, %7, %9 heads 2 kv_heads 1 causal rope 1.000000e+04 : tensor<?x?x16xf32>, tensor<?x?x8xf32>
    %11 = tpc.get_param @model.s1.layers.0.self_attn.o_proj.weight : tensor<16x16xf32>
    %12 = tpc.linear %10, %11 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %13 = tpc.add %1, %12 : tensor<?x?x16xf32>
    %14 = tpc.get_param @model.s1.layers.0.post_attention_layernorm.weight : tensor<16xf32>
    %15 = tpc.rmsnorm %13, %14 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %16 = tpc.get_param @model.s1.layers.0.mlp.gate_proj.weight : tensor<24x16xf32>
    %17 = tpc.linear %15, %16 transposed : tensor<?x?x16xf32>, tensor<24x16xf32>
    %18 = tpc.get_param @model.s1.layers.0.mlp.up_proj.weight : tensor<24x16xf32>
    %19 = tpc.linear %15, %18 transposed : tensor<?x?x16xf32>, tensor<24x16xf32>
    %20 = tpc.swiglu %17, %19 : tensor<?x?x24xf32>
    %21 = tpc.get_param @model.s1.layers.0.mlp.down_proj.weight : tensor<16x24xf32>
    %22 = tpc.linear %20, %21 transposed : tensor<?x?x24xf32>, tensor<16x24xf32>
    %23 = tpc.add %13, %22 : tensor<?x?x16xf32>
    %24 = tpc.get_param @model.s2.layers.0.input_layernorm.weight : tensor<16xf32>
    %25 = tpc.rmsnorm %1, %24 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %26 = tpc.get_param @model.s2.layers.0.self_attn.q_proj.weight : tensor<16x16xf32>
    %27 = tpc.linear %25, %26 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %28 = tpc.get_param @model.s2.layers.0.self_attn.k_proj.weight : tensor<8x16xf32>
    %29 = tpc.linear %25, %28 transposed : tensor<?x?x16xf32>, tensor<8x16xf32>
    %30 = tpc.get_param @model.s2.layers.0.self_attn.v_proj.weight : tensor<8x16xf32>
    %31 = tpc.linear %25, %30 transposed : tensor<?x?x16xf32>, tensor<8x16xf32>
    %32 = tpc.grouped_attention %27, %29, %31 heads 2 kv_heads 1 causal rope 1.000000e+04 : tensor<?x?x16xf32>, tensor<?x?x8xf32>
    %33 = tpc.get_param @model.s2.layers.0.self_attn.o_proj.weight : tensor<16x16xf32>
    %34 = tpc.linear %32, %33 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %35 = tpc.add %1, %34 : tensor<?x?x16xf32>
    %36 = tpc.get_param @model.s2.layers.0.cross_attn_layernorm.weight : tensor<16xf32>
    %37 = tpc.rmsnorm %35, %36 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %38 = tpc.get_param @model.s2.layers.0.cross_attn.q_proj.weight : tensor<16x16xf32>
    %39 = tpc.linear %37, %38 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %40 = tpc.get_param @model.s2.layers.0.cross_attn.kv_proj.weight : tensor<32x16xf32>
    %41 = tpc.linear %23, %40 transposed : tensor<?x?x16xf32>, tensor<32x16xf32>
    %42 = tpc.cross_attention %39, %41 heads 2 window 2 rope 1.000000e+04 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
    %43 = tpc.get_param @model.s2.layers.0.cross_attn.o_proj.weight : tensor<16x16xf32>
    %44 = tpc.linear %42, %43 transposed : tensor<?x?x16xf32>, tensor<16x16xf32>
    %45 = tpc.add %35, %44 : tensor<?x?x16xf32>
    %46 = tpc.get_param @model.s2.layers.0.post_attention_layernorm.weight : tensor<16xf32>
    %47 = tpc.rmsnorm %45, %46 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %48 = tpc.get_param @model.s2.layers.0.mlp.gate_proj.weight : tensor<24x16xf32>
    %49 = tpc.linear %47, %48 transposed : tensor<?x?x16xf32>, tensor<24x16xf32>
    %50 = tpc.get_param @model.s2.layers.0.mlp.up_proj.weight : tensor<24x16xf32>
    %51 = tpc.linear %47, %50 transposed : tensor<?x?x16xf32>, tensor<24x16xf32>
    %52 = tpc.swiglu %49, %51 : tensor<?x?x24xf32>
    %53 = tpc.get_param @model.s2.layers.0.mlp.down_proj.weight : tensor<16x24xf32>
    %54 = tpc.linear %52, %53 transposed : tensor<?x?x24xf32>, tensor<16x24xf32>
    %55 = tpc.add %45, %54 : tensor<?x?x16xf32>
    %56 = tpc.get_param @model.norm.weight : tensor<16xf32>
    %57 = tpc.rmsnorm %55, %56 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>
    %58 = tpc.get_param @lm_head.weight : tensor<40x16xf32>
    %59 = tpc.linear %57, %58 transposed : tensor<?x?x16xf32>, tensor<40x16xf32>
    %loss_sum, %count = tpc.cross_entropy %59, %arg1 ignore_index -1 : tensor<?x?x40xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %59 : tensor<f32>, tensor<i32>, tensor<?x?x40xf32>
  }
}
