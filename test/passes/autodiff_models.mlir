// tpc-autodiff on the other generated models, partitioned for tp=2.
// RUN: tpc-model bigram --vocab 100 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff \
// RUN:   | FileCheck %s --check-prefix=BIGRAM
// RUN: tpc-model gpt2 --layers 1 --hidden 32 --heads 4 --vocab 100 --seq 16 --no-tied --layout post-norm \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff > %t.untied
// RUN: FileCheck %s --check-prefix=UNTIED < %t.untied
// RUN: grep "tpc.param @" %t.untied | count 15
// RUN: grep "tpc.all_reduce .* sum group tp" %t.untied | count 3
// RUN: grep -o "tpc.accumulate_grad @[^,]*" %t.untied | sort -u | count 15
// RUN: grep "tpc.accumulate_grad" %t.untied | count 15
// RUN: tpc-model stagformer --stacks 3 --layers 1 --hidden 16 --heads 2 --vocab 50 --seq 16 --shared-weights \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff > %t.shared
// RUN: FileCheck %s --check-prefix=SHARED < %t.shared
// RUN: grep "tpc.param @" %t.shared | count 33
// RUN: grep -o "tpc.accumulate_grad @[^,]*" %t.shared | sort -u | count 33
// RUN: grep "tpc.accumulate_grad" %t.shared | count 33
// Backward all-reduces, one per forward f: per stack 2 (self-attention and
// MLP), per stack > 1 also 2 (c_q and c_kv), and the output layer's.
// RUN: grep "tpc.all_reduce .* sum group tp" %t.shared | count 11
// RUN: tpc-model stagformer --stacks 2 --layers 1 --hidden 16 --heads 2 --vocab 50 --seq 16 --window 4 --dropout 0.1 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff > %t.separate
// RUN: FileCheck %s --check-prefix=SEPARATE < %t.separate
// RUN: grep "tpc.param @" %t.separate | count 36
// RUN: grep "tpc.all_reduce .* sum group tp" %t.separate | count 7
// RUN: grep -o "tpc.accumulate_grad @[^,]*" %t.separate | sort -u | count 36
// RUN: grep "tpc.accumulate_grad" %t.separate | count 36

// Bigram: the [V, Vpad/tp] table lookup feeds the vocabulary-parallel loss
// directly; its gradient is a plain (not vocab_parallel) scatter-add.
// BIGRAM-LABEL: func.func @train_step
// BIGRAM-SAME: (%[[TOKENS:.*]]: tensor<2x8xi32>, %[[TARGETS:.*]]: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>)
// BIGRAM-NEXT: %[[T:.*]] = tpc.get_param @table : tensor<100x128xf32>
// BIGRAM-NEXT: %[[L:.*]] = tpc.embedding %[[T]], %[[TOKENS]] : tensor<100x128xf32>, tensor<2x8xi32>
// BIGRAM-NEXT: %[[SUM:.*]], %[[COUNT:.*]] = tpc.vocab_parallel_cross_entropy %[[L]], %[[TARGETS]] vocab 100 ignore_index -1
// BIGRAM-NEXT: %[[ONE:.*]] = tpc.fill 1.000000e+00 : tensor<f32>
// BIGRAM-NEXT: %[[DL:.*]] = tpc.vocab_parallel_cross_entropy_grad %[[L]], %[[TARGETS]], %[[ONE]] vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
// BIGRAM-NEXT: %[[DT:.*]] = tpc.embedding_grad %[[DL]], %[[TOKENS]] : tensor<2x8x128xf32>, tensor<2x8xi32> -> tensor<100x128xf32>
// BIGRAM-NEXT: tpc.accumulate_grad @table, %[[DT]] : tensor<100x128xf32>
// BIGRAM-NEXT: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>

