// decode_step of a Llama model: grouped attention becomes its KV-cached
// decode form with the same heads, key/value heads and rotary base; with no
// position table the caches hold the module's context length (tpc.context =
// 16), not the specialized sequence length.
// RUN: tpc-opt %S/Inputs/llama.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-specialize="batch=2 seq=8" --tpc-decode="batch=1" | FileCheck %s

// CHECK-LABEL: func.func @decode_step
// CHECK-SAME: (%[[TOK:.*]]: tensor<1x1xi32>, %[[POS:.*]]: tensor<i32>) -> tensor<1x1x256xf32>
// CHECK: %[[Q:.*]] = tpc.linear {{.*}} transposed : tensor<1x1x32xf32>, tensor<16x32xf32>
// CHECK: %[[K:.*]] = tpc.linear {{.*}} transposed : tensor<1x1x32xf32>, tensor<8x32xf32>
// CHECK: %[[V:.*]] = tpc.linear {{.*}} transposed : tensor<1x1x32xf32>, tensor<8x32xf32>
// CHECK-NEXT: tpc.decode_grouped_attention %[[Q]], %[[K]], %[[V]], %[[POS]] heads 2 kv_heads 1 capacity 16 rope 1.000000e+04 head_parallel : tensor<1x1x16xf32>, tensor<1x1x8xf32>, tensor<i32>
// CHECK: tpc.swiglu
// CHECK: tpc.all_gather {{.*}} dim 2 group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>
// CHECK-NOT: tpc.grouped_attention
