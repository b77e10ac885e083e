// GPT-2, pre-norm, tied: L=1, H=12, 3 heads, V=100 (which tp=3 does not divide).
// In the canonical form that tpc-model emits, kept small; an input of the
// tpc-megatron-shard and tpc-partition tests.
module {
  tpc.param @wte : tensor<100x12xf32> init <normal, std = 0.02>
  tpc.param @wpe : tensor<32x12xf32> init <normal, std = 0.01>
  tpc.param @h.0.ln_1.weight : tensor<12xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<12xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<12xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<12xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<12x36xf32> init <normal, std = 0.02>
  tpc.param @h.0.attn.c_attn.bias : tensor<36xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<12x12xf32> init <normal, std = 0.02, residual_layers = 1>
  tpc.param @h.0.attn.c_proj.bias : tensor<12xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<12x48xf32> init <normal, std = 0.02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<48xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<48x12xf32> init <normal, std = 0.02, residual_layers = 1>
  tpc.param @h.0.mlp.c_proj.bias : tensor<12xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<12xf32> init <ones>
  tpc.param @ln_f.bias : tensor<12xf32> init <zeros>
  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x100xf32>) {
    %0 = tpc.get_param @wte : tensor<100x12xf32>
    %1 = tpc.get_param @wpe : tensor<32x12xf32>
    %2 = tpc.embedding %0, %tokens : tensor<100x12xf32>, tensor<?x?xi32>
    %3 = tpc.position_embedding %1, %tokens : tensor<32x12xf32>, tensor<?x?xi32>
    %4 = tpc.add %2, %3 : tensor<?x?x12xf32>
    %5 = tpc.get_param @h.0.ln_1.weight : tensor<12xf32>
    %6 = tpc.get_param @h.0.ln_1.bias : tensor<12xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x12xf32>, tensor<12xf32>, tensor<12xf32>
    %8 = tpc.get_param @h.0.attn.c_attn.weight : tensor<12x36xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.bias : tensor<36xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x12xf32>, tensor<12x36xf32>, tensor<36xf32>
    %11 = tpc.self_attention %10 heads 3 causal : tensor<?x?x36xf32>
    %12 = tpc.get_param @h.0.attn.c_proj.weight : tensor<12x12xf32>
    %13 = tpc.get_param @h.0.attn.c_proj.bias : tensor<12xf32>
    %14 = tpc.linear %11, %12, %13 : tensor<?x?x12xf32>, tensor<12x12xf32>, tensor<12xf32>
    %15 = tpc.add %4, %14 : tensor<?x?x12xf32>
    %16 = tpc.get_param @h.0.ln_2.weight : tensor<12xf32>
    %17 = tpc.get_param @h.0.ln_2.bias : tensor<12xf32>
    %18 = tpc.layernorm %15, %16, %17 eps 1.000000e-05 : tensor<?x?x12xf32>, tensor<12xf32>, tensor<12xf32>
    %19 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<12x48xf32>
    %20 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<48xf32>
    %21 = tpc.linear %18, %19, %20 : tensor<?x?x12xf32>, tensor<12x48xf32>, tensor<48xf32>
    %22 = tpc.gelu %21 : tensor<?x?x48xf32>
    %23 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<48x12xf32>
    %24 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<12xf32>
    %25 = tpc.linear %22, %23, %24 : tensor<?x?x48xf32>, tensor<48x12xf32>, tensor<12xf32>
    %26 = tpc.add %15, %25 : tensor<?x?x12xf32>
    %27 = tpc.get_param @ln_f.weight : tensor<12xf32>
    %28 = tpc.get_param @ln_f.bias : tensor<12xf32>
    %29 = tpc.layernorm %26, %27, %28 eps 1.000000e-05 : tensor<?x?x12xf32>, tensor<12xf32>, tensor<12xf32>
    %30 = tpc.linear %29, %0 transposed : tensor<?x?x12xf32>, tensor<100x12xf32>
    %sum, %count = tpc.cross_entropy %30, %targets ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
    return %sum, %count, %30 : tensor<f32>, tensor<i32>, tensor<?x?x100xf32>
  }
}
