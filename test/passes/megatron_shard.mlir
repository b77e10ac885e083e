// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 | FileCheck %s --check-prefix=GPT2
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=4 | FileCheck %s --check-prefix=GPT2
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=1 | FileCheck %s --check-prefix=TP1
// RUN: tpc-opt %S/Inputs/gpt2_postnorm_untied.mlir --tpc-megatron-shard=tp=2 | FileCheck %s --check-prefix=UNTIED
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir --tpc-megatron-shard=tp=2 | FileCheck %s --check-prefix=STAG
// RUN: tpc-opt %S/Inputs/stagformer_shared.mlir --tpc-megatron-shard=tp=4 | FileCheck %s --check-prefix=SHARED
// RUN: tpc-opt %S/Inputs/bigram.mlir --tpc-megatron-shard=tp=2 | FileCheck %s --check-prefix=BIGRAM
// RUN: tpc-opt %s -split-input-file --tpc-megatron-shard=tp=2 | FileCheck %s

// The layouts come from the graph: column-then-row in every block, the
// vocabulary split in the embedding and the tied output layer, the rest
// replicated. Shapes do not change; tp is recorded for tpc-partition.

// GPT2: module attributes {tpc.shard_tp = {{[24]}} : i64}
// GPT2-NEXT: tpc.param @wte : tensor<100x16xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @wpe : tensor<32x16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.0.ln_1.weight : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.0.ln_1.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.0.ln_2.weight : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.0.ln_2.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> {{.*}} layout <split 1 blocks 3>
// GPT2-NEXT: tpc.param @h.0.attn.c_attn.bias : tensor<48xf32> {{.*}} layout <split 0 blocks 3>
// GPT2-NEXT: tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> {{.*}} layout <split 1>
// GPT2-NEXT: tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2:      tpc.param @h.1.attn.c_attn.weight : tensor<16x48xf32> {{.*}} layout <split 1 blocks 3>
// GPT2-NEXT: tpc.param @h.1.attn.c_attn.bias : tensor<48xf32> {{.*}} layout <split 0 blocks 3>
// GPT2-NEXT: tpc.param @h.1.attn.c_proj.weight : tensor<16x16xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @h.1.attn.c_proj.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @h.1.mlp.c_fc.weight : tensor<16x64xf32> {{.*}} layout <split 1>
// GPT2-NEXT: tpc.param @h.1.mlp.c_fc.bias : tensor<64xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @h.1.mlp.c_proj.weight : tensor<64x16xf32> {{.*}} layout <split 0>
// GPT2-NEXT: tpc.param @h.1.mlp.c_proj.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @ln_f.weight : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-NEXT: tpc.param @ln_f.bias : tensor<16xf32> {{.*}} layout <replicated>
// GPT2-LABEL: func.func @forward
// GPT2:       tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
// GPT2:       tpc.self_attention %{{.*}} heads 4 causal dropout
// GPT2-NOT:   tpc.{{[fg]}} %
// GPT2:       tpc.cross_entropy

// tp=1 still records the layouts, so that one compilation path serves all tp.
// TP1: module attributes {tpc.shard_tp = 1 : i64}
// TP1: tpc.param @wte : tensor<100x16xf32> {{.*}} layout <split 0>
// TP1: tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> {{.*}} layout <split 1 blocks 3>
// TP1: tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> {{.*}} layout <split 0>

// An untied lm_head [V, H] read transposed is split along the vocabulary,
// like the token embedding; post-norm layernorms stay replicated.
// UNTIED: tpc.param @wte : tensor<100x16xf32> {{.*}} layout <split 0>
// UNTIED: tpc.param @h.1.ln_2.bias : tensor<16xf32> {{.*}} layout <replicated>
// UNTIED: tpc.param @h.1.mlp.c_fc.weight : tensor<16x64xf32> {{.*}} layout <split 1>
// UNTIED: tpc.param @lm_head.weight : tensor<100x16xf32> {{.*}} layout <split 0>

// STAG: tpc.param @s1.h.0.attn.c_attn.weight : tensor<16x48xf32> {{.*}} layout <split 1 blocks 3>
// STAG: tpc.param @s2.h.0.attn.c_attn.weight : tensor<16x48xf32> {{.*}} layout <split 1 blocks 3>
// STAG: tpc.param @s2.h.0.mlp.c_proj.weight : tensor<64x16xf32> {{.*}} layout <split 0>
// STAG: tpc.param @s2.h.0.ln_x.weight : tensor<16xf32> {{.*}} layout <replicated>
// STAG: tpc.param @s2.h.0.ln_x.bias : tensor<16xf32> {{.*}} layout <replicated>
// STAG: tpc.param @s2.h.0.xattn.c_q.weight : tensor<16x16xf32> {{.*}} layout <split 1>
// STAG: tpc.param @s2.h.0.xattn.c_q.bias : tensor<16xf32> {{.*}} layout <split 0>
// STAG: tpc.param @s2.h.0.xattn.c_kv.weight : tensor<16x32xf32> {{.*}} layout <split 1 blocks 2>
// STAG: tpc.param @s2.h.0.xattn.c_kv.bias : tensor<32xf32> {{.*}} layout <split 0 blocks 2>
// STAG: tpc.param @s2.h.0.xattn.c_proj.weight : tensor<16x16xf32> {{.*}} layout <split 0>
// STAG: tpc.param @s2.h.0.xattn.c_proj.bias : tensor<16xf32> {{.*}} layout <replicated>

