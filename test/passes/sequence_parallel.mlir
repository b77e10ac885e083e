// RUN: tpc-opt %S/Inputs/gpt2.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel | FileCheck %s --check-prefix=GPT2
// Per layer Megatron's two g become reduce-scatters and its two f
// all-gathers, plus those of the embedding and the output layer: 2L+1 each
// for L = 2, and no all-reduce of activations left.
// RUN: tpc-opt %S/Inputs/gpt2.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel > %t.gpt2
// RUN: grep "tpc.seq_scatter %[0-9]* reduce :" %t.gpt2 | count 5
// RUN: grep "tpc.seq_gather %[0-9]* reduce_grad :" %t.gpt2 | count 5
// RUN: grep "tpc.seq_scatter %[0-9]* :" %t.gpt2 | count 1
// RUN: not grep "tpc.g %" %t.gpt2
// The norms' scales and shifts and the row-parallel biases (6 per layer,
// 2 for ln_f) are read through f, which sums their gradients over tp.
// RUN: grep "= tpc.f %" %t.gpt2 | count 14
// RUN: grep "tpc.dropout .* per_rank key [0-9]* layout <split 1> : tensor<2x4x16xf32>" %t.gpt2 | count 5
// tp = 4 splits the 8 positions into 2 per rank.
// RUN: tpc-opt %S/Inputs/gpt2.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=4 --tpc-partition --tpc-sequence-parallel | FileCheck %s --check-prefix=TP4
// StagFormer: the second stack's cross-attention gathers the first stack's
// final activations for its c_kv; 6 g and 7 f become 6 reduce-scatters and
// 7 all-gathers. Shared weights with 3 stacks read alpha through f.
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel | FileCheck %s --check-prefix=STAG
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel > %t.stag
// RUN: grep "tpc.seq_scatter %[0-9]* reduce :" %t.stag | count 6
// RUN: grep "tpc.seq_gather %[0-9]* reduce_grad :" %t.stag | count 7
// RUN: tpc-opt %S/Inputs/stagformer_shared.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel | FileCheck %s --check-prefix=SHARED
// Llama: RMS norms between the blocks, no position table.
// RUN: tpc-opt %S/Inputs/llama.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel | FileCheck %s --check-prefix=LLAMA
// Other readers of split values, and the VJPs.
// RUN: tpc-opt %s -split-input-file --tpc-sequence-parallel | FileCheck %s
// RUN: tpc-opt %s -split-input-file --tpc-sequence-parallel --tpc-autodiff | FileCheck %s --check-prefix=GRAD
// decode_step runs whole positions: f and g again, no sequence ops.
// RUN: tpc-opt %S/Inputs/gpt2.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel --tpc-decode | FileCheck %s --check-prefix=DECODE
// The backward gathers a column-parallel linear's input again (in every
// recompute mode) instead of keeping the forward's gathered copy.
// RUN: tpc-opt %S/Inputs/gpt2.mlir '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-sequence-parallel --tpc-autodiff --tpc-recompute=mode=none | FileCheck %s --check-prefix=REGATHER