// Untied output layer: lm_head.weight gets the output layer's gradient and
// wte only the embedding's.
// UNTIED-LABEL: func.func @train_step
// UNTIED: %[[LM:.*]] = tpc.get_param @lm_head.weight : tensor<128x32xf32>
// UNTIED: %[[DN:.*]], %[[DLM:.*]] = tpc.linear_grad %{{.*}}, %{{.*}}, %[[LM]] transposed
// UNTIED-NEXT: tpc.all_reduce %[[DN]] sum group tp
// UNTIED-NEXT: tpc.accumulate_grad @lm_head.weight, %[[DLM]] : tensor<128x32xf32>
// UNTIED: %[[DWTE:.*]] = tpc.embedding_grad %{{.*}} vocab_parallel : tensor<2x8x32xf32>, tensor<2x8xi32> -> tensor<128x32xf32>
// UNTIED-NEXT: tpc.accumulate_grad @wte, %[[DWTE]] : tensor<128x32xf32>
// UNTIED-NEXT: return

// StagFormer with shared weights: h.0.* is read once and used by all three
// stacks, so its gradient is the sum of the three stacks' contributions,
// accumulated once; alpha gets the weighted sum's gradient.
// SHARED-LABEL: func.func @train_step
// SHARED: %[[DALPHA:.*]], %[[DX:.*]]:3 = tpc.weighted_sum_grad
// SHARED-NEXT: tpc.accumulate_grad @alpha, %[[DALPHA]] : tensor<3xf32>
// SHARED: %{{.*}}, %[[DW3:.*]], %{{.*}} = tpc.linear_grad %{{.*}} bias : tensor<2x8x24xf32>, tensor<2x8x16xf32>, tensor<16x24xf32>
// SHARED: %{{.*}}, %[[DW2:.*]], %{{.*}} = tpc.linear_grad %{{.*}} bias : tensor<2x8x24xf32>, tensor<2x8x16xf32>, tensor<16x24xf32>
// SHARED-NEXT: %[[S2:.*]] = tpc.add %[[DW3]], %[[DW2]] : tensor<16x24xf32>
// SHARED: %{{.*}}, %[[DW1:.*]], %{{.*}} = tpc.linear_grad %{{.*}} bias : tensor<2x8x24xf32>, tensor<2x8x16xf32>, tensor<16x24xf32>
// SHARED-NEXT: %[[S1:.*]] = tpc.add %[[S2]], %[[DW1]] : tensor<16x24xf32>
// SHARED: tpc.accumulate_grad @h.0.attn.c_attn.weight, %[[S1]] : tensor<16x24xf32>
// SHARED: tpc.accumulate_grad @wte

// StagFormer with separate weights, cross-attention window and dropout: the
// cross-attention grad op carries the forward op's attributes; stack 2's kv
// gradient reaches stack 1's final activations through c_kv's f.
// SEPARATE-LABEL: func.func @train_step
// SEPARATE: tpc.cross_attention %{{.*}}, %{{.*}} heads 1 window 4 dropout 1.000000e-01 key [[KEY:[0-9]+]] head_parallel
// SEPARATE: %[[DQ:.*]], %[[DKV:.*]] = tpc.cross_attention_grad %{{.*}}, %{{.*}}, %{{.*}} heads 1 window 4 dropout 1.000000e-01 key [[KEY]] head_parallel : tensor<2x8x8xf32>, tensor<2x8x8xf32>, tensor<2x8x16xf32>
// SEPARATE-NEXT: %[[DS1:.*]], %[[DKVW:.*]], %[[DKVB:.*]] = tpc.linear_grad %[[DKV]], {{.*}} bias
// SEPARATE-NEXT: tpc.all_reduce %[[DS1]] sum group tp
// SEPARATE: tpc.accumulate_grad @s2.h.0.xattn.c_kv.weight, %[[DKVW]] : tensor<16x16xf32>
// SEPARATE: tpc.linear_grad %[[DQ]]
// SEPARATE-NEXT: tpc.all_reduce %{{.*}} sum group tp
// SEPARATE: tpc.accumulate_grad @s1.h.0.attn.c_attn.weight
