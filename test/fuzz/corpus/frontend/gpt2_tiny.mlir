// A two-layer GPT-2 at its global size (H = 16, 4 heads, V = 100, 16
// positions), as a model file leaves it: batch and sequence open.
module {
  tpc.param @wte : tensor<100x16xf32> init <normal, std = 0.02>
  tpc.param @wpe : tensor<16x16xf32> init <normal, std = 0.02>
  tpc.param @h.0.ln_1.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02>
  tpc.param @h.0.attn.c_attn.bias : tensor<48xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.ln_1.weight : tensor<16xf32> init <ones>
  tpc.param @h.1.ln_1.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02>
  tpc.param @h.1.attn.c_attn.bias : tensor<48xf32> init <zeros>
  tpc.param @h.1.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.1.attn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.ln_2.weight : tensor<16xf32> init <ones>
  tpc.param @h.1.ln_2.bias : tensor<16xf32> init <zeros>
  tpc.param @h.1.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
  tpc.param @h.1.mlp.c_fc.bias : tensor<64xf32> init <zeros>
  tpc.param @h.1.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 2>
  tpc.param @h.1.mlp.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros>

  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x100xf32>) {
    %wte = tpc.get_param @wte : tensor<100x16xf32>
    %e = tpc.embedding %wte, %tokens : tensor<100x16xf32>, tensor<?x?xi32>
    %wpe = tpc.get_param @wpe : tensor<16x16xf32>
    %p = tpc.position_embedding %wpe, %tokens : tensor<16x16xf32>, tensor<?x?xi32>
    %h0 = tpc.add %e, %p : tensor<?x?x16xf32>
    %l0g1 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %l0b1 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %l0a = tpc.layernorm %h0, %l0g1, %l0b1 eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l0wqkv = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %l0bqkv = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %l0qkv = tpc.linear %l0a, %l0wqkv, %l0bqkv : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %l0s = tpc.self_attention %l0qkv heads 4 causal : tensor<?x?x48xf32>
    %l0wo = tpc.get_param @h.0.attn.c_proj.weight : tensor<16x16xf32>
    %l0bo = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %l0o = tpc.linear %l0s, %l0wo, %l0bo : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %l0r = tpc.add %h0, %l0o : tensor<?x?x16xf32>
    %l0g2 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %l0b2 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %l0m = tpc.layernorm %l0r, %l0g2, %l0b2 eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l0wfc = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    %l0bfc = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
    %l0u = tpc.linear %l0m, %l0wfc, %l0bfc : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %l0gu = tpc.gelu %l0u : tensor<?x?x64xf32>
    %l0wp = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
    %l0bp = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %l0v = tpc.linear %l0gu, %l0wp, %l0bp : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %l0h = tpc.add %l0r, %l0v : tensor<?x?x16xf32>
    %l1g1 = tpc.get_param @h.1.ln_1.weight : tensor<16xf32>
    %l1b1 = tpc.get_param @h.1.ln_1.bias : tensor<16xf32>
    %l1a = tpc.layernorm %l0h, %l1g1, %l1b1 eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l1wqkv = tpc.get_param @h.1.attn.c_attn.weight : tensor<16x48xf32>
    %l1bqkv = tpc.get_param @h.1.attn.c_attn.bias : tensor<48xf32>
    %l1qkv = tpc.linear %l1a, %l1wqkv, %l1bqkv : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %l1s = tpc.self_attention %l1qkv heads 4 causal : tensor<?x?x48xf32>
    %l1wo = tpc.get_param @h.1.attn.c_proj.weight : tensor<16x16xf32>
    %l1bo = tpc.get_param @h.1.attn.c_proj.bias : tensor<16xf32>
    %l1o = tpc.linear %l1s, %l1wo, %l1bo : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %l1r = tpc.add %l0h, %l1o : tensor<?x?x16xf32>
    %l1g2 = tpc.get_param @h.1.ln_2.weight : tensor<16xf32>
    %l1b2 = tpc.get_param @h.1.ln_2.bias : tensor<16xf32>
    %l1m = tpc.layernorm %l1r, %l1g2, %l1b2 eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l1wfc = tpc.get_param @h.1.mlp.c_fc.weight : tensor<16x64xf32>
    %l1bfc = tpc.get_param @h.1.mlp.c_fc.bias : tensor<64xf32>
    %l1u = tpc.linear %l1m, %l1wfc, %l1bfc : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %l1gu = tpc.gelu %l1u : tensor<?x?x64xf32>
    %l1wp = tpc.get_param @h.1.mlp.c_proj.weight : tensor<64x16xf32>
    %l1bp = tpc.get_param @h.1.mlp.c_proj.bias : tensor<16xf32>
    %l1v = tpc.linear %l1gu, %l1wp, %l1bp : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %l1h = tpc.add %l1r, %l1v : tensor<?x?x16xf32>
    %gf = tpc.get_param @ln_f.weight : tensor<16xf32>
    %bf = tpc.get_param @ln_f.bias : tensor<16xf32>
    %n = tpc.layernorm %l1h, %gf, %bf eps 1.0e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %logits = tpc.linear %n, %wte transposed : tensor<?x?x16xf32>, tensor<100x16xf32>
    %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
    return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<?x?x100xf32>
  }
}
