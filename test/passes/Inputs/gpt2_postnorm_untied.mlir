// GPT-2, post-norm, untied lm_head, dropout between gelu and c_proj: L=2, H=16, 4 heads, V=100.
// In the canonical form that tpc-model emits, kept small; an input of the
// tpc-megatron-shard and tpc-partition tests.
module {
  tpc.param @wte : tensor<100x16xf32> init <normal, std = 0.02>
  tpc.param @wpe : tensor<32x16xf32> init <normal, std = 0.01>
  tpc.param @h.0.ln_1.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02>
  tpc.param @h.0.attn.c_attn.bias : tensor<48xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.ln_1.weight : tensor<16xf32> init <ones>
  tpc.param @h.1.ln_1.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.ln_2.weight : tensor<16xf32> init <ones>
  tpc.param @h.1.ln_2.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02>
  tpc.param @h.1.attn.c_attn.bias : tensor<48xf32> init <zeros>
  tpc.param @h.1.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.1.attn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
  tpc.param @h.1.mlp.c_fc.bias : tensor<64xf32> init <zeros>
  tpc.param @h.1.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.1.mlp.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @lm_head.weight : tensor<100x16xf32> init <normal, std = 0.02>
  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x100xf32>) {
    %0 = tpc.get_param @wte : tensor<100x16xf32>
    %1 = tpc.get_param @wpe : tensor<32x16xf32>
    %2 = tpc.embedding %0, %tokens : tensor<100x16xf32>, tensor<?x?xi32>
    %3 = tpc.position_embedding %1, %tokens : tensor<32x16xf32>, tensor<?x?xi32>
    %4 = tpc.add %2, %3 : tensor<?x?x16xf32>
    %5 = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %6 = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %7 = tpc.linear %4, %5, %6 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %8 = tpc.self_attention %7 heads 4 causal : tensor<?x?x48xf32>
    %9 = tpc.get_param @h.0.attn.c_proj.weight : tensor<16x16xf32>
    %10 = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %11 = tpc.linear %8, %9, %10 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %12 = tpc.add %4, %11 : tensor<?x?x16xf32>
    %13 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %14 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %15 = tpc.layernorm %12, %13, %14 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %16 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    %17 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
    %18 = tpc.linear %15, %16, %17 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %19 = tpc.gelu %18 : tensor<?x?x64xf32>
    %20 = tpc.dropout %19 p 1.000000e-01 replicated key 0 : tensor<?x?x64xf32>
    %21 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
    %22 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %23 = tpc.linear %20, %21, %22 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %24 = tpc.add %15, %23 : tensor<?x?x16xf32>
    %25 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %26 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %27 = tpc.layernorm %24, %25, %26 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %28 = tpc.get_param @h.1.attn.c_attn.weight : tensor<16x48xf32>
    %29 = tpc.get_param @h.1.attn.c_attn.bias : tensor<48xf32>
    %30 = tpc.linear %27, %28, %29 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %31 = tpc.self_attention %30 heads 4 causal : tensor<?x?x48xf32>
    %32 = tpc.get_param @h.1.attn.c_proj.weight : tensor<16x16xf32>
    %33 = tpc.get_param @h.1.attn.c_proj.bias : tensor<16xf32>
    %34 = tpc.linear %31, %32, %33 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %35 = tpc.add %27, %34 : tensor<?x?x16xf32>
    %36 = tpc.get_param @h.1.ln_1.weight : tensor<16xf32>
    %37 = tpc.get_param @h.1.ln_1.bias : tensor<16xf32>
    %38 = tpc.layernorm %35, %36, %37 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %39 = tpc.get_param @h.1.mlp.c_fc.weight : tensor<16x64xf32>
    %40 = tpc.get_param @h.1.mlp.c_fc.bias : tensor<64xf32>
    %41 = tpc.linear %38, %39, %40 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %42 = tpc.gelu %41 : tensor<?x?x64xf32>
    %43 = tpc.dropout %42 p 1.000000e-01 replicated key 1 : tensor<?x?x64xf32>
    %44 = tpc.get_param @h.1.mlp.c_proj.weight : tensor<64x16xf32>
    %45 = tpc.get_param @h.1.mlp.c_proj.bias : tensor<16xf32>
    %46 = tpc.linear %43, %44, %45 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %47 = tpc.add %38, %46 : tensor<?x?x16xf32>
    %48 = tpc.get_param @h.1.ln_2.weight : tensor<16xf32>
    %49 = tpc.get_param @h.1.ln_2.bias : tensor<16xf32>
    %50 = tpc.layernorm %47, %48, %49 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %51 = tpc.get_param @lm_head.weight : tensor<100x16xf32>
    %52 = tpc.linear %50, %51 transposed : tensor<?x?x16xf32>, tensor<100x16xf32>
    %sum, %count = tpc.cross_entropy %52, %targets ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
    return %sum, %count, %52 : tensor<f32>, tensor<i32>, tensor<?x?x100xf32>
  }
}
