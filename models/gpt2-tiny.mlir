// tpc-model gpt2 --layers 2 --hidden 64 --heads 4 --vocab 512 --seq 64
module {
  tpc.param @wte : tensor<512x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @wpe : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.ln_1.weight : tensor<64xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<64x192xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.attn.c_attn.bias : tensor<192xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @h.0.attn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<64xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<64x256xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<256xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<256x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @h.0.mlp.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @h.1.ln_1.weight : tensor<64xf32> init <ones>
  tpc.param @h.1.ln_1.bias : tensor<64xf32> init <zeros>
  tpc.param @h.1.attn.c_attn.weight : tensor<64x192xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.1.attn.c_attn.bias : tensor<192xf32> init <zeros>
  tpc.param @h.1.attn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @h.1.attn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @h.1.ln_2.weight : tensor<64xf32> init <ones>
  tpc.param @h.1.ln_2.bias : tensor<64xf32> init <zeros>
  tpc.param @h.1.mlp.c_fc.weight : tensor<64x256xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.1.mlp.c_fc.bias : tensor<256xf32> init <zeros>
  tpc.param @h.1.mlp.c_proj.weight : tensor<256x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @h.1.mlp.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<64xf32> init <ones>
  tpc.param @ln_f.bias : tensor<64xf32> init <zeros>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x512xf32>) {
    %0 = tpc.get_param @wte : tensor<512x64xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<512x64xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @wpe : tensor<64x64xf32>
    %3 = tpc.position_embedding %2, %arg0 : tensor<64x64xf32>, tensor<?x?xi32>
    %4 = tpc.add %1, %3 : tensor<?x?x64xf32>
    %5 = tpc.get_param @h.0.ln_1.weight : tensor<64xf32>
    %6 = tpc.get_param @h.0.ln_1.bias : tensor<64xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %8 = tpc.get_param @h.0.attn.c_attn.weight : tensor<64x192xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.bias : tensor<192xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x64xf32>, tensor<64x192xf32>, tensor<192xf32>
    %11 = tpc.self_attention %10 heads 4 causal : tensor<?x?x192xf32>
    %12 = tpc.get_param @h.0.attn.c_proj.weight : tensor<64x64xf32>
    %13 = tpc.get_param @h.0.attn.c_proj.bias : tensor<64xf32>
    %14 = tpc.linear %11, %12, %13 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %15 = tpc.add %4, %14 : tensor<?x?x64xf32>
    %16 = tpc.get_param @h.0.ln_2.weight : tensor<64xf32>
    %17 = tpc.get_param @h.0.ln_2.bias : tensor<64xf32>
    %18 = tpc.layernorm %15, %16, %17 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %19 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<64x256xf32>
    %20 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<256xf32>
    %21 = tpc.linear %18, %19, %20 : tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<256xf32>
    %22 = tpc.gelu %21 : tensor<?x?x256xf32>
    %23 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<256x64xf32>
    %24 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<64xf32>
    %25 = tpc.linear %22, %23, %24 : tensor<?x?x256xf32>, tensor<256x64xf32>, tensor<64xf32>
    %26 = tpc.add %15, %25 : tensor<?x?x64xf32>
    %27 = tpc.get_param @h.1.ln_1.weight : tensor<64xf32>
    %28 = tpc.get_param @h.1.ln_1.bias : tensor<64xf32>
    %29 = tpc.layernorm %26, %27, %28 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %30 = tpc.get_param @h.1.attn.c_attn.weight : tensor<64x192xf32>
    %31 = tpc.get_param @h.1.attn.c_attn.bias : tensor<192xf32>
    %32 = tpc.linear %29, %30, %31 : tensor<?x?x64xf32>, tensor<64x192xf32>, tensor<192xf32>
    %33 = tpc.self_attention %32 heads 4 causal : tensor<?x?x192xf32>
    %34 = tpc.get_param @h.1.attn.c_proj.weight : tensor<64x64xf32>
    %35 = tpc.get_param @h.1.attn.c_proj.bias : tensor<64xf32>
    %36 = tpc.linear %33, %34, %35 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %37 = tpc.add %26, %36 : tensor<?x?x64xf32>
    %38 = tpc.get_param @h.1.ln_2.weight : tensor<64xf32>
    %39 = tpc.get_param @h.1.ln_2.bias : tensor<64xf32>
    %40 = tpc.layernorm %37, %38, %39 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %41 = tpc.get_param @h.1.mlp.c_fc.weight : tensor<64x256xf32>
    %42 = tpc.get_param @h.1.mlp.c_fc.bias : tensor<256xf32>
    %43 = tpc.linear %40, %41, %42 : tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<256xf32>
    %44 = tpc.gelu %43 : tensor<?x?x256xf32>
    %45 = tpc.get_param @h.1.mlp.c_proj.weight : tensor<256x64xf32>
    %46 = tpc.get_param @h.1.mlp.c_proj.bias : tensor<64xf32>
    %47 = tpc.linear %44, %45, %46 : tensor<?x?x256xf32>, tensor<256x64xf32>, tensor<64xf32>
    %48 = tpc.add %37, %47 : tensor<?x?x64xf32>
    %49 = tpc.get_param @ln_f.weight : tensor<64xf32>
    %50 = tpc.get_param @ln_f.bias : tensor<64xf32>
    %51 = tpc.layernorm %48, %49, %50 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %52 = tpc.linear %51, %0 transposed : tensor<?x?x64xf32>, tensor<512x64xf32>
    %loss_sum, %count = tpc.cross_entropy %52, %arg1 ignore_index -1 : tensor<?x?x512xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %52 : tensor<f32>, tensor<i32>, tensor<?x?x512xf32>
  }
}