// GPT2-LABEL: func.func @forward
// GPT2:      %[[WTE:.*]] = tpc.get_param @wte : tensor<128x16xf32>
// GPT2-NEXT: %[[WPE:.*]] = tpc.get_param @wpe : tensor<32x16xf32>
// GPT2-NEXT: %[[E:.*]] = tpc.embedding %[[WTE]], %{{.*}} vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
// GPT2-NEXT: %[[ES:.*]] = tpc.seq_scatter %[[E]] reduce : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
// GPT2-NEXT: %[[P:.*]] = tpc.position_embedding %[[WPE]], %{{.*}} : tensor<32x16xf32>, tensor<2x8xi32>
// GPT2-NEXT: %[[PS:.*]] = tpc.seq_scatter %[[P]] : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
// GPT2-NEXT: %[[X:.*]] = tpc.add %[[ES]], %[[PS]] : tensor<2x4x16xf32>
// GPT2-NEXT: %[[XD:.*]] = tpc.dropout %[[X]] p 1.000000e-01 per_rank key 0 layout <split 1> : tensor<2x4x16xf32>
// GPT2-NEXT: %[[G1:.*]] = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
// GPT2-NEXT: %[[B1:.*]] = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
// GPT2-NEXT: %[[G1F:.*]] = tpc.f %[[G1]] group tp : tensor<16xf32>
// GPT2-NEXT: %[[B1F:.*]] = tpc.f %[[B1]] group tp : tensor<16xf32>
// GPT2-NEXT: %[[N1:.*]] = tpc.layernorm %[[XD]], %[[G1F]], %[[B1F]] eps 1.000000e-05 : tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>
// GPT2-NEXT: %[[QW:.*]] = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x24xf32>
// GPT2-NEXT: %[[QB:.*]] = tpc.get_param @h.0.attn.c_attn.bias : tensor<24xf32>
// GPT2-NEXT: %[[N1G:.*]] = tpc.seq_gather %[[N1]] reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// GPT2-NEXT: %[[QKV:.*]] = tpc.linear %[[N1G]], %[[QW]], %[[QB]] : tensor<2x8x16xf32>, tensor<16x24xf32>, tensor<24xf32>
// GPT2-NEXT: %[[A:.*]] = tpc.self_attention %[[QKV]] heads 2 causal dropout 1.000000e-01 key 1 head_parallel : tensor<2x8x24xf32>
// GPT2-NEXT: %[[PW:.*]] = tpc.get_param @h.0.attn.c_proj.weight : tensor<8x16xf32>
// GPT2-NEXT: %[[PB:.*]] = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
// GPT2-NEXT: %[[PR:.*]] = tpc.linear %[[A]], %[[PW]] : tensor<2x8x8xf32>, tensor<8x16xf32>
// GPT2-NEXT: %[[PRS:.*]] = tpc.seq_scatter %[[PR]] reduce : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
// GPT2-NEXT: %[[PBF:.*]] = tpc.f %[[PB]] group tp : tensor<16xf32>
// GPT2-NEXT: %[[O:.*]] = tpc.bias_add %[[PRS]], %[[PBF]] : tensor<2x4x16xf32>, tensor<16xf32>
// GPT2-NEXT: %[[OD:.*]] = tpc.dropout %[[O]] p 1.000000e-01 per_rank key 2 layout <split 1> : tensor<2x4x16xf32>
// GPT2-NEXT: %{{.*}} = tpc.add %[[XD]], %[[OD]] : tensor<2x4x16xf32>
// GPT2:      tpc.get_param @ln_f.bias
// GPT2:      %[[NF:.*]] = tpc.layernorm %{{.*}} : tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>
// GPT2-NEXT: %[[NFG:.*]] = tpc.seq_gather %[[NF]] reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// GPT2-NEXT: %[[LOGITS:.*]] = tpc.linear %[[NFG]], %[[WTE]] transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
// GPT2-NEXT: tpc.vocab_parallel_cross_entropy %[[LOGITS]]

// TP4-LABEL: func.func @forward
// TP4:       tpc.seq_scatter %{{.*}} reduce : tensor<2x8x16xf32> -> tensor<2x2x16xf32>
// TP4:       tpc.layernorm %{{.*}} : tensor<2x2x16xf32>, tensor<16xf32>, tensor<16xf32>
// TP4:       tpc.seq_gather %{{.*}} reduce_grad : tensor<2x2x16xf32> -> tensor<2x8x16xf32>

// STAG-LABEL: func.func @forward
// STAG:       tpc.get_param @s2.h.0.xattn.c_q.bias
// STAG-NEXT:  %[[Q:.*]] = tpc.seq_gather %{{.*}} reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// STAG-NEXT:  %[[QL:.*]] = tpc.linear %[[Q]], %{{.*}}, %{{.*}} : tensor<2x8x16xf32>, tensor<16x8xf32>, tensor<8xf32>
// STAG-NEXT:  %[[KVW:.*]] = tpc.get_param @s2.h.0.xattn.c_kv.weight
// STAG-NEXT:  %[[KVB:.*]] = tpc.get_param @s2.h.0.xattn.c_kv.bias
// STAG-NEXT:  %[[MEM:.*]] = tpc.seq_gather %{{.*}} reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// STAG-NEXT:  %[[KV:.*]] = tpc.linear %[[MEM]], %[[KVW]], %[[KVB]] : tensor<2x8x16xf32>, tensor<16x16xf32>, tensor<16xf32>
// STAG-NEXT:  tpc.cross_attention %[[QL]], %[[KV]] heads 2 head_parallel : tensor<2x8x8xf32>, tensor<2x8x16xf32>

