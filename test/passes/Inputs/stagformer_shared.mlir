// StagFormer, shared weights: p=3 stacks of L=1 layer combined by alpha, H=16, 4 heads, V=100.
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
  tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 3>
  tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 3>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @s2.h.0.ln_x.weight : tensor<16xf32> init <ones>
  tpc.param @s2.h.0.ln_x.bias : tensor<16xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_q.weight : tensor<16x16xf32> init <normal, std = 0.02>
  tpc.param @s2.h.0.xattn.c_q.bias : tensor<16xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_kv.weight : tensor<16x32xf32> init <normal, std = 0.02>
  tpc.param @s2.h.0.xattn.c_kv.bias : tensor<32xf32> init <zeros>
  tpc.param @s2.h.0.xattn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02>
  tpc.param @s2.h.0.xattn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @s3.h.0.ln_x.weight : tensor<16xf32> init <ones>
  tpc.param @s3.h.0.ln_x.bias : tensor<16xf32> init <zeros>
  tpc.param @s3.h.0.xattn.c_q.weight : tensor<16x16xf32> init <normal, std = 0.02>
  tpc.param @s3.h.0.xattn.c_q.bias : tensor<16xf32> init <zeros>
  tpc.param @s3.h.0.xattn.c_kv.weight : tensor<16x32xf32> init <normal, std = 0.02>
  tpc.param @s3.h.0.xattn.c_kv.bias : tensor<32xf32> init <zeros>
  tpc.param @s3.h.0.xattn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02>
  tpc.param @s3.h.0.xattn.c_proj.bias : tensor<16xf32> init <zeros>
  tpc.param @alpha : tensor<3xf32> init <ones>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros>
  func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x100xf32>) {
    %0 = tpc.get_param @wte : tensor<100x16xf32>
    %1 = tpc.get_param @wpe : tensor<32x16xf32>
    %2 = tpc.embedding %0, %tokens : tensor<100x16xf32>, tensor<?x?xi32>
    %3 = tpc.position_embedding %1, %tokens : tensor<32x16xf32>, tensor<?x?xi32>
    %4 = tpc.add %2, %3 : tensor<?x?x16xf32>
    %5 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %6 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %7 = tpc.layernorm %4, %5, %6 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %8 = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %9 = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %10 = tpc.linear %7, %8, %9 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %11 = tpc.self_attention %10 heads 4 causal : tensor<?x?x48xf32>
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
    %27 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %28 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %29 = tpc.layernorm %4, %27, %28 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %30 = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %31 = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %32 = tpc.linear %29, %30, %31 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %33 = tpc.self_attention %32 heads 4 causal : tensor<?x?x48xf32>
    %34 = tpc.get_param @h.0.attn.c_proj.weight : tensor<16x16xf32>
    %35 = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %36 = tpc.linear %33, %34, %35 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %37 = tpc.add %4, %36 : tensor<?x?x16xf32>
    %38 = tpc.get_param @s2.h.0.ln_x.weight : tensor<16xf32>
    %39 = tpc.get_param @s2.h.0.ln_x.bias : tensor<16xf32>
    %40 = tpc.layernorm %37, %38, %39 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %41 = tpc.get_param @s2.h.0.xattn.c_q.weight : tensor<16x16xf32>
    %42 = tpc.get_param @s2.h.0.xattn.c_q.bias : tensor<16xf32>
    %43 = tpc.linear %40, %41, %42 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %44 = tpc.get_param @s2.h.0.xattn.c_kv.weight : tensor<16x32xf32>
    %45 = tpc.get_param @s2.h.0.xattn.c_kv.bias : tensor<32xf32>
    %46 = tpc.linear %26, %44, %45 : tensor<?x?x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %47 = tpc.cross_attention %43, %46 heads 4 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
    %48 = tpc.get_param @s2.h.0.xattn.c_proj.weight : tensor<16x16xf32>
    %49 = tpc.get_param @s2.h.0.xattn.c_proj.bias : tensor<16xf32>
    %50 = tpc.linear %47, %48, %49 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %51 = tpc.add %37, %50 : tensor<?x?x16xf32>
    %52 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %53 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %54 = tpc.layernorm %51, %52, %53 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %55 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    %56 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
    %57 = tpc.linear %54, %55, %56 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %58 = tpc.gelu %57 : tensor<?x?x64xf32>
    %59 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
    %60 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %61 = tpc.linear %58, %59, %60 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %62 = tpc.add %51, %61 : tensor<?x?x16xf32>
    %63 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %64 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %65 = tpc.layernorm %4, %63, %64 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %66 = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
    %67 = tpc.get_param @h.0.attn.c_attn.bias : tensor<48xf32>
    %68 = tpc.linear %65, %66, %67 : tensor<?x?x16xf32>, tensor<16x48xf32>, tensor<48xf32>
    %69 = tpc.self_attention %68 heads 4 causal : tensor<?x?x48xf32>
    %70 = tpc.get_param @h.0.attn.c_proj.weight : tensor<16x16xf32>
    %71 = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %72 = tpc.linear %69, %70, %71 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %73 = tpc.add %4, %72 : tensor<?x?x16xf32>
    %74 = tpc.get_param @s3.h.0.ln_x.weight : tensor<16xf32>
    %75 = tpc.get_param @s3.h.0.ln_x.bias : tensor<16xf32>
    %76 = tpc.layernorm %73, %74, %75 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %77 = tpc.get_param @s3.h.0.xattn.c_q.weight : tensor<16x16xf32>
    %78 = tpc.get_param @s3.h.0.xattn.c_q.bias : tensor<16xf32>
    %79 = tpc.linear %76, %77, %78 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %80 = tpc.get_param @s3.h.0.xattn.c_kv.weight : tensor<16x32xf32>
    %81 = tpc.get_param @s3.h.0.xattn.c_kv.bias : tensor<32xf32>
    %82 = tpc.linear %62, %80, %81 : tensor<?x?x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %83 = tpc.cross_attention %79, %82 heads 4 : tensor<?x?x16xf32>, tensor<?x?x32xf32>
    %84 = tpc.get_param @s3.h.0.xattn.c_proj.weight : tensor<16x16xf32>
    %85 = tpc.get_param @s3.h.0.xattn.c_proj.bias : tensor<16xf32>
    %86 = tpc.linear %83, %84, %85 : tensor<?x?x16xf32>, tensor<16x16xf32>, tensor<16xf32>
    %87 = tpc.add %73, %86 : tensor<?x?x16xf32>
    %88 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %89 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %90 = tpc.layernorm %87, %88, %89 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %91 = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
    %92 = tpc.get_param @h.0.mlp.c_fc.bias : tensor<64xf32>
    %93 = tpc.linear %90, %91, %92 : tensor<?x?x16xf32>, tensor<16x64xf32>, tensor<64xf32>
    %94 = tpc.gelu %93 : tensor<?x?x64xf32>
    %95 = tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
    %96 = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %97 = tpc.linear %94, %95, %96 : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
    %98 = tpc.add %87, %97 : tensor<?x?x16xf32>
    %99 = tpc.get_param @alpha : tensor<3xf32>
    %100 = tpc.weighted_sum %99, %26, %62, %98 : tensor<3xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
    %101 = tpc.get_param @ln_f.weight : tensor<16xf32>
    %102 = tpc.get_param @ln_f.bias : tensor<16xf32>
    %103 = tpc.layernorm %100, %101, %102 eps 1.000000e-05 : tensor<?x?x16xf32>, tensor<16xf32>, tensor<16xf32>
    %104 = tpc.linear %103, %0 transposed : tensor<?x?x16xf32>, tensor<100x16xf32>
    %sum, %count = tpc.cross_entropy %104, %targets ignore_index -1 : tensor<?x?x100xf32>, tensor<?x?xi32>
    return %sum, %count, %104 : tensor<f32>, tensor<i32>, tensor<?x?x100xf32>
  }
}
