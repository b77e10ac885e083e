// Every tpc.linear_grad becomes a linear_input_grad (B) and a
// linear_weight_grad (W) at its place, B first; the old results' uses read
// the new ones. Norm grads stay whole. On a compiled GPT-2 no linear_grad
// is left, and the program has one B and one W per linear of the forward.
// RUN: tpc-opt %s --tpc-split-weight-grad | FileCheck %s
// RUN: tpc-model gpt2 --layers 2 --hidden 16 --heads 2 --vocab 32 --seq 8 \
// RUN:   | tpc-opt '--tpc-specialize=batch=2 seq=4' --tpc-megatron-shard=tp=2 --tpc-partition --tpc-autodiff \
// RUN:       --tpc-split-weight-grad > %t.gpt2
// RUN: FileCheck %s --check-prefix=GPT2-B < %t.gpt2
// RUN: FileCheck %s --check-prefix=GPT2-W < %t.gpt2

module attributes {tpc.tp = 1 : i64} {
  tpc.param @fc.weight : tensor<16x32xf32> init <normal, std = 0.02>
  tpc.param @fc.bias : tensor<32xf32> init <zeros>
  tpc.param @wte : tensor<64x16xf32> init <normal, std = 0.02>
  tpc.param @ln.weight : tensor<16xf32> init <ones>
  tpc.param @ln.bias : tensor<16xf32> init <zeros>

  // CHECK-LABEL: func.func @with_bias
  // CHECK-SAME: (%[[D:.*]]: tensor<2x8x32xf32>, %[[X:.*]]: tensor<2x8x16xf32>)
  func.func @with_bias(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    // CHECK-NEXT: %[[W:.*]] = tpc.get_param @fc.weight
    %w = tpc.get_param @fc.weight : tensor<16x32xf32>
    // CHECK-NEXT: %[[DX:.*]] = tpc.linear_input_grad %[[D]], %[[W]] : tensor<2x8x32xf32>, tensor<16x32xf32>
    // CHECK-NEXT: %[[DW:.*]], %[[DB:.*]] = tpc.linear_weight_grad %[[D]], %[[X]] bias : tensor<2x8x32xf32>, tensor<2x8x16xf32>
    // CHECK-NOT: tpc.linear_grad
    %dx, %dw, %db = tpc.linear_grad %dout, %x, %w bias : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<16x32xf32>
    // CHECK-NEXT: tpc.accumulate_grad @fc.weight, %[[DW]] : tensor<16x32xf32>
    // CHECK-NEXT: tpc.accumulate_grad @fc.bias, %[[DB]] : tensor<32xf32>
    // CHECK-NEXT: return %[[DX]] : tensor<2x8x16xf32>
    tpc.accumulate_grad @fc.weight, %dw : tensor<16x32xf32>
    tpc.accumulate_grad @fc.bias, %db : tensor<32xf32>
    return %dx : tensor<2x8x16xf32>
  }

  // The tied output layer reads the [V, H] table transposed.
  // CHECK-LABEL: func.func @transposed
  // CHECK-SAME: (%[[D:.*]]: tensor<2x8x64xf32>, %[[X:.*]]: tensor<2x8x16xf32>)
  func.func @transposed(%dlogits: tensor<2x8x64xf32>, %x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    // CHECK-NEXT: %[[T:.*]] = tpc.get_param @wte
    %wte = tpc.get_param @wte : tensor<64x16xf32>
    // CHECK-NEXT: %[[DX:.*]] = tpc.linear_input_grad %[[D]], %[[T]] transposed : tensor<2x8x64xf32>, tensor<64x16xf32>
    // CHECK-NEXT: %[[DT:.*]] = tpc.linear_weight_grad %[[D]], %[[X]] transposed : tensor<2x8x64xf32>, tensor<2x8x16xf32>
    %dx, %dt = tpc.linear_grad %dlogits, %x, %wte transposed : tensor<2x8x64xf32>, tensor<2x8x16xf32>, tensor<64x16xf32>
    // CHECK-NEXT: tpc.accumulate_grad @wte, %[[DT]] : tensor<64x16xf32>
    // CHECK-NEXT: return %[[DX]]
    tpc.accumulate_grad @wte, %dt : tensor<64x16xf32>
    return %dx : tensor<2x8x16xf32>
  }

