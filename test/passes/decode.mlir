// decode_step at tp = 2 and tp = 1: one position, KV-cached attention with
// the position table's 32 rows as capacity, the f and g of forward (2L+1
// each), no dropout and no loss, and one all_gather of the logits over tp.
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=TP2
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode | sed -n '/func.func @decode_step/,/^  }/p' > %t.tp2
// RUN: grep -c "= tpc.f %" %t.tp2 | grep -x 5
// RUN: grep -c "= tpc.g %" %t.tp2 | grep -x 5
// RUN: grep -c "= tpc.all_gather %" %t.tp2 | grep -x 1
// RUN: grep -c "= tpc.decode_attention %" %t.tp2 | grep -x 2
// RUN: not grep -E "tpc.(dropout|self_attention|vocab_parallel_cross_entropy)" %t.tp2
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode="batch=3" | FileCheck %s --check-prefix=TP1
// RUN: tpc-opt %S/Inputs/gpt2_postnorm_untied.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=UNTIED
// RUN: tpc-opt %S/Inputs/stagformer_separate.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=STAG
// RUN: tpc-opt %S/Inputs/bigram.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=BIGRAM

// forward is kept as it is.
// TP2-LABEL: func.func @forward
// TP2:       tpc.self_attention
// TP2-LABEL: func.func @decode_step
// TP2-SAME:  (%[[TOK:.*]]: tensor<1x1xi32>, %[[POS:.*]]: tensor<i32>) -> tensor<1x1x256xf32>
// TP2:       %[[WTE:.*]] = tpc.get_param @wte : tensor<128x16xf32>
// TP2:       %[[WPE:.*]] = tpc.get_param @wpe : tensor<32x16xf32>
// TP2:       %[[E:.*]] = tpc.embedding %[[WTE]], %[[TOK]] vocab_parallel : tensor<128x16xf32>, tensor<1x1xi32>
// TP2:       tpc.g %[[E]] group tp : tensor<1x1x16xf32>
// TP2:       tpc.position_embedding %[[WPE]], %[[TOK]] offset %[[POS]] : tensor<32x16xf32>, tensor<1x1xi32>, tensor<i32>
// TP2:       %[[QKV:.*]] = tpc.linear %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x16xf32>, tensor<16x24xf32>, tensor<24xf32>
// TP2:       tpc.decode_attention %[[QKV]], %[[POS]] heads 2 capacity 32 head_parallel : tensor<1x1x24xf32>, tensor<i32>
// TP2:       %[[LOGITS:.*]] = tpc.linear %{{.*}}, %[[WTE]] transposed : tensor<1x1x16xf32>, tensor<128x16xf32>
// TP2:       %[[ALL:.*]] = tpc.all_gather %[[LOGITS]] dim 2 group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>
// TP2:       return %[[ALL]] : tensor<1x1x256xf32>

// TP1-LABEL: func.func @decode_step
// TP1-SAME:  (%{{.*}}: tensor<3x1xi32>, %[[POS:.*]]: tensor<i32>) -> tensor<3x1x128xf32>
// TP1:       tpc.decode_attention %{{.*}}, %[[POS]] heads 4 capacity 32 head_parallel : tensor<3x1x48xf32>, tensor<i32>
// TP1:       tpc.all_gather %{{.*}} dim 2 group tp : tensor<3x1x128xf32> -> tensor<3x1x128xf32>

// The untied output layer reads lm_head.weight.
// UNTIED-LABEL: func.func @decode_step
// UNTIED:       tpc.decode_attention
// UNTIED:       %[[HEAD:.*]] = tpc.get_param @lm_head.weight : tensor<128x16xf32>
// UNTIED:       %[[LOGITS:.*]] = tpc.linear %{{.*}}, %[[HEAD]] transposed
// UNTIED:       tpc.all_gather %[[LOGITS]] dim 2 group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>

// StagFormer: stack 2 cross-attends through its own KV cache.
// STAG-LABEL: func.func @decode_step
// STAG:       tpc.decode_attention
// STAG:       tpc.decode_cross_attention %{{.*}}, %{{.*}}, %{{.*}} heads 2 capacity 32 head_parallel : tensor<1x1x8xf32>, tensor<1x1x16xf32>, tensor<i32>
// STAG:       tpc.all_gather

// The bigram table needs no cache and no position.
// BIGRAM-LABEL: func.func @decode_step
// BIGRAM-SAME:  -> tensor<1x1x256xf32>
// BIGRAM-NEXT:  %[[T:.*]] = tpc.get_param @wte : tensor<100x128xf32>
// BIGRAM-NEXT:  %[[L:.*]] = tpc.embedding %[[T]], %{{.*}} : tensor<100x128xf32>, tensor<1x1xi32>
// BIGRAM-NEXT:  %[[ALL:.*]] = tpc.all_gather %[[L]] dim 2 group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>
// BIGRAM-NEXT:  return %[[ALL]]
