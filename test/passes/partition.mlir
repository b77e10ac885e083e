// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition | FileCheck %s --check-prefix=TP2
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.f %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.g %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=4 --tpc-partition | FileCheck %s --check-prefix=TP4
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=4 --tpc-partition | grep "= tpc.f %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=4 --tpc-partition | grep "= tpc.g %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=1 --tpc-partition | FileCheck %s --check-prefix=TP1
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=1 --tpc-partition | grep "= tpc.f %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=1 --tpc-partition | grep "= tpc.g %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2_postnorm_untied.mlir --tpc-megatron-shard=tp=2 --tpc-partition | FileCheck %s --check-prefix=UNTIED
// RUN: tpc-opt %S/Inputs/gpt2_postnorm_untied.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.f %" | count 5
// RUN: tpc-opt %S/Inputs/gpt2_postnorm_untied.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.g %" | count 5
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir --tpc-megatron-shard=tp=2 --tpc-partition | FileCheck %s --check-prefix=STAG
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.f %" | count 7
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.g %" | count 6
// RUN: tpc-opt %S/Inputs/stagformer_shared.mlir --tpc-megatron-shard=tp=4 --tpc-partition | FileCheck %s --check-prefix=SHARED
// RUN: tpc-opt %S/Inputs/stagformer_shared.mlir --tpc-megatron-shard=tp=4 --tpc-partition | grep "= tpc.f %" | count 11
// RUN: tpc-opt %S/Inputs/stagformer_shared.mlir --tpc-megatron-shard=tp=4 --tpc-partition | grep "= tpc.g %" | count 9
// RUN: tpc-opt %S/Inputs/bigram.mlir --tpc-megatron-shard=tp=2 --tpc-partition | FileCheck %s --check-prefix=BIGRAM
// RUN: tpc-opt %S/Inputs/bigram.mlir --tpc-megatron-shard=tp=2 --tpc-partition | not grep "tpc.[fg] %"
// RUN: tpc-opt %S/Inputs/bigram.mlir --tpc-megatron-shard=tp=3 --tpc-partition | FileCheck %s --check-prefix=BIGRAM3
// RUN: tpc-opt %S/Inputs/gpt2_h12.mlir --tpc-megatron-shard=tp=3 --tpc-partition | FileCheck %s --check-prefix=TP3
// RUN: tpc-opt %S/Inputs/gpt2_h12.mlir --tpc-megatron-shard=tp=3 --tpc-partition | grep "= tpc.f %" | count 3
// RUN: tpc-opt %S/Inputs/gpt2_h12.mlir --tpc-megatron-shard=tp=3 --tpc-partition | grep "= tpc.g %" | count 3
// RUN: tpc-opt %S/Inputs/gpt2.mlir '--tpc-specialize=batch=4 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition | FileCheck %s --check-prefix=STATIC

