// A shared-weights StagFormer whose logits read its last stack gets
// @decode_recurrent beside @decode_step: one pass of the last stack per
// token, its self-attention continuing decode_step's caches of that stack
// (same `cache` names), its cross-attention reading a memory of earlier
// tokens' final activations (lagged: the previous token's arrives with this
// one). decode_step also returns the last stack's final activation.
// RUN: tpc-model stagformer --stacks 2 --layers 2 --hidden 16 --heads 2 --vocab 32 --seq 8 --shared-weights \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode | FileCheck %s
// Separate weights, or logits that read every stack (alpha), get none.
// RUN: tpc-model stagformer --stacks 2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=NONE
// RUN: tpc-model stagformer --stacks 3 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 --shared-weights \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=NONE
// RUN: tpc-model gpt2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=NONE
// Three stacks without alpha read the last one: the memory is the second
// stack's final activation in decode_step and the previous token's here.
// RUN: tpc-model stagformer --stacks 3 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 --shared-weights --no-alpha \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=THREE
// Llama blocks at tp 2: grouped attention, f and g in the pass.
// RUN: tpc-model stagformer --blocks llama --stacks 2 --layers 1 --hidden 16 --heads 2 --kv-heads 2 --intermediate 24 --vocab 32 --seq 8 --shared-weights \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-decode | FileCheck %s --check-prefix=LLAMA

// CHECK-LABEL: func.func @decode_step(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>) -> (tensor<1x1x128xf32>, tensor<1x1x16xf32>)
// The first stack's caches are decode_step's alone.
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 2 capacity 8 head_parallel :
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 2 capacity 8 head_parallel :
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 2 capacity 8 head_parallel cache "stack.0" :
// CHECK:       tpc.decode_cross_attention %{{.*}}, %{{.*}}, %arg1 heads 2 capacity 8 head_parallel :
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 2 capacity 8 head_parallel cache "stack.1" :
// CHECK:       tpc.decode_cross_attention %{{.*}}, %{{.*}}, %arg1 heads 2 capacity 8 head_parallel :
// CHECK:       tpc.get_param @ln_f.weight
// CHECK-NEXT:  tpc.get_param @ln_f.bias
// CHECK-NEXT:  tpc.layernorm %[[FINAL:[0-9]+]],
// CHECK:       %[[ROW:.*]] = tpc.all_gather
// CHECK-NEXT:  return %[[ROW]], %[[FINAL]] : tensor<1x1x128xf32>, tensor<1x1x16xf32>

// CHECK-LABEL: func.func @decode_recurrent(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>, %arg2: tensor<1x1x16xf32>) -> (tensor<1x1x128xf32>, tensor<1x1x16xf32>)
// CHECK:       tpc.embedding %{{.*}}, %arg0 vocab_parallel
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 2 capacity 8 head_parallel cache "stack.0" :
// CHECK:       tpc.get_param @s2.h.0.xattn.c_kv.weight
// CHECK-NEXT:  tpc.get_param @s2.h.0.xattn.c_kv.bias
// CHECK-NEXT:  %[[M0:.*]] = tpc.f %arg2 group tp
// CHECK-NEXT:  %[[KV0:.*]] = tpc.linear %[[M0]],
// CHECK-NEXT:  tpc.decode_cross_attention %{{.*}}, %[[KV0]], %arg1 heads 2 capacity 8 head_parallel lagged :
// CHECK:       tpc.decode_attention %{{.*}}, %arg1 heads 2 capacity 8 head_parallel cache "stack.1" :
// CHECK:       tpc.decode_cross_attention %{{.*}}, %{{.*}}, %arg1 heads 2 capacity 8 head_parallel lagged :
// CHECK:       tpc.get_param @ln_f.weight
// CHECK-NEXT:  tpc.get_param @ln_f.bias
// CHECK-NEXT:  tpc.layernorm %[[NEXT:[0-9]+]],
// CHECK:       %[[ROW2:.*]] = tpc.all_gather
// CHECK-NEXT:  return %[[ROW2]], %[[NEXT]] : tensor<1x1x128xf32>, tensor<1x1x16xf32>

// NONE:     func.func @decode_step(%arg0: tensor<1x1xi32>, %arg1: tensor<i32>) -> tensor<1x1x128xf32>
// NONE-NOT: decode_recurrent
// NONE-NOT: cache "

// THREE-LABEL: func.func @decode_step
// THREE-COUNT-2: tpc.decode_attention {{.*}} head_parallel :
// THREE:         tpc.decode_cross_attention {{.*}} head_parallel :
// THREE:         tpc.decode_attention {{.*}} head_parallel cache "stack.0" :
// THREE:         tpc.decode_cross_attention {{.*}} head_parallel :
// THREE-LABEL:   func.func @decode_recurrent
// THREE:         tpc.decode_attention {{.*}} head_parallel cache "stack.0" :
// THREE:         tpc.f %arg2 group tp
// THREE-NEXT:    tpc.linear
// THREE-NEXT:    tpc.decode_cross_attention {{.*}} lagged
// THREE-NOT:     tpc.decode_
// THREE:         return

// LLAMA-LABEL: func.func @decode_step
// LLAMA:       tpc.decode_grouped_attention {{.*}} heads 1 kv_heads 1 capacity 8 rope 1.000000e+04 head_parallel :
// LLAMA:       tpc.decode_grouped_attention {{.*}} heads 1 kv_heads 1 capacity 8 rope 1.000000e+04 head_parallel cache "stack.0" :
// LLAMA-LABEL: func.func @decode_recurrent
// LLAMA:       tpc.decode_grouped_attention {{.*}} cache "stack.0" :
// LLAMA:       tpc.decode_cross_attention {{.*}} rope 1.000000e+04 head_parallel lagged :
// LLAMA:       tpc.all_gather {{.*}} group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>
