// tpc-stack-parallel splits a StagFormer's decode_step into one entry point
// per stack and the output layer, for decoding each stack on a tp group of
// its own. Every stack holds the embeddings; stack s > 0 takes the previous
// stack's final activation of the previous position (%memory) and its
// cross-attentions become lagged; the head reads the last stack's final
// activation, or every stack's under alpha.

// Two stacks of two layers, tp 2, separate weights.
// RUN: tpc-model stagformer --stacks 2 --layers 2 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode --tpc-stack-parallel > %t.two.mlir
// RUN: FileCheck %s < %t.two.mlir
// Per function, the f and g of its own tp group: stack 0 as a GPT-2 of 2
// layers (2 f and 2 g per layer, the embedding's g); stack 1 with 2 more f
// (query, memory) and 1 more g per layer for its cross-attention; the head
// 1 f and the logits' all-gather. Nothing crosses between stacks in the IR:
// the generator sends %memory.
// RUN: FileCheck %s --check-prefix=COUNTF < %t.two.mlir
// RUN: FileCheck %s --check-prefix=COUNTG < %t.two.mlir

// CHECK: module attributes {tpc.stacks = 2 : i64, tpc.tp = 2 : i64}
// CHECK-LABEL: func.func @decode_step(
// CHECK-LABEL: func.func @decode_stack_0(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>) -> tensor<1x1x16xf32>
// CHECK:       tpc.embedding %{{.*}}, %arg0 vocab_parallel
// CHECK:       tpc.position_embedding %{{.*}}, %arg0 offset %arg1
// CHECK:       tpc.get_param @s1.h.0.ln_1.weight
// CHECK-NOT:   @s2.
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 1 capacity 8 head_parallel :
// CHECK-NOT:   decode_cross_attention
// CHECK:       return %{{[0-9]+}} : tensor<1x1x16xf32>
// CHECK-LABEL: func.func @decode_stack_1(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>, %arg2: tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
// CHECK:       tpc.embedding %{{.*}}, %arg0 vocab_parallel
// CHECK-NOT:   @s1.
// CHECK:       %[[MEM:.*]] = tpc.f %arg2 group tp
// CHECK-NEXT:  %[[KV:.*]] = tpc.linear %[[MEM]], %{{.*}}, %{{.*}} : tensor<1x1x16xf32>, tensor<16x16xf32>, tensor<16xf32>
// CHECK-NEXT:  tpc.decode_cross_attention %{{.*}}, %[[KV]], %arg1 heads 1 capacity 8 head_parallel lagged :
// CHECK:       tpc.decode_cross_attention %{{.*}}, %{{.*}}, %arg1 heads 1 capacity 8 head_parallel lagged :
// CHECK:       return %{{[0-9]+}} : tensor<1x1x16xf32>
// CHECK-LABEL: func.func @decode_head(%arg0: tensor<1x1x16xf32>) -> tensor<1x1x256xf32>
// CHECK:       tpc.layernorm %arg0,
// CHECK:       %[[ROW:.*]] = tpc.all_gather %{{.*}} dim 2 group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>
// CHECK-NEXT:  return %[[ROW]]

// COUNTF-LABEL: func.func @decode_stack_0(
// COUNTF-COUNT-4: tpc.f {{.*}} group tp
// COUNTF-NOT:   tpc.f %
// COUNTF-LABEL: func.func @decode_stack_1(
// COUNTF-COUNT-8: tpc.f {{.*}} group tp
// COUNTF-NOT:   tpc.f %
// COUNTF-LABEL: func.func @decode_head(
// COUNTF-COUNT-1: tpc.f {{.*}} group tp
// COUNTF-NOT:   tpc.f %

// COUNTG-LABEL: func.func @decode_stack_0(
// COUNTG-COUNT-5: tpc.g {{.*}} group tp
// COUNTG-NOT:   tpc.g %
// COUNTG-NOT:   all_gather
// COUNTG-LABEL: func.func @decode_stack_1(
// COUNTG-COUNT-7: tpc.g {{.*}} group tp
// COUNTG-NOT:   tpc.g %
// COUNTG-NOT:   all_gather
// COUNTG-LABEL: func.func @decode_head(
// COUNTG-NOT:   tpc.g %
// COUNTG:       tpc.all_gather
// COUNTG-NOT:   tpc.g %

// Three stacks with alpha: the head reads every stack's final activation;
// stack 2's memory is stack 1's.
// RUN: tpc-model stagformer --stacks 3 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode --tpc-stack-parallel \
// RUN:   | FileCheck %s --check-prefix=ALPHA
// ALPHA: module attributes {tpc.stacks = 3 : i64
// ALPHA-LABEL: func.func @decode_stack_0(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>) -> tensor<1x1x16xf32>
// ALPHA-LABEL: func.func @decode_stack_1(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>, %arg2: tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
// ALPHA:       tpc.f %arg2 group tp
// ALPHA:       tpc.decode_cross_attention {{.*}} lagged
// ALPHA-LABEL: func.func @decode_stack_2(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>, %arg2: tensor<1x1x16xf32>) -> tensor<1x1x16xf32>
// ALPHA:       tpc.get_param @s3.h.0.xattn.c_kv.weight
// ALPHA:       tpc.f %arg2 group tp
// ALPHA-LABEL: func.func @decode_head(%arg0: tensor<1x1x16xf32>, %arg1: tensor<1x1x16xf32>, %arg2: tensor<1x1x16xf32>) -> tensor<1x1x128xf32>
// ALPHA:       tpc.weighted_sum %{{.*}}, %arg0, %arg1, %arg2

// Shared weights without alpha, with windows and Llama blocks (RoPE,
// grouped attention) at tp 2: every stack reads the shared layers; the
// recurrent entry point's cache names stay decode_step's.
// RUN: tpc-model stagformer --blocks llama --stacks 3 --layers 1 --hidden 16 --heads 2 --kv-heads 2 --intermediate 24 --vocab 32 --seq 8 --shared-weights --no-alpha --window 2 \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode --tpc-stack-parallel \
// RUN:   | FileCheck %s --check-prefix=SHARED
// SHARED-LABEL: func.func @decode_stack_0(
// SHARED:       tpc.get_param @model.layers.0.self_attn.q_proj.weight
// SHARED:       tpc.decode_grouped_attention
// SHARED-NOT:   cache
// SHARED-LABEL: func.func @decode_stack_1(
// SHARED:       tpc.get_param @model.layers.0.self_attn.q_proj.weight
// SHARED:       tpc.decode_cross_attention {{.*}} window 2 {{.*}}lagged
// SHARED-NOT:   cache
// SHARED-LABEL: func.func @decode_stack_2(
// SHARED:       tpc.decode_cross_attention {{.*}} window 2 {{.*}}lagged
// SHARED-NOT:   cache
// SHARED-LABEL: func.func @decode_head(%arg0: tensor<1x1x16xf32>) -> tensor<1x1x256xf32>
// SHARED:       tpc.rmsnorm %arg0,
