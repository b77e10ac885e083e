// tpc-pipeline-cut tags every op of @forward with its chunk: the embedding
// with the first layer's chunk, the final norm, output layer and loss with
// the last one's; the tied table's read is cloned into the last chunk; the
// module records the cut. Autodiff then carries the chunks to the backward,
// accumulating each copy of the tied table's gradient in its own chunk.
// RUN: tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2" | FileCheck %s
// RUN: tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2" --tpc-autodiff | FileCheck %s --check-prefix=GRAD
// RUN: not tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2 layout=2,0" 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: not tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-pipeline-cut="stages=2" --tpc-pipeline-cut="stages=2" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-autodiff --tpc-pipeline-cut="stages=2" 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not tpc-opt %tpc_src_root/models/gpt2-tiny.mlir --tpc-specialize="batch=1 seq=8" --tpc-megatron-shard=tp=1 --tpc-partition --tpc-autodiff --tpc-optimizer --tpc-pipeline 2>&1 | FileCheck %s --check-prefix=UNCUT

// CHECK: module attributes {tpc.pipeline = {layers = array<i64: 1, 1>, stages = 2 : i64, virtual_stages = 1 : i64}
// CHECK-LABEL: func.func @forward
// CHECK-NEXT: tpc.get_param @wte {tpc.chunk = 0 : i64}
// CHECK-NEXT: tpc.embedding {{.*}} {tpc.chunk = 0 : i64}
// CHECK: tpc.get_param @h.0.ln_1.weight {tpc.chunk = 0 : i64}
// CHECK: tpc.get_param @h.1.ln_1.weight {tpc.chunk = 1 : i64}
// CHECK: tpc.get_param @ln_f.weight {tpc.chunk = 1 : i64}
// CHECK: [[WTE:%.*]] = tpc.get_param @wte {tpc.chunk = 1 : i64}
// CHECK-NEXT: tpc.linear {{%.*}}, [[WTE]] transposed {tpc.chunk = 1 : i64}
// CHECK-NEXT: tpc.vocab_parallel_cross_entropy {{.*}} {tpc.chunk = 1 : i64}

// GRAD-LABEL: func.func @train_step
// GRAD: tpc.vocab_parallel_cross_entropy_grad {{.*}} {tpc.chunk = 1 : i64}
// GRAD: tpc.accumulate_grad @wte, {{%.*}} {tpc.chunk = 1 : i64}
// GRAD: tpc.layernorm_grad {{.*}} {tpc.chunk = 0 : i64}
// GRAD: tpc.accumulate_grad @wte, {{%.*}} {tpc.chunk = 0 : i64}

// LAYOUT: error: --pipeline-layout '2,0': '0' is not a layer count >= 1; give the layers of each chunk, comma-separated, e.g. 3,5,5,3
// TWICE: error: the module is already cut into pipeline chunks; run tpc-pipeline-cut once
// AFTER: error: tpc-pipeline-cut runs before tpc-autodiff, which carries the chunks into @train_step
// UNCUT: error: tpc-pipeline needs the chunks of tpc-pipeline-cut (the module has no tpc.pipeline)
