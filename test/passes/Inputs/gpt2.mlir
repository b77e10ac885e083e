// GPT-2, pre-norm, tied output layer: L=2, H=16, 4 heads, V=100, dropout 0.1.
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
  tpc.param @ln_f.weight : tensor<16xf32> init <ones>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros>
  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x100xf32>) {
    %0 = tpc.get_param @wte : tensor<100x16xf32>
    %1 = tpc.get_param @wpe : tensor<32x16xf32>
    %2 = tpc.embedding %0, %tokens : tensor<100x16xf32>, tensor<?x?xi32>
    %3 = tpc.position_embedding %1, %tokens : tensor<32x16xf32>, tensor<?x?xi32>
    %4 = tpc.add %2, %3 : tensor<?x?x16xf32>
    %5 = tpc.dropout %4 p 1.000000e-01 replicated key 0 : tensor<?x?x16xf32>
    %6 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %7 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %8 = tpc.layernorm %5, %6, %7 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %10 = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %11 = tpc.linear %8, %9, %10 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %12 = tpc.self_attention %11 heads 4 causal dropout 1.000000e-01 key 1 : tensor<?x?x48xf32>
    %13 = tpc.get_param @h.0.attn.c_proj.weight : tensor<16x16xf32>
    %14 = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %15 = tpc.linear %12, %13, %14 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %16 = tpc.dropout %15 p 1.000000e-01 replicated key 2 : tensor<?x?x16xf32>
    %17 = tpc.add %5, %16 : tensor<?x?x16xf32>
    %18 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %19 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %20 = tpc.layernorm %17, %18, %19 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %21 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    %22 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
    %23 = tpc.linear %20, %21, %22 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %24 = tpc.gelu %23 : tensor<?x?x64xf32>
    %25 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
    %26 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %27 = tpc.linear %24, %25, %26 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %28 = tpc.dropout %27 p 1.000000e-01 replicated key 3 : tensor<?x?x16xf32>
    %29 = tpc.add %17, %28 : tensor<?x?x16xf32>
    %30 = tpc.get_param @h.1.ln_1.weight : tensor<16xf32>
    %31 = tpc.get_param @h.1.ln_1.bias : tensor<16xf32>
    %32 = tpc.layernorm %29, %30, %31 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %33 = tpc.get_param @h.1.attn.c_attn.weight : tensor<16x48xf32>
    %34 = tpc.get_param @h.1.attn.c_attn.bias : tensor<48xf32>
    %35 = tpc.linear %32, %33, %34 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %36 = tpc.self_attention %35 heads 4 causal dropout 1.000000e-01 key 4 : tensor<?x?x48xf32>
    %37 = tpc.get_param @h.1.attn.c_proj.weight : tensor<16x16xf32>
    %38 = tpc.get_param @h.1.attn.c_proj.bias : tensor<16xf32>
    %39 = tpc.linear %36, %37, %38 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %40 = tpc.dropout %39 p 1.000000e-01 replicated key 5 : tensor<?x?x16xf32>
    %41 = tpc.add %29, %40 : tensor<?x?x16xf32>
    %42 = tpc.get_param @h.1.ln_2.weight : tensor<16xf32>
    %43 = tpc.get_param @h.1.ln_2.bias : tensor<16xf32>
    %44 = tpc.layernorm %41, %42, %43 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %45 = tpc.get_param @h.1.mlp.c_fc.weight : tensor<16x64xf32>
    %46 = tpc.get_param @h.1.mlp.c_fc.bias : tensor<64xf32>
    %47 = tpc.linear %44, %45, %46 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %48 = tpc.gelu %47 : tensor<?x?x64xf32>
    %49 = tpc.get_param @h.1.mlp.c_proj.weight : tensor<64x16xf32>
    %50 = tpc.get_param @h.1.mlp.c_proj.bias : tensor<16xf32>
    %51 = tpc.linear %48, %49, %50 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %52 = tpc.dropout %51 p 1.000000e-01 replicated key 6 : tensor<?x?x16xf32>
    %53 = tpc.add %41, %52 : tensor<?x?x16xf32>
    %54 = tpc.get_param @ln_f.weight : tensor<16xf32>
    %55 = tpc.get_param @ln_f.bias : tensor<16xf32>
    %56 = tpc.layernorm %53, %54, %55 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %57 = tpc.linear %56, %0 transposed : tensor<?x?x16xf32>, tensor<100x16xf32>
    %sum, %count = tpc.cross_entropy %57, %targets ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
    return %sum, %count, %57 : tensor<f32>, tensor<i32>, tensor<?x?x100xf32>
  }
}
