// tpc-model gpt2 --layers 12 --hidden 768 --heads 12 --vocab 50257 --seq 1024
module {
  tpc.param @wte : tensor<50257x768xf32> init <normal, std = 2.000000e-02>
  tpc.param @wpe : tensor<1024x768xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.0.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.0.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.0.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.0.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.0.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.0.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.0.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.1.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.1.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.1.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.1.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.1.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.1.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.1.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.1.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.1.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.1.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.1.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.1.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.2.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.2.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.2.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.2.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.2.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.2.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.2.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.2.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.2.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.2.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.2.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.2.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.3.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.3.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.3.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.3.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.3.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.3.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.3.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.3.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.3.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.3.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.3.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.3.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.4.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.4.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.4.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.4.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.4.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.4.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.4.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.4.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.4.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.4.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.4.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.4.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.5.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.5.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.5.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.5.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.5.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.5.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.5.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.5.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.5.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.5.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.5.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.5.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.6.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.6.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.6.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.6.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.6.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.6.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.6.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.6.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.6.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.6.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.6.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.6.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.7.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.7.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.7.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.7.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.7.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.7.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.7.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.7.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.7.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.7.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.7.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.7.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.8.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.8.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.8.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.8.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.8.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.8.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.8.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.8.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.8.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.8.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.8.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.8.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.9.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.9.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.9.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.9.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.9.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.9.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.9.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.9.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.9.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.9.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.9.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.9.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.10.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.10.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.10.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.10.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.10.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.10.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.10.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.10.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.10.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.10.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.10.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.10.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.11.ln_1.weight : tensor<768xf32> init <ones>
  tpc.param @h.11.ln_1.bias : tensor<768xf32> init <zeros>
  tpc.param @h.11.attn.c_attn.weight : tensor<768x2304xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.11.attn.c_attn.bias : tensor<2304xf32> init <zeros>
  tpc.param @h.11.attn.c_proj.weight : tensor<768x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.11.attn.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @h.11.ln_2.weight : tensor<768xf32> init <ones>
  tpc.param @h.11.ln_2.bias : tensor<768xf32> init <zeros>
  tpc.param @h.11.mlp.c_fc.weight : tensor<768x3072xf32> init <normal, std = 2.000000e-02>
  tpc.param @h.11.mlp.c_fc.bias : tensor<3072xf32> init <zeros>
  tpc.param @h.11.mlp.c_proj.weight : tensor<3072x768xf32> init <normal, std = 2.000000e-02, residual_layers = 12>
  tpc.param @h.11.mlp.c_proj.bias : tensor<768xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<768xf32> init <ones>
  tpc.param @ln_f.bias : tensor<768xf32> init <zeros>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x50257xf32>) {
    %0 = tpc.get_param @wte : tensor<50257x768xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<50257x768xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @wpe : tensor<1024x768xf32>
    %3 = tpc.position_embedding %2, %arg0 : tensor<1024x768xf32>, tensor<?x?xi32>
    %4 = tpc.add %1, %3 : tensor<?x?x768xf32>
    %5 = tpc.get_param @h.0.ln_1.weight : tensor<768xf32>
    %6 = tpc.get_param @h.0.ln_1.bias : tensor<768xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %8 = tpc.get_param @h.0.attn.c_attn.weight : tensor<768x2304xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.bias : tensor<2304xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %11 = tpc.self_attention %10 heads 12 causal : tensor<?x?x2304xf32>
    %12 = tpc.get_param @h.0.attn.c_proj.weight : tensor<768x768xf32>
    %13 = tpc.get_param @h.0.attn.c_proj.bias : tensor<768xf32>
    %14 = tpc.linear %11, %12, %13 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %15 = tpc.add %4, %14 : tensor<?x?x768xf32>
    %16 = tpc.get_param @h.0.ln_2.weight : tensor<768xf32>
    %17 = tpc.get_param @h.0.ln_2.bias : tensor<768xf32>
    %18 = tpc.layernorm %15, %16, %17 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %19 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<768x3072xf32>
    %20 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<3072xf32>
    %21 = tpc.linear %18, %19, %20 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %22 = tpc.gelu %21 : tensor<?x?x3072xf32>
    %23 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<3072x768xf32>
    %24 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<768xf32>
    %25 = tpc.linear %22, %23, %24 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %26 = tpc.add %15, %25 : tensor<?x?x768xf32>
    %27 = tpc.get_param @h.1.ln_1.weight : tensor<768xf32>
    %28 = tpc.get_param @h.1.ln_1.bias : tensor<768xf32>
    %29 = tpc.layernorm %26, %27, %28 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %30 = tpc.get_param @h.1.attn.c_attn.weight : tensor<768x2304xf32>
    %31 = tpc.get_param @h.1.attn.c_attn.bias : tensor<2304xf32>
    %32 = tpc.linear %29, %30, %31 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %33 = tpc.self_attention %32 heads 12 causal : tensor<?x?x2304xf32>
    %34 = tpc.get_param @h.1.attn.c_proj.weight : tensor<768x768xf32>
    %35 = tpc.get_param @h.1.attn.c_proj.bias : tensor<768xf32>
    %36 = tpc.linear %33, %34, %35 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %37 = tpc.add %26, %36 : tensor<?x?x768xf32>
    %38 = tpc.get_param @h.1.ln_2.weight : tensor<768xf32>
    %39 = tpc.get_param @h.1.ln_2.bias : tensor<768xf32>
    %40 = tpc.layernorm %37, %38, %39 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %41 = tpc.get_param @h.1.mlp.c_fc.weight : tensor<768x3072xf32>
    %42 = tpc.get_param @h.1.mlp.c_fc.bias : tensor<3072xf32>
    %43 = tpc.linear %40, %41, %42 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %44 = tpc.gelu %43 : tensor<?x?x3072xf32>
    %45 = tpc.get_param @h.1.mlp.c_proj.weight : tensor<3072x768xf32>
    %46 = tpc.get_param @h.1.mlp.c_proj.bias : tensor<768xf32>
    %47 = tpc.linear %44, %45, %46 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %48 = tpc.add %37, %47 : tensor<?x?x768xf32>
    %49 = tpc.get_param @h.2.ln_1.weight : tensor<768xf32>
    %50 = tpc.get_param @h.2.ln_1.bias : tensor<768xf32>
    %51 = tpc.layernorm %48, %49, %50 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %52 = tpc.get_param @h.2.attn.c_attn.weight : tensor<768x2304xf32>
    %53 = tpc.get_param @h.2.attn.c_attn.bias : tensor<2304xf32>
    %54 = tpc.linear %51, %52, %53 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %55 = tpc.self_attention %54 heads 12 causal : tensor<?x?x2304xf32>
    %56 = tpc.get_param @h.2.attn.c_proj.weight : tensor<768x768xf32>
    %57 = tpc.get_param @h.2.attn.c_proj.bias : tensor<768xf32>
    %58 = tpc.linear %55, %56, %57 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %59 = tpc.add %48, %58 : tensor<?x?x768xf32>
    %60 = tpc.get_param @h.2.ln_2.weight : tensor<768xf32>
    %61 = tpc.get_param @h.2.ln_2.bias : tensor<768xf32>
    %62 = tpc.layernorm %59, %60, %61 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %63 = tpc.get_param @h.2.mlp.c_fc.weight : tensor<768x3072xf32>
    %64 = tpc.get_param @h.2.mlp.c_fc.bias : tensor<3072xf32>
    %65 = tpc.linear %62, %63, %64 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %66 = tpc.gelu %65 : tensor<?x?x3072xf32>
    %67 = tpc.get_param @h.2.mlp.c_proj.weight : tensor<3072x768xf32>
    %68 = tpc.get_param @h.2.mlp.c_proj.bias : tensor<768xf32>
    %69 = tpc.linear %66, %67, %68 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %70 = tpc.add %59, %69 : tensor<?x?x768xf32>
    %71 = tpc.get_param @h.3.ln_1.weight : tensor<768xf32>
    %72 = tpc.get_param @h.3.ln_1.bias : tensor<768xf32>
    %73 = tpc.layernorm %70, %71, %72 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %74 = tpc.get_param @h.3.attn.c_attn.weight : tensor<768x2304xf32>
    %75 = tpc.get_param @h.3.attn.c_attn.bias : tensor<2304xf32>
    %76 = tpc.linear %73, %74, %75 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %77 = tpc.self_attention %76 heads 12 causal : tensor<?x?x2304xf32>
    %78 = tpc.get_param @h.3.attn.c_proj.weight : tensor<768x768xf32>
    %79 = tpc.get_param @h.3.attn.c_proj.bias : tensor<768xf32>
    %80 = tpc.linear %77, %78, %79 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %81 = tpc.add %70, %80 : tensor<?x?x768xf32>
    %82 = tpc.get_param @h.3.ln_2.weight : tensor<768xf32>
    %83 = tpc.get_param @h.3.ln_2.bias : tensor<768xf32>
    %84 = tpc.layernorm %81, %82, %83 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %85 = tpc.get_param @h.3.mlp.c_fc.weight : tensor<768x3072xf32>
    %86 = tpc.get_param @h.3.mlp.c_fc.bias : tensor<3072xf32>
    %87 = tpc.linear %84, %85, %86 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %88 = tpc.gelu %87 : tensor<?x?x3072xf32>
    %89 = tpc.get_param @h.3.mlp.c_proj.weight : tensor<3072x768xf32>
    %90 = tpc.get_param @h.3.mlp.c_proj.bias : tensor<768xf32>
    %91 = tpc.linear %88, %89, %90 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %92 = tpc.add %81, %91 : tensor<?x?x768xf32>
    %93 = tpc.get_param @h.4.ln_1.weight : tensor<768xf32>
    %94 = tpc.get_param @h.4.ln_1.bias : tensor<768xf32>
    %95 = tpc.layernorm %92, %93, %94 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %96 = tpc.get_param @h.4.attn.c_attn.weight : tensor<768x2304xf32>
    %97 = tpc.get_param @h.4.attn.c_attn.bias : tensor<2304xf32>
    %98 = tpc.linear %95, %96, %97 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %99 = tpc.self_attention %98 heads 12 causal : tensor<?x?x2304xf32>
    %100 = tpc.get_param @h.4.attn.c_proj.weight : tensor<768x768xf32>
    %101 = tpc.get_param @h.4.attn.c_proj.bias : tensor<768xf32>
    %102 = tpc.linear %99, %100, %101 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %103 = tpc.add %92, %102 : tensor<?x?x768xf32>
    %104 = tpc.get_param @h.4.ln_2.weight : tensor<768xf32>
    %105 = tpc.get_param @h.4.ln_2.bias : tensor<768xf32>
    %106 = tpc.layernorm %103, %104, %105 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %107 = tpc.get_param @h.4.mlp.c_fc.weight : tensor<768x3072xf32>
    %108 = tpc.get_param @h.4.mlp.c_fc.bias : tensor<3072xf32>
    %109 = tpc.linear %106, %107, %108 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %110 = tpc.gelu %109 : tensor<?x?x3072xf32>
    %111 = tpc.get_param @h.4.mlp.c_proj.weight : tensor<3072x768xf32>
    %112 = tpc.get_param @h.4.mlp.c_proj.bias : tensor<768xf32>
    %113 = tpc.linear %110, %111, %112 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %114 = tpc.add %103, %113 : tensor<?x?x768xf32>
    %115 = tpc.get_param @h.5.ln_1.weight : tensor<768xf32>
    %116 = tpc.get_param @h.5.ln_1.bias : tensor<768xf32>
    %117 = tpc.layernorm %114, %115, %116 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %118 = tpc.get_param @h.5.attn.c_attn.weight : tensor<768x2304xf32>
    %119 = tpc.get_param @h.5.attn.c_attn.bias : tensor<2304xf32>
    %120 = tpc.linear %117, %118, %119 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %121 = tpc.self_attention %120 heads 12 causal : tensor<?x?x2304xf32>
    %122 = tpc.get_param @h.5.attn.c_proj.weight : tensor<768x768xf32>
    %123 = tpc.get_param @h.5.attn.c_proj.bias : tensor<768xf32>
    %124 = tpc.linear %121, %122, %123 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %125 = tpc.add %114, %124 : tensor<?x?x768xf32>
    %126 = tpc.get_param @h.5.ln_2.weight : tensor<768xf32>
    %127 = tpc.get_param @h.5.ln_2.bias : tensor<768xf32>
    %128 = tpc.layernorm %125, %126, %127 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %129 = tpc.get_param @h.5.mlp.c_fc.weight : tensor<768x3072xf32>
    %130 = tpc.get_param @h.5.mlp.c_fc.bias : tensor<3072xf32>
    %131 = tpc.linear %128, %129, %130 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %132 = tpc.gelu %131 : tensor<?x?x3072xf32>
    %133 = tpc.get_param @h.5.mlp.c_proj.weight : tensor<3072x768xf32>
    %134 = tpc.get_param @h.5.mlp.c_proj.bias : tensor<768xf32>
    %135 = tpc.linear %132, %133, %134 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %136 = tpc.add %125, %135 : tensor<?x?x768xf32>
    %137 = tpc.get_param @h.6.ln_1.weight : tensor<768xf32>
    %138 = tpc.get_param @h.6.ln_1.bias : tensor<768xf32>
    %139 = tpc.layernorm %136, %137, %138 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %140 = tpc.get_param @h.6.attn.c_attn.weight : tensor<768x2304xf32>
    %141 = tpc.get_param @h.6.attn.c_attn.bias : tensor<2304xf32>
    %142 = tpc.linear %139, %140, %141 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %143 = tpc.self_attention %142 heads 12 causal : tensor<?x?x2304xf32>
    %144 = tpc.get_param @h.6.attn.c_proj.weight : tensor<768x768xf32>
    %145 = tpc.get_param @h.6.attn.c_proj.bias : tensor<768xf32>
    %146 = tpc.linear %143, %144, %145 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %147 = tpc.add %136, %146 : tensor<?x?x768xf32>
    %148 = tpc.get_param @h.6.ln_2.weight : tensor<768xf32>
    %149 = tpc.get_param @h.6.ln_2.bias : tensor<768xf32>
    %150 = tpc.layernorm %147, %148, %149 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %151 = tpc.get_param @h.6.mlp.c_fc.weight : tensor<768x3072xf32>
    %152 = tpc.get_param @h.6.mlp.c_fc.bias : tensor<3072xf32>
    %153 = tpc.linear %150, %151, %152 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %154 = tpc.gelu %153 : tensor<?x?x3072xf32>
    %155 = tpc.get_param @h.6.mlp.c_proj.weight : tensor<3072x768xf32>
    %156 = tpc.get_param @h.6.mlp.c_proj.bias : tensor<768xf32>
    %157 = tpc.linear %154, %155, %156 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %158 = tpc.add %147, %157 : tensor<?x?x768xf32>
    %159 = tpc.get_param @h.7.ln_1.weight : tensor<768xf32>
    %160 = tpc.get_param @h.7.ln_1.bias : tensor<768xf32>
    %161 = tpc.layernorm %158, %159, %160 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %162 = tpc.get_param @h.7.attn.c_attn.weight : tensor<768x2304xf32>
    %163 = tpc.get_param @h.7.attn.c_attn.bias : tensor<2304xf32>
    %164 = tpc.linear %161, %162, %163 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %165 = tpc.self_attention %164 heads 12 causal : tensor<?x?x2304xf32>
    %166 = tpc.get_param @h.7.attn.c_proj.weight : tensor<768x768xf32>
    %167 = tpc.get_param @h.7.attn.c_proj.bias : tensor<768xf32>
    %168 = tpc.linear %165, %166, %167 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %169 = tpc.add %158, %168 : tensor<?x?x768xf32>
    %170 = tpc.get_param @h.7.ln_2.weight : tensor<768xf32>
    %171 = tpc.get_param @h.7.ln_2.bias : tensor<768xf32>
    %172 = tpc.layernorm %169, %170, %171 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %173 = tpc.get_param @h.7.mlp.c_fc.weight : tensor<768x3072xf32>
    %174 = tpc.get_param @h.7.mlp.c_fc.bias : tensor<3072xf32>
    %175 = tpc.linear %172, %173, %174 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %176 = tpc.gelu %175 : tensor<?x?x3072xf32>
    %177 = tpc.get_param @h.7.mlp.c_proj.weight : tensor<3072x768xf32>
    %178 = tpc.get_param @h.7.mlp.c_proj.bias : tensor<768xf32>
    %179 = tpc.linear %176, %177, %178 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %180 = tpc.add %169, %179 : tensor<?x?x768xf32>
    %181 = tpc.get_param @h.8.ln_1.weight : tensor<768xf32>
    %182 = tpc.get_param @h.8.ln_1.bias : tensor<768xf32>
    %183 = tpc.layernorm %180, %181, %182 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %184 = tpc.get_param @h.8.attn.c_attn.weight : tensor<768x2304xf32>
    %185 = tpc.get_param @h.8.attn.c_attn.bias : tensor<2304xf32>
    %186 = tpc.linear %183, %184, %185 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %187 = tpc.self_attention %186 heads 12 causal : tensor<?x?x2304xf32>
    %188 = tpc.get_param @h.8.attn.c_proj.weight : tensor<768x768xf32>
    %189 = tpc.get_param @h.8.attn.c_proj.bias : tensor<768xf32>
    %190 = tpc.linear %187, %188, %189 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %191 = tpc.add %180, %190 : tensor<?x?x768xf32>
    %192 = tpc.get_param @h.8.ln_2.weight : tensor<768xf32>
    %193 = tpc.get_param @h.8.ln_2.bias : tensor<768xf32>
    %194 = tpc.layernorm %191, %192, %193 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %195 = tpc.get_param @h.8.mlp.c_fc.weight : tensor<768x3072xf32>
    %196 = tpc.get_param @h.8.mlp.c_fc.bias : tensor<3072xf32>
    %197 = tpc.linear %194, %195, %196 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %198 = tpc.gelu %197 : tensor<?x?x3072xf32>
    %199 = tpc.get_param @h.8.mlp.c_proj.weight : tensor<3072x768xf32>
    %200 = tpc.get_param @h.8.mlp.c_proj.bias : tensor<768xf32>
    %201 = tpc.linear %198, %199, %200 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %202 = tpc.add %191, %201 : tensor<?x?x768xf32>
    %203 = tpc.get_param @h.9.ln_1.weight : tensor<768xf32>
    %204 = tpc.get_param @h.9.ln_1.bias : tensor<768xf32>
    %205 = tpc.layernorm %202, %203, %204 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %206 = tpc.get_param @h.9.attn.c_attn.weight : tensor<768x2304xf32>
    %207 = tpc.get_param @h.9.attn.c_attn.bias : tensor<2304xf32>
    %208 = tpc.linear %205, %206, %207 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %209 = tpc.self_attention %208 heads 12 causal : tensor<?x?x2304xf32>
    %210 = tpc.get_param @h.9.attn.c_proj.weight : tensor<768x768xf32>
    %211 = tpc.get_param @h.9.attn.c_proj.bias : tensor<768xf32>
    %212 = tpc.linear %209, %210, %211 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %213 = tpc.add %202, %212 : tensor<?x?x768xf32>
    %214 = tpc.get_param @h.9.ln_2.weight : tensor<768xf32>
    %215 = tpc.get_param @h.9.ln_2.bias : tensor<768xf32>
    %216 = tpc.layernorm %213, %214, %215 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %217 = tpc.get_param @h.9.mlp.c_fc.weight : tensor<768x3072xf32>
    %218 = tpc.get_param @h.9.mlp.c_fc.bias : tensor<3072xf32>
    %219 = tpc.linear %216, %217, %218 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %220 = tpc.gelu %219 : tensor<?x?x3072xf32>
    %221 = tpc.get_param @h.9.mlp.c_proj.weight : tensor<3072x768xf32>
    %222 = tpc.get_param @h.9.mlp.c_proj.bias : tensor<768xf32>
    %223 = tpc.linear %220, %221, %222 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %224 = tpc.add %213, %223 : tensor<?x?x768xf32>
    %225 = tpc.get_param @h.10.ln_1.weight : tensor<768xf32>
    %226 = tpc.get_param @h.10.ln_1.bias : tensor<768xf32>
    %227 = tpc.layernorm %224, %225, %226 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %228 = tpc.get_param @h.10.attn.c_attn.weight : tensor<768x2304xf32>
    %229 = tpc.get_param @h.10.attn.c_attn.bias : tensor<2304xf32>
    %230 = tpc.linear %227, %228, %229 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %231 = tpc.self_attention %230 heads 12 causal : tensor<?x?x2304xf32>
    %232 = tpc.get_param @h.10.attn.c_proj.weight : tensor<768x768xf32>
    %233 = tpc.get_param @h.10.attn.c_proj.bias : tensor<768xf32>
    %234 = tpc.linear %231, %232, %233 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %235 = tpc.add %224, %234 : tensor<?x?x768xf32>
    %236 = tpc.get_param @h.10.ln_2.weight : tensor<768xf32>
    %237 = tpc.get_param @h.10.ln_2.bias : tensor<768xf32>
    %238 = tpc.layernorm %235, %236, %237 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %239 = tpc.get_param @h.10.mlp.c_fc.weight : tensor<768x3072xf32>
    %240 = tpc.get_param @h.10.mlp.c_fc.bias : tensor<3072xf32>
    %241 = tpc.linear %238, %239, %240 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %242 = tpc.gelu %241 : tensor<?x?x3072xf32>
    %243 = tpc.get_param @h.10.mlp.c_proj.weight : tensor<3072x768xf32>
    %244 = tpc.get_param @h.10.mlp.c_proj.bias : tensor<768xf32>
    %245 = tpc.linear %242, %243, %244 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %246 = tpc.add %235, %245 : tensor<?x?x768xf32>
    %247 = tpc.get_param @h.11.ln_1.weight : tensor<768xf32>
    %248 = tpc.get_param @h.11.ln_1.bias : tensor<768xf32>
    %249 = tpc.layernorm %246, %247, %248 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %250 = tpc.get_param @h.11.attn.c_attn.weight : tensor<768x2304xf32>
    %251 = tpc.get_param @h.11.attn.c_attn.bias : tensor<2304xf32>
    %252 = tpc.linear %249, %250, %251 : tensor<?x?x768xf32>, tensor<768x2304xf32>, tensor<2304xf32>
    %253 = tpc.self_attention %252 heads 12 causal : tensor<?x?x2304xf32>
    %254 = tpc.get_param @h.11.attn.c_proj.weight : tensor<768x768xf32>
    %255 = tpc.get_param @h.11.attn.c_proj.bias : tensor<768xf32>
    %256 = tpc.linear %253, %254, %255 : tensor<?x?x768xf32>, tensor<768x768xf32>, tensor<768xf32>
    %257 = tpc.add %246, %256 : tensor<?x?x768xf32>
    %258 = tpc.get_param @h.11.ln_2.weight : tensor<768xf32>
    %259 = tpc.get_param @h.11.ln_2.bias : tensor<768xf32>
    %260 = tpc.layernorm %257, %258, %259 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %261 = tpc.get_param @h.11.mlp.c_fc.weight : tensor<768x3072xf32>
    %262 = tpc.get_param @h.11.mlp.c_fc.bias : tensor<3072xf32>
    %263 = tpc.linear %260, %261, %262 : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %264 = tpc.gelu %263 : tensor<?x?x3072xf32>
    %265 = tpc.get_param @h.11.mlp.c_proj.weight : tensor<3072x768xf32>
    %266 = tpc.get_param @h.11.mlp.c_proj.bias : tensor<768xf32>
    %267 = tpc.linear %264, %265, %266 : tensor<?x?x3072xf32>, tensor<3072x768xf32>, tensor<768xf32>
    %268 = tpc.add %257, %267 : tensor<?x?x768xf32>
    %269 = tpc.get_param @ln_f.weight : tensor<768xf32>
    %270 = tpc.get_param @ln_f.bias : tensor<768xf32>
    %271 = tpc.layernorm %268, %269, %270 eps 1.000000e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    %272 = tpc.linear %271, %0 transposed : tensor<?x?x768xf32>, tensor<50257x768xf32>
    %loss_sum, %count = tpc.cross_entropy %272, %arg1 ignore_index -1 : tensor<?x?x50257xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %272 : tensor<f32>, tensor<i32>, tensor<?x?x50257xf32>
  }
}
