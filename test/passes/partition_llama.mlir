// Llama blocks under the Megatron rule: q, k and v (and gate and up) are
// column-parallel nn.Linear weights [out, in], split along dimension 0 into
// whole heads and key/value heads, o_proj and down_proj row-parallel (dimension
// 1); each block's columns share one f, so a layer keeps 2 f and 2 g.
// RUN: tpc-opt %S/Inputs/llama.mlir --tpc-megatron-shard=tp=2 --tpc-partition | FileCheck %s --check-prefix=TP2
// RUN: tpc-opt %S/Inputs/llama.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.f %" | count 3
// RUN: tpc-opt %S/Inputs/llama.mlir --tpc-megatron-shard=tp=2 --tpc-partition | grep "= tpc.g %" | count 3
// tp = 4 exceeds the 2 key/value heads: every rank keeps both (k_proj and
// v_proj replicated, each behind an f whose backward sums the ranks' parts of
// their gradients) and its one query head reads the key/value head of its
// global index.
// RUN: tpc-opt %S/Inputs/llama.mlir --tpc-megatron-shard=tp=4 --tpc-partition | FileCheck %s --check-prefix=TP4
// RUN: tpc-opt %S/Inputs/llama.mlir --tpc-megatron-shard=tp=4 --tpc-partition | grep "= tpc.f %" | count 5
// RUN: tpc-model llama --layers 1 --hidden 48 --heads 12 --kv-heads 4 --intermediate 32 --vocab 67 --seq 8 | not tpc-opt --tpc-megatron-shard=tp=6 2>&1 | FileCheck %s --check-prefix=KV

// TP2: tpc.param @model.embed_tokens.weight : tensor<256x32xf32> {{.*}} layout <split 0> {vocab_size = 67 : i64}
// TP2: tpc.param @model.layers.0.input_layernorm.weight : tensor<32xf32> init <ones> layout <replicated>
// TP2: tpc.param @model.layers.0.self_attn.q_proj.weight : tensor<32x32xf32> {{.*}} layout <split 0>
// TP2: tpc.param @model.layers.0.self_attn.k_proj.weight : tensor<16x32xf32> {{.*}} layout <split 0>
// TP2: tpc.param @model.layers.0.self_attn.v_proj.weight : tensor<16x32xf32> {{.*}} layout <split 0>
// TP2: tpc.param @model.layers.0.self_attn.o_proj.weight : tensor<32x32xf32> {{.*}} layout <split 1>
// TP2: tpc.param @model.layers.0.mlp.gate_proj.weight : tensor<48x32xf32> {{.*}} layout <split 0>
// TP2: tpc.param @model.layers.0.mlp.up_proj.weight : tensor<48x32xf32> {{.*}} layout <split 0>
// TP2: tpc.param @model.layers.0.mlp.down_proj.weight : tensor<32x48xf32> {{.*}} layout <split 1>
// TP2: tpc.param @lm_head.weight : tensor<256x32xf32> {{.*}} layout <split 0> {vocab_size = 67 : i64}

// TP2-LABEL: func.func @forward
// TP2: %[[X:.*]] = tpc.rmsnorm
// TP2: %[[F:.*]] = tpc.f %[[X]] group tp : tensor<?x?x32xf32>
// TP2-NEXT: %[[Q:.*]] = tpc.linear %[[F]], %{{.*}} transposed : tensor<?x?x32xf32>, tensor<16x32xf32>
// TP2: %[[K:.*]] = tpc.linear %[[F]], %{{.*}} transposed : tensor<?x?x32xf32>, tensor<8x32xf32>
// TP2: %[[V:.*]] = tpc.linear %[[F]], %{{.*}} transposed : tensor<?x?x32xf32>, tensor<8x32xf32>
// TP2-NEXT: %[[A:.*]] = tpc.grouped_attention %[[Q]], %[[K]], %[[V]] heads 2 kv_heads 1 causal rope 1.000000e+04 head_parallel : tensor<?x?x16xf32>, tensor<?x?x8xf32>
// TP2: %[[O:.*]] = tpc.linear %[[A]], %{{.*}} transposed : tensor<?x?x16xf32>, tensor<32x16xf32>
// TP2-NEXT: tpc.g %[[O]] group tp
// TP2: %[[Y:.*]] = tpc.rmsnorm
// TP2: %[[F2:.*]] = tpc.f %[[Y]] group tp
// TP2-NEXT: %[[G:.*]] = tpc.linear %[[F2]], %{{.*}} transposed : tensor<?x?x32xf32>, tensor<24x32xf32>
// TP2: %[[U:.*]] = tpc.linear %[[F2]], %{{.*}} transposed : tensor<?x?x32xf32>, tensor<24x32xf32>
// TP2-NEXT: %[[S:.*]] = tpc.swiglu %[[G]], %[[U]] : tensor<?x?x24xf32>
// TP2: %[[D:.*]] = tpc.linear %[[S]], %{{.*}} transposed : tensor<?x?x24xf32>, tensor<32x24xf32>
// TP2-NEXT: tpc.g %[[D]] group tp
// TP2: tpc.vocab_parallel_cross_entropy

// TP4: tpc.param @model.layers.0.self_attn.q_proj.weight : tensor<32x32xf32> {{.*}} layout <split 0>
// TP4: tpc.param @model.layers.0.self_attn.k_proj.weight : tensor<16x32xf32> {{.*}} layout <replicated>
// TP4: tpc.param @model.layers.0.self_attn.v_proj.weight : tensor<16x32xf32> {{.*}} layout <replicated>
// TP4-LABEL: func.func @forward
// TP4: %[[F:.*]] = tpc.f %{{.*}} group tp : tensor<?x?x32xf32>
// TP4-NEXT: %[[Q:.*]] = tpc.linear %[[F]], %{{.*}} transposed : tensor<?x?x32xf32>, tensor<8x32xf32>
// TP4: %[[WK:.*]] = tpc.get_param @model.layers.0.self_attn.k_proj.weight : tensor<16x32xf32>
// TP4-NEXT: %[[FK:.*]] = tpc.f %[[WK]] group tp : tensor<16x32xf32>
// TP4-NEXT: %[[K:.*]] = tpc.linear %[[F]], %[[FK]] transposed : tensor<?x?x32xf32>, tensor<16x32xf32>
// TP4: %[[WV:.*]] = tpc.get_param @model.layers.0.self_attn.v_proj.weight : tensor<16x32xf32>
// TP4-NEXT: %[[FV:.*]] = tpc.f %[[WV]] group tp : tensor<16x32xf32>
// TP4-NEXT: %[[V:.*]] = tpc.linear %[[F]], %[[FV]] transposed : tensor<?x?x32xf32>, tensor<16x32xf32>
// TP4-NEXT: tpc.grouped_attention %[[Q]], %[[K]], %[[V]] heads 1 kv_heads 2 causal rope 1.000000e+04 head_parallel kv_replicated : tensor<?x?x8xf32>, tensor<?x?x16xf32>

// KV: error: 'tpc.grouped_attention' op has 4 key/value heads, which tp = 6 neither splits (tp divides them) nor replicates (they divide tp, each rank keeping the key/value head its query heads read); choose a tp that divides 4 or a multiple of it
