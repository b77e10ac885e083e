// tpc-model gpt2 --layers 72 --hidden 3072 --heads 32 --vocab 50257 --seq 1024
module {
  tpc.param @wte : tensor<50257x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @wpe : tensor<1024x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.0.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.0.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.1.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.1.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.1.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.1.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.1.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.1.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.1.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.1.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.1.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.1.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.1.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.1.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.2.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.2.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.2.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.2.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.2.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.2.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.2.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.2.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.2.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.2.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.2.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.2.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.3.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.3.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.3.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.3.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.3.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.3.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.3.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.3.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.3.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.3.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.3.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.3.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.4.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.4.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.4.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.4.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.4.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.4.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.4.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.4.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.4.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.4.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.4.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.4.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.5.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.5.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.5.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.5.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.5.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.5.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.5.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.5.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.5.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.5.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.5.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.5.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.6.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.6.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.6.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.6.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.6.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.6.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.6.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.6.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.6.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.6.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.6.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.6.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.7.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.7.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.7.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.7.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.7.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.7.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.7.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.7.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.7.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.7.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.7.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.7.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.8.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.8.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.8.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.8.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.8.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.8.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.8.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.8.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.8.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.8.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.8.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.8.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.9.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.9.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.9.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.9.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.9.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.9.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.9.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.9.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.9.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.9.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.9.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.9.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.10.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.10.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.10.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.10.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.10.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.10.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.10.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.10.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.10.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.10.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.10.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.10.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.11.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.11.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.11.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.11.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.11.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.11.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.11.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.11.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.11.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.11.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.11.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.11.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.12.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.12.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.12.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.12.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.12.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.12.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.12.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.12.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.12.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.12.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.12.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.12.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.13.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.13.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.13.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.13.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.13.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.13.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.13.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.13.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.13.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.13.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.13.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.13.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.14.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.14.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.14.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.14.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.14.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.14.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.14.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.14.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.14.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.14.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.14.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.14.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.15.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.15.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.15.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.15.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.15.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.15.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.15.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.15.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.15.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.15.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.15.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.15.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.16.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.16.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.16.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.16.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.16.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.16.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.16.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.16.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.16.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.16.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.16.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.16.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.17.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.17.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.17.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.17.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.17.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.17.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.17.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.17.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.17.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.17.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.17.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.17.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.18.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.18.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.18.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.18.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.18.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.18.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.18.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.18.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.18.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.18.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.18.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.18.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.19.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.19.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.19.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.19.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.19.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.19.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.19.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.19.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.19.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.19.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.19.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.19.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.20.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.20.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.20.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.20.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.20.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.20.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.20.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.20.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.20.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.20.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.20.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.20.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.21.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.21.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.21.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.21.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.21.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.21.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.21.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.21.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.21.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.21.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.21.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.21.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.22.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.22.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.22.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.22.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.22.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.22.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.22.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.22.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.22.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.22.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.22.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.22.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.23.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.23.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.23.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.23.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.23.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.23.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.23.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.23.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.23.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.23.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.23.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.23.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.24.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.24.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.24.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.24.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.24.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.24.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.24.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.24.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.24.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.24.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.24.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.24.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.25.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.25.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.25.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.25.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.25.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.25.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.25.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.25.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.25.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.25.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.25.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.25.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.26.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.26.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.26.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.26.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.26.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.26.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.26.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.26.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.26.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.26.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.26.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.26.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.27.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.27.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.27.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.27.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.27.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.27.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.27.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.27.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.27.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.27.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.27.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.27.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.28.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.28.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.28.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.28.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.28.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.28.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.28.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.28.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.28.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.28.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.28.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.28.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.29.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.29.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.29.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.29.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.29.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.29.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.29.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.29.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.29.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.29.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.29.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.29.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.30.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.30.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.30.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.30.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.30.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.30.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.30.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.30.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.30.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.30.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.30.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.30.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.31.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.31.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.31.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.31.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.31.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.31.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.31.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.31.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.31.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.31.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.31.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.31.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.32.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.32.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.32.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.32.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.32.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.32.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.32.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.32.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.32.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.32.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.32.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.32.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.33.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.33.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.33.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.33.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.33.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.33.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.33.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.33.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.33.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.33.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.33.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.33.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.34.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.34.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.34.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.34.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.34.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.34.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.34.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.34.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.34.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.34.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.34.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.34.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.35.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.35.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.35.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.35.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.35.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.35.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.35.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.35.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.35.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.35.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.35.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.35.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.36.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.36.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.36.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.36.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.36.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.36.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.36.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.36.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.36.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.36.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.36.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.36.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.37.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.37.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.37.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.37.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.37.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.37.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.37.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.37.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.37.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.37.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.37.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.37.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.38.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.38.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.38.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.38.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.38.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.38.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.38.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.38.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.38.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.38.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.38.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.38.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.39.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.39.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.39.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.39.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.39.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.39.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.39.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.39.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.39.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.39.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.39.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.39.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.40.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.40.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.40.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.40.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.40.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.40.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.40.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.40.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.40.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.40.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.40.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.40.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.41.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.41.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.41.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.41.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.41.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.41.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.41.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.41.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.41.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.41.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.41.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.41.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.42.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.42.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.42.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.42.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.42.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.42.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.42.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.42.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.42.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.42.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.42.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.42.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.43.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.43.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.43.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.43.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.43.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.43.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.43.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.43.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.43.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.43.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.43.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.43.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.44.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.44.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.44.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.44.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.44.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.44.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.44.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.44.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.44.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.44.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.44.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.44.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.45.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.45.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.45.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.45.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.45.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.45.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.45.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.45.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.45.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.45.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.45.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.45.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.46.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.46.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.46.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.46.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.46.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.46.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.46.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.46.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.46.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.46.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.46.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.46.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.47.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.47.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.47.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.47.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.47.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.47.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.47.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.47.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.47.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.47.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.47.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.47.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.48.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.48.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.48.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.48.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.48.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.48.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.48.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.48.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.48.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.48.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.48.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.48.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.49.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.49.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.49.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.49.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.49.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.49.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.49.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.49.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.49.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.49.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.49.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.49.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.50.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.50.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.50.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.50.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.50.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.50.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.50.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.50.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.50.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.50.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.50.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.50.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.51.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.51.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.51.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.51.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.51.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.51.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.51.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.51.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.51.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.51.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.51.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.51.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.52.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.52.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.52.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.52.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.52.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.52.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.52.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.52.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.52.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.52.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.52.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.52.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.53.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.53.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.53.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.53.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.53.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.53.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.53.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.53.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.53.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.53.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.53.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.53.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.54.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.54.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.54.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.54.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.54.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.54.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.54.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.54.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.54.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.54.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.54.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.54.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.55.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.55.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.55.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.55.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.55.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.55.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.55.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.55.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.55.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.55.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.55.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.55.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.56.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.56.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.56.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.56.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.56.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.56.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.56.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.56.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.56.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.56.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.56.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.56.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.57.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.57.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.57.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.57.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.57.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.57.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.57.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.57.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.57.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.57.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.57.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.57.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.58.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.58.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.58.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.58.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.58.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.58.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.58.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.58.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.58.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.58.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.58.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.58.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.59.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.59.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.59.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.59.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.59.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.59.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.59.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.59.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.59.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.59.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.59.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.59.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.60.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.60.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.60.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.60.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.60.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.60.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.60.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.60.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.60.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.60.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.60.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.60.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.61.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.61.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.61.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.61.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.61.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.61.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.61.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.61.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.61.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.61.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.61.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.61.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.62.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.62.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.62.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.62.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.62.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.62.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.62.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.62.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.62.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.62.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.62.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.62.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.63.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.63.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.63.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.63.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.63.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.63.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.63.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.63.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.63.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.63.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.63.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.63.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.64.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.64.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.64.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.64.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.64.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.64.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.64.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.64.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.64.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.64.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.64.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.64.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.65.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.65.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.65.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.65.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.65.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.65.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.65.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.65.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.65.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.65.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.65.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.65.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.66.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.66.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.66.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.66.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.66.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.66.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.66.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.66.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.66.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.66.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.66.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.66.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.67.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.67.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.67.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.67.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.67.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.67.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.67.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.67.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.67.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.67.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.67.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.67.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.68.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.68.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.68.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.68.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.68.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.68.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.68.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.68.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.68.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.68.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.68.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.68.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.69.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.69.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.69.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.69.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.69.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.69.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.69.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.69.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.69.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.69.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.69.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.69.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.70.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.70.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.70.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.70.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.70.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.70.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.70.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.70.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.70.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.70.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.70.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.70.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.71.ln_1.weight : tensor<3072xf32> init <ones>
  tpc.param @h.71.ln_1.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.71.attn.c_attn.weight : tensor<3072x9216xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.71.attn.c_attn.bias : tensor<9216xf32> init <zeros>
  tpc.param @h.71.attn.c_proj.weight : tensor<3072x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.71.attn.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.71.ln_2.weight : tensor<3072xf32> init <ones>
  tpc.param @h.71.ln_2.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.71.mlp.c_fc.weight : tensor<3072x12288xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.71.mlp.c_fc.bias : tensor<12288xf32> init <zeros>
  tpc.param @h.71.mlp.c_proj.weight : tensor<12288x3072xf32> init <normal, std = 2.000000e-02, residual_layers = 72>
  tpc.param @h.71.mlp.c_proj.bias : tensor<3072xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<3072xf32> init <ones>
  tpc.param @ln_f.bias : tensor<3072xf32> init <zeros>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x50257xf32>) {
    %0 = tpc.get_param @wte : tensor<50257x3072xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<50257x3072xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @wpe : tensor<1024x3072xf32>
    %3 = tpc.position_embedding %2, %arg0 : tensor<1024x3072xf32>, tensor<?x?xi32>
    %4 = tpc.add %1, %3 : tensor<?x?x3072xf32>
    %5 = tpc.get_param @h.0.ln_1.weight : tensor<3072xf32>
    %6 = tpc.get_param @h.0.ln_1.bias : tensor<3072xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %8 = tpc.get_param @h.0.attn.c_attn.weight : tensor<3072x9216xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.bias : tensor<9216xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %11 = tpc.self_attention %10 heads 32 causal : tensor<?x?x9216xf32>
    %12 = tpc.get_param @h.0.attn.c_proj.weight : tensor<3072x3072xf32>
    %13 = tpc.get_param @h.0.attn.c_proj.bias : tensor<3072xf32>
    %14 = tpc.linear %11, %12, %13 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %15 = tpc.add %4, %14 : tensor<?x?x3072xf32>
    %16 = tpc.get_param @h.0.ln_2.weight : tensor<3072xf32>
    %17 = tpc.get_param @h.0.ln_2.bias : tensor<3072xf32>
    %18 = tpc.layernorm %15, %16, %17 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %19 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<3072x12288xf32>
    %20 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<12288xf32>
    %21 = tpc.linear %18, %19, %20 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %22 = tpc.gelu %21 : tensor<?x?x12288xf32>
    %23 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<12288x3072xf32>
    %24 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<3072xf32>
    %25 = tpc.linear %22, %23, %24 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %26 = tpc.add %15, %25 : tensor<?x?x3072xf32>
    %27 = tpc.get_param @h.1.ln_1.weight : tensor<3072xf32>
    %28 = tpc.get_param @h.1.ln_1.bias : tensor<3072xf32>
    %29 = tpc.layernorm %26, %27, %28 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %30 = tpc.get_param @h.1.attn.c_attn.weight : tensor<3072x9216xf32>
    %31 = tpc.get_param @h.1.attn.c_attn.bias : tensor<9216xf32>
    %32 = tpc.linear %29, %30, %31 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %33 = tpc.self_attention %32 heads 32 causal : tensor<?x?x9216xf32>
    %34 = tpc.get_param @h.1.attn.c_proj.weight : tensor<3072x3072xf32>
    %35 = tpc.get_param @h.1.attn.c_proj.bias : tensor<3072xf32>
    %36 = tpc.linear %33, %34, %35 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %37 = tpc.add %26, %36 : tensor<?x?x3072xf32>
    %38 = tpc.get_param @h.1.ln_2.weight : tensor<3072xf32>
    %39 = tpc.get_param @h.1.ln_2.bias : tensor<3072xf32>
    %40 = tpc.layernorm %37, %38, %39 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %41 = tpc.get_param @h.1.mlp.c_fc.weight : tensor<3072x12288xf32>
    %42 = tpc.get_param @h.1.mlp.c_fc.bias : tensor<12288xf32>
    %43 = tpc.linear %40, %41, %42 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %44 = tpc.gelu %43 : tensor<?x?x12288xf32>
    %45 = tpc.get_param @h.1.mlp.c_proj.weight : tensor<12288x3072xf32>
    %46 = tpc.get_param @h.1.mlp.c_proj.bias : tensor<3072xf32>
    %47 = tpc.linear %44, %45, %46 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %48 = tpc.add %37, %47 : tensor<?x?x3072xf32>
    %49 = tpc.get_param @h.2.ln_1.weight : tensor<3072xf32>
    %50 = tpc.get_param @h.2.ln_1.bias : tensor<3072xf32>
    %51 = tpc.layernorm %48, %49, %50 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %52 = tpc.get_param @h.2.attn.c_attn.weight : tensor<3072x9216xf32>
    %53 = tpc.get_param @h.2.attn.c_attn.bias : tensor<9216xf32>
    %54 = tpc.linear %51, %52, %53 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %55 = tpc.self_attention %54 heads 32 causal : tensor<?x?x9216xf32>
    %56 = tpc.get_param @h.2.attn.c_proj.weight : tensor<3072x3072xf32>
    %57 = tpc.get_param @h.2.attn.c_proj.bias : tensor<3072xf32>
    %58 = tpc.linear %55, %56, %57 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %59 = tpc.add %48, %58 : tensor<?x?x3072xf32>
    %60 = tpc.get_param @h.2.ln_2.weight : tensor<3072xf32>
    %61 = tpc.get_param @h.2.ln_2.bias : tensor<3072xf32>
    %62 = tpc.layernorm %59, %60, %61 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %63 = tpc.get_param @h.2.mlp.c_fc.weight : tensor<3072x12288xf32>
    %64 = tpc.get_param @h.2.mlp.c_fc.bias : tensor<12288xf32>
    %65 = tpc.linear %62, %63, %64 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %66 = tpc.gelu %65 : tensor<?x?x12288xf32>
    %67 = tpc.get_param @h.2.mlp.c_proj.weight : tensor<12288x3072xf32>
    %68 = tpc.get_param @h.2.mlp.c_proj.bias : tensor<3072xf32>
    %69 = tpc.linear %66, %67, %68 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %70 = tpc.add %59, %69 : tensor<?x?x3072xf32>
    %71 = tpc.get_param @h.3.ln_1.weight : tensor<3072xf32>
    %72 = tpc.get_param @h.3.ln_1.bias : tensor<3072xf32>
    %73 = tpc.layernorm %70, %71, %72 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %74 = tpc.get_param @h.3.attn.c_attn.weight : tensor<3072x9216xf32>
    %75 = tpc.get_param @h.3.attn.c_attn.bias : tensor<9216xf32>
    %76 = tpc.linear %73, %74, %75 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %77 = tpc.self_attention %76 heads 32 causal : tensor<?x?x9216xf32>
    %78 = tpc.get_param @h.3.attn.c_proj.weight : tensor<3072x3072xf32>
    %79 = tpc.get_param @h.3.attn.c_proj.bias : tensor<3072xf32>
    %80 = tpc.linear %77, %78, %79 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %81 = tpc.add %70, %80 : tensor<?x?x3072xf32>
    %82 = tpc.get_param @h.3.ln_2.weight : tensor<3072xf32>
    %83 = tpc.get_param @h.3.ln_2.bias : tensor<3072xf32>
    %84 = tpc.layernorm %81, %82, %83 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %85 = tpc.get_param @h.3.mlp.c_fc.weight : tensor<3072x12288xf32>
    %86 = tpc.get_param @h.3.mlp.c_fc.bias : tensor<12288xf32>
    %87 = tpc.linear %84, %85, %86 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %88 = tpc.gelu %87 : tensor<?x?x12288xf32>
    %89 = tpc.get_param @h.3.mlp.c_proj.weight : tensor<12288x3072xf32>
    %90 = tpc.get_param @h.3.mlp.c_proj.bias : tensor<3072xf32>
    %91 = tpc.linear %88, %89, %90 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %92 = tpc.add %81, %91 : tensor<?x?x3072xf32>
    %93 = tpc.get_param @h.4.ln_1.weight : tensor<3072xf32>
    %94 = tpc.get_param @h.4.ln_1.bias : tensor<3072xf32>
    %95 = tpc.layernorm %92, %93, %94 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %96 = tpc.get_param @h.4.attn.c_attn.weight : tensor<3072x9216xf32>
    %97 = tpc.get_param @h.4.attn.c_attn.bias : tensor<9216xf32>
    %98 = tpc.linear %95, %96, %97 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %99 = tpc.self_attention %98 heads 32 causal : tensor<?x?x9216xf32>
    %100 = tpc.get_param @h.4.attn.c_proj.weight : tensor<3072x3072xf32>
    %101 = tpc.get_param @h.4.attn.c_proj.bias : tensor<3072xf32>
    %102 = tpc.linear %99, %100, %101 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %103 = tpc.add %92, %102 : tensor<?x?x3072xf32>
    %104 = tpc.get_param @h.4.ln_2.weight : tensor<3072xf32>
    %105 = tpc.get_param @h.4.ln_2.bias : tensor<3072xf32>
    %106 = tpc.layernorm %103, %104, %105 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %107 = tpc.get_param @h.4.mlp.c_fc.weight : tensor<3072x12288xf32>
    %108 = tpc.get_param @h.4.mlp.c_fc.bias : tensor<12288xf32>
    %109 = tpc.linear %106, %107, %108 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %110 = tpc.gelu %109 : tensor<?x?x12288xf32>
    %111 = tpc.get_param @h.4.mlp.c_proj.weight : tensor<12288x3072xf32>
    %112 = tpc.get_param @h.4.mlp.c_proj.bias : tensor<3072xf32>
    %113 = tpc.linear %110, %111, %112 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %114 = tpc.add %103, %113 : tensor<?x?x3072xf32>
    %115 = tpc.get_param @h.5.ln_1.weight : tensor<3072xf32>
    %116 = tpc.get_param @h.5.ln_1.bias : tensor<3072xf32>
    %117 = tpc.layernorm %114, %115, %116 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %118 = tpc.get_param @h.5.attn.c_attn.weight : tensor<3072x9216xf32>
    %119 = tpc.get_param @h.5.attn.c_attn.bias : tensor<9216xf32>
    %120 = tpc.linear %117, %118, %119 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %121 = tpc.self_attention %120 heads 32 causal : tensor<?x?x9216xf32>
    %122 = tpc.get_param @h.5.attn.c_proj.weight : tensor<3072x3072xf32>
    %123 = tpc.get_param @h.5.attn.c_proj.bias : tensor<3072xf32>
    %124 = tpc.linear %121, %122, %123 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %125 = tpc.add %114, %124 : tensor<?x?x3072xf32>
    %126 = tpc.get_param @h.5.ln_2.weight : tensor<3072xf32>
    %127 = tpc.get_param @h.5.ln_2.bias : tensor<3072xf32>
    %128 = tpc.layernorm %125, %126, %127 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %129 = tpc.get_param @h.5.mlp.c_fc.weight : tensor<3072x12288xf32>
    %130 = tpc.get_param @h.5.mlp.c_fc.bias : tensor<12288xf32>
    %131 = tpc.linear %128, %129, %130 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %132 = tpc.gelu %131 : tensor<?x?x12288xf32>
    %133 = tpc.get_param @h.5.mlp.c_proj.weight : tensor<12288x3072xf32>
    %134 = tpc.get_param @h.5.mlp.c_proj.bias : tensor<3072xf32>
    %135 = tpc.linear %132, %133, %134 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %136 = tpc.add %125, %135 : tensor<?x?x3072xf32>
    %137 = tpc.get_param @h.6.ln_1.weight : tensor<3072xf32>
    %138 = tpc.get_param @h.6.ln_1.bias : tensor<3072xf32>
    %139 = tpc.layernorm %136, %137, %138 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %140 = tpc.get_param @h.6.attn.c_attn.weight : tensor<3072x9216xf32>
    %141 = tpc.get_param @h.6.attn.c_attn.bias : tensor<9216xf32>
    %142 = tpc.linear %139, %140, %141 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %143 = tpc.self_attention %142 heads 32 causal : tensor<?x?x9216xf32>
    %144 = tpc.get_param @h.6.attn.c_proj.weight : tensor<3072x3072xf32>
    %145 = tpc.get_param @h.6.attn.c_proj.bias : tensor<3072xf32>
    %146 = tpc.linear %143, %144, %145 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %147 = tpc.add %136, %146 : tensor<?x?x3072xf32>
    %148 = tpc.get_param @h.6.ln_2.weight : tensor<3072xf32>
    %149 = tpc.get_param @h.6.ln_2.bias : tensor<3072xf32>
    %150 = tpc.layernorm %147, %148, %149 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %151 = tpc.get_param @h.6.mlp.c_fc.weight : tensor<3072x12288xf32>
    %152 = tpc.get_param @h.6.mlp.c_fc.bias : tensor<12288xf32>
    %153 = tpc.linear %150, %151, %152 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %154 = tpc.gelu %153 : tensor<?x?x12288xf32>
    %155 = tpc.get_param @h.6.mlp.c_proj.weight : tensor<12288x3072xf32>
    %156 = tpc.get_param @h.6.mlp.c_proj.bias : tensor<3072xf32>
    %157 = tpc.linear %154, %155, %156 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %158 = tpc.add %147, %157 : tensor<?x?x3072xf32>
    %159 = tpc.get_param @h.7.ln_1.weight : tensor<3072xf32>
    %160 = tpc.get_param @h.7.ln_1.bias : tensor<3072xf32>
    %161 = tpc.layernorm %158, %159, %160 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %162 = tpc.get_param @h.7.attn.c_attn.weight : tensor<3072x9216xf32>
    %163 = tpc.get_param @h.7.attn.c_attn.bias : tensor<9216xf32>
    %164 = tpc.linear %161, %162, %163 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %165 = tpc.self_attention %164 heads 32 causal : tensor<?x?x9216xf32>
    %166 = tpc.get_param @h.7.attn.c_proj.weight : tensor<3072x3072xf32>
    %167 = tpc.get_param @h.7.attn.c_proj.bias : tensor<3072xf32>
    %168 = tpc.linear %165, %166, %167 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %169 = tpc.add %158, %168 : tensor<?x?x3072xf32>
    %170 = tpc.get_param @h.7.ln_2.weight : tensor<3072xf32>
    %171 = tpc.get_param @h.7.ln_2.bias : tensor<3072xf32>
    %172 = tpc.layernorm %169, %170, %171 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %173 = tpc.get_param @h.7.mlp.c_fc.weight : tensor<3072x12288xf32>
    %174 = tpc.get_param @h.7.mlp.c_fc.bias : tensor<12288xf32>
    %175 = tpc.linear %172, %173, %174 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %176 = tpc.gelu %175 : tensor<?x?x12288xf32>
    %177 = tpc.get_param @h.7.mlp.c_proj.weight : tensor<12288x3072xf32>
    %178 = tpc.get_param @h.7.mlp.c_proj.bias : tensor<3072xf32>
    %179 = tpc.linear %176, %177, %178 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %180 = tpc.add %169, %179 : tensor<?x?x3072xf32>
    %181 = tpc.get_param @h.8.ln_1.weight : tensor<3072xf32>
    %182 = tpc.get_param @h.8.ln_1.bias : tensor<3072xf32>
    %183 = tpc.layernorm %180, %181, %182 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %184 = tpc.get_param @h.8.attn.c_attn.weight : tensor<3072x9216xf32>
    %185 = tpc.get_param @h.8.attn.c_attn.bias : tensor<9216xf32>
    %186 = tpc.linear %183, %184, %185 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %187 = tpc.self_attention %186 heads 32 causal : tensor<?x?x9216xf32>
    %188 = tpc.get_param @h.8.attn.c_proj.weight : tensor<3072x3072xf32>
    %189 = tpc.get_param @h.8.attn.c_proj.bias : tensor<3072xf32>
    %190 = tpc.linear %187, %188, %189 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %191 = tpc.add %180, %190 : tensor<?x?x3072xf32>
    %192 = tpc.get_param @h.8.ln_2.weight : tensor<3072xf32>
    %193 = tpc.get_param @h.8.ln_2.bias : tensor<3072xf32>
    %194 = tpc.layernorm %191, %192, %193 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %195 = tpc.get_param @h.8.mlp.c_fc.weight : tensor<3072x12288xf32>
    %196 = tpc.get_param @h.8.mlp.c_fc.bias : tensor<12288xf32>
    %197 = tpc.linear %194, %195, %196 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %198 = tpc.gelu %197 : tensor<?x?x12288xf32>
    %199 = tpc.get_param @h.8.mlp.c_proj.weight : tensor<12288x3072xf32>
    %200 = tpc.get_param @h.8.mlp.c_proj.bias : tensor<3072xf32>
    %201 = tpc.linear %198, %199, %200 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %202 = tpc.add %191, %201 : tensor<?x?x3072xf32>
    %203 = tpc.get_param @h.9.ln_1.weight : tensor<3072xf32>
    %204 = tpc.get_param @h.9.ln_1.bias : tensor<3072xf32>
    %205 = tpc.layernorm %202, %203, %204 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %206 = tpc.get_param @h.9.attn.c_attn.weight : tensor<3072x9216xf32>
    %207 = tpc.get_param @h.9.attn.c_attn.bias : tensor<9216xf32>
    %208 = tpc.linear %205, %206, %207 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %209 = tpc.self_attention %208 heads 32 causal : tensor<?x?x9216xf32>
    %210 = tpc.get_param @h.9.attn.c_proj.weight : tensor<3072x3072xf32>
    %211 = tpc.get_param @h.9.attn.c_proj.bias : tensor<3072xf32>
    %212 = tpc.linear %209, %210, %211 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %213 = tpc.add %202, %212 : tensor<?x?x3072xf32>
    %214 = tpc.get_param @h.9.ln_2.weight : tensor<3072xf32>
    %215 = tpc.get_param @h.9.ln_2.bias : tensor<3072xf32>
    %216 = tpc.layernorm %213, %214, %215 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %217 = tpc.get_param @h.9.mlp.c_fc.weight : tensor<3072x12288xf32>
    %218 = tpc.get_param @h.9.mlp.c_fc.bias : tensor<12288xf32>
    %219 = tpc.linear %216, %217, %218 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %220 = tpc.gelu %219 : tensor<?x?x12288xf32>
    %221 = tpc.get_param @h.9.mlp.c_proj.weight : tensor<12288x3072xf32>
    %222 = tpc.get_param @h.9.mlp.c_proj.bias : tensor<3072xf32>
    %223 = tpc.linear %220, %221, %222 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %224 = tpc.add %213, %223 : tensor<?x?x3072xf32>
    %225 = tpc.get_param @h.10.ln_1.weight : tensor<3072xf32>
    %226 = tpc.get_param @h.10.ln_1.bias : tensor<3072xf32>
    %227 = tpc.layernorm %224, %225, %226 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %228 = tpc.get_param @h.10.attn.c_attn.weight : tensor<3072x9216xf32>
    %229 = tpc.get_param @h.10.attn.c_attn.bias : tensor<9216xf32>
    %230 = tpc.linear %227, %228, %229 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %231 = tpc.self_attention %230 heads 32 causal : tensor<?x?x9216xf32>
    %232 = tpc.get_param @h.10.attn.c_proj.weight : tensor<3072x3072xf32>
    %233 = tpc.get_param @h.10.attn.c_proj.bias : tensor<3072xf32>
    %234 = tpc.linear %231, %232, %233 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %235 = tpc.add %224, %234 : tensor<?x?x3072xf32>
    %236 = tpc.get_param @h.10.ln_2.weight : tensor<3072xf32>
    %237 = tpc.get_param @h.10.ln_2.bias : tensor<3072xf32>
    %238 = tpc.layernorm %235, %236, %237 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %239 = tpc.get_param @h.10.mlp.c_fc.weight : tensor<3072x12288xf32>
    %240 = tpc.get_param @h.10.mlp.c_fc.bias : tensor<12288xf32>
    %241 = tpc.linear %238, %239, %240 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %242 = tpc.gelu %241 : tensor<?x?x12288xf32>
    %243 = tpc.get_param @h.10.mlp.c_proj.weight : tensor<12288x3072xf32>
    %244 = tpc.get_param @h.10.mlp.c_proj.bias : tensor<3072xf32>
    %245 = tpc.linear %242, %243, %244 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %246 = tpc.add %235, %245 : tensor<?x?x3072xf32>
    %247 = tpc.get_param @h.11.ln_1.weight : tensor<3072xf32>
    %248 = tpc.get_param @h.11.ln_1.bias : tensor<3072xf32>
    %249 = tpc.layernorm %246, %247, %248 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %250 = tpc.get_param @h.11.attn.c_attn.weight : tensor<3072x9216xf32>
    %251 = tpc.get_param @h.11.attn.c_attn.bias : tensor<9216xf32>
    %252 = tpc.linear %249, %250, %251 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %253 = tpc.self_attention %252 heads 32 causal : tensor<?x?x9216xf32>
    %254 = tpc.get_param @h.11.attn.c_proj.weight : tensor<3072x3072xf32>
    %255 = tpc.get_param @h.11.attn.c_proj.bias : tensor<3072xf32>
    %256 = tpc.linear %253, %254, %255 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %257 = tpc.add %246, %256 : tensor<?x?x3072xf32>
    %258 = tpc.get_param @h.11.ln_2.weight : tensor<3072xf32>
    %259 = tpc.get_param @h.11.ln_2.bias : tensor<3072xf32>
    %260 = tpc.layernorm %257, %258, %259 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %261 = tpc.get_param @h.11.mlp.c_fc.weight : tensor<3072x12288xf32>
    %262 = tpc.get_param @h.11.mlp.c_fc.bias : tensor<12288xf32>
    %263 = tpc.linear %260, %261, %262 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %264 = tpc.gelu %263 : tensor<?x?x12288xf32>
    %265 = tpc.get_param @h.11.mlp.c_proj.weight : tensor<12288x3072xf32>
    %266 = tpc.get_param @h.11.mlp.c_proj.bias : tensor<3072xf32>
    %267 = tpc.linear %264, %265, %266 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %268 = tpc.add %257, %267 : tensor<?x?x3072xf32>
    %269 = tpc.get_param @h.12.ln_1.weight : tensor<3072xf32>
    %270 = tpc.get_param @h.12.ln_1.bias : tensor<3072xf32>
    %271 = tpc.layernorm %268, %269, %270 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %272 = tpc.get_param @h.12.attn.c_attn.weight : tensor<3072x9216xf32>
    %273 = tpc.get_param @h.12.attn.c_attn.bias : tensor<9216xf32>
    %274 = tpc.linear %271, %272, %273 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %275 = tpc.self_attention %274 heads 32 causal : tensor<?x?x9216xf32>
    %276 = tpc.get_param @h.12.attn.c_proj.weight : tensor<3072x3072xf32>
    %277 = tpc.get_param @h.12.attn.c_proj.bias : tensor<3072xf32>
    %278 = tpc.linear %275, %276, %277 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %279 = tpc.add %268, %278 : tensor<?x?x3072xf32>
    %280 = tpc.get_param @h.12.ln_2.weight : tensor<3072xf32>
    %281 = tpc.get_param @h.12.ln_2.bias : tensor<3072xf32>
    %282 = tpc.layernorm %279, %280, %281 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %283 = tpc.get_param @h.12.mlp.c_fc.weight : tensor<3072x12288xf32>
    %284 = tpc.get_param @h.12.mlp.c_fc.bias : tensor<12288xf32>
    %285 = tpc.linear %282, %283, %284 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %286 = tpc.gelu %285 : tensor<?x?x12288xf32>
    %287 = tpc.get_param @h.12.mlp.c_proj.weight : tensor<12288x3072xf32>
    %288 = tpc.get_param @h.12.mlp.c_proj.bias : tensor<3072xf32>
    %289 = tpc.linear %286, %287, %288 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %290 = tpc.add %279, %289 : tensor<?x?x3072xf32>
    %291 = tpc.get_param @h.13.ln_1.weight : tensor<3072xf32>
    %292 = tpc.get_param @h.13.ln_1.bias : tensor<3072xf32>
    %293 = tpc.layernorm %290, %291, %292 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %294 = tpc.get_param @h.13.attn.c_attn.weight : tensor<3072x9216xf32>
    %295 = tpc.get_param @h.13.attn.c_attn.bias : tensor<9216xf32>
    %296 = tpc.linear %293, %294, %295 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %297 = tpc.self_attention %296 heads 32 causal : tensor<?x?x9216xf32>
    %298 = tpc.get_param @h.13.attn.c_proj.weight : tensor<3072x3072xf32>
    %299 = tpc.get_param @h.13.attn.c_proj.bias : tensor<3072xf32>
    %300 = tpc.linear %297, %298, %299 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %301 = tpc.add %290, %300 : tensor<?x?x3072xf32>
    %302 = tpc.get_param @h.13.ln_2.weight : tensor<3072xf32>
    %303 = tpc.get_param @h.13.ln_2.bias : tensor<3072xf32>
    %304 = tpc.layernorm %301, %302, %303 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %305 = tpc.get_param @h.13.mlp.c_fc.weight : tensor<3072x12288xf32>
    %306 = tpc.get_param @h.13.mlp.c_fc.bias : tensor<12288xf32>
    %307 = tpc.linear %304, %305, %306 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %308 = tpc.gelu %307 : tensor<?x?x12288xf32>
    %309 = tpc.get_param @h.13.mlp.c_proj.weight : tensor<12288x3072xf32>
    %310 = tpc.get_param @h.13.mlp.c_proj.bias : tensor<3072xf32>
    %311 = tpc.linear %308, %309, %310 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %312 = tpc.add %301, %311 : tensor<?x?x3072xf32>
    %313 = tpc.get_param @h.14.ln_1.weight : tensor<3072xf32>
    %314 = tpc.get_param @h.14.ln_1.bias : tensor<3072xf32>
    %315 = tpc.layernorm %312, %313, %314 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %316 = tpc.get_param @h.14.attn.c_attn.weight : tensor<3072x9216xf32>
    %317 = tpc.get_param @h.14.attn.c_attn.bias : tensor<9216xf32>
    %318 = tpc.linear %315, %316, %317 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %319 = tpc.self_attention %318 heads 32 causal : tensor<?x?x9216xf32>
    %320 = tpc.get_param @h.14.attn.c_proj.weight : tensor<3072x3072xf32>
    %321 = tpc.get_param @h.14.attn.c_proj.bias : tensor<3072xf32>
    %322 = tpc.linear %319, %320, %321 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %323 = tpc.add %312, %322 : tensor<?x?x3072xf32>
    %324 = tpc.get_param @h.14.ln_2.weight : tensor<3072xf32>
    %325 = tpc.get_param @h.14.ln_2.bias : tensor<3072xf32>
    %326 = tpc.layernorm %323, %324, %325 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %327 = tpc.get_param @h.14.mlp.c_fc.weight : tensor<3072x12288xf32>
    %328 = tpc.get_param @h.14.mlp.c_fc.bias : tensor<12288xf32>
    %329 = tpc.linear %326, %327, %328 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %330 = tpc.gelu %329 : tensor<?x?x12288xf32>
    %331 = tpc.get_param @h.14.mlp.c_proj.weight : tensor<12288x3072xf32>
    %332 = tpc.get_param @h.14.mlp.c_proj.bias : tensor<3072xf32>
    %333 = tpc.linear %330, %331, %332 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %334 = tpc.add %323, %333 : tensor<?x?x3072xf32>
    %335 = tpc.get_param @h.15.ln_1.weight : tensor<3072xf32>
    %336 = tpc.get_param @h.15.ln_1.bias : tensor<3072xf32>
    %337 = tpc.layernorm %334, %335, %336 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %338 = tpc.get_param @h.15.attn.c_attn.weight : tensor<3072x9216xf32>
    %339 = tpc.get_param @h.15.attn.c_attn.bias : tensor<9216xf32>
    %340 = tpc.linear %337, %338, %339 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %341 = tpc.self_attention %340 heads 32 causal : tensor<?x?x9216xf32>
    %342 = tpc.get_param @h.15.attn.c_proj.weight : tensor<3072x3072xf32>
    %343 = tpc.get_param @h.15.attn.c_proj.bias : tensor<3072xf32>
    %344 = tpc.linear %341, %342, %343 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %345 = tpc.add %334, %344 : tensor<?x?x3072xf32>
    %346 = tpc.get_param @h.15.ln_2.weight : tensor<3072xf32>
    %347 = tpc.get_param @h.15.ln_2.bias : tensor<3072xf32>
    %348 = tpc.layernorm %345, %346, %347 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %349 = tpc.get_param @h.15.mlp.c_fc.weight : tensor<3072x12288xf32>
    %350 = tpc.get_param @h.15.mlp.c_fc.bias : tensor<12288xf32>
    %351 = tpc.linear %348, %349, %350 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %352 = tpc.gelu %351 : tensor<?x?x12288xf32>
    %353 = tpc.get_param @h.15.mlp.c_proj.weight : tensor<12288x3072xf32>
    %354 = tpc.get_param @h.15.mlp.c_proj.bias : tensor<3072xf32>
    %355 = tpc.linear %352, %353, %354 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %356 = tpc.add %345, %355 : tensor<?x?x3072xf32>
    %357 = tpc.get_param @h.16.ln_1.weight : tensor<3072xf32>
    %358 = tpc.get_param @h.16.ln_1.bias : tensor<3072xf32>
    %359 = tpc.layernorm %356, %357, %358 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %360 = tpc.get_param @h.16.attn.c_attn.weight : tensor<3072x9216xf32>
    %361 = tpc.get_param @h.16.attn.c_attn.bias : tensor<9216xf32>
    %362 = tpc.linear %359, %360, %361 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %363 = tpc.self_attention %362 heads 32 causal : tensor<?x?x9216xf32>
    %364 = tpc.get_param @h.16.attn.c_proj.weight : tensor<3072x3072xf32>
    %365 = tpc.get_param @h.16.attn.c_proj.bias : tensor<3072xf32>
    %366 = tpc.linear %363, %364, %365 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %367 = tpc.add %356, %366 : tensor<?x?x3072xf32>
    %368 = tpc.get_param @h.16.ln_2.weight : tensor<3072xf32>
    %369 = tpc.get_param @h.16.ln_2.bias : tensor<3072xf32>
    %370 = tpc.layernorm %367, %368, %369 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %371 = tpc.get_param @h.16.mlp.c_fc.weight : tensor<3072x12288xf32>
    %372 = tpc.get_param @h.16.mlp.c_fc.bias : tensor<12288xf32>
    %373 = tpc.linear %370, %371, %372 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %374 = tpc.gelu %373 : tensor<?x?x12288xf32>
    %375 = tpc.get_param @h.16.mlp.c_proj.weight : tensor<12288x3072xf32>
    %376 = tpc.get_param @h.16.mlp.c_proj.bias : tensor<3072xf32>
    %377 = tpc.linear %374, %375, %376 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %378 = tpc.add %367, %377 : tensor<?x?x3072xf32>
    %379 = tpc.get_param @h.17.ln_1.weight : tensor<3072xf32>
    %380 = tpc.get_param @h.17.ln_1.bias : tensor<3072xf32>
    %381 = tpc.layernorm %378, %379, %380 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %382 = tpc.get_param @h.17.attn.c_attn.weight : tensor<3072x9216xf32>
    %383 = tpc.get_param @h.17.attn.c_attn.bias : tensor<9216xf32>
    %384 = tpc.linear %381, %382, %383 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %385 = tpc.self_attention %384 heads 32 causal : tensor<?x?x9216xf32>
    %386 = tpc.get_param @h.17.attn.c_proj.weight : tensor<3072x3072xf32>
    %387 = tpc.get_param @h.17.attn.c_proj.bias : tensor<3072xf32>
    %388 = tpc.linear %385, %386, %387 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %389 = tpc.add %378, %388 : tensor<?x?x3072xf32>
    %390 = tpc.get_param @h.17.ln_2.weight : tensor<3072xf32>
    %391 = tpc.get_param @h.17.ln_2.bias : tensor<3072xf32>
    %392 = tpc.layernorm %389, %390, %391 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %393 = tpc.get_param @h.17.mlp.c_fc.weight : tensor<3072x12288xf32>
    %394 = tpc.get_param @h.17.mlp.c_fc.bias : tensor<12288xf32>
    %395 = tpc.linear %392, %393, %394 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %396 = tpc.gelu %395 : tensor<?x?x12288xf32>
    %397 = tpc.get_param @h.17.mlp.c_proj.weight : tensor<12288x3072xf32>
    %398 = tpc.get_param @h.17.mlp.c_proj.bias : tensor<3072xf32>
    %399 = tpc.linear %396, %397, %398 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %400 = tpc.add %389, %399 : tensor<?x?x3072xf32>
    %401 = tpc.get_param @h.18.ln_1.weight : tensor<3072xf32>
    %402 = tpc.get_param @h.18.ln_1.bias : tensor<3072xf32>
    %403 = tpc.layernorm %400, %401, %402 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %404 = tpc.get_param @h.18.attn.c_attn.weight : tensor<3072x9216xf32>
    %405 = tpc.get_param @h.18.attn.c_attn.bias : tensor<9216xf32>
    %406 = tpc.linear %403, %404, %405 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %407 = tpc.self_attention %406 heads 32 causal : tensor<?x?x9216xf32>
    %408 = tpc.get_param @h.18.attn.c_proj.weight : tensor<3072x3072xf32>
    %409 = tpc.get_param @h.18.attn.c_proj.bias : tensor<3072xf32>
    %410 = tpc.linear %407, %408, %409 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %411 = tpc.add %400, %410 : tensor<?x?x3072xf32>
    %412 = tpc.get_param @h.18.ln_2.weight : tensor<3072xf32>
    %413 = tpc.get_param @h.18.ln_2.bias : tensor<3072xf32>
    %414 = tpc.layernorm %411, %412, %413 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %415 = tpc.get_param @h.18.mlp.c_fc.weight : tensor<3072x12288xf32>
    %416 = tpc.get_param @h.18.mlp.c_fc.bias : tensor<12288xf32>
    %417 = tpc.linear %414, %415, %416 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %418 = tpc.gelu %417 : tensor<?x?x12288xf32>
    %419 = tpc.get_param @h.18.mlp.c_proj.weight : tensor<12288x3072xf32>
    %420 = tpc.get_param @h.18.mlp.c_proj.bias : tensor<3072xf32>
    %421 = tpc.linear %418, %419, %420 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %422 = tpc.add %411, %421 : tensor<?x?x3072xf32>
    %423 = tpc.get_param @h.19.ln_1.weight : tensor<3072xf32>
    %424 = tpc.get_param @h.19.ln_1.bias : tensor<3072xf32>
    %425 = tpc.layernorm %422, %423, %424 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %426 = tpc.get_param @h.19.attn.c_attn.weight : tensor<3072x9216xf32>
    %427 = tpc.get_param @h.19.attn.c_attn.bias : tensor<9216xf32>
    %428 = tpc.linear %425, %426, %427 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %429 = tpc.self_attention %428 heads 32 causal : tensor<?x?x9216xf32>
    %430 = tpc.get_param @h.19.attn.c_proj.weight : tensor<3072x3072xf32>
    %431 = tpc.get_param @h.19.attn.c_proj.bias : tensor<3072xf32>
    %432 = tpc.linear %429, %430, %431 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %433 = tpc.add %422, %432 : tensor<?x?x3072xf32>
    %434 = tpc.get_param @h.19.ln_2.weight : tensor<3072xf32>
    %435 = tpc.get_param @h.19.ln_2.bias : tensor<3072xf32>
    %436 = tpc.layernorm %433, %434, %435 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %437 = tpc.get_param @h.19.mlp.c_fc.weight : tensor<3072x12288xf32>
    %438 = tpc.get_param @h.19.mlp.c_fc.bias : tensor<12288xf32>
    %439 = tpc.linear %436, %437, %438 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %440 = tpc.gelu %439 : tensor<?x?x12288xf32>
    %441 = tpc.get_param @h.19.mlp.c_proj.weight : tensor<12288x3072xf32>
    %442 = tpc.get_param @h.19.mlp.c_proj.bias : tensor<3072xf32>
    %443 = tpc.linear %440, %441, %442 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %444 = tpc.add %433, %443 : tensor<?x?x3072xf32>
    %445 = tpc.get_param @h.20.ln_1.weight : tensor<3072xf32>
    %446 = tpc.get_param @h.20.ln_1.bias : tensor<3072xf32>
    %447 = tpc.layernorm %444, %445, %446 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %448 = tpc.get_param @h.20.attn.c_attn.weight : tensor<3072x9216xf32>
    %449 = tpc.get_param @h.20.attn.c_attn.bias : tensor<9216xf32>
    %450 = tpc.linear %447, %448, %449 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %451 = tpc.self_attention %450 heads 32 causal : tensor<?x?x9216xf32>
    %452 = tpc.get_param @h.20.attn.c_proj.weight : tensor<3072x3072xf32>
    %453 = tpc.get_param @h.20.attn.c_proj.bias : tensor<3072xf32>
    %454 = tpc.linear %451, %452, %453 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %455 = tpc.add %444, %454 : tensor<?x?x3072xf32>
    %456 = tpc.get_param @h.20.ln_2.weight : tensor<3072xf32>
    %457 = tpc.get_param @h.20.ln_2.bias : tensor<3072xf32>
    %458 = tpc.layernorm %455, %456, %457 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %459 = tpc.get_param @h.20.mlp.c_fc.weight : tensor<3072x12288xf32>
    %460 = tpc.get_param @h.20.mlp.c_fc.bias : tensor<12288xf32>
    %461 = tpc.linear %458, %459, %460 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %462 = tpc.gelu %461 : tensor<?x?x12288xf32>
    %463 = tpc.get_param @h.20.mlp.c_proj.weight : tensor<12288x3072xf32>
    %464 = tpc.get_param @h.20.mlp.c_proj.bias : tensor<3072xf32>
    %465 = tpc.linear %462, %463, %464 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %466 = tpc.add %455, %465 : tensor<?x?x3072xf32>
    %467 = tpc.get_param @h.21.ln_1.weight : tensor<3072xf32>
    %468 = tpc.get_param @h.21.ln_1.bias : tensor<3072xf32>
    %469 = tpc.layernorm %466, %467, %468 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %470 = tpc.get_param @h.21.attn.c_attn.weight : tensor<3072x9216xf32>
    %471 = tpc.get_param @h.21.attn.c_attn.bias : tensor<9216xf32>
    %472 = tpc.linear %469, %470, %471 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %473 = tpc.self_attention %472 heads 32 causal : tensor<?x?x9216xf32>
    %474 = tpc.get_param @h.21.attn.c_proj.weight : tensor<3072x3072xf32>
    %475 = tpc.get_param @h.21.attn.c_proj.bias : tensor<3072xf32>
    %476 = tpc.linear %473, %474, %475 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %477 = tpc.add %466, %476 : tensor<?x?x3072xf32>
    %478 = tpc.get_param @h.21.ln_2.weight : tensor<3072xf32>
    %479 = tpc.get_param @h.21.ln_2.bias : tensor<3072xf32>
    %480 = tpc.layernorm %477, %478, %479 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %481 = tpc.get_param @h.21.mlp.c_fc.weight : tensor<3072x12288xf32>
    %482 = tpc.get_param @h.21.mlp.c_fc.bias : tensor<12288xf32>
    %483 = tpc.linear %480, %481, %482 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %484 = tpc.gelu %483 : tensor<?x?x12288xf32>
    %485 = tpc.get_param @h.21.mlp.c_proj.weight : tensor<12288x3072xf32>
    %486 = tpc.get_param @h.21.mlp.c_proj.bias : tensor<3072xf32>
    %487 = tpc.linear %484, %485, %486 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %488 = tpc.add %477, %487 : tensor<?x?x3072xf32>
    %489 = tpc.get_param @h.22.ln_1.weight : tensor<3072xf32>
    %490 = tpc.get_param @h.22.ln_1.bias : tensor<3072xf32>
    %491 = tpc.layernorm %488, %489, %490 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %492 = tpc.get_param @h.22.attn.c_attn.weight : tensor<3072x9216xf32>
    %493 = tpc.get_param @h.22.attn.c_attn.bias : tensor<9216xf32>
    %494 = tpc.linear %491, %492, %493 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %495 = tpc.self_attention %494 heads 32 causal : tensor<?x?x9216xf32>
    %496 = tpc.get_param @h.22.attn.c_proj.weight : tensor<3072x3072xf32>
    %497 = tpc.get_param @h.22.attn.c_proj.bias : tensor<3072xf32>
    %498 = tpc.linear %495, %496, %497 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %499 = tpc.add %488, %498 : tensor<?x?x3072xf32>
    %500 = tpc.get_param @h.22.ln_2.weight : tensor<3072xf32>
    %501 = tpc.get_param @h.22.ln_2.bias : tensor<3072xf32>
    %502 = tpc.layernorm %499, %500, %501 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %503 = tpc.get_param @h.22.mlp.c_fc.weight : tensor<3072x12288xf32>
    %504 = tpc.get_param @h.22.mlp.c_fc.bias : tensor<12288xf32>
    %505 = tpc.linear %502, %503, %504 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %506 = tpc.gelu %505 : tensor<?x?x12288xf32>
    %507 = tpc.get_param @h.22.mlp.c_proj.weight : tensor<12288x3072xf32>
    %508 = tpc.get_param @h.22.mlp.c_proj.bias : tensor<3072xf32>
    %509 = tpc.linear %506, %507, %508 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %510 = tpc.add %499, %509 : tensor<?x?x3072xf32>
    %511 = tpc.get_param @h.23.ln_1.weight : tensor<3072xf32>
    %512 = tpc.get_param @h.23.ln_1.bias : tensor<3072xf32>
    %513 = tpc.layernorm %510, %511, %512 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %514 = tpc.get_param @h.23.attn.c_attn.weight : tensor<3072x9216xf32>
    %515 = tpc.get_param @h.23.attn.c_attn.bias : tensor<9216xf32>
    %516 = tpc.linear %513, %514, %515 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %517 = tpc.self_attention %516 heads 32 causal : tensor<?x?x9216xf32>
    %518 = tpc.get_param @h.23.attn.c_proj.weight : tensor<3072x3072xf32>
    %519 = tpc.get_param @h.23.attn.c_proj.bias : tensor<3072xf32>
    %520 = tpc.linear %517, %518, %519 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %521 = tpc.add %510, %520 : tensor<?x?x3072xf32>
    %522 = tpc.get_param @h.23.ln_2.weight : tensor<3072xf32>
    %523 = tpc.get_param @h.23.ln_2.bias : tensor<3072xf32>
    %524 = tpc.layernorm %521, %522, %523 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %525 = tpc.get_param @h.23.mlp.c_fc.weight : tensor<3072x12288xf32>
    %526 = tpc.get_param @h.23.mlp.c_fc.bias : tensor<12288xf32>
    %527 = tpc.linear %524, %525, %526 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %528 = tpc.gelu %527 : tensor<?x?x12288xf32>
    %529 = tpc.get_param @h.23.mlp.c_proj.weight : tensor<12288x3072xf32>
    %530 = tpc.get_param @h.23.mlp.c_proj.bias : tensor<3072xf32>
    %531 = tpc.linear %528, %529, %530 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %532 = tpc.add %521, %531 : tensor<?x?x3072xf32>
    %533 = tpc.get_param @h.24.ln_1.weight : tensor<3072xf32>
    %534 = tpc.get_param @h.24.ln_1.bias : tensor<3072xf32>
    %535 = tpc.layernorm %532, %533, %534 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %536 = tpc.get_param @h.24.attn.c_attn.weight : tensor<3072x9216xf32>
    %537 = tpc.get_param @h.24.attn.c_attn.bias : tensor<9216xf32>
    %538 = tpc.linear %535, %536, %537 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %539 = tpc.self_attention %538 heads 32 causal : tensor<?x?x9216xf32>
    %540 = tpc.get_param @h.24.attn.c_proj.weight : tensor<3072x3072xf32>
    %541 = tpc.get_param @h.24.attn.c_proj.bias : tensor<3072xf32>
    %542 = tpc.linear %539, %540, %541 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %543 = tpc.add %532, %542 : tensor<?x?x3072xf32>
    %544 = tpc.get_param @h.24.ln_2.weight : tensor<3072xf32>
    %545 = tpc.get_param @h.24.ln_2.bias : tensor<3072xf32>
    %546 = tpc.layernorm %543, %544, %545 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %547 = tpc.get_param @h.24.mlp.c_fc.weight : tensor<3072x12288xf32>
    %548 = tpc.get_param @h.24.mlp.c_fc.bias : tensor<12288xf32>
    %549 = tpc.linear %546, %547, %548 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %550 = tpc.gelu %549 : tensor<?x?x12288xf32>
    %551 = tpc.get_param @h.24.mlp.c_proj.weight : tensor<12288x3072xf32>
    %552 = tpc.get_param @h.24.mlp.c_proj.bias : tensor<3072xf32>
    %553 = tpc.linear %550, %551, %552 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %554 = tpc.add %543, %553 : tensor<?x?x3072xf32>
    %555 = tpc.get_param @h.25.ln_1.weight : tensor<3072xf32>
    %556 = tpc.get_param @h.25.ln_1.bias : tensor<3072xf32>
    %557 = tpc.layernorm %554, %555, %556 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %558 = tpc.get_param @h.25.attn.c_attn.weight : tensor<3072x9216xf32>
    %559 = tpc.get_param @h.25.attn.c_attn.bias : tensor<9216xf32>
    %560 = tpc.linear %557, %558, %559 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %561 = tpc.self_attention %560 heads 32 causal : tensor<?x?x9216xf32>
    %562 = tpc.get_param @h.25.attn.c_proj.weight : tensor<3072x3072xf32>
    %563 = tpc.get_param @h.25.attn.c_proj.bias : tensor<3072xf32>
    %564 = tpc.linear %561, %562, %563 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %565 = tpc.add %554, %564 : tensor<?x?x3072xf32>
    %566 = tpc.get_param @h.25.ln_2.weight : tensor<3072xf32>
    %567 = tpc.get_param @h.25.ln_2.bias : tensor<3072xf32>
    %568 = tpc.layernorm %565, %566, %567 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %569 = tpc.get_param @h.25.mlp.c_fc.weight : tensor<3072x12288xf32>
    %570 = tpc.get_param @h.25.mlp.c_fc.bias : tensor<12288xf32>
    %571 = tpc.linear %568, %569, %570 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %572 = tpc.gelu %571 : tensor<?x?x12288xf32>
    %573 = tpc.get_param @h.25.mlp.c_proj.weight : tensor<12288x3072xf32>
    %574 = tpc.get_param @h.25.mlp.c_proj.bias : tensor<3072xf32>
    %575 = tpc.linear %572, %573, %574 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %576 = tpc.add %565, %575 : tensor<?x?x3072xf32>
    %577 = tpc.get_param @h.26.ln_1.weight : tensor<3072xf32>
    %578 = tpc.get_param @h.26.ln_1.bias : tensor<3072xf32>
    %579 = tpc.layernorm %576, %577, %578 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %580 = tpc.get_param @h.26.attn.c_attn.weight : tensor<3072x9216xf32>
    %581 = tpc.get_param @h.26.attn.c_attn.bias : tensor<9216xf32>
    %582 = tpc.linear %579, %580, %581 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %583 = tpc.self_attention %582 heads 32 causal : tensor<?x?x9216xf32>
    %584 = tpc.get_param @h.26.attn.c_proj.weight : tensor<3072x3072xf32>
    %585 = tpc.get_param @h.26.attn.c_proj.bias : tensor<3072xf32>
    %586 = tpc.linear %583, %584, %585 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %587 = tpc.add %576, %586 : tensor<?x?x3072xf32>
    %588 = tpc.get_param @h.26.ln_2.weight : tensor<3072xf32>
    %589 = tpc.get_param @h.26.ln_2.bias : tensor<3072xf32>
    %590 = tpc.layernorm %587, %588, %589 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %591 = tpc.get_param @h.26.mlp.c_fc.weight : tensor<3072x12288xf32>
    %592 = tpc.get_param @h.26.mlp.c_fc.bias : tensor<12288xf32>
    %593 = tpc.linear %590, %591, %592 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %594 = tpc.gelu %593 : tensor<?x?x12288xf32>
    %595 = tpc.get_param @h.26.mlp.c_proj.weight : tensor<12288x3072xf32>
    %596 = tpc.get_param @h.26.mlp.c_proj.bias : tensor<3072xf32>
    %597 = tpc.linear %594, %595, %596 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %598 = tpc.add %587, %597 : tensor<?x?x3072xf32>
    %599 = tpc.get_param @h.27.ln_1.weight : tensor<3072xf32>
    %600 = tpc.get_param @h.27.ln_1.bias : tensor<3072xf32>
    %601 = tpc.layernorm %598, %599, %600 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %602 = tpc.get_param @h.27.attn.c_attn.weight : tensor<3072x9216xf32>
    %603 = tpc.get_param @h.27.attn.c_attn.bias : tensor<9216xf32>
    %604 = tpc.linear %601, %602, %603 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %605 = tpc.self_attention %604 heads 32 causal : tensor<?x?x9216xf32>
    %606 = tpc.get_param @h.27.attn.c_proj.weight : tensor<3072x3072xf32>
    %607 = tpc.get_param @h.27.attn.c_proj.bias : tensor<3072xf32>
    %608 = tpc.linear %605, %606, %607 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %609 = tpc.add %598, %608 : tensor<?x?x3072xf32>
    %610 = tpc.get_param @h.27.ln_2.weight : tensor<3072xf32>
    %611 = tpc.get_param @h.27.ln_2.bias : tensor<3072xf32>
    %612 = tpc.layernorm %609, %610, %611 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %613 = tpc.get_param @h.27.mlp.c_fc.weight : tensor<3072x12288xf32>
    %614 = tpc.get_param @h.27.mlp.c_fc.bias : tensor<12288xf32>
    %615 = tpc.linear %612, %613, %614 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %616 = tpc.gelu %615 : tensor<?x?x12288xf32>
    %617 = tpc.get_param @h.27.mlp.c_proj.weight : tensor<12288x3072xf32>
    %618 = tpc.get_param @h.27.mlp.c_proj.bias : tensor<3072xf32>
    %619 = tpc.linear %616, %617, %618 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %620 = tpc.add %609, %619 : tensor<?x?x3072xf32>
    %621 = tpc.get_param @h.28.ln_1.weight : tensor<3072xf32>
    %622 = tpc.get_param @h.28.ln_1.bias : tensor<3072xf32>
    %623 = tpc.layernorm %620, %621, %622 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %624 = tpc.get_param @h.28.attn.c_attn.weight : tensor<3072x9216xf32>
    %625 = tpc.get_param @h.28.attn.c_attn.bias : tensor<9216xf32>
    %626 = tpc.linear %623, %624, %625 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %627 = tpc.self_attention %626 heads 32 causal : tensor<?x?x9216xf32>
    %628 = tpc.get_param @h.28.attn.c_proj.weight : tensor<3072x3072xf32>
    %629 = tpc.get_param @h.28.attn.c_proj.bias : tensor<3072xf32>
    %630 = tpc.linear %627, %628, %629 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %631 = tpc.add %620, %630 : tensor<?x?x3072xf32>
    %632 = tpc.get_param @h.28.ln_2.weight : tensor<3072xf32>
    %633 = tpc.get_param @h.28.ln_2.bias : tensor<3072xf32>
    %634 = tpc.layernorm %631, %632, %633 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %635 = tpc.get_param @h.28.mlp.c_fc.weight : tensor<3072x12288xf32>
    %636 = tpc.get_param @h.28.mlp.c_fc.bias : tensor<12288xf32>
    %637 = tpc.linear %634, %635, %636 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %638 = tpc.gelu %637 : tensor<?x?x12288xf32>
    %639 = tpc.get_param @h.28.mlp.c_proj.weight : tensor<12288x3072xf32>
    %640 = tpc.get_param @h.28.mlp.c_proj.bias : tensor<3072xf32>
    %641 = tpc.linear %638, %639, %640 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %642 = tpc.add %631, %641 : tensor<?x?x3072xf32>
    %643 = tpc.get_param @h.29.ln_1.weight : tensor<3072xf32>
    %644 = tpc.get_param @h.29.ln_1.bias : tensor<3072xf32>
    %645 = tpc.layernorm %642, %643, %644 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %646 = tpc.get_param @h.29.attn.c_attn.weight : tensor<3072x9216xf32>
    %647 = tpc.get_param @h.29.attn.c_attn.bias : tensor<9216xf32>
    %648 = tpc.linear %645, %646, %647 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %649 = tpc.self_attention %648 heads 32 causal : tensor<?x?x9216xf32>
    %650 = tpc.get_param @h.29.attn.c_proj.weight : tensor<3072x3072xf32>
    %651 = tpc.get_param @h.29.attn.c_proj.bias : tensor<3072xf32>
    %652 = tpc.linear %649, %650, %651 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %653 = tpc.add %642, %652 : tensor<?x?x3072xf32>
    %654 = tpc.get_param @h.29.ln_2.weight : tensor<3072xf32>
    %655 = tpc.get_param @h.29.ln_2.bias : tensor<3072xf32>
    %656 = tpc.layernorm %653, %654, %655 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %657 = tpc.get_param @h.29.mlp.c_fc.weight : tensor<3072x12288xf32>
    %658 = tpc.get_param @h.29.mlp.c_fc.bias : tensor<12288xf32>
    %659 = tpc.linear %656, %657, %658 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %660 = tpc.gelu %659 : tensor<?x?x12288xf32>
    %661 = tpc.get_param @h.29.mlp.c_proj.weight : tensor<12288x3072xf32>
    %662 = tpc.get_param @h.29.mlp.c_proj.bias : tensor<3072xf32>
    %663 = tpc.linear %660, %661, %662 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %664 = tpc.add %653, %663 : tensor<?x?x3072xf32>
    %665 = tpc.get_param @h.30.ln_1.weight : tensor<3072xf32>
    %666 = tpc.get_param @h.30.ln_1.bias : tensor<3072xf32>
    %667 = tpc.layernorm %664, %665, %666 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %668 = tpc.get_param @h.30.attn.c_attn.weight : tensor<3072x9216xf32>
    %669 = tpc.get_param @h.30.attn.c_attn.bias : tensor<9216xf32>
    %670 = tpc.linear %667, %668, %669 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %671 = tpc.self_attention %670 heads 32 causal : tensor<?x?x9216xf32>
    %672 = tpc.get_param @h.30.attn.c_proj.weight : tensor<3072x3072xf32>
    %673 = tpc.get_param @h.30.attn.c_proj.bias : tensor<3072xf32>
    %674 = tpc.linear %671, %672, %673 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %675 = tpc.add %664, %674 : tensor<?x?x3072xf32>
    %676 = tpc.get_param @h.30.ln_2.weight : tensor<3072xf32>
    %677 = tpc.get_param @h.30.ln_2.bias : tensor<3072xf32>
    %678 = tpc.layernorm %675, %676, %677 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %679 = tpc.get_param @h.30.mlp.c_fc.weight : tensor<3072x12288xf32>
    %680 = tpc.get_param @h.30.mlp.c_fc.bias : tensor<12288xf32>
    %681 = tpc.linear %678, %679, %680 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %682 = tpc.gelu %681 : tensor<?x?x12288xf32>
    %683 = tpc.get_param @h.30.mlp.c_proj.weight : tensor<12288x3072xf32>
    %684 = tpc.get_param @h.30.mlp.c_proj.bias : tensor<3072xf32>
    %685 = tpc.linear %682, %683, %684 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %686 = tpc.add %675, %685 : tensor<?x?x3072xf32>
    %687 = tpc.get_param @h.31.ln_1.weight : tensor<3072xf32>
    %688 = tpc.get_param @h.31.ln_1.bias : tensor<3072xf32>
    %689 = tpc.layernorm %686, %687, %688 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %690 = tpc.get_param @h.31.attn.c_attn.weight : tensor<3072x9216xf32>
    %691 = tpc.get_param @h.31.attn.c_attn.bias : tensor<9216xf32>
    %692 = tpc.linear %689, %690, %691 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %693 = tpc.self_attention %692 heads 32 causal : tensor<?x?x9216xf32>
    %694 = tpc.get_param @h.31.attn.c_proj.weight : tensor<3072x3072xf32>
    %695 = tpc.get_param @h.31.attn.c_proj.bias : tensor<3072xf32>
    %696 = tpc.linear %693, %694, %695 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %697 = tpc.add %686, %696 : tensor<?x?x3072xf32>
    %698 = tpc.get_param @h.31.ln_2.weight : tensor<3072xf32>
    %699 = tpc.get_param @h.31.ln_2.bias : tensor<3072xf32>
    %700 = tpc.layernorm %697, %698, %699 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %701 = tpc.get_param @h.31.mlp.c_fc.weight : tensor<3072x12288xf32>
    %702 = tpc.get_param @h.31.mlp.c_fc.bias : tensor<12288xf32>
    %703 = tpc.linear %700, %701, %702 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %704 = tpc.gelu %703 : tensor<?x?x12288xf32>
    %705 = tpc.get_param @h.31.mlp.c_proj.weight : tensor<12288x3072xf32>
    %706 = tpc.get_param @h.31.mlp.c_proj.bias : tensor<3072xf32>
    %707 = tpc.linear %704, %705, %706 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %708 = tpc.add %697, %707 : tensor<?x?x3072xf32>
    %709 = tpc.get_param @h.32.ln_1.weight : tensor<3072xf32>
    %710 = tpc.get_param @h.32.ln_1.bias : tensor<3072xf32>
    %711 = tpc.layernorm %708, %709, %710 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %712 = tpc.get_param @h.32.attn.c_attn.weight : tensor<3072x9216xf32>
    %713 = tpc.get_param @h.32.attn.c_attn.bias : tensor<9216xf32>
    %714 = tpc.linear %711, %712, %713 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %715 = tpc.self_attention %714 heads 32 causal : tensor<?x?x9216xf32>
    %716 = tpc.get_param @h.32.attn.c_proj.weight : tensor<3072x3072xf32>
    %717 = tpc.get_param @h.32.attn.c_proj.bias : tensor<3072xf32>
    %718 = tpc.linear %715, %716, %717 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %719 = tpc.add %708, %718 : tensor<?x?x3072xf32>
    %720 = tpc.get_param @h.32.ln_2.weight : tensor<3072xf32>
    %721 = tpc.get_param @h.32.ln_2.bias : tensor<3072xf32>
    %722 = tpc.layernorm %719, %720, %721 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %723 = tpc.get_param @h.32.mlp.c_fc.weight : tensor<3072x12288xf32>
    %724 = tpc.get_param @h.32.mlp.c_fc.bias : tensor<12288xf32>
    %725 = tpc.linear %722, %723, %724 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %726 = tpc.gelu %725 : tensor<?x?x12288xf32>
    %727 = tpc.get_param @h.32.mlp.c_proj.weight : tensor<12288x3072xf32>
    %728 = tpc.get_param @h.32.mlp.c_proj.bias : tensor<3072xf32>
    %729 = tpc.linear %726, %727, %728 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %730 = tpc.add %719, %729 : tensor<?x?x3072xf32>
    %731 = tpc.get_param @h.33.ln_1.weight : tensor<3072xf32>
    %732 = tpc.get_param @h.33.ln_1.bias : tensor<3072xf32>
    %733 = tpc.layernorm %730, %731, %732 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %734 = tpc.get_param @h.33.attn.c_attn.weight : tensor<3072x9216xf32>
    %735 = tpc.get_param @h.33.attn.c_attn.bias : tensor<9216xf32>
    %736 = tpc.linear %733, %734, %735 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %737 = tpc.self_attention %736 heads 32 causal : tensor<?x?x9216xf32>
    %738 = tpc.get_param @h.33.attn.c_proj.weight : tensor<3072x3072xf32>
    %739 = tpc.get_param @h.33.attn.c_proj.bias : tensor<3072xf32>
    %740 = tpc.linear %737, %738, %739 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %741 = tpc.add %730, %740 : tensor<?x?x3072xf32>
    %742 = tpc.get_param @h.33.ln_2.weight : tensor<3072xf32>
    %743 = tpc.get_param @h.33.ln_2.bias : tensor<3072xf32>
    %744 = tpc.layernorm %741, %742, %743 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %745 = tpc.get_param @h.33.mlp.c_fc.weight : tensor<3072x12288xf32>
    %746 = tpc.get_param @h.33.mlp.c_fc.bias : tensor<12288xf32>
    %747 = tpc.linear %744, %745, %746 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %748 = tpc.gelu %747 : tensor<?x?x12288xf32>
    %749 = tpc.get_param @h.33.mlp.c_proj.weight : tensor<12288x3072xf32>
    %750 = tpc.get_param @h.33.mlp.c_proj.bias : tensor<3072xf32>
    %751 = tpc.linear %748, %749, %750 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %752 = tpc.add %741, %751 : tensor<?x?x3072xf32>
    %753 = tpc.get_param @h.34.ln_1.weight : tensor<3072xf32>
    %754 = tpc.get_param @h.34.ln_1.bias : tensor<3072xf32>
    %755 = tpc.layernorm %752, %753, %754 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %756 = tpc.get_param @h.34.attn.c_attn.weight : tensor<3072x9216xf32>
    %757 = tpc.get_param @h.34.attn.c_attn.bias : tensor<9216xf32>
    %758 = tpc.linear %755, %756, %757 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %759 = tpc.self_attention %758 heads 32 causal : tensor<?x?x9216xf32>
    %760 = tpc.get_param @h.34.attn.c_proj.weight : tensor<3072x3072xf32>
    %761 = tpc.get_param @h.34.attn.c_proj.bias : tensor<3072xf32>
    %762 = tpc.linear %759, %760, %761 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %763 = tpc.add %752, %762 : tensor<?x?x3072xf32>
    %764 = tpc.get_param @h.34.ln_2.weight : tensor<3072xf32>
    %765 = tpc.get_param @h.34.ln_2.bias : tensor<3072xf32>
    %766 = tpc.layernorm %763, %764, %765 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %767 = tpc.get_param @h.34.mlp.c_fc.weight : tensor<3072x12288xf32>
    %768 = tpc.get_param @h.34.mlp.c_fc.bias : tensor<12288xf32>
    %769 = tpc.linear %766, %767, %768 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %770 = tpc.gelu %769 : tensor<?x?x12288xf32>
    %771 = tpc.get_param @h.34.mlp.c_proj.weight : tensor<12288x3072xf32>
    %772 = tpc.get_param @h.34.mlp.c_proj.bias : tensor<3072xf32>
    %773 = tpc.linear %770, %771, %772 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %774 = tpc.add %763, %773 : tensor<?x?x3072xf32>
    %775 = tpc.get_param @h.35.ln_1.weight : tensor<3072xf32>
    %776 = tpc.get_param @h.35.ln_1.bias : tensor<3072xf32>
    %777 = tpc.layernorm %774, %775, %776 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %778 = tpc.get_param @h.35.attn.c_attn.weight : tensor<3072x9216xf32>
    %779 = tpc.get_param @h.35.attn.c_attn.bias : tensor<9216xf32>
    %780 = tpc.linear %777, %778, %779 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %781 = tpc.self_attention %780 heads 32 causal : tensor<?x?x9216xf32>
    %782 = tpc.get_param @h.35.attn.c_proj.weight : tensor<3072x3072xf32>
    %783 = tpc.get_param @h.35.attn.c_proj.bias : tensor<3072xf32>
    %784 = tpc.linear %781, %782, %783 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %785 = tpc.add %774, %784 : tensor<?x?x3072xf32>
    %786 = tpc.get_param @h.35.ln_2.weight : tensor<3072xf32>
    %787 = tpc.get_param @h.35.ln_2.bias : tensor<3072xf32>
    %788 = tpc.layernorm %785, %786, %787 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %789 = tpc.get_param @h.35.mlp.c_fc.weight : tensor<3072x12288xf32>
    %790 = tpc.get_param @h.35.mlp.c_fc.bias : tensor<12288xf32>
    %791 = tpc.linear %788, %789, %790 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %792 = tpc.gelu %791 : tensor<?x?x12288xf32>
    %793 = tpc.get_param @h.35.mlp.c_proj.weight : tensor<12288x3072xf32>
    %794 = tpc.get_param @h.35.mlp.c_proj.bias : tensor<3072xf32>
    %795 = tpc.linear %792, %793, %794 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %796 = tpc.add %785, %795 : tensor<?x?x3072xf32>
    %797 = tpc.get_param @h.36.ln_1.weight : tensor<3072xf32>
    %798 = tpc.get_param @h.36.ln_1.bias : tensor<3072xf32>
    %799 = tpc.layernorm %796, %797, %798 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %800 = tpc.get_param @h.36.attn.c_attn.weight : tensor<3072x9216xf32>
    %801 = tpc.get_param @h.36.attn.c_attn.bias : tensor<9216xf32>
    %802 = tpc.linear %799, %800, %801 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %803 = tpc.self_attention %802 heads 32 causal : tensor<?x?x9216xf32>
    %804 = tpc.get_param @h.36.attn.c_proj.weight : tensor<3072x3072xf32>
    %805 = tpc.get_param @h.36.attn.c_proj.bias : tensor<3072xf32>
    %806 = tpc.linear %803, %804, %805 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %807 = tpc.add %796, %806 : tensor<?x?x3072xf32>
    %808 = tpc.get_param @h.36.ln_2.weight : tensor<3072xf32>
    %809 = tpc.get_param @h.36.ln_2.bias : tensor<3072xf32>
    %810 = tpc.layernorm %807, %808, %809 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %811 = tpc.get_param @h.36.mlp.c_fc.weight : tensor<3072x12288xf32>
    %812 = tpc.get_param @h.36.mlp.c_fc.bias : tensor<12288xf32>
    %813 = tpc.linear %810, %811, %812 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %814 = tpc.gelu %813 : tensor<?x?x12288xf32>
    %815 = tpc.get_param @h.36.mlp.c_proj.weight : tensor<12288x3072xf32>
    %816 = tpc.get_param @h.36.mlp.c_proj.bias : tensor<3072xf32>
    %817 = tpc.linear %814, %815, %816 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %818 = tpc.add %807, %817 : tensor<?x?x3072xf32>
    %819 = tpc.get_param @h.37.ln_1.weight : tensor<3072xf32>
    %820 = tpc.get_param @h.37.ln_1.bias : tensor<3072xf32>
    %821 = tpc.layernorm %818, %819, %820 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %822 = tpc.get_param @h.37.attn.c_attn.weight : tensor<3072x9216xf32>
    %823 = tpc.get_param @h.37.attn.c_attn.bias : tensor<9216xf32>
    %824 = tpc.linear %821, %822, %823 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %825 = tpc.self_attention %824 heads 32 causal : tensor<?x?x9216xf32>
    %826 = tpc.get_param @h.37.attn.c_proj.weight : tensor<3072x3072xf32>
    %827 = tpc.get_param @h.37.attn.c_proj.bias : tensor<3072xf32>
    %828 = tpc.linear %825, %826, %827 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %829 = tpc.add %818, %828 : tensor<?x?x3072xf32>
    %830 = tpc.get_param @h.37.ln_2.weight : tensor<3072xf32>
    %831 = tpc.get_param @h.37.ln_2.bias : tensor<3072xf32>
    %832 = tpc.layernorm %829, %830, %831 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %833 = tpc.get_param @h.37.mlp.c_fc.weight : tensor<3072x12288xf32>
    %834 = tpc.get_param @h.37.mlp.c_fc.bias : tensor<12288xf32>
    %835 = tpc.linear %832, %833, %834 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %836 = tpc.gelu %835 : tensor<?x?x12288xf32>
    %837 = tpc.get_param @h.37.mlp.c_proj.weight : tensor<12288x3072xf32>
    %838 = tpc.get_param @h.37.mlp.c_proj.bias : tensor<3072xf32>
    %839 = tpc.linear %836, %837, %838 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %840 = tpc.add %829, %839 : tensor<?x?x3072xf32>
    %841 = tpc.get_param @h.38.ln_1.weight : tensor<3072xf32>
    %842 = tpc.get_param @h.38.ln_1.bias : tensor<3072xf32>
    %843 = tpc.layernorm %840, %841, %842 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %844 = tpc.get_param @h.38.attn.c_attn.weight : tensor<3072x9216xf32>
    %845 = tpc.get_param @h.38.attn.c_attn.bias : tensor<9216xf32>
    %846 = tpc.linear %843, %844, %845 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %847 = tpc.self_attention %846 heads 32 causal : tensor<?x?x9216xf32>
    %848 = tpc.get_param @h.38.attn.c_proj.weight : tensor<3072x3072xf32>
    %849 = tpc.get_param @h.38.attn.c_proj.bias : tensor<3072xf32>
    %850 = tpc.linear %847, %848, %849 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %851 = tpc.add %840, %850 : tensor<?x?x3072xf32>
    %852 = tpc.get_param @h.38.ln_2.weight : tensor<3072xf32>
    %853 = tpc.get_param @h.38.ln_2.bias : tensor<3072xf32>
    %854 = tpc.layernorm %851, %852, %853 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %855 = tpc.get_param @h.38.mlp.c_fc.weight : tensor<3072x12288xf32>
    %856 = tpc.get_param @h.38.mlp.c_fc.bias : tensor<12288xf32>
    %857 = tpc.linear %854, %855, %856 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %858 = tpc.gelu %857 : tensor<?x?x12288xf32>
    %859 = tpc.get_param @h.38.mlp.c_proj.weight : tensor<12288x3072xf32>
    %860 = tpc.get_param @h.38.mlp.c_proj.bias : tensor<3072xf32>
    %861 = tpc.linear %858, %859, %860 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %862 = tpc.add %851, %861 : tensor<?x?x3072xf32>
    %863 = tpc.get_param @h.39.ln_1.weight : tensor<3072xf32>
    %864 = tpc.get_param @h.39.ln_1.bias : tensor<3072xf32>
    %865 = tpc.layernorm %862, %863, %864 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %866 = tpc.get_param @h.39.attn.c_attn.weight : tensor<3072x9216xf32>
    %867 = tpc.get_param @h.39.attn.c_attn.bias : tensor<9216xf32>
    %868 = tpc.linear %865, %866, %867 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %869 = tpc.self_attention %868 heads 32 causal : tensor<?x?x9216xf32>
    %870 = tpc.get_param @h.39.attn.c_proj.weight : tensor<3072x3072xf32>
    %871 = tpc.get_param @h.39.attn.c_proj.bias : tensor<3072xf32>
    %872 = tpc.linear %869, %870, %871 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %873 = tpc.add %862, %872 : tensor<?x?x3072xf32>
    %874 = tpc.get_param @h.39.ln_2.weight : tensor<3072xf32>
    %875 = tpc.get_param @h.39.ln_2.bias : tensor<3072xf32>
    %876 = tpc.layernorm %873, %874, %875 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %877 = tpc.get_param @h.39.mlp.c_fc.weight : tensor<3072x12288xf32>
    %878 = tpc.get_param @h.39.mlp.c_fc.bias : tensor<12288xf32>
    %879 = tpc.linear %876, %877, %878 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %880 = tpc.gelu %879 : tensor<?x?x12288xf32>
    %881 = tpc.get_param @h.39.mlp.c_proj.weight : tensor<12288x3072xf32>
    %882 = tpc.get_param @h.39.mlp.c_proj.bias : tensor<3072xf32>
    %883 = tpc.linear %880, %881, %882 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %884 = tpc.add %873, %883 : tensor<?x?x3072xf32>
    %885 = tpc.get_param @h.40.ln_1.weight : tensor<3072xf32>
    %886 = tpc.get_param @h.40.ln_1.bias : tensor<3072xf32>
    %887 = tpc.layernorm %884, %885, %886 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %888 = tpc.get_param @h.40.attn.c_attn.weight : tensor<3072x9216xf32>
    %889 = tpc.get_param @h.40.attn.c_attn.bias : tensor<9216xf32>
    %890 = tpc.linear %887, %888, %889 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %891 = tpc.self_attention %890 heads 32 causal : tensor<?x?x9216xf32>
    %892 = tpc.get_param @h.40.attn.c_proj.weight : tensor<3072x3072xf32>
    %893 = tpc.get_param @h.40.attn.c_proj.bias : tensor<3072xf32>
    %894 = tpc.linear %891, %892, %893 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %895 = tpc.add %884, %894 : tensor<?x?x3072xf32>
    %896 = tpc.get_param @h.40.ln_2.weight : tensor<3072xf32>
    %897 = tpc.get_param @h.40.ln_2.bias : tensor<3072xf32>
    %898 = tpc.layernorm %895, %896, %897 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %899 = tpc.get_param @h.40.mlp.c_fc.weight : tensor<3072x12288xf32>
    %900 = tpc.get_param @h.40.mlp.c_fc.bias : tensor<12288xf32>
    %901 = tpc.linear %898, %899, %900 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %902 = tpc.gelu %901 : tensor<?x?x12288xf32>
    %903 = tpc.get_param @h.40.mlp.c_proj.weight : tensor<12288x3072xf32>
    %904 = tpc.get_param @h.40.mlp.c_proj.bias : tensor<3072xf32>
    %905 = tpc.linear %902, %903, %904 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %906 = tpc.add %895, %905 : tensor<?x?x3072xf32>
    %907 = tpc.get_param @h.41.ln_1.weight : tensor<3072xf32>
    %908 = tpc.get_param @h.41.ln_1.bias : tensor<3072xf32>
    %909 = tpc.layernorm %906, %907, %908 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %910 = tpc.get_param @h.41.attn.c_attn.weight : tensor<3072x9216xf32>
    %911 = tpc.get_param @h.41.attn.c_attn.bias : tensor<9216xf32>
    %912 = tpc.linear %909, %910, %911 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %913 = tpc.self_attention %912 heads 32 causal : tensor<?x?x9216xf32>
    %914 = tpc.get_param @h.41.attn.c_proj.weight : tensor<3072x3072xf32>
    %915 = tpc.get_param @h.41.attn.c_proj.bias : tensor<3072xf32>
    %916 = tpc.linear %913, %914, %915 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %917 = tpc.add %906, %916 : tensor<?x?x3072xf32>
    %918 = tpc.get_param @h.41.ln_2.weight : tensor<3072xf32>
    %919 = tpc.get_param @h.41.ln_2.bias : tensor<3072xf32>
    %920 = tpc.layernorm %917, %918, %919 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %921 = tpc.get_param @h.41.mlp.c_fc.weight : tensor<3072x12288xf32>
    %922 = tpc.get_param @h.41.mlp.c_fc.bias : tensor<12288xf32>
    %923 = tpc.linear %920, %921, %922 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %924 = tpc.gelu %923 : tensor<?x?x12288xf32>
    %925 = tpc.get_param @h.41.mlp.c_proj.weight : tensor<12288x3072xf32>
    %926 = tpc.get_param @h.41.mlp.c_proj.bias : tensor<3072xf32>
    %927 = tpc.linear %924, %925, %926 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %928 = tpc.add %917, %927 : tensor<?x?x3072xf32>
    %929 = tpc.get_param @h.42.ln_1.weight : tensor<3072xf32>
    %930 = tpc.get_param @h.42.ln_1.bias : tensor<3072xf32>
    %931 = tpc.layernorm %928, %929, %930 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %932 = tpc.get_param @h.42.attn.c_attn.weight : tensor<3072x9216xf32>
    %933 = tpc.get_param @h.42.attn.c_attn.bias : tensor<9216xf32>
    %934 = tpc.linear %931, %932, %933 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %935 = tpc.self_attention %934 heads 32 causal : tensor<?x?x9216xf32>
    %936 = tpc.get_param @h.42.attn.c_proj.weight : tensor<3072x3072xf32>
    %937 = tpc.get_param @h.42.attn.c_proj.bias : tensor<3072xf32>
    %938 = tpc.linear %935, %936, %937 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %939 = tpc.add %928, %938 : tensor<?x?x3072xf32>
    %940 = tpc.get_param @h.42.ln_2.weight : tensor<3072xf32>
    %941 = tpc.get_param @h.42.ln_2.bias : tensor<3072xf32>
    %942 = tpc.layernorm %939, %940, %941 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %943 = tpc.get_param @h.42.mlp.c_fc.weight : tensor<3072x12288xf32>
    %944 = tpc.get_param @h.42.mlp.c_fc.bias : tensor<12288xf32>
    %945 = tpc.linear %942, %943, %944 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %946 = tpc.gelu %945 : tensor<?x?x12288xf32>
    %947 = tpc.get_param @h.42.mlp.c_proj.weight : tensor<12288x3072xf32>
    %948 = tpc.get_param @h.42.mlp.c_proj.bias : tensor<3072xf32>
    %949 = tpc.linear %946, %947, %948 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %950 = tpc.add %939, %949 : tensor<?x?x3072xf32>
    %951 = tpc.get_param @h.43.ln_1.weight : tensor<3072xf32>
    %952 = tpc.get_param @h.43.ln_1.bias : tensor<3072xf32>
    %953 = tpc.layernorm %950, %951, %952 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %954 = tpc.get_param @h.43.attn.c_attn.weight : tensor<3072x9216xf32>
    %955 = tpc.get_param @h.43.attn.c_attn.bias : tensor<9216xf32>
    %956 = tpc.linear %953, %954, %955 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %957 = tpc.self_attention %956 heads 32 causal : tensor<?x?x9216xf32>
    %958 = tpc.get_param @h.43.attn.c_proj.weight : tensor<3072x3072xf32>
    %959 = tpc.get_param @h.43.attn.c_proj.bias : tensor<3072xf32>
    %960 = tpc.linear %957, %958, %959 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %961 = tpc.add %950, %960 : tensor<?x?x3072xf32>
    %962 = tpc.get_param @h.43.ln_2.weight : tensor<3072xf32>
    %963 = tpc.get_param @h.43.ln_2.bias : tensor<3072xf32>
    %964 = tpc.layernorm %961, %962, %963 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %965 = tpc.get_param @h.43.mlp.c_fc.weight : tensor<3072x12288xf32>
    %966 = tpc.get_param @h.43.mlp.c_fc.bias : tensor<12288xf32>
    %967 = tpc.linear %964, %965, %966 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %968 = tpc.gelu %967 : tensor<?x?x12288xf32>
    %969 = tpc.get_param @h.43.mlp.c_proj.weight : tensor<12288x3072xf32>
    %970 = tpc.get_param @h.43.mlp.c_proj.bias : tensor<3072xf32>
    %971 = tpc.linear %968, %969, %970 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %972 = tpc.add %961, %971 : tensor<?x?x3072xf32>
    %973 = tpc.get_param @h.44.ln_1.weight : tensor<3072xf32>
    %974 = tpc.get_param @h.44.ln_1.bias : tensor<3072xf32>
    %975 = tpc.layernorm %972, %973, %974 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %976 = tpc.get_param @h.44.attn.c_attn.weight : tensor<3072x9216xf32>
    %977 = tpc.get_param @h.44.attn.c_attn.bias : tensor<9216xf32>
    %978 = tpc.linear %975, %976, %977 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %979 = tpc.self_attention %978 heads 32 causal : tensor<?x?x9216xf32>
    %980 = tpc.get_param @h.44.attn.c_proj.weight : tensor<3072x3072xf32>
    %981 = tpc.get_param @h.44.attn.c_proj.bias : tensor<3072xf32>
    %982 = tpc.linear %979, %980, %981 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %983 = tpc.add %972, %982 : tensor<?x?x3072xf32>
    %984 = tpc.get_param @h.44.ln_2.weight : tensor<3072xf32>
    %985 = tpc.get_param @h.44.ln_2.bias : tensor<3072xf32>
    %986 = tpc.layernorm %983, %984, %985 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %987 = tpc.get_param @h.44.mlp.c_fc.weight : tensor<3072x12288xf32>
    %988 = tpc.get_param @h.44.mlp.c_fc.bias : tensor<12288xf32>
    %989 = tpc.linear %986, %987, %988 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %990 = tpc.gelu %989 : tensor<?x?x12288xf32>
    %991 = tpc.get_param @h.44.mlp.c_proj.weight : tensor<12288x3072xf32>
    %992 = tpc.get_param @h.44.mlp.c_proj.bias : tensor<3072xf32>
    %993 = tpc.linear %990, %991, %992 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %994 = tpc.add %983, %993 : tensor<?x?x3072xf32>
    %995 = tpc.get_param @h.45.ln_1.weight : tensor<3072xf32>
    %996 = tpc.get_param @h.45.ln_1.bias : tensor<3072xf32>
    %997 = tpc.layernorm %994, %995, %996 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %998 = tpc.get_param @h.45.attn.c_attn.weight : tensor<3072x9216xf32>
    %999 = tpc.get_param @h.45.attn.c_attn.bias : tensor<9216xf32>
    %1000 = tpc.linear %997, %998, %999 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1001 = tpc.self_attention %1000 heads 32 causal : tensor<?x?x9216xf32>
    %1002 = tpc.get_param @h.45.attn.c_proj.weight : tensor<3072x3072xf32>
    %1003 = tpc.get_param @h.45.attn.c_proj.bias : tensor<3072xf32>
    %1004 = tpc.linear %1001, %1002, %1003 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1005 = tpc.add %994, %1004 : tensor<?x?x3072xf32>
    %1006 = tpc.get_param @h.45.ln_2.weight : tensor<3072xf32>
    %1007 = tpc.get_param @h.45.ln_2.bias : tensor<3072xf32>
    %1008 = tpc.layernorm %1005, %1006, %1007 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1009 = tpc.get_param @h.45.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1010 = tpc.get_param @h.45.mlp.c_fc.bias : tensor<12288xf32>
    %1011 = tpc.linear %1008, %1009, %1010 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1012 = tpc.gelu %1011 : tensor<?x?x12288xf32>
    %1013 = tpc.get_param @h.45.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1014 = tpc.get_param @h.45.mlp.c_proj.bias : tensor<3072xf32>
    %1015 = tpc.linear %1012, %1013, %1014 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1016 = tpc.add %1005, %1015 : tensor<?x?x3072xf32>
    %1017 = tpc.get_param @h.46.ln_1.weight : tensor<3072xf32>
    %1018 = tpc.get_param @h.46.ln_1.bias : tensor<3072xf32>
    %1019 = tpc.layernorm %1016, %1017, %1018 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1020 = tpc.get_param @h.46.attn.c_attn.weight : tensor<3072x9216xf32>
    %1021 = tpc.get_param @h.46.attn.c_attn.bias : tensor<9216xf32>
    %1022 = tpc.linear %1019, %1020, %1021 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1023 = tpc.self_attention %1022 heads 32 causal : tensor<?x?x9216xf32>
    %1024 = tpc.get_param @h.46.attn.c_proj.weight : tensor<3072x3072xf32>
    %1025 = tpc.get_param @h.46.attn.c_proj.bias : tensor<3072xf32>
    %1026 = tpc.linear %1023, %1024, %1025 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1027 = tpc.add %1016, %1026 : tensor<?x?x3072xf32>
    %1028 = tpc.get_param @h.46.ln_2.weight : tensor<3072xf32>
    %1029 = tpc.get_param @h.46.ln_2.bias : tensor<3072xf32>
    %1030 = tpc.layernorm %1027, %1028, %1029 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1031 = tpc.get_param @h.46.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1032 = tpc.get_param @h.46.mlp.c_fc.bias : tensor<12288xf32>
    %1033 = tpc.linear %1030, %1031, %1032 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1034 = tpc.gelu %1033 : tensor<?x?x12288xf32>
    %1035 = tpc.get_param @h.46.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1036 = tpc.get_param @h.46.mlp.c_proj.bias : tensor<3072xf32>
    %1037 = tpc.linear %1034, %1035, %1036 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1038 = tpc.add %1027, %1037 : tensor<?x?x3072xf32>
    %1039 = tpc.get_param @h.47.ln_1.weight : tensor<3072xf32>
    %1040 = tpc.get_param @h.47.ln_1.bias : tensor<3072xf32>
    %1041 = tpc.layernorm %1038, %1039, %1040 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1042 = tpc.get_param @h.47.attn.c_attn.weight : tensor<3072x9216xf32>
    %1043 = tpc.get_param @h.47.attn.c_attn.bias : tensor<9216xf32>
    %1044 = tpc.linear %1041, %1042, %1043 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1045 = tpc.self_attention %1044 heads 32 causal : tensor<?x?x9216xf32>
    %1046 = tpc.get_param @h.47.attn.c_proj.weight : tensor<3072x3072xf32>
    %1047 = tpc.get_param @h.47.attn.c_proj.bias : tensor<3072xf32>
    %1048 = tpc.linear %1045, %1046, %1047 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1049 = tpc.add %1038, %1048 : tensor<?x?x3072xf32>
    %1050 = tpc.get_param @h.47.ln_2.weight : tensor<3072xf32>
    %1051 = tpc.get_param @h.47.ln_2.bias : tensor<3072xf32>
    %1052 = tpc.layernorm %1049, %1050, %1051 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1053 = tpc.get_param @h.47.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1054 = tpc.get_param @h.47.mlp.c_fc.bias : tensor<12288xf32>
    %1055 = tpc.linear %1052, %1053, %1054 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1056 = tpc.gelu %1055 : tensor<?x?x12288xf32>
    %1057 = tpc.get_param @h.47.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1058 = tpc.get_param @h.47.mlp.c_proj.bias : tensor<3072xf32>
    %1059 = tpc.linear %1056, %1057, %1058 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1060 = tpc.add %1049, %1059 : tensor<?x?x3072xf32>
    %1061 = tpc.get_param @h.48.ln_1.weight : tensor<3072xf32>
    %1062 = tpc.get_param @h.48.ln_1.bias : tensor<3072xf32>
    %1063 = tpc.layernorm %1060, %1061, %1062 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1064 = tpc.get_param @h.48.attn.c_attn.weight : tensor<3072x9216xf32>
    %1065 = tpc.get_param @h.48.attn.c_attn.bias : tensor<9216xf32>
    %1066 = tpc.linear %1063, %1064, %1065 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1067 = tpc.self_attention %1066 heads 32 causal : tensor<?x?x9216xf32>
    %1068 = tpc.get_param @h.48.attn.c_proj.weight : tensor<3072x3072xf32>
    %1069 = tpc.get_param @h.48.attn.c_proj.bias : tensor<3072xf32>
    %1070 = tpc.linear %1067, %1068, %1069 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1071 = tpc.add %1060, %1070 : tensor<?x?x3072xf32>
    %1072 = tpc.get_param @h.48.ln_2.weight : tensor<3072xf32>
    %1073 = tpc.get_param @h.48.ln_2.bias : tensor<3072xf32>
    %1074 = tpc.layernorm %1071, %1072, %1073 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1075 = tpc.get_param @h.48.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1076 = tpc.get_param @h.48.mlp.c_fc.bias : tensor<12288xf32>
    %1077 = tpc.linear %1074, %1075, %1076 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1078 = tpc.gelu %1077 : tensor<?x?x12288xf32>
    %1079 = tpc.get_param @h.48.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1080 = tpc.get_param @h.48.mlp.c_proj.bias : tensor<3072xf32>
    %1081 = tpc.linear %1078, %1079, %1080 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1082 = tpc.add %1071, %1081 : tensor<?x?x3072xf32>
    %1083 = tpc.get_param @h.49.ln_1.weight : tensor<3072xf32>
    %1084 = tpc.get_param @h.49.ln_1.bias : tensor<3072xf32>
    %1085 = tpc.layernorm %1082, %1083, %1084 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1086 = tpc.get_param @h.49.attn.c_attn.weight : tensor<3072x9216xf32>
    %1087 = tpc.get_param @h.49.attn.c_attn.bias : tensor<9216xf32>
    %1088 = tpc.linear %1085, %1086, %1087 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1089 = tpc.self_attention %1088 heads 32 causal : tensor<?x?x9216xf32>
    %1090 = tpc.get_param @h.49.attn.c_proj.weight : tensor<3072x3072xf32>
    %1091 = tpc.get_param @h.49.attn.c_proj.bias : tensor<3072xf32>
    %1092 = tpc.linear %1089, %1090, %1091 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1093 = tpc.add %1082, %1092 : tensor<?x?x3072xf32>
    %1094 = tpc.get_param @h.49.ln_2.weight : tensor<3072xf32>
    %1095 = tpc.get_param @h.49.ln_2.bias : tensor<3072xf32>
    %1096 = tpc.layernorm %1093, %1094, %1095 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1097 = tpc.get_param @h.49.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1098 = tpc.get_param @h.49.mlp.c_fc.bias : tensor<12288xf32>
    %1099 = tpc.linear %1096, %1097, %1098 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1100 = tpc.gelu %1099 : tensor<?x?x12288xf32>
    %1101 = tpc.get_param @h.49.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1102 = tpc.get_param @h.49.mlp.c_proj.bias : tensor<3072xf32>
    %1103 = tpc.linear %1100, %1101, %1102 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1104 = tpc.add %1093, %1103 : tensor<?x?x3072xf32>
    %1105 = tpc.get_param @h.50.ln_1.weight : tensor<3072xf32>
    %1106 = tpc.get_param @h.50.ln_1.bias : tensor<3072xf32>
    %1107 = tpc.layernorm %1104, %1105, %1106 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1108 = tpc.get_param @h.50.attn.c_attn.weight : tensor<3072x9216xf32>
    %1109 = tpc.get_param @h.50.attn.c_attn.bias : tensor<9216xf32>
    %1110 = tpc.linear %1107, %1108, %1109 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1111 = tpc.self_attention %1110 heads 32 causal : tensor<?x?x9216xf32>
    %1112 = tpc.get_param @h.50.attn.c_proj.weight : tensor<3072x3072xf32>
    %1113 = tpc.get_param @h.50.attn.c_proj.bias : tensor<3072xf32>
    %1114 = tpc.linear %1111, %1112, %1113 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1115 = tpc.add %1104, %1114 : tensor<?x?x3072xf32>
    %1116 = tpc.get_param @h.50.ln_2.weight : tensor<3072xf32>
    %1117 = tpc.get_param @h.50.ln_2.bias : tensor<3072xf32>
    %1118 = tpc.layernorm %1115, %1116, %1117 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1119 = tpc.get_param @h.50.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1120 = tpc.get_param @h.50.mlp.c_fc.bias : tensor<12288xf32>
    %1121 = tpc.linear %1118, %1119, %1120 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1122 = tpc.gelu %1121 : tensor<?x?x12288xf32>
    %1123 = tpc.get_param @h.50.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1124 = tpc.get_param @h.50.mlp.c_proj.bias : tensor<3072xf32>
    %1125 = tpc.linear %1122, %1123, %1124 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1126 = tpc.add %1115, %1125 : tensor<?x?x3072xf32>
    %1127 = tpc.get_param @h.51.ln_1.weight : tensor<3072xf32>
    %1128 = tpc.get_param @h.51.ln_1.bias : tensor<3072xf32>
    %1129 = tpc.layernorm %1126, %1127, %1128 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1130 = tpc.get_param @h.51.attn.c_attn.weight : tensor<3072x9216xf32>
    %1131 = tpc.get_param @h.51.attn.c_attn.bias : tensor<9216xf32>
    %1132 = tpc.linear %1129, %1130, %1131 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1133 = tpc.self_attention %1132 heads 32 causal : tensor<?x?x9216xf32>
    %1134 = tpc.get_param @h.51.attn.c_proj.weight : tensor<3072x3072xf32>
    %1135 = tpc.get_param @h.51.attn.c_proj.bias : tensor<3072xf32>
    %1136 = tpc.linear %1133, %1134, %1135 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1137 = tpc.add %1126, %1136 : tensor<?x?x3072xf32>
    %1138 = tpc.get_param @h.51.ln_2.weight : tensor<3072xf32>
    %1139 = tpc.get_param @h.51.ln_2.bias : tensor<3072xf32>
    %1140 = tpc.layernorm %1137, %1138, %1139 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1141 = tpc.get_param @h.51.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1142 = tpc.get_param @h.51.mlp.c_fc.bias : tensor<12288xf32>
    %1143 = tpc.linear %1140, %1141, %1142 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1144 = tpc.gelu %1143 : tensor<?x?x12288xf32>
    %1145 = tpc.get_param @h.51.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1146 = tpc.get_param @h.51.mlp.c_proj.bias : tensor<3072xf32>
    %1147 = tpc.linear %1144, %1145, %1146 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1148 = tpc.add %1137, %1147 : tensor<?x?x3072xf32>
    %1149 = tpc.get_param @h.52.ln_1.weight : tensor<3072xf32>
    %1150 = tpc.get_param @h.52.ln_1.bias : tensor<3072xf32>
    %1151 = tpc.layernorm %1148, %1149, %1150 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1152 = tpc.get_param @h.52.attn.c_attn.weight : tensor<3072x9216xf32>
    %1153 = tpc.get_param @h.52.attn.c_attn.bias : tensor<9216xf32>
    %1154 = tpc.linear %1151, %1152, %1153 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1155 = tpc.self_attention %1154 heads 32 causal : tensor<?x?x9216xf32>
    %1156 = tpc.get_param @h.52.attn.c_proj.weight : tensor<3072x3072xf32>
    %1157 = tpc.get_param @h.52.attn.c_proj.bias : tensor<3072xf32>
    %1158 = tpc.linear %1155, %1156, %1157 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1159 = tpc.add %1148, %1158 : tensor<?x?x3072xf32>
    %1160 = tpc.get_param @h.52.ln_2.weight : tensor<3072xf32>
    %1161 = tpc.get_param @h.52.ln_2.bias : tensor<3072xf32>
    %1162 = tpc.layernorm %1159, %1160, %1161 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1163 = tpc.get_param @h.52.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1164 = tpc.get_param @h.52.mlp.c_fc.bias : tensor<12288xf32>
    %1165 = tpc.linear %1162, %1163, %1164 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1166 = tpc.gelu %1165 : tensor<?x?x12288xf32>
    %1167 = tpc.get_param @h.52.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1168 = tpc.get_param @h.52.mlp.c_proj.bias : tensor<3072xf32>
    %1169 = tpc.linear %1166, %1167, %1168 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1170 = tpc.add %1159, %1169 : tensor<?x?x3072xf32>
    %1171 = tpc.get_param @h.53.ln_1.weight : tensor<3072xf32>
    %1172 = tpc.get_param @h.53.ln_1.bias : tensor<3072xf32>
    %1173 = tpc.layernorm %1170, %1171, %1172 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1174 = tpc.get_param @h.53.attn.c_attn.weight : tensor<3072x9216xf32>
    %1175 = tpc.get_param @h.53.attn.c_attn.bias : tensor<9216xf32>
    %1176 = tpc.linear %1173, %1174, %1175 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1177 = tpc.self_attention %1176 heads 32 causal : tensor<?x?x9216xf32>
    %1178 = tpc.get_param @h.53.attn.c_proj.weight : tensor<3072x3072xf32>
    %1179 = tpc.get_param @h.53.attn.c_proj.bias : tensor<3072xf32>
    %1180 = tpc.linear %1177, %1178, %1179 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1181 = tpc.add %1170, %1180 : tensor<?x?x3072xf32>
    %1182 = tpc.get_param @h.53.ln_2.weight : tensor<3072xf32>
    %1183 = tpc.get_param @h.53.ln_2.bias : tensor<3072xf32>
    %1184 = tpc.layernorm %1181, %1182, %1183 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1185 = tpc.get_param @h.53.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1186 = tpc.get_param @h.53.mlp.c_fc.bias : tensor<12288xf32>
    %1187 = tpc.linear %1184, %1185, %1186 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1188 = tpc.gelu %1187 : tensor<?x?x12288xf32>
    %1189 = tpc.get_param @h.53.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1190 = tpc.get_param @h.53.mlp.c_proj.bias : tensor<3072xf32>
    %1191 = tpc.linear %1188, %1189, %1190 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1192 = tpc.add %1181, %1191 : tensor<?x?x3072xf32>
    %1193 = tpc.get_param @h.54.ln_1.weight : tensor<3072xf32>
    %1194 = tpc.get_param @h.54.ln_1.bias : tensor<3072xf32>
    %1195 = tpc.layernorm %1192, %1193, %1194 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1196 = tpc.get_param @h.54.attn.c_attn.weight : tensor<3072x9216xf32>
    %1197 = tpc.get_param @h.54.attn.c_attn.bias : tensor<9216xf32>
    %1198 = tpc.linear %1195, %1196, %1197 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1199 = tpc.self_attention %1198 heads 32 causal : tensor<?x?x9216xf32>
    %1200 = tpc.get_param @h.54.attn.c_proj.weight : tensor<3072x3072xf32>
    %1201 = tpc.get_param @h.54.attn.c_proj.bias : tensor<3072xf32>
    %1202 = tpc.linear %1199, %1200, %1201 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1203 = tpc.add %1192, %1202 : tensor<?x?x3072xf32>
    %1204 = tpc.get_param @h.54.ln_2.weight : tensor<3072xf32>
    %1205 = tpc.get_param @h.54.ln_2.bias : tensor<3072xf32>
    %1206 = tpc.layernorm %1203, %1204, %1205 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1207 = tpc.get_param @h.54.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1208 = tpc.get_param @h.54.mlp.c_fc.bias : tensor<12288xf32>
    %1209 = tpc.linear %1206, %1207, %1208 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1210 = tpc.gelu %1209 : tensor<?x?x12288xf32>
    %1211 = tpc.get_param @h.54.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1212 = tpc.get_param @h.54.mlp.c_proj.bias : tensor<3072xf32>
    %1213 = tpc.linear %1210, %1211, %1212 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1214 = tpc.add %1203, %1213 : tensor<?x?x3072xf32>
    %1215 = tpc.get_param @h.55.ln_1.weight : tensor<3072xf32>
    %1216 = tpc.get_param @h.55.ln_1.bias : tensor<3072xf32>
    %1217 = tpc.layernorm %1214, %1215, %1216 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1218 = tpc.get_param @h.55.attn.c_attn.weight : tensor<3072x9216xf32>
    %1219 = tpc.get_param @h.55.attn.c_attn.bias : tensor<9216xf32>
    %1220 = tpc.linear %1217, %1218, %1219 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1221 = tpc.self_attention %1220 heads 32 causal : tensor<?x?x9216xf32>
    %1222 = tpc.get_param @h.55.attn.c_proj.weight : tensor<3072x3072xf32>
    %1223 = tpc.get_param @h.55.attn.c_proj.bias : tensor<3072xf32>
    %1224 = tpc.linear %1221, %1222, %1223 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1225 = tpc.add %1214, %1224 : tensor<?x?x3072xf32>
    %1226 = tpc.get_param @h.55.ln_2.weight : tensor<3072xf32>
    %1227 = tpc.get_param @h.55.ln_2.bias : tensor<3072xf32>
    %1228 = tpc.layernorm %1225, %1226, %1227 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1229 = tpc.get_param @h.55.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1230 = tpc.get_param @h.55.mlp.c_fc.bias : tensor<12288xf32>
    %1231 = tpc.linear %1228, %1229, %1230 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1232 = tpc.gelu %1231 : tensor<?x?x12288xf32>
    %1233 = tpc.get_param @h.55.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1234 = tpc.get_param @h.55.mlp.c_proj.bias : tensor<3072xf32>
    %1235 = tpc.linear %1232, %1233, %1234 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1236 = tpc.add %1225, %1235 : tensor<?x?x3072xf32>
    %1237 = tpc.get_param @h.56.ln_1.weight : tensor<3072xf32>
    %1238 = tpc.get_param @h.56.ln_1.bias : tensor<3072xf32>
    %1239 = tpc.layernorm %1236, %1237, %1238 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1240 = tpc.get_param @h.56.attn.c_attn.weight : tensor<3072x9216xf32>
    %1241 = tpc.get_param @h.56.attn.c_attn.bias : tensor<9216xf32>
    %1242 = tpc.linear %1239, %1240, %1241 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1243 = tpc.self_attention %1242 heads 32 causal : tensor<?x?x9216xf32>
    %1244 = tpc.get_param @h.56.attn.c_proj.weight : tensor<3072x3072xf32>
    %1245 = tpc.get_param @h.56.attn.c_proj.bias : tensor<3072xf32>
    %1246 = tpc.linear %1243, %1244, %1245 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1247 = tpc.add %1236, %1246 : tensor<?x?x3072xf32>
    %1248 = tpc.get_param @h.56.ln_2.weight : tensor<3072xf32>
    %1249 = tpc.get_param @h.56.ln_2.bias : tensor<3072xf32>
    %1250 = tpc.layernorm %1247, %1248, %1249 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1251 = tpc.get_param @h.56.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1252 = tpc.get_param @h.56.mlp.c_fc.bias : tensor<12288xf32>
    %1253 = tpc.linear %1250, %1251, %1252 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1254 = tpc.gelu %1253 : tensor<?x?x12288xf32>
    %1255 = tpc.get_param @h.56.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1256 = tpc.get_param @h.56.mlp.c_proj.bias : tensor<3072xf32>
    %1257 = tpc.linear %1254, %1255, %1256 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1258 = tpc.add %1247, %1257 : tensor<?x?x3072xf32>
    %1259 = tpc.get_param @h.57.ln_1.weight : tensor<3072xf32>
    %1260 = tpc.get_param @h.57.ln_1.bias : tensor<3072xf32>
    %1261 = tpc.layernorm %1258, %1259, %1260 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1262 = tpc.get_param @h.57.attn.c_attn.weight : tensor<3072x9216xf32>
    %1263 = tpc.get_param @h.57.attn.c_attn.bias : tensor<9216xf32>
    %1264 = tpc.linear %1261, %1262, %1263 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1265 = tpc.self_attention %1264 heads 32 causal : tensor<?x?x9216xf32>
    %1266 = tpc.get_param @h.57.attn.c_proj.weight : tensor<3072x3072xf32>
    %1267 = tpc.get_param @h.57.attn.c_proj.bias : tensor<3072xf32>
    %1268 = tpc.linear %1265, %1266, %1267 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1269 = tpc.add %1258, %1268 : tensor<?x?x3072xf32>
    %1270 = tpc.get_param @h.57.ln_2.weight : tensor<3072xf32>
    %1271 = tpc.get_param @h.57.ln_2.bias : tensor<3072xf32>
    %1272 = tpc.layernorm %1269, %1270, %1271 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1273 = tpc.get_param @h.57.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1274 = tpc.get_param @h.57.mlp.c_fc.bias : tensor<12288xf32>
    %1275 = tpc.linear %1272, %1273, %1274 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1276 = tpc.gelu %1275 : tensor<?x?x12288xf32>
    %1277 = tpc.get_param @h.57.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1278 = tpc.get_param @h.57.mlp.c_proj.bias : tensor<3072xf32>
    %1279 = tpc.linear %1276, %1277, %1278 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1280 = tpc.add %1269, %1279 : tensor<?x?x3072xf32>
    %1281 = tpc.get_param @h.58.ln_1.weight : tensor<3072xf32>
    %1282 = tpc.get_param @h.58.ln_1.bias : tensor<3072xf32>
    %1283 = tpc.layernorm %1280, %1281, %1282 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1284 = tpc.get_param @h.58.attn.c_attn.weight : tensor<3072x9216xf32>
    %1285 = tpc.get_param @h.58.attn.c_attn.bias : tensor<9216xf32>
    %1286 = tpc.linear %1283, %1284, %1285 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1287 = tpc.self_attention %1286 heads 32 causal : tensor<?x?x9216xf32>
    %1288 = tpc.get_param @h.58.attn.c_proj.weight : tensor<3072x3072xf32>
    %1289 = tpc.get_param @h.58.attn.c_proj.bias : tensor<3072xf32>
    %1290 = tpc.linear %1287, %1288, %1289 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1291 = tpc.add %1280, %1290 : tensor<?x?x3072xf32>
    %1292 = tpc.get_param @h.58.ln_2.weight : tensor<3072xf32>
    %1293 = tpc.get_param @h.58.ln_2.bias : tensor<3072xf32>
    %1294 = tpc.layernorm %1291, %1292, %1293 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1295 = tpc.get_param @h.58.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1296 = tpc.get_param @h.58.mlp.c_fc.bias : tensor<12288xf32>
    %1297 = tpc.linear %1294, %1295, %1296 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1298 = tpc.gelu %1297 : tensor<?x?x12288xf32>
    %1299 = tpc.get_param @h.58.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1300 = tpc.get_param @h.58.mlp.c_proj.bias : tensor<3072xf32>
    %1301 = tpc.linear %1298, %1299, %1300 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1302 = tpc.add %1291, %1301 : tensor<?x?x3072xf32>
    %1303 = tpc.get_param @h.59.ln_1.weight : tensor<3072xf32>
    %1304 = tpc.get_param @h.59.ln_1.bias : tensor<3072xf32>
    %1305 = tpc.layernorm %1302, %1303, %1304 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1306 = tpc.get_param @h.59.attn.c_attn.weight : tensor<3072x9216xf32>
    %1307 = tpc.get_param @h.59.attn.c_attn.bias : tensor<9216xf32>
    %1308 = tpc.linear %1305, %1306, %1307 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1309 = tpc.self_attention %1308 heads 32 causal : tensor<?x?x9216xf32>
    %1310 = tpc.get_param @h.59.attn.c_proj.weight : tensor<3072x3072xf32>
    %1311 = tpc.get_param @h.59.attn.c_proj.bias : tensor<3072xf32>
    %1312 = tpc.linear %1309, %1310, %1311 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1313 = tpc.add %1302, %1312 : tensor<?x?x3072xf32>
    %1314 = tpc.get_param @h.59.ln_2.weight : tensor<3072xf32>
    %1315 = tpc.get_param @h.59.ln_2.bias : tensor<3072xf32>
    %1316 = tpc.layernorm %1313, %1314, %1315 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1317 = tpc.get_param @h.59.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1318 = tpc.get_param @h.59.mlp.c_fc.bias : tensor<12288xf32>
    %1319 = tpc.linear %1316, %1317, %1318 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1320 = tpc.gelu %1319 : tensor<?x?x12288xf32>
    %1321 = tpc.get_param @h.59.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1322 = tpc.get_param @h.59.mlp.c_proj.bias : tensor<3072xf32>
    %1323 = tpc.linear %1320, %1321, %1322 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1324 = tpc.add %1313, %1323 : tensor<?x?x3072xf32>
    %1325 = tpc.get_param @h.60.ln_1.weight : tensor<3072xf32>
    %1326 = tpc.get_param @h.60.ln_1.bias : tensor<3072xf32>
    %1327 = tpc.layernorm %1324, %1325, %1326 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1328 = tpc.get_param @h.60.attn.c_attn.weight : tensor<3072x9216xf32>
    %1329 = tpc.get_param @h.60.attn.c_attn.bias : tensor<9216xf32>
    %1330 = tpc.linear %1327, %1328, %1329 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1331 = tpc.self_attention %1330 heads 32 causal : tensor<?x?x9216xf32>
    %1332 = tpc.get_param @h.60.attn.c_proj.weight : tensor<3072x3072xf32>
    %1333 = tpc.get_param @h.60.attn.c_proj.bias : tensor<3072xf32>
    %1334 = tpc.linear %1331, %1332, %1333 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1335 = tpc.add %1324, %1334 : tensor<?x?x3072xf32>
    %1336 = tpc.get_param @h.60.ln_2.weight : tensor<3072xf32>
    %1337 = tpc.get_param @h.60.ln_2.bias : tensor<3072xf32>
    %1338 = tpc.layernorm %1335, %1336, %1337 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1339 = tpc.get_param @h.60.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1340 = tpc.get_param @h.60.mlp.c_fc.bias : tensor<12288xf32>
    %1341 = tpc.linear %1338, %1339, %1340 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1342 = tpc.gelu %1341 : tensor<?x?x12288xf32>
    %1343 = tpc.get_param @h.60.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1344 = tpc.get_param @h.60.mlp.c_proj.bias : tensor<3072xf32>
    %1345 = tpc.linear %1342, %1343, %1344 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1346 = tpc.add %1335, %1345 : tensor<?x?x3072xf32>
    %1347 = tpc.get_param @h.61.ln_1.weight : tensor<3072xf32>
    %1348 = tpc.get_param @h.61.ln_1.bias : tensor<3072xf32>
    %1349 = tpc.layernorm %1346, %1347, %1348 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1350 = tpc.get_param @h.61.attn.c_attn.weight : tensor<3072x9216xf32>
    %1351 = tpc.get_param @h.61.attn.c_attn.bias : tensor<9216xf32>
    %1352 = tpc.linear %1349, %1350, %1351 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1353 = tpc.self_attention %1352 heads 32 causal : tensor<?x?x9216xf32>
    %1354 = tpc.get_param @h.61.attn.c_proj.weight : tensor<3072x3072xf32>
    %1355 = tpc.get_param @h.61.attn.c_proj.bias : tensor<3072xf32>
    %1356 = tpc.linear %1353, %1354, %1355 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1357 = tpc.add %1346, %1356 : tensor<?x?x3072xf32>
    %1358 = tpc.get_param @h.61.ln_2.weight : tensor<3072xf32>
    %1359 = tpc.get_param @h.61.ln_2.bias : tensor<3072xf32>
    %1360 = tpc.layernorm %1357, %1358, %1359 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1361 = tpc.get_param @h.61.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1362 = tpc.get_param @h.61.mlp.c_fc.bias : tensor<12288xf32>
    %1363 = tpc.linear %1360, %1361, %1362 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1364 = tpc.gelu %1363 : tensor<?x?x12288xf32>
    %1365 = tpc.get_param @h.61.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1366 = tpc.get_param @h.61.mlp.c_proj.bias : tensor<3072xf32>
    %1367 = tpc.linear %1364, %1365, %1366 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1368 = tpc.add %1357, %1367 : tensor<?x?x3072xf32>
    %1369 = tpc.get_param @h.62.ln_1.weight : tensor<3072xf32>
    %1370 = tpc.get_param @h.62.ln_1.bias : tensor<3072xf32>
    %1371 = tpc.layernorm %1368, %1369, %1370 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1372 = tpc.get_param @h.62.attn.c_attn.weight : tensor<3072x9216xf32>
    %1373 = tpc.get_param @h.62.attn.c_attn.bias : tensor<9216xf32>
    %1374 = tpc.linear %1371, %1372, %1373 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1375 = tpc.self_attention %1374 heads 32 causal : tensor<?x?x9216xf32>
    %1376 = tpc.get_param @h.62.attn.c_proj.weight : tensor<3072x3072xf32>
    %1377 = tpc.get_param @h.62.attn.c_proj.bias : tensor<3072xf32>
    %1378 = tpc.linear %1375, %1376, %1377 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1379 = tpc.add %1368, %1378 : tensor<?x?x3072xf32>
    %1380 = tpc.get_param @h.62.ln_2.weight : tensor<3072xf32>
    %1381 = tpc.get_param @h.62.ln_2.bias : tensor<3072xf32>
    %1382 = tpc.layernorm %1379, %1380, %1381 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1383 = tpc.get_param @h.62.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1384 = tpc.get_param @h.62.mlp.c_fc.bias : tensor<12288xf32>
    %1385 = tpc.linear %1382, %1383, %1384 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1386 = tpc.gelu %1385 : tensor<?x?x12288xf32>
    %1387 = tpc.get_param @h.62.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1388 = tpc.get_param @h.62.mlp.c_proj.bias : tensor<3072xf32>
    %1389 = tpc.linear %1386, %1387, %1388 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1390 = tpc.add %1379, %1389 : tensor<?x?x3072xf32>
    %1391 = tpc.get_param @h.63.ln_1.weight : tensor<3072xf32>
    %1392 = tpc.get_param @h.63.ln_1.bias : tensor<3072xf32>
    %1393 = tpc.layernorm %1390, %1391, %1392 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1394 = tpc.get_param @h.63.attn.c_attn.weight : tensor<3072x9216xf32>
    %1395 = tpc.get_param @h.63.attn.c_attn.bias : tensor<9216xf32>
    %1396 = tpc.linear %1393, %1394, %1395 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1397 = tpc.self_attention %1396 heads 32 causal : tensor<?x?x9216xf32>
    %1398 = tpc.get_param @h.63.attn.c_proj.weight : tensor<3072x3072xf32>
    %1399 = tpc.get_param @h.63.attn.c_proj.bias : tensor<3072xf32>
    %1400 = tpc.linear %1397, %1398, %1399 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1401 = tpc.add %1390, %1400 : tensor<?x?x3072xf32>
    %1402 = tpc.get_param @h.63.ln_2.weight : tensor<3072xf32>
    %1403 = tpc.get_param @h.63.ln_2.bias : tensor<3072xf32>
    %1404 = tpc.layernorm %1401, %1402, %1403 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1405 = tpc.get_param @h.63.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1406 = tpc.get_param @h.63.mlp.c_fc.bias : tensor<12288xf32>
    %1407 = tpc.linear %1404, %1405, %1406 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1408 = tpc.gelu %1407 : tensor<?x?x12288xf32>
    %1409 = tpc.get_param @h.63.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1410 = tpc.get_param @h.63.mlp.c_proj.bias : tensor<3072xf32>
    %1411 = tpc.linear %1408, %1409, %1410 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1412 = tpc.add %1401, %1411 : tensor<?x?x3072xf32>
    %1413 = tpc.get_param @h.64.ln_1.weight : tensor<3072xf32>
    %1414 = tpc.get_param @h.64.ln_1.bias : tensor<3072xf32>
    %1415 = tpc.layernorm %1412, %1413, %1414 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1416 = tpc.get_param @h.64.attn.c_attn.weight : tensor<3072x9216xf32>
    %1417 = tpc.get_param @h.64.attn.c_attn.bias : tensor<9216xf32>
    %1418 = tpc.linear %1415, %1416, %1417 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1419 = tpc.self_attention %1418 heads 32 causal : tensor<?x?x9216xf32>
    %1420 = tpc.get_param @h.64.attn.c_proj.weight : tensor<3072x3072xf32>
    %1421 = tpc.get_param @h.64.attn.c_proj.bias : tensor<3072xf32>
    %1422 = tpc.linear %1419, %1420, %1421 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1423 = tpc.add %1412, %1422 : tensor<?x?x3072xf32>
    %1424 = tpc.get_param @h.64.ln_2.weight : tensor<3072xf32>
    %1425 = tpc.get_param @h.64.ln_2.bias : tensor<3072xf32>
    %1426 = tpc.layernorm %1423, %1424, %1425 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1427 = tpc.get_param @h.64.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1428 = tpc.get_param @h.64.mlp.c_fc.bias : tensor<12288xf32>
    %1429 = tpc.linear %1426, %1427, %1428 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1430 = tpc.gelu %1429 : tensor<?x?x12288xf32>
    %1431 = tpc.get_param @h.64.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1432 = tpc.get_param @h.64.mlp.c_proj.bias : tensor<3072xf32>
    %1433 = tpc.linear %1430, %1431, %1432 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1434 = tpc.add %1423, %1433 : tensor<?x?x3072xf32>
    %1435 = tpc.get_param @h.65.ln_1.weight : tensor<3072xf32>
    %1436 = tpc.get_param @h.65.ln_1.bias : tensor<3072xf32>
    %1437 = tpc.layernorm %1434, %1435, %1436 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1438 = tpc.get_param @h.65.attn.c_attn.weight : tensor<3072x9216xf32>
    %1439 = tpc.get_param @h.65.attn.c_attn.bias : tensor<9216xf32>
    %1440 = tpc.linear %1437, %1438, %1439 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1441 = tpc.self_attention %1440 heads 32 causal : tensor<?x?x9216xf32>
    %1442 = tpc.get_param @h.65.attn.c_proj.weight : tensor<3072x3072xf32>
    %1443 = tpc.get_param @h.65.attn.c_proj.bias : tensor<3072xf32>
    %1444 = tpc.linear %1441, %1442, %1443 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1445 = tpc.add %1434, %1444 : tensor<?x?x3072xf32>
    %1446 = tpc.get_param @h.65.ln_2.weight : tensor<3072xf32>
    %1447 = tpc.get_param @h.65.ln_2.bias : tensor<3072xf32>
    %1448 = tpc.layernorm %1445, %1446, %1447 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1449 = tpc.get_param @h.65.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1450 = tpc.get_param @h.65.mlp.c_fc.bias : tensor<12288xf32>
    %1451 = tpc.linear %1448, %1449, %1450 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1452 = tpc.gelu %1451 : tensor<?x?x12288xf32>
    %1453 = tpc.get_param @h.65.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1454 = tpc.get_param @h.65.mlp.c_proj.bias : tensor<3072xf32>
    %1455 = tpc.linear %1452, %1453, %1454 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1456 = tpc.add %1445, %1455 : tensor<?x?x3072xf32>
    %1457 = tpc.get_param @h.66.ln_1.weight : tensor<3072xf32>
    %1458 = tpc.get_param @h.66.ln_1.bias : tensor<3072xf32>
    %1459 = tpc.layernorm %1456, %1457, %1458 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1460 = tpc.get_param @h.66.attn.c_attn.weight : tensor<3072x9216xf32>
    %1461 = tpc.get_param @h.66.attn.c_attn.bias : tensor<9216xf32>
    %1462 = tpc.linear %1459, %1460, %1461 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1463 = tpc.self_attention %1462 heads 32 causal : tensor<?x?x9216xf32>
    %1464 = tpc.get_param @h.66.attn.c_proj.weight : tensor<3072x3072xf32>
    %1465 = tpc.get_param @h.66.attn.c_proj.bias : tensor<3072xf32>
    %1466 = tpc.linear %1463, %1464, %1465 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1467 = tpc.add %1456, %1466 : tensor<?x?x3072xf32>
    %1468 = tpc.get_param @h.66.ln_2.weight : tensor<3072xf32>
    %1469 = tpc.get_param @h.66.ln_2.bias : tensor<3072xf32>
    %1470 = tpc.layernorm %1467, %1468, %1469 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1471 = tpc.get_param @h.66.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1472 = tpc.get_param @h.66.mlp.c_fc.bias : tensor<12288xf32>
    %1473 = tpc.linear %1470, %1471, %1472 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1474 = tpc.gelu %1473 : tensor<?x?x12288xf32>
    %1475 = tpc.get_param @h.66.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1476 = tpc.get_param @h.66.mlp.c_proj.bias : tensor<3072xf32>
    %1477 = tpc.linear %1474, %1475, %1476 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1478 = tpc.add %1467, %1477 : tensor<?x?x3072xf32>
    %1479 = tpc.get_param @h.67.ln_1.weight : tensor<3072xf32>
    %1480 = tpc.get_param @h.67.ln_1.bias : tensor<3072xf32>
    %1481 = tpc.layernorm %1478, %1479, %1480 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1482 = tpc.get_param @h.67.attn.c_attn.weight : tensor<3072x9216xf32>
    %1483 = tpc.get_param @h.67.attn.c_attn.bias : tensor<9216xf32>
    %1484 = tpc.linear %1481, %1482, %1483 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1485 = tpc.self_attention %1484 heads 32 causal : tensor<?x?x9216xf32>
    %1486 = tpc.get_param @h.67.attn.c_proj.weight : tensor<3072x3072xf32>
    %1487 = tpc.get_param @h.67.attn.c_proj.bias : tensor<3072xf32>
    %1488 = tpc.linear %1485, %1486, %1487 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1489 = tpc.add %1478, %1488 : tensor<?x?x3072xf32>
    %1490 = tpc.get_param @h.67.ln_2.weight : tensor<3072xf32>
    %1491 = tpc.get_param @h.67.ln_2.bias : tensor<3072xf32>
    %1492 = tpc.layernorm %1489, %1490, %1491 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1493 = tpc.get_param @h.67.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1494 = tpc.get_param @h.67.mlp.c_fc.bias : tensor<12288xf32>
    %1495 = tpc.linear %1492, %1493, %1494 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1496 = tpc.gelu %1495 : tensor<?x?x12288xf32>
    %1497 = tpc.get_param @h.67.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1498 = tpc.get_param @h.67.mlp.c_proj.bias : tensor<3072xf32>
    %1499 = tpc.linear %1496, %1497, %1498 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1500 = tpc.add %1489, %1499 : tensor<?x?x3072xf32>
    %1501 = tpc.get_param @h.68.ln_1.weight : tensor<3072xf32>
    %1502 = tpc.get_param @h.68.ln_1.bias : tensor<3072xf32>
    %1503 = tpc.layernorm %1500, %1501, %1502 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1504 = tpc.get_param @h.68.attn.c_attn.weight : tensor<3072x9216xf32>
    %1505 = tpc.get_param @h.68.attn.c_attn.bias : tensor<9216xf32>
    %1506 = tpc.linear %1503, %1504, %1505 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1507 = tpc.self_attention %1506 heads 32 causal : tensor<?x?x9216xf32>
    %1508 = tpc.get_param @h.68.attn.c_proj.weight : tensor<3072x3072xf32>
    %1509 = tpc.get_param @h.68.attn.c_proj.bias : tensor<3072xf32>
    %1510 = tpc.linear %1507, %1508, %1509 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1511 = tpc.add %1500, %1510 : tensor<?x?x3072xf32>
    %1512 = tpc.get_param @h.68.ln_2.weight : tensor<3072xf32>
    %1513 = tpc.get_param @h.68.ln_2.bias : tensor<3072xf32>
    %1514 = tpc.layernorm %1511, %1512, %1513 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1515 = tpc.get_param @h.68.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1516 = tpc.get_param @h.68.mlp.c_fc.bias : tensor<12288xf32>
    %1517 = tpc.linear %1514, %1515, %1516 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1518 = tpc.gelu %1517 : tensor<?x?x12288xf32>
    %1519 = tpc.get_param @h.68.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1520 = tpc.get_param @h.68.mlp.c_proj.bias : tensor<3072xf32>
    %1521 = tpc.linear %1518, %1519, %1520 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1522 = tpc.add %1511, %1521 : tensor<?x?x3072xf32>
    %1523 = tpc.get_param @h.69.ln_1.weight : tensor<3072xf32>
    %1524 = tpc.get_param @h.69.ln_1.bias : tensor<3072xf32>
    %1525 = tpc.layernorm %1522, %1523, %1524 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1526 = tpc.get_param @h.69.attn.c_attn.weight : tensor<3072x9216xf32>
    %1527 = tpc.get_param @h.69.attn.c_attn.bias : tensor<9216xf32>
    %1528 = tpc.linear %1525, %1526, %1527 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1529 = tpc.self_attention %1528 heads 32 causal : tensor<?x?x9216xf32>
    %1530 = tpc.get_param @h.69.attn.c_proj.weight : tensor<3072x3072xf32>
    %1531 = tpc.get_param @h.69.attn.c_proj.bias : tensor<3072xf32>
    %1532 = tpc.linear %1529, %1530, %1531 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1533 = tpc.add %1522, %1532 : tensor<?x?x3072xf32>
    %1534 = tpc.get_param @h.69.ln_2.weight : tensor<3072xf32>
    %1535 = tpc.get_param @h.69.ln_2.bias : tensor<3072xf32>
    %1536 = tpc.layernorm %1533, %1534, %1535 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1537 = tpc.get_param @h.69.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1538 = tpc.get_param @h.69.mlp.c_fc.bias : tensor<12288xf32>
    %1539 = tpc.linear %1536, %1537, %1538 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1540 = tpc.gelu %1539 : tensor<?x?x12288xf32>
    %1541 = tpc.get_param @h.69.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1542 = tpc.get_param @h.69.mlp.c_proj.bias : tensor<3072xf32>
    %1543 = tpc.linear %1540, %1541, %1542 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1544 = tpc.add %1533, %1543 : tensor<?x?x3072xf32>
    %1545 = tpc.get_param @h.70.ln_1.weight : tensor<3072xf32>
    %1546 = tpc.get_param @h.70.ln_1.bias : tensor<3072xf32>
    %1547 = tpc.layernorm %1544, %1545, %1546 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1548 = tpc.get_param @h.70.attn.c_attn.weight : tensor<3072x9216xf32>
    %1549 = tpc.get_param @h.70.attn.c_attn.bias : tensor<9216xf32>
    %1550 = tpc.linear %1547, %1548, %1549 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1551 = tpc.self_attention %1550 heads 32 causal : tensor<?x?x9216xf32>
    %1552 = tpc.get_param @h.70.attn.c_proj.weight : tensor<3072x3072xf32>
    %1553 = tpc.get_param @h.70.attn.c_proj.bias : tensor<3072xf32>
    %1554 = tpc.linear %1551, %1552, %1553 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1555 = tpc.add %1544, %1554 : tensor<?x?x3072xf32>
    %1556 = tpc.get_param @h.70.ln_2.weight : tensor<3072xf32>
    %1557 = tpc.get_param @h.70.ln_2.bias : tensor<3072xf32>
    %1558 = tpc.layernorm %1555, %1556, %1557 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1559 = tpc.get_param @h.70.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1560 = tpc.get_param @h.70.mlp.c_fc.bias : tensor<12288xf32>
    %1561 = tpc.linear %1558, %1559, %1560 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1562 = tpc.gelu %1561 : tensor<?x?x12288xf32>
    %1563 = tpc.get_param @h.70.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1564 = tpc.get_param @h.70.mlp.c_proj.bias : tensor<3072xf32>
    %1565 = tpc.linear %1562, %1563, %1564 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1566 = tpc.add %1555, %1565 : tensor<?x?x3072xf32>
    %1567 = tpc.get_param @h.71.ln_1.weight : tensor<3072xf32>
    %1568 = tpc.get_param @h.71.ln_1.bias : tensor<3072xf32>
    %1569 = tpc.layernorm %1566, %1567, %1568 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1570 = tpc.get_param @h.71.attn.c_attn.weight : tensor<3072x9216xf32>
    %1571 = tpc.get_param @h.71.attn.c_attn.bias : tensor<9216xf32>
    %1572 = tpc.linear %1569, %1570, %1571 : tensor<?x?x3072xf32>, tensor<3072x9216xf32>, tensor<9216xf32>
    %1573 = tpc.self_attention %1572 heads 32 causal : tensor<?x?x9216xf32>
    %1574 = tpc.get_param @h.71.attn.c_proj.weight : tensor<3072x3072xf32>
    %1575 = tpc.get_param @h.71.attn.c_proj.bias : tensor<3072xf32>
    %1576 = tpc.linear %1573, %1574, %1575 : tensor<?x?x3072xf32>, tensor<3072x3072xf32>, tensor<3072xf32>
    %1577 = tpc.add %1566, %1576 : tensor<?x?x3072xf32>
    %1578 = tpc.get_param @h.71.ln_2.weight : tensor<3072xf32>
    %1579 = tpc.get_param @h.71.ln_2.bias : tensor<3072xf32>
    %1580 = tpc.layernorm %1577, %1578, %1579 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1581 = tpc.get_param @h.71.mlp.c_fc.weight : tensor<3072x12288xf32>
    %1582 = tpc.get_param @h.71.mlp.c_fc.bias : tensor<12288xf32>
    %1583 = tpc.linear %1580, %1581, %1582 : tensor<?x?x3072xf32>, tensor<3072x12288xf32>, tensor<12288xf32>
    %1584 = tpc.gelu %1583 : tensor<?x?x12288xf32>
    %1585 = tpc.get_param @h.71.mlp.c_proj.weight : tensor<12288x3072xf32>
    %1586 = tpc.get_param @h.71.mlp.c_proj.bias : tensor<3072xf32>
    %1587 = tpc.linear %1584, %1585, %1586 : tensor<?x?x12288xf32>, tensor<12288x3072xf32>, tensor<3072xf32>
    %1588 = tpc.add %1577, %1587 : tensor<?x?x3072xf32>
    %1589 = tpc.get_param @ln_f.weight : tensor<3072xf32>
    %1590 = tpc.get_param @ln_f.bias : tensor<3072xf32>
    %1591 = tpc.layernorm %1588, %1589, %1590 eps 1.000000e-05 : tensor<?x?x3072xf32>, tensor<3072xf32>, tensor<3072xf32>
    %1592 = tpc.linear %1591, %0 transposed : tensor<?x?x3072xf32>, tensor<50257x3072xf32>
    %loss_sum, %count = tpc.cross_entropy %1592, %arg1 ignore_index -1 : tensor<?x?x50257xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %1592 : tensor<f32>, tensor<i32>, tensor<?x?x50257xf32>
  }
}