// GPT-2, L=2, tp=2: per layer an f before c_attn and c_fc and a g after each
// c_proj, plus the g of the vocab-parallel embedding and the f of the output
// layer: 2L+1 of each. V=100 is padded to 256 (a multiple of 128*tp): 128
// rows per rank, the unpadded size recorded on the parameter and the loss.
// TP2: module attributes {tpc.tp = 2 : i64} {
// TP2-NEXT: tpc.param @wte : tensor<256x16xf32> init <normal, std = 2.000000e-02> layout <split 0> {vocab_size = 100 : i64}
// TP2-NEXT: tpc.param @wpe : tensor<32x16xf32> {{.*}} layout <replicated>{{$}}
// TP2-NEXT: tpc.param @h.0.ln_1.weight : tensor<16xf32>
// TP2-LABEL: func.func @forward
// TP2-SAME: -> (tensor<f32>, tensor<i32>, tensor<?x?x128xf32>)
// TP2-NEXT: [[WTE:%.*]] = tpc.get_param @wte : tensor<128x16xf32>
// TP2-NEXT: [[WPE:%.*]] = tpc.get_param @wpe : tensor<32x16xf32>
// TP2-NEXT: [[E:%.*]] = tpc.embedding [[WTE]], %arg0 vocab_parallel : tensor<128x16xf32>, tensor<?x?xi32>
// TP2-NEXT: [[EG:%.*]] = tpc.g [[E]] group tp : tensor<?x?x16xf32>
// TP2-NEXT: [[P:%.*]] = tpc.position_embedding [[WPE]], %arg0
// TP2-NEXT: [[H0:%.*]] = tpc.add [[EG]], [[P]] : tensor<?x?x16xf32>
// TP2-NEXT: [[H:%.*]] = tpc.dropout [[H0]] p 1.000000e-01 replicated key 0 : tensor<?x?x16xf32>
// TP2-NEXT: tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
// TP2-NEXT: tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
// TP2-NEXT: [[A:%.*]] = tpc.layernorm [[H]]
// TP2-NEXT: [[QKVW:%.*]] = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x24xf32>
// TP2-NEXT: [[QKVB:%.*]] = tpc.get_param @h.0.attn.c_attn.bias : tensor<24xf32>
// TP2-NEXT: [[AF:%.*]] = tpc.f [[A]] group tp : tensor<?x?x16xf32>
// TP2-NEXT: [[QKV:%.*]] = tpc.linear [[AF]], [[QKVW]], [[QKVB]] : tensor<?x?x16xf32>, tensor<16x24xf32>, tensor<24xf32>
// TP2-NEXT: [[S:%.*]] = tpc.self_attention [[QKV]] heads 2 causal dropout 1.000000e-01 key 1 head_parallel : tensor<?x?x24xf32>
// TP2-NEXT: [[OW:%.*]] = tpc.get_param @h.0.attn.c_proj.weight : tensor<8x16xf32>
// TP2-NEXT: [[OB:%.*]] = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
// TP2-NEXT: [[O:%.*]] = tpc.linear [[S]], [[OW]] : tensor<?x?x8xf32>, tensor<8x16xf32>
// TP2-NEXT: [[OG:%.*]] = tpc.g [[O]] group tp : tensor<?x?x16xf32>
// TP2-NEXT: [[OBA:%.*]] = tpc.bias_add [[OG]], [[OB]] : tensor<?x?x16xf32>, tensor<16xf32>
// TP2-NEXT: [[OD:%.*]] = tpc.dropout [[OBA]] p 1.000000e-01 replicated key 2 : tensor<?x?x16xf32>
// TP2-NEXT: [[H1:%.*]] = tpc.add [[H]], [[OD]] : tensor<?x?x16xf32>
// TP2-NEXT: tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
// TP2-NEXT: tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
// TP2-NEXT: [[M:%.*]] = tpc.layernorm [[H1]]
// TP2-NEXT: [[FCW:%.*]] = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x32xf32>
// TP2-NEXT: [[FCB:%.*]] = tpc.get_param @h.0.mlp.c_fc.bias : tensor<32xf32>
// TP2-NEXT: [[MF:%.*]] = tpc.f [[M]] group tp : tensor<?x?x16xf32>
// TP2-NEXT: [[U:%.*]] = tpc.linear [[MF]], [[FCW]], [[FCB]] : tensor<?x?x16xf32>, tensor<16x32xf32>, tensor<32xf32>
// TP2-NEXT: [[GE:%.*]] = tpc.gelu [[U]] : tensor<?x?x32xf32>
// TP2-NEXT: [[PW:%.*]] = tpc.get_param @h.0.mlp.c_proj.weight : tensor<32x16xf32>
// TP2-NEXT: [[PB:%.*]] = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
// TP2-NEXT: [[V:%.*]] = tpc.linear [[GE]], [[PW]] : tensor<?x?x32xf32>, tensor<32x16xf32>
// TP2-NEXT: [[VG:%.*]] = tpc.g [[V]] group tp : tensor<?x?x16xf32>
// TP2-NEXT: [[VB:%.*]] = tpc.bias_add [[VG]], [[PB]] : tensor<?x?x16xf32>, tensor<16xf32>
// TP2-NEXT: [[VD:%.*]] = tpc.dropout [[VB]] p 1.000000e-01 replicated key 3 : tensor<?x?x16xf32>
// TP2-NEXT: tpc.add [[H1]], [[VD]] : tensor<?x?x16xf32>
// TP2:      tpc.get_param @h.1.ln_1.weight : tensor<16xf32>
// TP2:      tpc.get_param @h.1.ln_1.bias : tensor<16xf32>
// TP2:      tpc.get_param @h.1.attn.c_attn.weight : tensor<16x24xf32>
// TP2:      tpc.get_param @h.1.attn.c_attn.bias : tensor<24xf32>
// TP2:      tpc.self_attention %{{.*}} heads 2 causal dropout 1.000000e-01 key 4 head_parallel
// TP2:      tpc.get_param @h.1.attn.c_proj.weight : tensor<8x16xf32>
// TP2:      tpc.get_param @h.1.attn.c_proj.bias : tensor<16xf32>
// TP2:      tpc.get_param @h.1.ln_2.weight : tensor<16xf32>
// TP2:      tpc.get_param @h.1.ln_2.bias : tensor<16xf32>
// TP2:      tpc.get_param @h.1.mlp.c_fc.weight : tensor<16x32xf32>
// TP2:      tpc.get_param @h.1.mlp.c_fc.bias : tensor<32xf32>
// TP2:      tpc.get_param @h.1.mlp.c_proj.weight : tensor<32x16xf32>
// TP2:      tpc.get_param @h.1.mlp.c_proj.bias : tensor<16xf32>
// TP2:      tpc.get_param @ln_f.weight : tensor<16xf32>
// TP2:      tpc.get_param @ln_f.bias : tensor<16xf32>
// TP2:      [[N:%.*]] = tpc.layernorm
// TP2-NEXT: [[NF:%.*]] = tpc.f [[N]] group tp : tensor<?x?x16xf32>
// TP2-NEXT: [[LOGITS:%.*]] = tpc.linear [[NF]], [[WTE]] transposed : tensor<?x?x16xf32>, tensor<128x16xf32>
// TP2-NEXT: [[SUM:%.*]], [[COUNT:%.*]] = tpc.vocab_parallel_cross_entropy [[LOGITS]], %arg1 vocab 100 ignore_index -1 : tensor<?x?x128xf32>, tensor<?x?xi32>
// TP2-NEXT: return [[SUM]], [[COUNT]], [[LOGITS]] : tensor<f32>, tensor<i32>, tensor<?x?x128xf32>

