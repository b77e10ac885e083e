// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer | FileCheck %s --check-prefix=ADAMW
// RUN: tpc-opt %S/Inputs/train_tp2.mlir '--tpc-optimizer=max-grad-norm=0 beta1=0.8 beta2=0.99 eps=1e-6 weight-decay=0.01' | FileCheck %s --check-prefix=NOCLIP
// RUN: tpc-opt %S/Inputs/train_tp2.mlir '--tpc-optimizer=optimizer=sgd momentum=0.9 weight-decay=0.0001 max-grad-norm=0.5' | FileCheck %s --check-prefix=SGD
// RUN: tpc-opt %S/Inputs/train_tp2.mlir '--tpc-optimizer=decay-1d=true' | FileCheck %s --check-prefix=DECAY1D
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-data-parallel=bucket-bytes=2304 --tpc-optimizer | FileCheck %s --check-prefix=DP
// RUN: tpc-opt %S/Inputs/train_tp2.mlir --tpc-optimizer --tpc-data-parallel=bucket-bytes=2304 | FileCheck %s --check-prefix=DP
// RUN: tpc-opt %s --tpc-optimizer | FileCheck %s --check-prefix=REPLICATED
//
// GPT-2 (L = 2), tp = 2: 13 split and 15 replicated parameters; one tp
// all-reduce of one scalar for the norm, no dp collective without dp.
// RUN: tpc-opt %S/Inputs/gpt2.mlir --tpc-megatron-shard=tp=2 --tpc-partition --tpc-data-parallel --tpc-optimizer > %t.gpt2
// RUN: grep -c "tpc.adamw_update @" %t.gpt2 | grep -x 28
// RUN: grep -c "tpc.get_grad @" %t.gpt2 | grep -x 28
// RUN: grep -c "tpc.all_reduce" %t.gpt2 | grep -x 1
// RUN: not grep "group dp" %t.gpt2
// RUN: FileCheck %s --check-prefix=GPT2 < %t.gpt2

// The default: AdamW, clipping at 1.0, weight decay 0.1 on the matrices
// only. Split parameters' sums of squares are all-reduced over tp (one
// scalar); the replicated ones, equal on every rank, are added once.
// ADAMW-LABEL: func.func @apply_step
// ADAMW-SAME: (%[[LR:.*]]: tensor<f32>, %[[INV:.*]]: tensor<f32>) -> tensor<f32>
// ADAMW-NEXT: %[[WTE:.*]] = tpc.get_grad @wte : tensor<128x16xf32>
// ADAMW-NEXT: %[[FCW:.*]] = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x32xf32>
// ADAMW-NEXT: %[[FCB:.*]] = tpc.get_grad @h.0.mlp.c_fc.bias : tensor<32xf32>
// ADAMW-NEXT: %[[PW:.*]] = tpc.get_grad @h.0.mlp.c_proj.weight : tensor<32x16xf32>
// ADAMW-NEXT: %[[PB:.*]] = tpc.get_grad @h.0.mlp.c_proj.bias : tensor<16xf32>
// ADAMW-NEXT: %[[LNW:.*]] = tpc.get_grad @ln_f.weight : tensor<16xf32>
// ADAMW-NEXT: %[[LNB:.*]] = tpc.get_grad @ln_f.bias : tensor<16xf32>
// ADAMW-NEXT: %[[SPLIT:.*]] = tpc.sum_squares %[[WTE]], %[[FCW]], %[[FCB]], %[[PW]] : tensor<128x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>
// ADAMW-NEXT: %[[SPLITALL:.*]] = tpc.all_reduce %[[SPLIT]] sum group tp : tensor<f32>
// ADAMW-NEXT: %[[REP:.*]] = tpc.sum_squares %[[PB]], %[[LNW]], %[[LNB]] : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
// ADAMW-NEXT: %[[SQ:.*]] = tpc.add %[[SPLITALL]], %[[REP]] : tensor<f32>
// ADAMW-NEXT: %[[NORM:.*]], %[[SCALE:.*]] = tpc.grad_norm %[[SQ]], %[[INV]] max_norm 1.000000e+00
// ADAMW-NEXT: tpc.adamw_update @wte, %[[WTE]], %[[LR]], %[[SCALE]] beta1 9.000000e-01 beta2 0.94999999999999996 eps 1.000000e-08 weight_decay 1.000000e-01 : tensor<128x16xf32>
// ADAMW-NEXT: tpc.adamw_update @h.0.mlp.c_fc.weight, %[[FCW]], %[[LR]], %[[SCALE]] {{.*}} weight_decay 1.000000e-01 : tensor<16x32xf32>
// ADAMW-NEXT: tpc.adamw_update @h.0.mlp.c_fc.bias, %[[FCB]], %[[LR]], %[[SCALE]] {{.*}} weight_decay 0.000000e+00 : tensor<32xf32>
// ADAMW-NEXT: tpc.adamw_update @h.0.mlp.c_proj.weight, %[[PW]], %[[LR]], %[[SCALE]] {{.*}} weight_decay 1.000000e-01 : tensor<32x16xf32>
// ADAMW-NEXT: tpc.adamw_update @h.0.mlp.c_proj.bias, %[[PB]], %[[LR]], %[[SCALE]] {{.*}} weight_decay 0.000000e+00 : tensor<16xf32>
// ADAMW-NEXT: tpc.adamw_update @ln_f.weight, %[[LNW]], %[[LR]], %[[SCALE]] {{.*}} weight_decay 0.000000e+00 : tensor<16xf32>
// ADAMW-NEXT: tpc.adamw_update @ln_f.bias, %[[LNB]], %[[LR]], %[[SCALE]] {{.*}} weight_decay 0.000000e+00 : tensor<16xf32>
// ADAMW-NEXT: return %[[NORM]] : tensor<f32>

