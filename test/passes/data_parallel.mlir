// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel=bucket-bytes=2304 | FileCheck %s --check-prefix=B2304
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel=bucket-bytes=2240 | FileCheck %s --check-prefix=B2304
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel=bucket-bytes=2239 | FileCheck %s --check-prefix=B2239
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel | FileCheck %s --check-prefix=DEFAULT
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel=bucket-bytes=1 | FileCheck %s --check-prefix=ONE
// RUN: sed 's/tpc.dp = 4 : i64, //' %S/Inputs/train_tp2.mlir | tpc-opt --tpc-data-parallel=bucket-bytes=1 | FileCheck %s --check-prefix=DP1
// RUN: sed 's/tpc.dp = 4/tpc.dp = 1/' %S/Inputs/train_tp2.mlir | tpc-opt --tpc-data-parallel | FileCheck %s --check-prefix=DP1
// RUN: tpc-opt %s --tpc-data-parallel=bucket-bytes=1024 | FileCheck %s --check-prefix=DTYPE
//
// GPT-2 (L = 2) after sharding and partitioning for tp = 2, with dp = 2:
// each of its 28 parameters is reduced exactly once, over dp only.
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition | sed 's/{tpc.tp = 2 : i64}/{tpc.dp = 2 : i64, tpc.tp = 2 : i64}/' | tpc-opt --tpc-data-parallel=bucket-bytes=2048 > %t.gpt2
// RUN: grep -c "tpc.param @" %t.gpt2 | grep -x 28
// RUN: grep "tpc.bucket_all_reduce" %t.gpt2 | grep -o "@[a-z0-9_.]*" | count 28
// RUN: grep "tpc.bucket_all_reduce" %t.gpt2 | grep -o "@[a-z0-9_.]*" | sort -u | count 28
// RUN: grep "tpc.bucket_all_reduce" %t.gpt2 | not grep -v "group dp$"
// RUN: FileCheck %s --check-prefix=GPT2 < %t.gpt2

// Reverse parameter order; a bucket closes before it would exceed the bound
// (2240 bytes fill the first bucket exactly); wte (8192 bytes) is larger
// than the bound and travels alone.
// B2304-LABEL: func.func @apply_step
// B2304-SAME: (%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>) {
// B2304-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight] group dp
// B2304-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_fc.bias, @h.0.mlp.c_fc.weight] group dp
// B2304-NEXT: tpc.bucket_all_reduce [@wte] group dp
// B2304-NEXT: return

// One byte less and c_proj.weight starts the second bucket.
// B2239-LABEL: func.func @apply_step
// B2239-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias] group dp
// B2239-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_proj.weight, @h.0.mlp.c_fc.bias] group dp
// B2239-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_fc.weight] group dp
// B2239-NEXT: tpc.bucket_all_reduce [@wte] group dp
// B2239-NEXT: return

// 25 MiB holds the whole model: one all-reduce.
// DEFAULT-LABEL: func.func @apply_step
// DEFAULT-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight, @h.0.mlp.c_fc.bias, @h.0.mlp.c_fc.weight, @wte] group dp
// DEFAULT-NEXT: return

// ONE-LABEL: func.func @apply_step
// ONE-NEXT: tpc.bucket_all_reduce [@ln_f.bias] group dp
// ONE-NEXT: tpc.bucket_all_reduce [@ln_f.weight] group dp
// ONE-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_proj.bias] group dp
// ONE-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_proj.weight] group dp
// ONE-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_fc.bias] group dp
// ONE-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_fc.weight] group dp
// ONE-NEXT: tpc.bucket_all_reduce [@wte] group dp
// ONE-NEXT: return

// Without data parallelism there is nothing to reduce.
// DP1-NOT: apply_step
// DP1-NOT: bucket_all_reduce

// GPT2-LABEL: func.func @apply_step
// GPT2-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight, @h.1.mlp.c_proj.bias] group dp
// GPT2-NEXT: tpc.bucket_all_reduce [@h.1.mlp.c_proj.weight] group dp

// A bucket holds one element type: the bf16 gain closes the f32 bucket
// and opens its own, although all three fit in 1024 bytes.
// DTYPE-LABEL: func.func @apply_step
// DTYPE-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight] group dp
// DTYPE-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_proj.bias] group dp
// DTYPE-NEXT: tpc.bucket_all_reduce [@wpe] group dp
// DTYPE-NEXT: return
module attributes {tpc.dp = 2 : i64, tpc.tp = 1 : i64} {
  tpc.param @wpe : tensor<8x16xf32> init <normal, std = 0.02> layout <replicated>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xbf16> init <zeros> layout <replicated>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros> layout <replicated>
}