// tp=4: 512 padded rows, 128 per rank; one head per rank.
// TP4: module attributes {tpc.tp = 4 : i64} {
// TP4-NEXT: tpc.param @wte : tensor<512x16xf32> {{.*}} layout <split 0> {vocab_size = 100 : i64}
// TP4-LABEL: func.func @forward
// TP4: tpc.get_param @wte : tensor<128x16xf32>
// TP4: tpc.get_param @h.0.attn.c_attn.weight : tensor<16x12xf32>
// TP4: tpc.get_param @h.0.attn.c_attn.bias : tensor<12xf32>
// TP4: tpc.self_attention %{{.*}} heads 1 causal dropout 1.000000e-01 key 1 head_parallel : tensor<?x?x12xf32>
// TP4: tpc.get_param @h.0.attn.c_proj.weight : tensor<4x16xf32>
// TP4: tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
// TP4: tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x16xf32>
// TP4: tpc.get_param @h.0.mlp.c_fc.bias : tensor<16xf32>
// TP4: tpc.get_param @h.0.mlp.c_proj.weight : tensor<16x16xf32>
// TP4: tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
// TP4: tpc.get_param @h.1.attn.c_attn.weight : tensor<16x12xf32>
// TP4: tpc.get_param @h.1.mlp.c_proj.weight : tensor<16x16xf32>
// TP4: tpc.get_param @ln_f.weight : tensor<16xf32>
// TP4: tpc.vocab_parallel_cross_entropy %{{.*}}, %arg1 vocab 100 ignore_index -1 : tensor<?x?x128xf32>

// tp=1 takes the same path: padding to 128, f, g and the vocab-parallel ops
// (identities for a group of one), global shapes otherwise.
// TP1: module attributes {tpc.tp = 1 : i64} {
// TP1-NEXT: tpc.param @wte : tensor<128x16xf32> {{.*}} layout <split 0> {vocab_size = 100 : i64}
// TP1-LABEL: func.func @forward
// TP1: tpc.embedding %{{.*}}, %arg0 vocab_parallel : tensor<128x16xf32>
// TP1: tpc.get_param @h.0.attn.c_attn.weight : tensor<16x48xf32>
// TP1: tpc.self_attention %{{.*}} heads 4 causal dropout 1.000000e-01 key 1 head_parallel : tensor<?x?x48xf32>
// TP1: tpc.get_param @h.0.mlp.c_proj.weight : tensor<64x16xf32>
// TP1: tpc.vocab_parallel_cross_entropy %{{.*}}, %arg1 vocab 100 ignore_index -1 : tensor<?x?x128xf32>