// SHARED-LABEL: func.func @forward
// SHARED:       %[[ALPHA:.*]] = tpc.get_param @alpha : tensor<3xf32>
// SHARED-NEXT:  %[[ALPHAF:.*]] = tpc.f %[[ALPHA]] group tp : tensor<3xf32>
// SHARED-NEXT:  tpc.weighted_sum %[[ALPHAF]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>

// LLAMA-LABEL: func.func @forward
// LLAMA:       %[[W:.*]] = tpc.get_param @model.layers.0.input_layernorm.weight : tensor<32xf32>
// LLAMA-NEXT:  %[[WF:.*]] = tpc.f %[[W]] group tp : tensor<32xf32>
// LLAMA-NEXT:  %[[N:.*]] = tpc.rmsnorm %{{.*}}, %[[WF]] eps 1.000000e-05 : tensor<2x4x32xf32>, tensor<32xf32>
// LLAMA-NEXT:  %{{.*}} = tpc.get_param @model.layers.0.self_attn.q_proj.weight
// LLAMA-NEXT:  %[[NG:.*]] = tpc.seq_gather %[[N]] reduce_grad : tensor<2x4x32xf32> -> tensor<2x8x32xf32>

// DECODE-LABEL: func.func @decode_step
// DECODE-NOT:   tpc.seq_
// DECODE:       tpc.embedding %{{.*}} vocab_parallel : tensor<128x16xf32>, tensor<1x1xi32>
// DECODE-NEXT:  tpc.g %{{.*}} group tp : tensor<1x1x16xf32>
// DECODE-NOT:   tpc.seq_
// DECODE:       tpc.layernorm %{{.*}} : tensor<1x1x16xf32>, tensor<16xf32>, tensor<16xf32>
// DECODE-NOT:   tpc.seq_
// DECODE:       tpc.f %{{.*}} group tp : tensor<1x1x16xf32>
// DECODE-NOT:   tpc.seq_
// DECODE:       return

// The forward gathers ln_1's output for c_attn; the backward of c_attn's
// linear reads a second gather of the same split value, placed after the
// linear's adjoint is known.
// REGATHER-LABEL: func.func @train_step
// REGATHER:       %[[N1:.*]] = tpc.layernorm
// REGATHER:       %[[FWD:.*]] = tpc.seq_gather %[[N1]] reduce_grad
// REGATHER-NEXT:  tpc.linear %[[FWD]]
// REGATHER:       %[[BWD:.*]] = tpc.seq_gather %[[N1]] reduce_grad
// REGATHER-NEXT:  tpc.linear_grad %{{.*}}, %[[BWD]]
// REGATHER-NOT:   %[[FWD]]
// REGATHER:       return

// A whole activation meeting a split one (a position embedding) is sliced;
// a replicated linear and a returned value read the split value gathered
// back, once.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @w0 : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @wpe : tensor<8x16xf32> init <normal, std = 2.000000e-02>
  tpc.param @w : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  // CHECK-LABEL: func.func @forward
  // CHECK-SAME: (%[[T:.*]]: tensor<2x8xi32>, %[[Y:.*]]: tensor<2x8xi32>, %[[IN:.*]]: tensor<2x8x16xf32>)
  func.func @forward(%t: tensor<2x8xi32>, %y: tensor<2x8xi32>, %in: tensor<2x8x16xf32>) -> (tensor<f32>, tensor<i32>, tensor<2x8x16xf32>) {
    // CHECK:      %[[R:.*]] = tpc.seq_scatter %{{.*}} reduce : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
    // CHECK-NEXT: %[[WPE:.*]] = tpc.get_param @wpe
    // CHECK-NEXT: %[[X:.*]] = tpc.position_embedding %[[WPE]], %[[T]]
    // CHECK-NEXT: %[[XS:.*]] = tpc.seq_scatter %[[X]] : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
    // CHECK-NEXT: %[[S:.*]] = tpc.add %[[XS]], %[[R]] : tensor<2x4x16xf32>
    // CHECK-NEXT: %[[C:.*]] = tpc.scale %[[S]] by 2.000000e+00 : tensor<2x4x16xf32>
    // CHECK-NEXT: %[[W:.*]] = tpc.get_param @w : tensor<16x16xf32>
    // CHECK-NEXT: %[[CG:.*]] = tpc.seq_gather %[[C]] : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    // CHECK-NEXT: %[[L:.*]] = tpc.linear %[[CG]], %[[W]] : tensor<2x8x16xf32>, tensor<16x16xf32>
    // CHECK-NEXT: %[[SUM:.*]], %[[N:.*]] = tpc.cross_entropy %[[L]], %[[Y]]
    // CHECK-NEXT: return %[[SUM]], %[[N]], %[[CG]]
    %w0 = tpc.get_param @w0 : tensor<16x16xf32>
    %p = tpc.linear %in, %w0 : tensor<2x8x16xf32>, tensor<16x16xf32>
    %r = tpc.g %p group tp : tensor<2x8x16xf32>
    %wpe = tpc.get_param @wpe : tensor<8x16xf32>
    %x = tpc.position_embedding %wpe, %t : tensor<8x16xf32>, tensor<2x8xi32>
    %s = tpc.add %x, %r : tensor<2x8x16xf32>
    %c = tpc.scale %s by 2.0 : tensor<2x8x16xf32>
    %w = tpc.get_param @w : tensor<16x16xf32>
    %l = tpc.linear %c, %w : tensor<2x8x16xf32>, tensor<16x16xf32>
    %sum, %n = tpc.cross_entropy %l, %y ignore_index -1 : tensor<2x8x16xf32>, tensor<2x8xi32>
    return %sum, %n, %c : tensor<f32>, tensor<i32>, tensor<2x8x16xf32>
  }
}

