// RUN: tpc-opt %s -split-input-file --tpc-cost-report -o /dev/null | FileCheck %s

// A bigram model, unpartitioned: the logits are rows of a [V, V] table.
// 4,096 parameters (16,384 bytes each for weights, gradients, m and v); no
// matrix product, so no FLOPs on the rank; model FLOPs per token 6N =
// 24,576, 786,432 for the 32 tokens of a step. Activations: token ids 128,
// logits 4x8x64 = 8,192, targets 128: 8,448; there are no layers, so
// recompute keeps everything. No collectives.

// CHECK-LABEL: tpc cost report: tp 1 x dp 1 = 1 GPU, micro-batch 4, seq 8, fp32
// CHECK:       parameters (global, unpadded) 4,096
// CHECK-NEXT:  vocabulary 64{{$}}
// CHECK-NEXT:  layers 0
// CHECK-NEXT:  model FLOPs per token 24,576 6N 24,576 + attention 0
// CHECK-NEXT:  model FLOPs per step 786,432 32 tokens
// CHECK:       parameters 4,096
// CHECK:       weights (fp32) 16,384 B
// CHECK:       activations, no recompute 8,448 B
// CHECK-NEXT:  activations, per-layer recompute 8,448 B
// CHECK-NEXT:    kept through the step 8,448 B
// CHECK-NEXT:    largest layer, recomputed 0 B
// CHECK:       forward 0
// CHECK-LABEL: communication per step, per rank
// CHECK-NEXT:  TP all-reduces 0
// CHECK-NEXT:  loss all-reduces 0 the loss is not vocab-parallel
// CHECK-NEXT:  TP bytes sent (ring) 0 B
tpc.param @wte : tensor<64x64xf32> init <normal, std = 0.02>

func.func @forward(%tokens: tensor<4x8xi32>, %targets: tensor<4x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<4x8x64xf32>) {
  %table = tpc.get_param @wte : tensor<64x64xf32>
  %logits = tpc.embedding %table, %tokens : tensor<64x64xf32>, tensor<4x8xi32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<4x8x64xf32>, tensor<4x8xi32>
  return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<4x8x64xf32>
}

// -----

// The same bigram at tp = 2 with the table split by columns, the logits'
// vocabulary padded from 64 to 256 (a multiple of 128 * tp) and the fused
// loss. No parameter carries vocab_size, so V comes from the loss. Global
// parameters leave the padding out: 64 x 256 * 64 / 256 = 4,096; a rank
// holds 64 x 128 = 8,192. Activations: token ids 128, local logits
// 4x8x128 = 16,384, targets 128, row max and sum of exp 2 x 32 x 4 = 256:
// 16,896. The loss exchanges 3 x 32 values (384 bytes; a rank sends half of
// each ring all-reduce twice: 384) instead of 4 x 8 x 256 = 8,192.

// CHECK-LABEL: tpc cost report: tp 2 x dp 1 = 2 GPUs, micro-batch 4, seq 8, fp32
// CHECK:       parameters (global, unpadded) 4,096
// CHECK-NEXT:  vocabulary 64 -> 256 padded
// CHECK:       parameters 8,192
// CHECK:       activations, no recompute 16,896 B
// CHECK-LABEL: communication per step, per rank
// CHECK-NEXT:  TP all-reduces 0
// CHECK-NEXT:  vocab-parallel loss all-reduces 3 x 32 values
// CHECK-NEXT:    gathering the logits instead 1 x 8,192 values
// CHECK-NEXT:  TP bytes sent (ring) 384 B
module attributes {tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<64x256xf32> init <normal, std = 0.02> layout <split 1>

  func.func @forward(%tokens: tensor<4x8xi32>, %targets: tensor<4x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<4x8x128xf32>) {
    %table = tpc.get_param @wte : tensor<64x128xf32>
    %logits = tpc.embedding %table, %tokens : tensor<64x128xf32>, tensor<4x8xi32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 64 ignore_index -1 : tensor<4x8x128xf32>, tensor<4x8xi32>
    return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<4x8x128xf32>
  }
}