// tp=3 divides neither V=100 nor 256: the vocabulary pads to 384, 128 per rank.
// TP3: module attributes {tpc.tp = 3 : i64} {
// TP3-NEXT: tpc.param @wte : tensor<384x12xf32> {{.*}} layout <split 0> {vocab_size = 100 : i64}
// TP3-LABEL: func.func @forward
// TP3-SAME: -> (tensor<f32>, tensor<i32>, tensor<?x?x128xf32>)
// TP3: tpc.embedding %{{.*}}, %arg0 vocab_parallel : tensor<128x12xf32>
// TP3: tpc.get_param @h.0.attn.c_attn.weight : tensor<12x12xf32>
// TP3: tpc.self_attention %{{.*}} heads 1 causal head_parallel : tensor<?x?x12xf32>
// TP3: tpc.get_param @h.0.attn.c_proj.weight : tensor<4x12xf32>
// TP3: tpc.get_param @h.0.mlp.c_fc.weight : tensor<12x16xf32>
// TP3: tpc.get_param @h.0.mlp.c_proj.weight : tensor<16x12xf32>
// TP3: tpc.linear %{{.*}}, %{{.*}} transposed : tensor<?x?x12xf32>, tensor<128x12xf32>
// TP3: tpc.vocab_parallel_cross_entropy %{{.*}}, %arg1 vocab 100 ignore_index -1 : tensor<?x?x128xf32>

// Post-norm with an untied lm_head and a dropout inside the MLP: that dropout
// becomes per_rank over its slice of the [B, T, 4H] activations; the
// layernorms after the residual adds stay replicated.
// UNTIED: tpc.param @lm_head.weight : tensor<256x16xf32> {{.*}} layout <split 0> {vocab_size = 100 : i64}
// UNTIED-LABEL: func.func @forward
// UNTIED: [[O0:%.*]] = tpc.linear %{{.*}}, %{{.*}} : tensor<?x?x8xf32>, tensor<8x16xf32>
// UNTIED-NEXT: [[G0:%.*]] = tpc.g [[O0]] group tp : tensor<?x?x16xf32>
// UNTIED-NEXT: [[B0:%.*]] = tpc.bias_add [[G0]], %{{.*}} : tensor<?x?x16xf32>, tensor<16xf32>
// UNTIED-NEXT: [[R0:%.*]] = tpc.add %{{.*}}, [[B0]] : tensor<?x?x16xf32>
// UNTIED-NEXT: tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
// UNTIED-NEXT: tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
// UNTIED-NEXT: tpc.layernorm [[R0]]
// UNTIED: tpc.gelu %{{.*}} : tensor<?x?x32xf32>
// UNTIED-NEXT: tpc.dropout %{{.*}} p 1.000000e-01 per_rank key 0 layout <split 2> : tensor<?x?x32xf32>
// UNTIED: tpc.dropout %{{.*}} p 1.000000e-01 per_rank key 1 layout <split 2> : tensor<?x?x32xf32>
// UNTIED: [[N:%.*]] = tpc.layernorm
// UNTIED-NEXT: [[LM:%.*]] = tpc.get_param @lm_head.weight : tensor<128x16xf32>
// UNTIED-NEXT: [[NF:%.*]] = tpc.f [[N]] group tp
// UNTIED-NEXT: [[L:%.*]] = tpc.linear [[NF]], [[LM]] transposed : tensor<?x?x16xf32>, tensor<128x16xf32>
// UNTIED-NEXT: tpc.vocab_parallel_cross_entropy [[L]], %arg1 vocab 100

