// tpc-model stagformer --stacks 2 --layers 1 --hidden 16 --heads 2 --vocab 40 --seq 8 --rope --rope-theta 10000 --shared-weights
module {
  tpc.param @wte : tensor<40x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @wpe : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.ln_1.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.attn.c_attn.bias : tensor<48xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02, residual_layers = 1>
  tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<16xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 2.000000e-02, residual_layers = 1>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @s2.h.0.ln_x.weight : tensor<16xf32> init <ones>
  tpc.param @s2.h.0.ln_x.bias : tensor<16xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_q.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.0.xattn.c_q.bias : tensor<16xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_kv.weight : tensor<16x32xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.0.xattn.c_kv.bias : tensor<32xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_proj.weight : tensor<16x16xf32> init <normal, std = 2.000000e-02, residual_layers = 1>
  tpc.param @s2.h.0.xattn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x40xf32>) {
    %0 = tpc.get_param @wte : tensor<40x16xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<40x16xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @wpe : tensor<8x16xf32>
    %3 = tpc.position_embedding %2, %arg0 : tensor<8x16xf32>, tensor<?x?xi32>
    %4 = tpc.add %1, %3 : tensor<?x?x16xf32>
    %5 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %6 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %8 = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %11 = tpc.self_attention %10 heads 2 causal rope 1.000000e+04 : tensor<?x?x48xf32>
    %12 = tpc.get_param @h.0.attn.c_proj.weight : tensor<16x16xf32>
    %13 = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %14 = tpc.linear %11, %12, %13 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %15 = tpc.add %4, %14 : tensor<?x?x16xf32>
    %16 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %17 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %18 = tpc.layernorm %15, %16, %17 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %19 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    %20 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
    %21 = tpc.linear %18, %19, %20 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %22 = tpc.gelu %21 : tensor<?x?x64xf32>
    %23 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
    %24 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %25 = tpc.linear %22, %23, %24 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %26 = tpc.add %15, %25 : tensor<?x?x16xf32>
    %27 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %28 = tpc.linear %27, %8, %9 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %29 = tpc.self_attention %28 heads 2 causal rope 1.000000e+04 : tensor<?x?x48xf32>
    %30 = tpc.linear %29, %12, %13 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %31 = tpc.add %4, %30 : tensor<?x?x16xf32>
    %32 = tpc.get_param @s2.h.0.ln_x.weight : tensor<16xf32>
    %33 = tpc.get_param @s2.h.0.ln_x.bias : tensor<16xf32>
    %34 = tpc.layernorm %31, %32, %33 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %35 = tpc.get_param @s2.h.0.xattn.c_q.weight : tensor<16x16xf32>
    %36 = tpc.get_param @s2.h.0.xattn.c_q.bias : tensor<16xf32>
    %37 = tpc.linear %34, %35, %36 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %38 = tpc.get_param @s2.h.0.xattn.c_kv.weight : tensor<16x32xf32>
    %39 = tpc.get_param @s2.h.0.xattn.c_kv.bias : tensor<32xf32>
    %40 = tpc.linear %26, %38, %39 : tensor<?x?x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %41 = tpc.cross_attention %37, %40 heads 2 rope 1.000000e+04 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
    %42 = tpc.get_param @s2.h.0.xattn.c_proj.weight : tensor<16x16xf32>
    %43 = tpc.get_param @s2.h.0.xattn.c_proj.bias : tensor<16xf32>
    %44 = tpc.linear %41, %42, %43 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %45 = tpc.add %31, %44 : tensor<?x?x16xf32>
    %46 = tpc.layernorm %45, %16, %17 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %47 = tpc.linear %46, %19, %20 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %48 = tpc.gelu %47 : tensor<?x?x64xf32>
    %49 = tpc.linear %48, %23, %24 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %50 = tpc.add %45, %49 : tensor<?x?x16xf32>
    %51 = tpc.get_param @ln_f.weight : tensor<16xf32>
    %52 = tpc.get_param @ln_f.bias : tensor<16xf32>
    %53 = tpc.layernorm %50, %51, %52 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %54 = tpc.linear %53, %0 transposed : tensor<?x?x16xf32>, tensor<40x16xf32>
    %loss_sum, %count = tpc.cross_entropy %54, %arg1 ignore_index -1 : tensor<?x?x40xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %54 : tensor<f32>, tensor<i32>, tensor<?x?x40xf32>
  }
}
