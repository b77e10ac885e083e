// Written by make_mini.py: one transformer layer partitioned by hand for
// tp = 2 (vocabulary-parallel embedding and loss over a vocabulary that tp
// does not divide, column- and row-parallel linears, f, g, bias_add,
// head-parallel attention). Biases are random so that a misplaced bias shows.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<256x16xf32> init <normal, std = 2.000000e-02> layout <split 0> {vocab_size = 67 : i64}
  tpc.param @wpe : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.ln_1.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<16xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 2.000000e-02> layout <split 1 blocks 3>
  tpc.param @h.0.attn.c_attn.bias : tensor<48xf32> init <normal, std = 2.000000e-02> layout <split 0 blocks 3>
  tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02> layout <split 0>
  tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 2.000000e-02> layout <split 1>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <normal, std = 2.000000e-02> layout <split 0>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 2.000000e-02> layout <split 0>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <normal, std = 2.000000e-02>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros>
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>) {
    %wte = tpc.get_param @wte : tensor<128x16xf32>
    %e0 = tpc.embedding %wte, %tokens vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
    %e = tpc.g %e0 group tp : tensor<2x8x16xf32>
    %wpe = tpc.get_param @wpe : tensor<8x16xf32>
    %pe = tpc.position_embedding %wpe, %tokens : tensor<8x16xf32>, tensor<2x8xi32>
    %x0 = tpc.add %e, %pe : tensor<2x8x16xf32>
    %h_0_ln_1_weight = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %h_0_ln_1_bias = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %a = tpc.layernorm %x0, %h_0_ln_1_weight, %h_0_ln_1_bias eps 1.000000e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %h_0_attn_c_attn_weight = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x24xf32>
    %h_0_attn_c_attn_bias = tpc.get_param @h.0.attn.c_attn.bias : tensor<24xf32>
    %af = tpc.f %a group tp : tensor<2x8x16xf32>
    %qkv = tpc.linear %af, %h_0_attn_c_attn_weight, %h_0_attn_c_attn_bias : tensor<2x8x16xf32>, tensor<16x24xf32>, tensor<24xf32>
    %s = tpc.self_attention %qkv heads 2 causal head_parallel : tensor<2x8x24xf32>
    %h_0_attn_c_proj_weight = tpc.get_param @h.0.attn.c_proj.weight : tensor<8x16xf32>
    %h_0_attn_c_proj_bias = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %pr = tpc.linear %s, %h_0_attn_c_proj_weight : tensor<2x8x8xf32>, tensor<8x16xf32>
    %pg = tpc.g %pr group tp : tensor<2x8x16xf32>
    %po = tpc.bias_add %pg, %h_0_attn_c_proj_bias : tensor<2x8x16xf32>, tensor<16xf32>
    %x1 = tpc.add %x0, %po : tensor<2x8x16xf32>
    %x1f = tpc.f %x1 group tp : tensor<2x8x16xf32>
    %h_0_mlp_c_fc_weight = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x32xf32>
    %h_0_mlp_c_fc_bias = tpc.get_param @h.0.mlp.c_fc.bias : tensor<32xf32>
    %u = tpc.linear %x1f, %h_0_mlp_c_fc_weight, %h_0_mlp_c_fc_bias : tensor<2x8x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %ug = tpc.gelu %u : tensor<2x8x32xf32>
    %h_0_mlp_c_proj_weight = tpc.get_param @h.0.mlp.c_proj.weight : tensor<32x16xf32>
    %h_0_mlp_c_proj_bias = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %v0 = tpc.linear %ug, %h_0_mlp_c_proj_weight : tensor<2x8x32xf32>, tensor<32x16xf32>
    %v1 = tpc.g %v0 group tp : tensor<2x8x16xf32>
    %v = tpc.bias_add %v1, %h_0_mlp_c_proj_bias : tensor<2x8x16xf32>, tensor<16xf32>
    %x2 = tpc.add %x1, %v : tensor<2x8x16xf32>
    %x3 = tpc.scale %x2 by 1.500000e+00 : tensor<2x8x16xf32>
    %ln_f_weight = tpc.get_param @ln_f.weight : tensor<16xf32>
    %ln_f_bias = tpc.get_param @ln_f.bias : tensor<16xf32>
    %n = tpc.layernorm %x3, %ln_f_weight, %ln_f_bias eps 1.000000e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %nf = tpc.f %n group tp : tensor<2x8x16xf32>
    %l = tpc.linear %nf, %wte transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
    %sum, %cnt = tpc.vocab_parallel_cross_entropy %l, %targets vocab 67 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return %sum, %cnt, %l : tensor<f32>, tensor<i32>, tensor<2x8x128xf32>
  }
}