// StagFormer cross-attention: f on both the query input and the previous
// stack's final activations, q [H, H/tp], kv [H, 2H/tp] holding k and v
// halves of this rank's heads, g after c_proj.
// STAG-LABEL: func.func @forward
// STAG: tpc.get_param @s1.h.0.mlp.c_proj.bias
// STAG: [[S1:%.*]] = tpc.add
// STAG-NEXT: tpc.get_param @s2.h.0.ln_1.weight
// STAG: tpc.get_param @s2.h.0.ln_x.bias : tensor<16xf32>
// STAG-NEXT: [[X:%.*]] = tpc.layernorm
// STAG-NEXT: [[QW:%.*]] = tpc.get_param @s2.h.0.xattn.c_q.weight : tensor<16x8xf32>
// STAG-NEXT: [[QB:%.*]] = tpc.get_param @s2.h.0.xattn.c_q.bias : tensor<8xf32>
// STAG-NEXT: [[XF:%.*]] = tpc.f [[X]] group tp : tensor<?x?x16xf32>
// STAG-NEXT: [[Q:%.*]] = tpc.linear [[XF]], [[QW]], [[QB]]
// STAG-NEXT: [[KVW:%.*]] = tpc.get_param @s2.h.0.xattn.c_kv.weight : tensor<16x16xf32>
// STAG-NEXT: [[KVB:%.*]] = tpc.get_param @s2.h.0.xattn.c_kv.bias : tensor<16xf32>
// STAG-NEXT: [[SF:%.*]] = tpc.f [[S1]] group tp : tensor<?x?x16xf32>
// STAG-NEXT: [[KV:%.*]] = tpc.linear [[SF]], [[KVW]], [[KVB]]
// STAG-NEXT: [[C:%.*]] = tpc.cross_attention [[Q]], [[KV]] heads 2 head_parallel : tensor<?x?x8xf32>, tensor<?x?x16xf32>
// STAG-NEXT: [[PW:%.*]] = tpc.get_param @s2.h.0.xattn.c_proj.weight : tensor<8x16xf32>
// STAG-NEXT: [[PB:%.*]] = tpc.get_param @s2.h.0.xattn.c_proj.bias : tensor<16xf32>
// STAG-NEXT: [[P:%.*]] = tpc.linear [[C]], [[PW]] : tensor<?x?x8xf32>, tensor<8x16xf32>
// STAG-NEXT: [[PG:%.*]] = tpc.g [[P]] group tp
// STAG-NEXT: tpc.bias_add [[PG]], [[PB]]

// Shared weights, p=3: the stacks read the same local slices; alpha stays
// whole and combines the replicated stack outputs.
// SHARED: tpc.param @alpha : tensor<3xf32> init <ones> layout <replicated>{{$}}
// SHARED-LABEL: func.func @forward
// SHARED-COUNT-3: tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x16xf32>
// SHARED: [[ALPHA:%.*]] = tpc.get_param @alpha : tensor<3xf32>
// SHARED-NEXT: tpc.weighted_sum [[ALPHA]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>
// SHARED: tpc.vocab_parallel_cross_entropy %{{.*}}, %arg1 vocab 100

// Bigram: [V, Vpad/tp] per rank, a plain lookup (ids index the rows, which are
// not split), straight into the vocab-parallel loss; no f, no g.
// BIGRAM: module attributes {tpc.tp = 2 : i64} {
// BIGRAM-NEXT: tpc.param @wte : tensor<100x256xf32> {{.*}} layout <split 1> {vocab_size = 100 : i64}
// BIGRAM-LABEL: func.func @forward
// BIGRAM-NEXT: [[T:%.*]] = tpc.get_param @wte : tensor<100x128xf32>
// BIGRAM-NEXT: [[L:%.*]] = tpc.embedding [[T]], %arg0 : tensor<100x128xf32>, tensor<?x?xi32>
// BIGRAM-NEXT: [[S:%.*]], [[C:%.*]] = tpc.vocab_parallel_cross_entropy [[L]], %arg1 vocab 100 ignore_index -1 : tensor<?x?x128xf32>, tensor<?x?xi32>
// BIGRAM-NEXT: return [[S]], [[C]], [[L]]

// BIGRAM3: tpc.param @wte : tensor<100x384xf32> {{.*}} layout <split 1> {vocab_size = 100 : i64}
// BIGRAM3: tpc.get_param @wte : tensor<100x128xf32>

// Static shapes from tpc-specialize flow through the partition.
// STATIC-LABEL: func.func @forward
// STATIC-SAME: (%arg0: tensor<4x8xi32>, %arg1: tensor<4x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<4x8x128xf32>)
// STATIC: tpc.g %{{.*}} group tp : tensor<4x8x16xf32>
// STATIC: tpc.self_attention %{{.*}} heads 2 causal dropout 1.000000e-01 key 1 head_parallel : tensor<4x8x24xf32>
// STATIC: tpc.linear %{{.*}}, %{{.*}} : tensor<4x8x8xf32>, tensor<8x16xf32>
// STATIC: tpc.gelu %{{.*}} : tensor<4x8x32xf32>
// STATIC: tpc.vocab_parallel_cross_entropy %{{.*}}, %arg1 vocab 100 ignore_index -1 : tensor<4x8x128xf32>, tensor<4x8xi32>
