// GPT-2 (L=2, H=32, 4 heads, V=100, dropout 0.1), partitioned for tp=2, then
// differentiated. The backward collectives come from the VJPs of f and g
// alone: one all-reduce per f (two per layer and one for the output layer,
// 2L+1 = 5), none per g; the loss gradient exchanges its own statistics.
// RUN: tpc-model gpt2 --layers 2 --hidden 32 --heads 4 --vocab 100 --seq 16 --dropout 0.1 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff > %t
// RUN: FileCheck %s < %t
// RUN: grep "tpc.all_reduce" %t | count 5
// RUN: grep "tpc.all_reduce .* sum group tp" %t | count 5
// Every one of the 28 parameters gets exactly one accumulate_grad.
// RUN: grep "tpc.param @" %t | count 28
// RUN: grep "tpc.accumulate_grad @" %t | count 28
// RUN: grep -o "tpc.accumulate_grad @[^,]*" %t | sort -u | count 28
// The same at tp=1: the program has the same shape.
// RUN: tpc-model gpt2 --layers 2 --hidden 32 --heads 4 --vocab 100 --seq 16 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-autodiff \
// RUN:   | grep "tpc.all_reduce .* sum group tp" | count 5
// Three layers: 2L+1 = 7.
// RUN: tpc-model gpt2 --layers 3 --hidden 32 --heads 4 --vocab 100 --seq 16 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff \
// RUN:   | grep "tpc.all_reduce .* sum group tp" | count 7

// forward is kept for evaluation and generation, logits and all.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>)
// CHECK-NOT: _grad
// CHECK: return

// The forward part of train_step: the ops of forward.
// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[TOKENS:.*]]: tensor<2x8xi32>, %[[TARGETS:.*]]: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>)
// CHECK: %[[WTE:.*]] = tpc.get_param @wte : tensor<128x32xf32>
// CHECK: tpc.dropout %{{.*}} p 1.000000e-01 replicated key 1 : tensor<2x8x32xf32>
// CHECK: tpc.self_attention %{{.*}} heads 2 causal dropout 1.000000e-01 key 2 head_parallel
// CHECK: %[[LOGITS:.*]] = tpc.linear %[[OUTF:[0-9]+]], %[[WTE]] transposed
// CHECK: %[[SUM:.*]], %[[COUNT:.*]] = tpc.vocab_parallel_cross_entropy %[[LOGITS]], %[[TARGETS]]
// CHECK-NOT: tpc.all_reduce

// Backward: seed, loss gradient, the output layer and its f.
// CHECK: %[[ONE:.*]] = tpc.fill 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[DLOGITS:.*]] = tpc.vocab_parallel_cross_entropy_grad %[[LOGITS]], %[[TARGETS]], %[[ONE]] vocab 100 ignore_index -1
// CHECK-NEXT: %[[DN:.*]], %[[DWTE_OUT:.*]] = tpc.linear_grad %[[DLOGITS]], %[[OUTF]], %[[WTE]] transposed : tensor<2x8x128xf32>, tensor<2x8x32xf32>, tensor<128x32xf32>
// CHECK-NEXT: %[[DNR:.*]] = tpc.all_reduce %[[DN]] sum group tp
// CHECK-NEXT: tpc.layernorm_grad %[[DNR]]
// CHECK-NOT: tpc.all_reduce

// Layer 1 MLP: the residual dropout redraws its forward mask (key 7); the
// row-parallel c_proj's g has no backward collective; c_fc's f has one.
// CHECK: tpc.dropout %{{.*}} p 1.000000e-01 replicated key 7 : tensor<2x8x32xf32>
// CHECK-NEXT: tpc.bias_add_grad
// CHECK-NEXT: %[[DU:.*]], %{{.*}} = tpc.linear_grad %{{.*}} : tensor<2x8x32xf32>, tensor<2x8x64xf32>, tensor<64x32xf32>
// CHECK-NOT: tpc.all_reduce
// CHECK: %[[DG:.*]] = tpc.gelu_grad %[[DU]], %{{.*}} : tensor<2x8x64xf32>
// CHECK-NEXT: %[[DM:.*]], %{{.*}}, %{{.*}} = tpc.linear_grad %[[DG]], {{.*}} bias : tensor<2x8x64xf32>, tensor<2x8x32xf32>, tensor<32x64xf32>
// CHECK-NEXT: tpc.all_reduce %[[DM]] sum group tp : tensor<2x8x32xf32>
// CHECK-NOT: tpc.all_reduce

// Layer 1 attention; the grad op carries the forward op's attributes.
// CHECK: tpc.dropout %{{.*}} key 6
// CHECK-NOT: tpc.all_reduce
// CHECK: %[[DQKV:.*]] = tpc.self_attention_grad %{{.*}} heads 2 causal dropout 1.000000e-01 key 5 head_parallel : tensor<2x8x16xf32>, tensor<2x8x48xf32>
// CHECK-NEXT: %[[DA:.*]], %{{.*}}, %{{.*}} = tpc.linear_grad %[[DQKV]], {{.*}} bias
// CHECK-NEXT: tpc.all_reduce %[[DA]] sum group tp
// CHECK-NOT: tpc.all_reduce

// Layer 0, the same.
// CHECK: tpc.dropout %{{.*}} key 4
// CHECK-NOT: tpc.all_reduce
// CHECK: tpc.gelu_grad
// CHECK-NEXT: tpc.linear_grad
// CHECK-NEXT: tpc.all_reduce %{{.*}} sum group tp
// CHECK-NOT: tpc.all_reduce
// CHECK: tpc.dropout %{{.*}} key 3
// CHECK-NOT: tpc.all_reduce
// CHECK: tpc.self_attention_grad %{{.*}} key 2 head_parallel
// CHECK-NEXT: tpc.linear_grad
// CHECK-NEXT: tpc.all_reduce %{{.*}} sum group tp
// CHECK-NOT: tpc.all_reduce

// Embeddings: the embedding's g has no backward collective. The tied wte,
// read once and used twice, accumulates the sum of both contributions.
// CHECK: %[[DX:.*]] = tpc.dropout %{{.*}} p 1.000000e-01 replicated key 1 : tensor<2x8x32xf32>
// CHECK-NEXT: %[[DWPE:.*]] = tpc.position_embedding_grad %[[DX]] : tensor<2x8x32xf32> -> tensor<16x32xf32>
// CHECK-NEXT: tpc.accumulate_grad @wpe, %[[DWPE]] : tensor<16x32xf32>
// CHECK-NEXT: %[[DWTE_IN:.*]] = tpc.embedding_grad %[[DX]], %[[TOKENS]] vocab_parallel : tensor<2x8x32xf32>, tensor<2x8xi32> -> tensor<128x32xf32>
// CHECK-NEXT: %[[DWTE:.*]] = tpc.add %[[DWTE_OUT]], %[[DWTE_IN]] : tensor<128x32xf32>
// CHECK-NEXT: tpc.accumulate_grad @wte, %[[DWTE]] : tensor<128x32xf32>
// CHECK-NEXT: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>