// Shared weights: three stacks read h.0.* and agree on one layout; alpha is
// replicated.
// SHARED: module attributes {tpc.shard_tp = 4 : i64}
// SHARED: tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> {{.*}} layout <split 1 blocks 3>
// SHARED: tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> {{.*}} layout <split 1>
// SHARED: tpc.param @s2.h.0.xattn.c_kv.weight : tensor<16x32xf32> {{.*}} layout <split 1 blocks 2>
// SHARED: tpc.param @s3.h.0.xattn.c_kv.weight : tensor<16x32xf32> {{.*}} layout <split 1 blocks 2>
// SHARED: tpc.param @alpha : tensor<3xf32> init <ones> layout <replicated>

// A bigram table whose lookup is the logits splits its columns.
// BIGRAM: tpc.param @wte : tensor<100x100xf32> {{.*}} layout <split 1>

// Structure, not names: an MLP with arbitrary parameter names; a layout
// written by hand that the rule agrees with is kept; a parameter nobody reads
// is replicated.
// CHECK-LABEL: module attributes {tpc.shard_tp = 2 : i64}
// CHECK-NEXT: tpc.param @a : tensor<8x32xf32> {{.*}} layout <split 1>
// CHECK-NEXT: tpc.param @b : tensor<32xf32> {{.*}} layout <split 0>
// CHECK-NEXT: tpc.param @c : tensor<32x8xf32> {{.*}} layout <split 0>
// CHECK-NEXT: tpc.param @d : tensor<8xf32> {{.*}} layout <replicated>
// CHECK-NEXT: tpc.param @unused : tensor<8xf32> {{.*}} layout <replicated>
module {
  tpc.param @a : tensor<8x32xf32> init <normal, std = 0.02>
  tpc.param @b : tensor<32xf32> init <zeros>
  tpc.param @c : tensor<32x8xf32> init <normal, std = 0.02> layout <split 0>
  tpc.param @d : tensor<8xf32> init <zeros>
  tpc.param @unused : tensor<8xf32> init <zeros>
  func.func @forward(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %a = tpc.get_param @a : tensor<8x32xf32>
    %b = tpc.get_param @b : tensor<32xf32>
    %c = tpc.get_param @c : tensor<32x8xf32>
    %d = tpc.get_param @d : tensor<8xf32>
    %0 = tpc.linear %x, %a, %b : tensor<2x4x8xf32>, tensor<8x32xf32>, tensor<32xf32>
    %1 = tpc.gelu %0 : tensor<2x4x32xf32>
    %2 = tpc.linear %1, %c, %d : tensor<2x4x32xf32>, tensor<32x8xf32>, tensor<8xf32>
    return %2 : tensor<2x4x8xf32>
  }
}

// -----

// A gelu output that is also read outside the block would be split across
// the ranks: the block is not recognized and its weights stay replicated.
// CHECK-LABEL: module attributes {tpc.shard_tp = 2 : i64}
// CHECK-NEXT: tpc.param @fc : tensor<8x32xf32> {{.*}} layout <replicated>
// CHECK-NEXT: tpc.param @proj : tensor<32x8xf32> {{.*}} layout <replicated>
module {
  tpc.param @fc : tensor<8x32xf32> init <normal, std = 0.02>
  tpc.param @proj : tensor<32x8xf32> init <normal, std = 0.02>
  func.func @forward(%x: tensor<2x4x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x32xf32>) {
    %fc = tpc.get_param @fc : tensor<8x32xf32>
    %proj = tpc.get_param @proj : tensor<32x8xf32>
    %0 = tpc.linear %x, %fc : tensor<2x4x8xf32>, tensor<8x32xf32>
    %1 = tpc.gelu %0 : tensor<2x4x32xf32>
    %2 = tpc.linear %1, %proj : tensor<2x4x32xf32>, tensor<32x8xf32>
    return %2, %1 : tensor<2x4x8xf32>, tensor<2x4x32xf32>
  }
}

// -----

// A linear that is part of no block (here a plain projection) is replicated.
// CHECK-LABEL: module attributes {tpc.shard_tp = 2 : i64}
// CHECK-NEXT: tpc.param @w : tensor<8x8xf32> {{.*}} layout <replicated>
module {
  tpc.param @w : tensor<8x8xf32> init <normal, std = 0.02>
  func.func @forward(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %w = tpc.get_param @w : tensor<8x8xf32>
    %0 = tpc.linear %x, %w : tensor<2x4x8xf32>, tensor<8x8xf32>
    return %0 : tensor<2x4x8xf32>
  }
}
