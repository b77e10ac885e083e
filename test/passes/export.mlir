// RUN: tpc-opt %s --tpc-plan-memory --tpc-export="output=%t.tpc interpreter=/opt/tpc/bin/tpc-run" -o /dev/null
// RUN: head -n 1 %t.tpc | FileCheck %s --check-prefix=SHEBANG
// RUN: test -x %t.tpc
// RUN: tail -n +2 %t.tpc | tail -c +25 | protoc --decode=tpc.program.Program -I %tpc_src_root %tpc_src_root/runtime/program/program.proto | FileCheck %s

// SHEBANG: #!/opt/tpc/bin/tpc-run

module attributes {tpc.tp = 2 : i64, tpc.dp = 3 : i64} {
  tpc.param @wte : tensor<256x8xf32> init <normal, std = 2.000000e-02> layout <split 0> {vocab_size = 100 : i64}
  tpc.param @proj : tensor<8x8xf32> init <normal, std = 2.000000e-02, residual_layers = 2> layout <split 0>
  tpc.param @bias : tensor<8xf32> init <zeros>
  func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x4x128xf32>) {
    %wte = tpc.get_param @wte : tensor<128x8xf32>
    %e = tpc.embedding %wte, %tokens vocab_parallel : tensor<128x8xf32>, tensor<2x4xi32>
    %x = tpc.g %e group tp : tensor<2x4x8xf32>
    %w = tpc.get_param @proj : tensor<4x8xf32>
    %b = tpc.get_param @bias : tensor<8xf32>
    %y = tpc.bias_add %x, %b : tensor<2x4x8xf32>, tensor<8xf32>
    %d = tpc.dropout %y p 1.000000e-01 replicated key 3 : tensor<2x4x8xf32>
    %f = tpc.f %d group tp : tensor<2x4x8xf32>
    %l = tpc.linear %f, %wte transposed : tensor<2x4x8xf32>, tensor<128x8xf32>
    %s, %n = tpc.vocab_parallel_cross_entropy %l, %targets vocab 100 ignore_index -1 : tensor<2x4x128xf32>, tensor<2x4xi32>
    return %s, %n, %l : tensor<f32>, tensor<i32>, tensor<2x4x128xf32>
  }
}

// CHECK: version: 3
// CHECK-NEXT: tp: 2
// CHECK-NEXT: dp: 3
// CHECK-NEXT: micro_batch: 2
// CHECK-NEXT: seq: 4
// The parameter tensors hold this rank's slice.
// CHECK: tensors {
// CHECK-NEXT: name: "wte"
// CHECK-NEXT: dtype: F32
// CHECK-NEXT: shape: 128
// CHECK-NEXT: shape: 8
// CHECK-NEXT: storage: PARAMETER
// CHECK-NEXT: offset: -1
// CHECK: name: "proj"
// CHECK: name: "bias"
// CHECK: name: "forward.arg0"
// CHECK: storage: INPUT
// CHECK: name: "embedding.5"
// CHECK: parameters {
// CHECK-NEXT: name: "wte"
// CHECK-NEXT: init {
// CHECK-NEXT: std: 0.02
// CHECK-NEXT: }
// CHECK-NEXT: layout {
// CHECK-NEXT: kind: SPLIT
// CHECK-NEXT: blocks: 1
// CHECK-NEXT: }
// CHECK-NEXT: global_shape: 256
// CHECK-NEXT: global_shape: 8
// CHECK-NEXT: valid_extent: 100
// The residual scaling 1/sqrt(2 * 2) is folded into the exported std.
// CHECK: name: "proj"
// CHECK: std: 0.01
// CHECK: name: "bias"
// CHECK-NEXT: tensor: 2
// CHECK-NEXT: init {
// CHECK-NEXT: kind: ZEROS
// CHECK: functions {
// CHECK-NEXT: name: "forward"
// CHECK-NEXT: inputs: 3
// CHECK-NEXT: inputs: 4
// CHECK-NEXT: outputs: 11
// CHECK-NEXT: outputs: 12
// CHECK-NEXT: outputs: 10
// CHECK-NEXT: body {
// CHECK-NEXT: op: "embedding"
// CHECK-NEXT: inputs: 0
// CHECK-NEXT: inputs: 3
// CHECK-NEXT: outputs: 5
// CHECK-NEXT: attrs {
// CHECK-NEXT: key: "vocab_parallel"
// CHECK-NEXT: value {
// CHECK-NEXT: flag: true
// CHECK: op: "g"
// CHECK: key: "group"
// CHECK-NEXT: value {
// CHECK-NEXT: s: "tp"
// CHECK: op: "dropout"
// Enums travel as keywords; defaults are written out.
// CHECK: key: "stream"
// CHECK-NEXT: value {
// CHECK-NEXT: s: "replicated"
// CHECK: op: "linear"
// CHECK: key: "transposed"
// CHECK: op: "vocab_parallel_cross_entropy"
// CHECK: key: "ignore_index"
// CHECK-NEXT: value {
// CHECK-NEXT: i: -1
// CHECK: key: "vocab_size"
// CHECK-NEXT: value {
// CHECK-NEXT: i: 100
// The logits are returned third, as they are.
// CHECK: arena_bytes:
// CHECK-NEXT: logits_output: 2
// CHECK: summary: "tp=2 dp=3 micro-batch=2 seq=4 parameters=872 per-rank=1064"
// The loss's facts, read off the op; no decode_step, no apply_step.
// CHECK: model {
// CHECK-NEXT: vocab: 100
// CHECK-NEXT: vocab_parallel: true
// CHECK-NEXT: ignore_index: -1
// CHECK-NEXT: }
