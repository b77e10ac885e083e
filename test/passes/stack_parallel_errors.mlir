// tpc-stack-parallel refuses what it cannot split into stacks.
// A model without stacks:
// RUN: tpc-model gpt2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | not tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode --tpc-stack-parallel 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GPT2
// GPT2: error: 'func.func' op cannot be split into stacks: it has no cross-attention between stacks; --stack-parallel decodes a StagFormer (tpc-model stagformer), whose stacks cross-attend to the previous stack
// No decode_step yet:
// RUN: tpc-model stagformer --stacks 2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | not tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-stack-parallel 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ORDER
// ORDER: error: tpc-stack-parallel needs @decode_step; run tpc-decode first
// Twice:
// RUN: tpc-model stagformer --stacks 2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | not tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode --tpc-stack-parallel --tpc-stack-parallel 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// TWICE: error: module already has @decode_head; run tpc-stack-parallel once
// Data-parallel: the stacks take dp's place.
// RUN: tpc-model stagformer --stacks 2 --layers 1 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=1 seq=8' --tpc-megatron-shard=tp=1 --tpc-partition --tpc-decode \
// RUN:   | sed 's/{tpc.tp = 1 : i64}/{tpc.dp = 2 : i64, tpc.tp = 1 : i64}/' \
// RUN:   | not tpc-opt --tpc-stack-parallel 2>&1 | FileCheck %s --check-prefix=DP
// DP: error: --stack-parallel places the stacks where data parallelism would go, but the module is data-parallel over dp = 2; compile it with --dp=1
