// tpc-model stagformer --stacks 2 --layers 2 --hidden 64 --heads 4 --vocab 512 --seq 64
module {
  tpc.param @wte : tensor<512x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @wpe : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @s1.h.0.ln_1.weight : tensor<64xf32> init <ones>
  tpc.param @s1.h.0.ln_1.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.0.attn.c_attn.weight : tensor<64x192xf32> init <normal, std = 2.000000e-02>
  tpc.param @s1.h.0.attn.c_attn.bias : tensor<192xf32> init <zeros>
  tpc.param @s1.h.0.attn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s1.h.0.attn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.0.ln_2.weight : tensor<64xf32> init <ones>
  tpc.param @s1.h.0.ln_2.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.0.mlp.c_fc.weight : tensor<64x256xf32> init <normal, std = 2.000000e-02>
  tpc.param @s1.h.0.mlp.c_fc.bias : tensor<256xf32> init <zeros>
  tpc.param @s1.h.0.mlp.c_proj.weight : tensor<256x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s1.h.0.mlp.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.1.ln_1.weight : tensor<64xf32> init <ones>
  tpc.param @s1.h.1.ln_1.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.1.attn.c_attn.weight : tensor<64x192xf32> init <normal, std = 2.000000e-02>
  tpc.param @s1.h.1.attn.c_attn.bias : tensor<192xf32> init <zeros>
  tpc.param @s1.h.1.attn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s1.h.1.attn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.1.ln_2.weight : tensor<64xf32> init <ones>
  tpc.param @s1.h.1.ln_2.bias : tensor<64xf32> init <zeros>
  tpc.param @s1.h.1.mlp.c_fc.weight : tensor<64x256xf32> init <normal, std = 2.000000e-02>
  tpc.param @s1.h.1.mlp.c_fc.bias : tensor<256xf32> init <zeros>
  tpc.param @s1.h.1.mlp.c_proj.weight : tensor<256x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s1.h.1.mlp.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.ln_1.weight : tensor<64xf32> init <ones>
  tpc.param @s2.h.0.ln_1.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.attn.c_attn.weight : tensor<64x192xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.0.attn.c_attn.bias : tensor<192xf32> init <zeros>
  tpc.param @s2.h.0.attn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s2.h.0.attn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.ln_x.weight : tensor<64xf32> init <ones>
  tpc.param @s2.h.0.ln_x.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_q.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.0.xattn.c_q.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_kv.weight : tensor<64x128xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.0.xattn.c_kv.bias : tensor<128xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s2.h.0.xattn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.ln_2.weight : tensor<64xf32> init <ones>
  tpc.param @s2.h.0.ln_2.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.0.mlp.c_fc.weight : tensor<64x256xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.0.mlp.c_fc.bias : tensor<256xf32> init <zeros>
  tpc.param @s2.h.0.mlp.c_proj.weight : tensor<256x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s2.h.0.mlp.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.ln_1.weight : tensor<64xf32> init <ones>
  tpc.param @s2.h.1.ln_1.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.attn.c_attn.weight : tensor<64x192xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.1.attn.c_attn.bias : tensor<192xf32> init <zeros>
  tpc.param @s2.h.1.attn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s2.h.1.attn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.ln_x.weight : tensor<64xf32> init <ones>
  tpc.param @s2.h.1.ln_x.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.xattn.c_q.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.1.xattn.c_q.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.xattn.c_kv.weight : tensor<64x128xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.1.xattn.c_kv.bias : tensor<128xf32> init <zeros>
  tpc.param @s2.h.1.xattn.c_proj.weight : tensor<64x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s2.h.1.xattn.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.ln_2.weight : tensor<64xf32> init <ones>
  tpc.param @s2.h.1.ln_2.bias : tensor<64xf32> init <zeros>
  tpc.param @s2.h.1.mlp.c_fc.weight : tensor<64x256xf32> init <normal, std = 2.000000e-02>
  tpc.param @s2.h.1.mlp.c_fc.bias : tensor<256xf32> init <zeros>
  tpc.param @s2.h.1.mlp.c_proj.weight : tensor<256x64xf32> init <normal, std = 2.000000e-02, residual_layers = 2>
  tpc.param @s2.h.1.mlp.c_proj.bias : tensor<64xf32> init <zeros>
  tpc.param @ln_f.weight : tensor<64xf32> init <ones>
  tpc.param @ln_f.bias : tensor<64xf32> init <zeros>
  func.func @forward(%arg0: tensor<?x?xi32>, %arg1: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x512xf32>) {
    %0 = tpc.get_param @wte : tensor<512x64xf32>
    %1 = tpc.embedding %0, %arg0 : tensor<512x64xf32>, tensor<?x?xi32>
    %2 = tpc.get_param @wpe : tensor<64x64xf32>
    %3 = tpc.position_embedding %2, %arg0 : tensor<64x64xf32>, tensor<?x?xi32>
    %4 = tpc.add %1, %3 : tensor<?x?x64xf32>
    %5 = tpc.get_param @s1.h.0.ln_1.weight : tensor<64xf32>
    %6 = tpc.get_param @s1.h.0.ln_1.bias : tensor<64xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %8 = tpc.get_param @s1.h.0.attn.c_attn.weight : tensor<64x192xf32>
    %9 = tpc.get_param @s1.h.0.attn.c_attn.bias : tensor<192xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x64xf32>, tensor<64x192xf32>, tensor<192xf32>
    %11 = tpc.self_attention %10 heads 4 causal : tensor<?x?x192xf32>
    %12 = tpc.get_param @s1.h.0.attn.c_proj.weight : tensor<64x64xf32>
    %13 = tpc.get_param @s1.h.0.attn.c_proj.bias : tensor<64xf32>
    %14 = tpc.linear %11, %12, %13 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %15 = tpc.add %4, %14 : tensor<?x?x64xf32>
    %16 = tpc.get_param @s1.h.0.ln_2.weight : tensor<64xf32>
    %17 = tpc.get_param @s1.h.0.ln_2.bias : tensor<64xf32>
    %18 = tpc.layernorm %15, %16, %17 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %19 = tpc.get_param @s1.h.0.mlp.c_fc.weight : tensor<64x256xf32>
    %20 = tpc.get_param @s1.h.0.mlp.c_fc.bias : tensor<256xf32>
    %21 = tpc.linear %18, %19, %20 : tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<256xf32>
    %22 = tpc.gelu %21 : tensor<?x?x256xf32>
    %23 = tpc.get_param @s1.h.0.mlp.c_proj.weight : tensor<256x64xf32>
    %24 = tpc.get_param @s1.h.0.mlp.c_proj.bias : tensor<64xf32>
    %25 = tpc.linear %22, %23, %24 : tensor<?x?x256xf32>, tensor<256x64xf32>, tensor<64xf32>
    %26 = tpc.add %15, %25 : tensor<?x?x64xf32>
    %27 = tpc.get_param @s1.h.1.ln_1.weight : tensor<64xf32>
    %28 = tpc.get_param @s1.h.1.ln_1.bias : tensor<64xf32>
    %29 = tpc.layernorm %26, %27, %28 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %30 = tpc.get_param @s1.h.1.attn.c_attn.weight : tensor<64x192xf32>
    %31 = tpc.get_param @s1.h.1.attn.c_attn.bias : tensor<192xf32>
    %32 = tpc.linear %29, %30, %31 : tensor<?x?x64xf32>, tensor<64x192xf32>, tensor<192xf32>
    %33 = tpc.self_attention %32 heads 4 causal : tensor<?x?x192xf32>
    %34 = tpc.get_param @s1.h.1.attn.c_proj.weight : tensor<64x64xf32>
    %35 = tpc.get_param @s1.h.1.attn.c_proj.bias : tensor<64xf32>
    %36 = tpc.linear %33, %34, %35 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %37 = tpc.add %26, %36 : tensor<?x?x64xf32>
    %38 = tpc.get_param @s1.h.1.ln_2.weight : tensor<64xf32>
    %39 = tpc.get_param @s1.h.1.ln_2.bias : tensor<64xf32>
    %40 = tpc.layernorm %37, %38, %39 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %41 = tpc.get_param @s1.h.1.mlp.c_fc.weight : tensor<64x256xf32>
    %42 = tpc.get_param @s1.h.1.mlp.c_fc.bias : tensor<256xf32>
    %43 = tpc.linear %40, %41, %42 : tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<256xf32>
    %44 = tpc.gelu %43 : tensor<?x?x256xf32>
    %45 = tpc.get_param @s1.h.1.mlp.c_proj.weight : tensor<256x64xf32>
    %46 = tpc.get_param @s1.h.1.mlp.c_proj.bias : tensor<64xf32>
    %47 = tpc.linear %44, %45, %46 : tensor<?x?x256xf32>, tensor<256x64xf32>, tensor<64xf32>
    %48 = tpc.add %37, %47 : tensor<?x?x64xf32>
    %49 = tpc.get_param @s2.h.0.ln_1.weight : tensor<64xf32>
    %50 = tpc.get_param @s2.h.0.ln_1.bias : tensor<64xf32>
    %51 = tpc.layernorm %4, %49, %50 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %52 = tpc.get_param @s2.h.0.attn.c_attn.weight : tensor<64x192xf32>
    %53 = tpc.get_param @s2.h.0.attn.c_attn.bias : tensor<192xf32>
    %54 = tpc.linear %51, %52, %53 : tensor<?x?x64xf32>, tensor<64x192xf32>, tensor<192xf32>
    %55 = tpc.self_attention %54 heads 4 causal : tensor<?x?x192xf32>
    %56 = tpc.get_param @s2.h.0.attn.c_proj.weight : tensor<64x64xf32>
    %57 = tpc.get_param @s2.h.0.attn.c_proj.bias : tensor<64xf32>
    %58 = tpc.linear %55, %56, %57 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %59 = tpc.add %4, %58 : tensor<?x?x64xf32>
    %60 = tpc.get_param @s2.h.0.ln_x.weight : tensor<64xf32>
    %61 = tpc.get_param @s2.h.0.ln_x.bias : tensor<64xf32>
    %62 = tpc.layernorm %59, %60, %61 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %63 = tpc.get_param @s2.h.0.xattn.c_q.weight : tensor<64x64xf32>
    %64 = tpc.get_param @s2.h.0.xattn.c_q.bias : tensor<64xf32>
    %65 = tpc.linear %62, %63, %64 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %66 = tpc.get_param @s2.h.0.xattn.c_kv.weight : tensor<64x128xf32>
    %67 = tpc.get_param @s2.h.0.xattn.c_kv.bias : tensor<128xf32>
    %68 = tpc.linear %48, %66, %67 : tensor<?x?x64xf32>, tensor<64x128xf32>, tensor<128xf32>
    %69 = tpc.cross_attention %65, %68 heads 4 : tensor<?x?x64xf32>, tensor<?x?x128xf32>
    %70 = tpc.get_param @s2.h.0.xattn.c_proj.weight : tensor<64x64xf32>
    %71 = tpc.get_param @s2.h.0.xattn.c_proj.bias : tensor<64xf32>
    %72 = tpc.linear %69, %70, %71 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %73 = tpc.add %59, %72 : tensor<?x?x64xf32>
    %74 = tpc.get_param @s2.h.0.ln_2.weight : tensor<64xf32>
    %75 = tpc.get_param @s2.h.0.ln_2.bias : tensor<64xf32>
    %76 = tpc.layernorm %73, %74, %75 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %77 = tpc.get_param @s2.h.0.mlp.c_fc.weight : tensor<64x256xf32>
    %78 = tpc.get_param @s2.h.0.mlp.c_fc.bias : tensor<256xf32>
    %79 = tpc.linear %76, %77, %78 : tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<256xf32>
    %80 = tpc.gelu %79 : tensor<?x?x256xf32>
    %81 = tpc.get_param @s2.h.0.mlp.c_proj.weight : tensor<256x64xf32>
    %82 = tpc.get_param @s2.h.0.mlp.c_proj.bias : tensor<64xf32>
    %83 = tpc.linear %80, %81, %82 : tensor<?x?x256xf32>, tensor<256x64xf32>, tensor<64xf32>
    %84 = tpc.add %73, %83 : tensor<?x?x64xf32>
    %85 = tpc.get_param @s2.h.1.ln_1.weight : tensor<64xf32>
    %86 = tpc.get_param @s2.h.1.ln_1.bias : tensor<64xf32>
    %87 = tpc.layernorm %84, %85, %86 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %88 = tpc.get_param @s2.h.1.attn.c_attn.weight : tensor<64x192xf32>
    %89 = tpc.get_param @s2.h.1.attn.c_attn.bias : tensor<192xf32>
    %90 = tpc.linear %87, %88, %89 : tensor<?x?x64xf32>, tensor<64x192xf32>, tensor<192xf32>
    %91 = tpc.self_attention %90 heads 4 causal : tensor<?x?x192xf32>
    %92 = tpc.get_param @s2.h.1.attn.c_proj.weight : tensor<64x64xf32>
    %93 = tpc.get_param @s2.h.1.attn.c_proj.bias : tensor<64xf32>
    %94 = tpc.linear %91, %92, %93 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %95 = tpc.add %84, %94 : tensor<?x?x64xf32>
    %96 = tpc.get_param @s2.h.1.ln_x.weight : tensor<64xf32>
    %97 = tpc.get_param @s2.h.1.ln_x.bias : tensor<64xf32>
    %98 = tpc.layernorm %95, %96, %97 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %99 = tpc.get_param @s2.h.1.xattn.c_q.weight : tensor<64x64xf32>
    %100 = tpc.get_param @s2.h.1.xattn.c_q.bias : tensor<64xf32>
    %101 = tpc.linear %98, %99, %100 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %102 = tpc.get_param @s2.h.1.xattn.c_kv.weight : tensor<64x128xf32>
    %103 = tpc.get_param @s2.h.1.xattn.c_kv.bias : tensor<128xf32>
    %104 = tpc.linear %48, %102, %103 : tensor<?x?x64xf32>, tensor<64x128xf32>, tensor<128xf32>
    %105 = tpc.cross_attention %101, %104 heads 4 : tensor<?x?x64xf32>, tensor<?x?x128xf32>
    %106 = tpc.get_param @s2.h.1.xattn.c_proj.weight : tensor<64x64xf32>
    %107 = tpc.get_param @s2.h.1.xattn.c_proj.bias : tensor<64xf32>
    %108 = tpc.linear %105, %106, %107 : tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>
    %109 = tpc.add %95, %108 : tensor<?x?x64xf32>
    %110 = tpc.get_param @s2.h.1.ln_2.weight : tensor<64xf32>
    %111 = tpc.get_param @s2.h.1.ln_2.bias : tensor<64xf32>
    %112 = tpc.layernorm %109, %110, %111 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %113 = tpc.get_param @s2.h.1.mlp.c_fc.weight : tensor<64x256xf32>
    %114 = tpc.get_param @s2.h.1.mlp.c_fc.bias : tensor<256xf32>
    %115 = tpc.linear %112, %113, %114 : tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<256xf32>
    %116 = tpc.gelu %115 : tensor<?x?x256xf32>
    %117 = tpc.get_param @s2.h.1.mlp.c_proj.weight : tensor<256x64xf32>
    %118 = tpc.get_param @s2.h.1.mlp.c_proj.bias : tensor<64xf32>
    %119 = tpc.linear %116, %117, %118 : tensor<?x?x256xf32>, tensor<256x64xf32>, tensor<64xf32>
    %120 = tpc.add %109, %119 : tensor<?x?x64xf32>
    %121 = tpc.get_param @ln_f.weight : tensor<64xf32>
    %122 = tpc.get_param @ln_f.bias : tensor<64xf32>
    %123 = tpc.layernorm %120, %121, %122 eps 1.000000e-05 : tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>
    %124 = tpc.linear %123, %0 transposed : tensor<?x?x64xf32>, tensor<512x64xf32>
    %loss_sum, %count = tpc.cross_entropy %124, %arg1 ignore_index -1 : tensor<?x?x512xf32>, tensor<?x?xi32>
    return %loss_sum, %count, %124 : tensor<f32>, tensor<i32>, tensor<?x?x512xf32>
  }
}