// Without clipping the scale is inv_count alone; options reach every update.
// NOCLIP-LABEL: func.func @apply_step
// NOCLIP: %[[NORM:.*]], %[[SCALE:.*]] = tpc.grad_norm %{{.*}}, %{{.*}}{{$}}
// NOCLIP-NEXT: tpc.adamw_update @wte, %{{.*}}, %{{.*}}, %[[SCALE]] beta1 8.000000e-01 beta2 0.98999999999999999 eps 9.9999999999999995E-7 weight_decay 1.000000e-02 : tensor<128x16xf32>
// NOCLIP: tpc.adamw_update @ln_f.bias, {{.*}} beta1 8.000000e-01 beta2 0.98999999999999999 eps 9.9999999999999995E-7 weight_decay 0.000000e+00 : tensor<16xf32>
// NOCLIP-NEXT: return %[[NORM]] : tensor<f32>

// SGD-LABEL: func.func @apply_step
// SGD: %[[NORM:.*]], %[[SCALE:.*]] = tpc.grad_norm %{{.*}}, %{{.*}} max_norm 5.000000e-01
// SGD-NEXT: tpc.sgd_update @wte, %{{.*}}, %{{.*}}, %[[SCALE]] momentum 9.000000e-01 weight_decay 1.000000e-04 : tensor<128x16xf32>
// SGD-NEXT: tpc.sgd_update @h.0.mlp.c_fc.weight, {{.*}} momentum 9.000000e-01 weight_decay 1.000000e-04 : tensor<16x32xf32>
// SGD-NEXT: tpc.sgd_update @h.0.mlp.c_fc.bias, {{.*}} momentum 9.000000e-01 weight_decay 0.000000e+00 : tensor<32xf32>
// SGD-NOT: adamw_update

// DECAY1D-LABEL: func.func @apply_step
// DECAY1D-COUNT-7: weight_decay 1.000000e-01
// DECAY1D-NOT: weight_decay 0.000000e+00

// tpc-data-parallel and tpc-optimizer in either order: the dp buckets come
// first, the norm's only collective is over tp.
// DP-LABEL: func.func @apply_step
// DP-SAME: -> tensor<f32>
// DP-NEXT: tpc.bucket_all_reduce [@ln_f.bias, @ln_f.weight, @h.0.mlp.c_proj.bias, @h.0.mlp.c_proj.weight] group dp
// DP-NEXT: tpc.bucket_all_reduce [@h.0.mlp.c_fc.bias, @h.0.mlp.c_fc.weight] group dp
// DP-NEXT: tpc.bucket_all_reduce [@wte] group dp
// DP-NEXT: tpc.get_grad @wte
// DP-NOT: group dp
// DP: tpc.all_reduce %{{.*}} sum group tp : tensor<f32>
// DP-NOT: group dp
// DP: return

// GPT2-LABEL: func.func @apply_step
// GPT2-COUNT-28: tpc.get_grad
// GPT2-NEXT: tpc.sum_squares {{.*}} : tensor<128x16xf32>, tensor<16x24xf32>, tensor<24xf32>, tensor<8x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>, tensor<16x24xf32>, tensor<24xf32>, tensor<8x16xf32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x16xf32>{{$}}
// GPT2-NEXT: tpc.all_reduce {{.*}} sum group tp : tensor<f32>
// GPT2-NEXT: tpc.sum_squares {{.*}} : tensor<32x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>{{$}}
// GPT2-NEXT: tpc.add
// GPT2-NEXT: tpc.grad_norm

// A module with no split parameter (never sharded, tp = 1): no all-reduce
// at all, and no add.
// REPLICATED-LABEL: func.func @apply_step
// REPLICATED-NEXT: %[[W:.*]] = tpc.get_grad @w : tensor<4x8xf32>
// REPLICATED-NEXT: %[[B:.*]] = tpc.get_grad @b : tensor<8xf32>
// REPLICATED-NEXT: %[[SQ:.*]] = tpc.sum_squares %[[W]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>
// REPLICATED-NEXT: %[[NORM:.*]], %[[SCALE:.*]] = tpc.grad_norm %[[SQ]], %{{.*}} max_norm 1.000000e+00
// REPLICATED-NEXT: tpc.adamw_update @w
// REPLICATED-NEXT: tpc.adamw_update @b
// REPLICATED-NEXT: return %[[NORM]]
tpc.param @w : tensor<4x8xf32> init <normal, std = 0.02>
tpc.param @b : tensor<8xf32> init <zeros>
