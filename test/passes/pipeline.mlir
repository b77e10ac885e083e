// tpc-pipeline splits the step of a 2-layer GPT-2 cut into 2 chunks: per
// chunk F (takes the data, receives with tpc.recv what the previous chunk
// sends, sends with tpc.send what the next one reads; returns the loss on
// the last chunk, then what its B and W keep), B (kept values marked
// tpc.from [role, result]; receives and sends gradients) and W (kept values
// only); an eval function per chunk; an apply_step per stage.
// tpc-plan-memory plans a chunk's three functions as one arena and places
// their arguments.
// RUN: tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2" --tpc-autodiff --tpc-optimizer --tpc-split-weight-grad --tpc-pipeline="schedule=zb-h1 micro-batches=2" --tpc-plan-memory | FileCheck %s
// RUN: not tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2" --tpc-autodiff --tpc-optimizer --tpc-pipeline="schedule=gpipe" 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2 virtual-stages=1" --tpc-autodiff --tpc-optimizer --tpc-pipeline="schedule=interleaved micro-batches=2" 2>&1 | FileCheck %s --check-prefix=INTERLEAVED
// RUN: not tpc-opt %tpc_src_root/models/bigram-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2" 2>&1 | FileCheck %s --check-prefix=NOLAYERS

// CHECK: tpc.pipeline = {layers = array<i64: 1, 1>, micro_batches = 2 : i64, schedule = "zb-h1", slots = array<i64: 2, 2>, stages = 2 : i64, virtual_stages = 1 : i64}
// CHECK-SAME: tpc.pipeline_actions = ["F0.0 sa0.0 rg0.0 F0.1 sa0.1 rg0.1 B0.0 W0.0 B0.1 W0.1", "ra1.0 ra1.1 F1.0 B1.0 sg1.0 F1.1 B1.1 sg1.1 W1.0 W1.1"]
// CHECK-LABEL: func.func @chunk0_forward(%arg0: tensor<1x8xi32>, %arg1: tensor<1x8xi32>) -> (tensor<1x8x256xf32>,
// CHECK-SAME: tpc.arena_bytes = [[ARENA0:[0-9]+]] : i64, tpc.arg_offsets = array<i64: {{[0-9]+}}, {{[0-9]+}}>
// CHECK-SAME: tpc.chunk_function = {chunk = 0 : i64, role = 0 : i64}
// CHECK-NOT: tpc.chunk =
// CHECK: tpc.send {{%.*}} to chunk 1 index 0 : tensor<1x8x64xf32>
// CHECK-NEXT: return {{.*}}, %arg0 :
// CHECK-LABEL: func.func @chunk0_backward_input() -> tensor<1x8x64xf32>
// CHECK-SAME: tpc.arena_bytes = [[ARENA0]] : i64
// CHECK-SAME: tpc.chunk_function = {chunk = 0 : i64, role = 1 : i64}
// CHECK-NEXT: [[DX:%.*]] = tpc.recv from chunk 1 index 0 grad {tpc.offsets = array<i64: {{[0-9]+}}>} : tensor<1x8x64xf32>
// CHECK-NEXT: return [[DX]]
// CHECK-LABEL: func.func @chunk0_backward_weight(%arg0: tensor<1x8x64xf32> {tpc.from = array<i64: 1, 0>}
// CHECK-SAME: tpc.arena_bytes = [[ARENA0]] : i64
// CHECK: tpc.embedding_grad
// CHECK: tpc.accumulate_grad @wte
// CHECK-LABEL: func.func @chunk1_forward(%arg0: tensor<1x8xi32>, %arg1: tensor<1x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<1x8x512xf32>, tensor<1x8xi32>,
// CHECK-SAME: tpc.chunk_function = {chunk = 1 : i64, role = 0 : i64}
// CHECK-NEXT: [[X:%.*]] = tpc.recv from chunk 0 index 0 {tpc.offsets
// CHECK: return %loss_sum, %count, {{%.*}}, %arg1,
// CHECK-SAME: [[X]]
// CHECK-LABEL: func.func @chunk1_backward_input(%arg0: tensor<1x8x512xf32> {tpc.from = array<i64: 0, 2>}, %arg1: tensor<1x8xi32> {tpc.from = array<i64: 0, 3>}
// CHECK: tpc.vocab_parallel_cross_entropy_grad %arg0, %arg1
// CHECK: tpc.linear_input_grad
// CHECK-NOT: tpc.linear_weight_grad
// CHECK: tpc.send {{%.*}} to chunk 0 index 0 grad : tensor<1x8x64xf32>
// CHECK-LABEL: func.func @chunk1_backward_weight(
// CHECK-NOT: tpc.linear_input_grad
// CHECK: tpc.linear_weight_grad
// CHECK-LABEL: func.func @chunk0_eval(%arg0: tensor<1x8xi32>, %arg1: tensor<1x8xi32>) attributes
// CHECK: tpc.send {{%.*}} to chunk 1 index 0 : tensor<1x8x64xf32>
// CHECK-LABEL: func.func @chunk1_eval(%arg0: tensor<1x8xi32>, %arg1: tensor<1x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<1x8x512xf32>)
// CHECK-NEXT: tpc.recv from chunk 0 index 0
// CHECK-LABEL: func.func @stage0_apply_step(
// CHECK-NEXT: tpc.bucket_all_reduce [@wte] group embedding
// CHECK-NOT: @h.1.
// CHECK: tpc.all_reduce {{%.*}} sum group pp
// CHECK-LABEL: func.func @stage1_apply_step(
// CHECK-NEXT: tpc.bucket_all_reduce [@wte] group embedding
// CHECK-NOT: @h.0.
// CHECK: [[SQ:%.*]] = tpc.sum_squares
// CHECK-NOT: tpc.get_grad @wte
// CHECK: tpc.all_reduce {{%.*}} sum group pp
// CHECK: tpc.adamw_update @wte
// CHECK-NOT: func.func @train_step

// SCHEDULE: error: --schedule must be 1f1b, interleaved or zb-h1, got 'gpipe'
// INTERLEAVED: error: the interleaved schedule
// NOLAYERS: error: the model has no transformer layers (residual blocks) to cut into pipeline stages; compile it without --pp
