// Full recompute: the backward of the layer reads clones of the layer's
// forward ops, placed after the backward of what follows the layer (ln_f)
// and before the first backward op that needs a value internal to the
// layer. The layer's input %x (the embeddings) and output (the second
// residual add, which ln_f reads) are kept; parameters are read once.
// RUN: tpc-model gpt2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=4' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff \
// RUN:       --tpc-recompute=mode=full \
// RUN:   | FileCheck %s
// RUN: tpc-model gpt2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=4' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff > %t.none
// RUN: tpc-opt %t.none --tpc-recompute=mode=none | diff - %t.none
// RUN: tpc-opt %t.none --tpc-recompute=mode=selective | diff - %t.none
// RUN: not tpc-opt %t.none --tpc-recompute=mode=some 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: tpc-model gpt2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | not tpc-opt --tpc-recompute=mode=full 2>&1 | FileCheck %s --check-prefix=STEP

// CHECK-LABEL: func.func @train_step(
// CHECK:      [[X:%.*]] = tpc.add
// CHECK-NEXT: tpc.get_param @h.0.ln_1.weight
// CHECK:      tpc.self_attention
// CHECK:      [[MID:%.*]] = tpc.add [[X]],
// CHECK:      tpc.gelu
// CHECK:      [[OUT:%.*]] = tpc.add [[MID]],
// CHECK:      tpc.vocab_parallel_cross_entropy_grad
// CHECK:      tpc.layernorm_grad %{{.*}}, [[OUT]],
// CHECK:      tpc.bias_add_grad
// CHECK-NEXT: [[LN1:%.*]] = tpc.layernorm [[X]], %{{.*}}, %{{.*}} eps
// CHECK-NEXT: [[F1:%.*]] = tpc.f [[LN1]] group tp
// CHECK-NEXT: [[QKV:%.*]] = tpc.linear [[F1]],
// CHECK-NEXT: [[ATT:%.*]] = tpc.self_attention [[QKV]] heads 1 causal head_parallel
// CHECK-NEXT: [[PROJ:%.*]] = tpc.linear [[ATT]],
// CHECK-NEXT: [[G:%.*]] = tpc.g [[PROJ]] group tp
// CHECK-NEXT: [[B:%.*]] = tpc.bias_add [[G]],
// CHECK-NEXT: [[MID2:%.*]] = tpc.add [[X]], [[B]]
// CHECK-NEXT: [[LN2:%.*]] = tpc.layernorm [[MID2]],
// CHECK-NEXT: [[F2:%.*]] = tpc.f [[LN2]] group tp
// CHECK-NEXT: [[FC:%.*]] = tpc.linear [[F2]],
// CHECK-NEXT: [[GELU:%.*]] = tpc.gelu [[FC]]
// CHECK-NEXT: tpc.linear_grad %{{.*}}, [[GELU]],
// CHECK:      tpc.gelu_grad %{{.*}}, [[FC]]
// CHECK-NEXT: tpc.linear_grad %{{.*}}, [[F2]],
// CHECK:      tpc.layernorm_grad %{{.*}}, [[MID2]],
// CHECK:      tpc.linear_grad %{{.*}}, [[ATT]],
// CHECK:      tpc.self_attention_grad %{{.*}}, [[QKV]]
// CHECK-NEXT: tpc.linear_grad %{{.*}}, [[F1]],
// CHECK:      tpc.layernorm_grad %{{.*}}, [[X]],
// Only parameters' reads are not cloned: one read of each.
// CHECK-NOT:  tpc.get_param
// CHECK:      return

// MODE: error: tpc-recompute: mode must be none, selective or full, got 'some'
// STEP: error: tpc-recompute needs a @train_step with a body; run tpc-autodiff first