  // The first layer's input gradient is read by nothing: no B is built.
  // CHECK-LABEL: func.func @unread_input_grad
  func.func @unread_input_grad(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x16xf32>) {
    %w = tpc.get_param @fc.weight : tensor<16x32xf32>
    // CHECK-NOT: tpc.linear_input_grad
    // CHECK: %[[DW:.*]], %[[DB:.*]] = tpc.linear_weight_grad %{{.*}}, %{{.*}} bias
    // CHECK-NEXT: tpc.accumulate_grad @fc.weight, %[[DW]]
    // CHECK-NEXT: tpc.accumulate_grad @fc.bias, %[[DB]]
    %dx, %dw, %db = tpc.linear_grad %dout, %x, %w bias : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<16x32xf32>
    tpc.accumulate_grad @fc.weight, %dw : tensor<16x32xf32>
    tpc.accumulate_grad @fc.bias, %db : tensor<32xf32>
    return
  }

  // Only the bias's gradient is read: W still computes the weight's.
  // CHECK-LABEL: func.func @bias_only
  func.func @bias_only(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x16xf32>) {
    %w = tpc.get_param @fc.weight : tensor<16x32xf32>
    // CHECK-NOT: tpc.linear_input_grad
    // CHECK: %{{.*}}, %[[DB:.*]] = tpc.linear_weight_grad %{{.*}}, %{{.*}} bias
    // CHECK-NEXT: tpc.accumulate_grad @fc.bias, %[[DB]]
    %dx, %dw, %db = tpc.linear_grad %dout, %x, %w bias : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<16x32xf32>
    tpc.accumulate_grad @fc.bias, %db : tensor<32xf32>
    return
  }

  // A frozen weight: only B is built.
  // CHECK-LABEL: func.func @unread_weight_grad
  func.func @unread_weight_grad(%dout: tensor<2x8x32xf32>, %x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %w = tpc.get_param @fc.weight : tensor<16x32xf32>
    // CHECK: %[[DX:.*]] = tpc.linear_input_grad
    // CHECK-NOT: tpc.linear_weight_grad
    // CHECK: return %[[DX]]
    %dx, %dw = tpc.linear_grad %dout, %x, %w : tensor<2x8x32xf32>, tensor<2x8x16xf32>, tensor<16x32xf32>
    return %dx : tensor<2x8x16xf32>
  }

  // Norm grads keep their weight gradients with the input's (B).
  // CHECK-LABEL: func.func @norm_stays_whole
  func.func @norm_stays_whole(%dout: tensor<2x8x16xf32>, %x: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
    %g = tpc.get_param @ln.weight : tensor<16xf32>
    // CHECK: %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = tpc.layernorm_grad
    %dx, %dg, %db = tpc.layernorm_grad %dout, %x, %g eps 1.000000e-05 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<16xf32>
    // CHECK-NEXT: tpc.accumulate_grad @ln.weight, %[[DG]]
    // CHECK-NEXT: tpc.accumulate_grad @ln.bias, %[[DB]]
    tpc.accumulate_grad @ln.weight, %dg : tensor<16xf32>
    tpc.accumulate_grad @ln.bias, %db : tensor<16xf32>
    return %dx : tensor<2x8x16xf32>
  }
}

// GPT-2 with 2 layers at tp 2: per layer qkv, attention projection, fc and
// its projection, plus the tied output layer: 9 linears, each with its B
// and W, and no linear_grad left.
// GPT2-B-LABEL: func.func @train_step(
// GPT2-B-NOT: tpc.linear_grad
// GPT2-B-COUNT-9: tpc.linear_input_grad
// GPT2-B-NOT: tpc.linear_{{(input_)?}}grad
// GPT2-B: return
// GPT2-W-LABEL: func.func @train_step(
// GPT2-W-COUNT-9: tpc.linear_weight_grad
// GPT2-W-NOT: tpc.linear_weight_grad
// GPT2-W: return
