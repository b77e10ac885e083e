// A partitioned module (tp = 2) for the optimizer-step passes: a vocabulary
// padded from 100 to 256 and split, one Megatron MLP (column- then
// row-parallel) and replicated biases and gains. Local gradient bytes:
// wte 8192, c_fc.weight 2048, c_fc.bias 128, c_proj.weight 2048, the
// replicated vectors 64 each.
module attributes {tpc.dp = 4 : i64, tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<256x16xf32> init <normal, std = 0.02> layout <split 0> {vocab_size = 100 : i64}
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros> layout <split 0>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 1> layout <split 0>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros> layout <replicated>
}