// The adjoint of a gather for replicated readers is sliced, those of a
// reduce-scatter and of a slice gathered back; nothing is reduced.
// GRAD-LABEL: func.func @train_step
// GRAD:       %[[DL:.*]], %{{.*}} = tpc.linear_grad
// GRAD-NEXT:  %[[DC:.*]] = tpc.seq_scatter %[[DL]] : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
// GRAD-NEXT:  tpc.accumulate_grad @w
// GRAD-NEXT:  %[[DS:.*]] = tpc.scale %[[DC]] by 2.000000e+00 : tensor<2x4x16xf32>
// GRAD-DAG:   %[[DX:.*]] = tpc.seq_gather %[[DS]] : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// GRAD-DAG:   tpc.position_embedding_grad %[[DX]]
// GRAD-DAG:   %[[DR:.*]] = tpc.seq_gather %[[DS]] : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
// GRAD-DAG:   tpc.linear_grad %[[DR]]
// GRAD-NOT:   reduce
// GRAD:       return

// -----

// Sequence parallelism at tp = 1 keeps the program's shape, with
// collectives over a group of one.
module attributes {tpc.tp = 1 : i64} {
  tpc.param @w0 : tensor<16x16xf32> init <normal, std = 2.000000e-02>
  // CHECK-LABEL: func.func @forward
  func.func @forward(%t: tensor<2x6xi32>, %in: tensor<2x6x16xf32>) -> (tensor<f32>, tensor<i32>) {
    // CHECK:      %[[R:.*]] = tpc.seq_scatter %{{.*}} reduce : tensor<2x6x16xf32> -> tensor<2x6x16xf32>
    // CHECK-NEXT: %[[D:.*]] = tpc.dropout %[[R]] p 5.000000e-01 per_rank key 3 layout <split 1> : tensor<2x6x16xf32>
    // CHECK-NEXT: %[[G:.*]] = tpc.seq_gather %[[D]] : tensor<2x6x16xf32> -> tensor<2x6x16xf32>
    // CHECK-NEXT: tpc.cross_entropy %[[G]]
    %w0 = tpc.get_param @w0 : tensor<16x16xf32>
    %p = tpc.linear %in, %w0 : tensor<2x6x16xf32>, tensor<16x16xf32>
    %r = tpc.g %p group tp : tensor<2x6x16xf32>
    %d = tpc.dropout %r p 0.5 replicated key 3 : tensor<2x6x16xf32>
    %sum, %n = tpc.cross_entropy %d, %t ignore_index -1 : tensor<2x6x16xf32>, tensor<2x6xi32>
    return %sum, %n : tensor<f32>, tensor<i32>
  }
}
// GRAD-LABEL: func.func @train_step
// GRAD:       tpc.cross_entropy_grad
// GRAD-NEXT:  tpc.seq_scatter %{{.*}} : tensor<2x6x16xf32> -> tensor<2x6x16xf32>
// GRAD-NEXT:  tpc.dropout %{{.*}} per_rank key 3 layout <split 1>
// GRAD-NEXT:  tpc.seq_gather %{{.*}} : tensor<2x6x16xf32> -> tensor<2x6x16xf32>
// GRAD-NEXT:  tpc.linear_grad
