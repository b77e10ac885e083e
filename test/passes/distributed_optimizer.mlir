// The distributed optimizer (ZeRO stage 1): tpc-data-parallel with
// distributed-optimizer reduce-scatters each bucket, and tpc-optimizer
// completes the norm over dp and gathers each bucket after the updates.
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel="bucket-bytes=2304 distributed-optimizer=true" | FileCheck %s --check-prefix=SCATTER
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel="bucket-bytes=2304 distributed-optimizer=true" --tpc-optimizer | FileCheck %s --check-prefix=STEP
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel="bucket-bytes=2304 distributed-optimizer=true" --tpc-optimizer=optimizer=sgd | FileCheck %s --check-prefix=SGD
// RUN: sed 's/tpc.dp = 4/tpc.dp = 1/' %S/Inputs/train_tp2.mlir | tpc-opt --tpc-data-parallel=distributed-optimizer=true --tpc-optimizer | FileCheck %s --check-prefix=DP1
// RUN: tpc-opt %s --tpc-data-parallel="bucket-bytes=1024 distributed-optimizer=true" | FileCheck %s --check-prefix=COMPUTE
// RUN: tpc-opt %s --tpc-data-parallel="bucket-bytes=1024" | FileCheck %s --check-prefix=GRADONLY
// The optimizer must know the partition when it builds the step.
// RUN: not tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer --tpc-data-parallel=distributed-optimizer=true 2>&1 | FileCheck %s --check-prefix=ORDER
//
// GPT-2 (L = 2) at tp = 2, dp = 2: each of its 28 parameters is
// reduce-scattered once and gathered once, and the norm adds over tp, then dp.
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition | sed 's/{tpc.tp = 2 : i64}/{tpc.dp = 2 : i64, tpc.tp = 2 : i64}/' | tpc-opt --tpc-data-parallel="bucket-bytes=2048 distributed-optimizer=true" --tpc-optimizer > %t.gpt2
// RUN: grep "tpc.bucket_reduce_scatter" %t.gpt2 | grep -o "@[a-z0-9_.]*" | sort -u | count 28
// RUN: grep "tpc.bucket_reduce_scatter" %t.gpt2 | grep -o "@[a-z0-9_.]*" | count 28
// RUN: grep "tpc.bucket_all_gather" %t.gpt2 | grep -o "@[a-z0-9_.]*" | sort -u | count 28
// RUN: grep "tpc.bucket_all_gather" %t.gpt2 | grep -o "@[a-z0-9_.]*" | count 28
// RUN: grep -c "tpc.adamw_update @" %t.gpt2 | grep -x 28
// RUN: not grep "tpc.bucket_all_reduce" %t.gpt2
// RUN: grep "tpc.all_reduce" %t.gpt2 | count 2

// SCATTER-LABEL: func.func @apply_step
// SCATTER-NEXT: tpc.bucket_reduce_scatter [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight] group dp
// SCATTER-NEXT: tpc.bucket_reduce_scatter [@h.0.mlp.c_fc.bias, @h.0.mlp.c_fc.weight] group dp
// SCATTER-NEXT: tpc.bucket_reduce_scatter [@wte] group dp
// SCATTER-NEXT: return

// STEP-LABEL: func.func @apply_step
// STEP-SAME: (%[[LR:.*]]: tensor<f32>, %[[INV:.*]]: tensor<f32>) -> tensor<f32>
// STEP-NEXT: tpc.bucket_reduce_scatter [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight] group dp
// STEP-NEXT: tpc.bucket_reduce_scatter [@h.0.mlp.c_fc.bias, @h.0.mlp.c_fc.weight] group dp
// STEP-NEXT: tpc.bucket_reduce_scatter [@wte] group dp
// STEP-COUNT-7: tpc.get_grad
// STEP-NEXT: %[[SPLIT:.*]] = tpc.sum_squares
// STEP-NEXT: %[[TP:.*]] = tpc.all_reduce %[[SPLIT]] sum group tp : tensor<f32>
// STEP-NEXT: %[[REPL:.*]] = tpc.sum_squares
// STEP-NEXT: %[[SUM:.*]] = tpc.add %[[TP]], %[[REPL]]
// STEP-NEXT: %[[DP:.*]] = tpc.all_reduce %[[SUM]] sum group dp : tensor<f32>
// STEP-NEXT: %[[NORM:.*]], %[[SCALE:.*]] = tpc.grad_norm %[[DP]], %[[INV]]
// STEP-COUNT-7: tpc.adamw_update
// STEP-NEXT: tpc.bucket_all_gather [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight] group dp
// STEP-NEXT: tpc.bucket_all_gather [@h.0.mlp.c_fc.bias, @h.0.mlp.c_fc.weight] group dp
// STEP-NEXT: tpc.bucket_all_gather [@wte] group dp
// STEP-NEXT: return %[[NORM]] : tensor<f32>

// SGD-LABEL: func.func @apply_step
// SGD: tpc.all_reduce %{{.*}} sum group dp
// SGD-COUNT-7: tpc.sgd_update
// SGD-NEXT: tpc.bucket_all_gather [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight] group dp
// SGD-COUNT-2: tpc.bucket_all_gather
// SGD-NEXT: return

// Without data parallelism there is nothing to partition.
// DP1-LABEL: func.func @apply_step
// DP1-NOT: bucket_
// DP1-NOT: group dp
// DP1: return

// The gather moves the copies functions read, so under the partition a
// bucket also closes where the compute type changes (here wpe keeps its
// f32 gradient but computes in bf16).
// COMPUTE-LABEL: func.func @apply_step
// COMPUTE-NEXT: tpc.bucket_reduce_scatter [@ln_f.bias, @ln_f.weight] group dp
// COMPUTE-NEXT: tpc.bucket_reduce_scatter [@wpe] group dp
// COMPUTE-NEXT: return

// GRADONLY-LABEL: func.func @apply_step
// GRADONLY-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight, @wpe] group dp
// GRADONLY-NEXT: return

// ORDER: error: tpc-data-parallel: '@apply_step' already has an optimizer step ('tpc.get_grad'); with distributed-optimizer, run tpc-data-parallel before tpc-optimizer
module attributes {tpc.dp = 2 : i64, tpc.tp = 1 : i64} {
  tpc.param @wpe : tensor<8x16xf32> init <normal, std = 0.02> layout <replicated> compute bf16 grad f32
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros> layout <replicated>
}
