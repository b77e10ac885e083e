// RUN: tpc-opt %s --tpc-cost-report -o /dev/null | FileCheck %s

// A vocab-parallel embedding with no loss: the unpadded vocabulary comes from
// the table's vocab_size attribute (here with a dialect prefix), the padded
// one from the table. Global parameters 50 x 4 = 200; a rank holds
// 128 x 4 = 512. The embedding's g all-reduces B*T*H = 24 values forward.

// CHECK-LABEL: tpc cost report: tp 2 x dp 1 = 2 GPUs, micro-batch 2, seq 3, fp32
// CHECK:       parameters (global, unpadded) 200
// CHECK-NEXT:  vocabulary 50 -> 256 padded
// CHECK-NEXT:  layers 0
// CHECK:       parameters 512
// CHECK-LABEL: communication per step, per rank
// CHECK-NEXT:  TP embedding/output layer all-reduces 1 x 24 values (1 forward)
module attributes {tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<256x4xf32> init <normal, std = 0.02> layout <split 0> {tpc.vocab_size = 50 : i64}

  func.func @forward(%tokens: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
    %table = tpc.get_param @wte : tensor<128x4xf32>
    %e = tpc.embedding %table, %tokens vocab_parallel : tensor<128x4xf32>, tensor<2x3xi32>
    %x = tpc.g %e group tp : tensor<2x3x4xf32>
    return %x : tensor<2x3x4xf32>
  }
}
