// RUN: tpc-opt %s -split-input-file --tpc-autodiff | FileCheck %s

// The whole of train_step for an unpartitioned model: forward's ops, the
// seed, the VJPs in reverse order and one accumulate_grad per parameter.
// forward itself is unchanged.
tpc.param @table : tensor<16x8xf32> init <normal, std = 0.02>
tpc.param @w : tensor<8x16xf32> init <normal, std = 0.02>
tpc.param @b : tensor<16xf32> init <zeros>

// CHECK-LABEL: func.func @forward
// CHECK-SAME: -> (tensor<f32>, tensor<i32>, tensor<2x4x16xf32>)
// CHECK-NEXT: tpc.get_param @table
// CHECK-NEXT: tpc.embedding
// CHECK-NEXT: tpc.get_param @w
// CHECK-NEXT: tpc.get_param @b
// CHECK-NEXT: tpc.linear
// CHECK-NEXT: tpc.cross_entropy
// CHECK-NEXT: return

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%[[TOK:.*]]: tensor<2x4xi32>, %[[TGT:.*]]: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>)
// CHECK-NEXT: %[[T:.*]] = tpc.get_param @table : tensor<16x8xf32>
// CHECK-NEXT: %[[X:.*]] = tpc.embedding %[[T]], %[[TOK]] : tensor<16x8xf32>, tensor<2x4xi32>
// CHECK-NEXT: %[[W:.*]] = tpc.get_param @w : tensor<8x16xf32>
// CHECK-NEXT: %[[B:.*]] = tpc.get_param @b : tensor<16xf32>
// CHECK-NEXT: %[[L:.*]] = tpc.linear %[[X]], %[[W]], %[[B]]
// CHECK-NEXT: %[[SUM:.*]], %[[COUNT:.*]] = tpc.cross_entropy %[[L]], %[[TGT]] ignore_index 7
// CHECK-NEXT: %[[ONE:.*]] = tpc.fill 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[DL:.*]] = tpc.cross_entropy_grad %[[L]], %[[TGT]], %[[ONE]] ignore_index 7 : tensor<2x4x16xf32>, tensor<2x4xi32>
// CHECK-NEXT: %[[DX:.*]], %[[DW:.*]], %[[DB:.*]] = tpc.linear_grad %[[DL]], %[[X]], %[[W]] bias : tensor<2x4x16xf32>, tensor<2x4x8xf32>, tensor<8x16xf32>
// CHECK-NEXT: tpc.accumulate_grad @b, %[[DB]] : tensor<16xf32>
// CHECK-NEXT: tpc.accumulate_grad @w, %[[DW]] : tensor<8x16xf32>
// CHECK-NEXT: %[[DT:.*]] = tpc.embedding_grad %[[DX]], %[[TOK]] : tensor<2x4x8xf32>, tensor<2x4xi32> -> tensor<16x8xf32>
// CHECK-NEXT: tpc.accumulate_grad @table, %[[DT]] : tensor<16x8xf32>
// CHECK-NEXT: return %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<i32>
func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x4x16xf32>) {
  %t = tpc.get_param @table : tensor<16x8xf32>
  %x = tpc.embedding %t, %tokens : tensor<16x8xf32>, tensor<2x4xi32>
  %w = tpc.get_param @w : tensor<8x16xf32>
  %b = tpc.get_param @b : tensor<16xf32>
  %l = tpc.linear %x, %w, %b : tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
  %sum, %count = tpc.cross_entropy %l, %targets ignore_index 7 : tensor<2x4x16xf32>, tensor<2x4xi32>
  return %sum, %count, %l : tensor<f32>, tensor<i32>, tensor<2x4x16xf32>
}

// -----

// Collectives: f's VJP all-reduces over tp; g's is the identity; a raw sum
// all-reduce over tp is the identity like g (its output is whole on every
// rank), over dp an all-reduce over dp. A value used twice (add %h, %h) gets
// the sum of both adjoints.
module attributes {tpc.tp = 2 : i64} {
  tpc.param @table : tensor<8x256xf32> init <normal, std = 0.02> layout <split 1>
  // CHECK-LABEL: func.func @train_step
  // CHECK: %[[SUM:.*]], %{{.*}} = tpc.vocab_parallel_cross_entropy
  // CHECK-NEXT: %[[ONE:.*]] = tpc.fill
  // CHECK-NEXT: %[[DL:.*]] = tpc.vocab_parallel_cross_entropy_grad
  // CHECK-NEXT: %[[DE:.*]] = tpc.embedding_grad %[[DL]], %{{.*}} : tensor<2x4x128xf32>, tensor<2x4xi32> -> tensor<8x128xf32>
  // CHECK-NEXT: %[[DF:.*]] = tpc.all_reduce %[[DE]] sum group tp : tensor<8x128xf32>
  // CHECK-NEXT: %[[DDP:.*]] = tpc.all_reduce %[[DF]] sum group dp : tensor<8x128xf32>
  // CHECK-NEXT: %[[TWICE:.*]] = tpc.add %[[DDP]], %[[DDP]] : tensor<8x128xf32>
  // CHECK-NEXT: %[[DS:.*]] = tpc.scale %[[TWICE]] by 5.000000e-01 : tensor<8x128xf32>
  // CHECK-NEXT: tpc.accumulate_grad @table, %[[DS]] : tensor<8x128xf32>
  // CHECK-NEXT: return
  func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
    %t = tpc.get_param @table : tensor<8x128xf32>
    %s = tpc.scale %t by 0.5 : tensor<8x128xf32>
    %h = tpc.add %s, %s : tensor<8x128xf32>
    %d = tpc.all_reduce %h sum group dp : tensor<8x128xf32>
    %f = tpc.f %d group tp : tensor<8x128xf32>
    %r = tpc.all_reduce %f sum group tp : tensor<8x128xf32>
    %g = tpc.g %r group tp : tensor<8x128xf32>
    %e = tpc.embedding %g, %tokens : tensor<8x128xf32>, tensor<2x4xi32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %e, %targets vocab 200 ignore_index -1 : tensor<2x4x128xf32>, tensor<2x4xi32>
    return %sum, %count : tensor<f32>, tensor<i32>
  }
}

// -----

// Dropout's VJP is the same dropout (p, stream, key, layout) on the
// adjoint. A parameter read by two get_param ops accumulates once, the sum
// of both reads' adjoints, after the first read in program order. Values
// that do not reach the loss, and parameters that do not reach it, get no
// adjoint and no accumulate_grad.
tpc.param @ln.weight : tensor<8xf32> init <ones>
tpc.param @ln.bias : tensor<8xf32> init <zeros>
tpc.param @unused : tensor<8xf32> init <zeros>
tpc.param @head : tensor<16x8xf32> init <normal, std = 0.02>
tpc.param @pos : tensor<16x8xf32> init <normal, std = 0.02>

// CHECK-LABEL: func.func @train_step
// CHECK-NOT: tpc.get_param @unused
// CHECK: %[[X:.*]] = tpc.position_embedding
// CHECK: %[[G1:.*]] = tpc.get_param @ln.weight
// CHECK: %[[N:.*]] = tpc.layernorm %[[X]], %[[G1]]
// CHECK: %[[D:.*]] = tpc.dropout %[[N]] p 2.000000e-01 per_rank key 9 layout <split 2>
// CHECK: %[[G2:.*]] = tpc.get_param @ln.weight
// CHECK: %[[N2:.*]] = tpc.layernorm %[[D]], %[[G2]]
// CHECK: %[[LOGITS:.*]] = tpc.linear %[[N2]], %{{.*}} transposed
// CHECK: tpc.fill
// CHECK: %[[DN2:.*]], %[[DHEAD:.*]] = tpc.linear_grad
// CHECK-NEXT: tpc.accumulate_grad @head, %[[DHEAD]]
// CHECK-NEXT: %[[DD:.*]], %[[DG2:.*]], %[[DB2:.*]] = tpc.layernorm_grad %[[DN2]], %[[D]], %[[G2]] eps 1.000000e-05
// CHECK-NEXT: %[[DN:.*]] = tpc.dropout %[[DD]] p 2.000000e-01 per_rank key 9 layout <split 2> : tensor<2x4x8xf32>
// CHECK-NEXT: %[[DX:.*]], %[[DG1:.*]], %[[DB1:.*]] = tpc.layernorm_grad %[[DN]], %[[X]], %[[G1]] eps 1.000000e-05
// CHECK-NEXT: %[[SB:.*]] = tpc.add %[[DB2]], %[[DB1]] : tensor<8xf32>
// CHECK-NEXT: tpc.accumulate_grad @ln.bias, %[[SB]] : tensor<8xf32>
// CHECK-NEXT: %[[SG:.*]] = tpc.add %[[DG2]], %[[DG1]] : tensor<8xf32>
// CHECK-NEXT: tpc.accumulate_grad @ln.weight, %[[SG]] : tensor<8xf32>
// CHECK-NEXT: %[[DPOS:.*]] = tpc.position_embedding_grad %[[DX]] : tensor<2x4x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: tpc.accumulate_grad @pos, %[[DPOS]]
// CHECK-NEXT: return
func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x4x8xf32>) {
  %p = tpc.get_param @pos : tensor<16x8xf32>
  %x = tpc.position_embedding %p, %tokens : tensor<16x8xf32>, tensor<2x4xi32>
  %g1 = tpc.get_param @ln.weight : tensor<8xf32>
  %b1 = tpc.get_param @ln.bias : tensor<8xf32>
  %n = tpc.layernorm %x, %g1, %b1 eps 1.0e-05 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %d = tpc.dropout %n p 0.2 per_rank key 9 layout <split 2> : tensor<2x4x8xf32>
  %g2 = tpc.get_param @ln.weight : tensor<8xf32>
  %b2 = tpc.get_param @ln.bias : tensor<8xf32>
  %n2 = tpc.layernorm %d, %g2, %b2 eps 1.0e-05 : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %h = tpc.get_param @head : tensor<16x8xf32>
  %logits = tpc.linear %n2, %h transposed : tensor<2x4x8xf32>, tensor<16x8xf32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<2x4x16xf32>, tensor<2x4xi32>
  %u = tpc.get_param @unused : tensor<8xf32>
  %side = tpc.bias_add %n, %u : tensor<2x4x8xf32>, tensor<8xf32>
  return %sum, %count, %side : tensor<f32>, tensor<i32>, tensor<2x4x8xf32>
}

// -----

// StagFormer ops: cross-attention (both operands' adjoints), gelu, bias_add,
// weighted_sum with alpha. Dynamic batch and sequence dimensions are kept.
tpc.param @qkv : tensor<8x24xf32> init <normal, std = 0.02>
tpc.param @kv : tensor<8x16xf32> init <normal, std = 0.02>
tpc.param @bias : tensor<8xf32> init <zeros>
tpc.param @alpha : tensor<2xf32> init <ones>
tpc.param @wte : tensor<16x8xf32> init <normal, std = 0.02>

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: (%{{.*}}: tensor<?x?xi32>, %{{.*}}: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>)
// CHECK: %[[DALPHA:.*]], %[[DXS:.*]]:2 = tpc.weighted_sum_grad %{{.*}}, %{{.*}}, %[[S1:.*]], %[[S2:.*]] : tensor<?x?x8xf32>, tensor<2xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
// CHECK-NEXT: tpc.accumulate_grad @alpha, %[[DALPHA]] : tensor<2xf32>
// CHECK-NEXT: %[[DBIAS:.*]] = tpc.bias_add_grad %[[DXS]]#1 : tensor<?x?x8xf32>
// CHECK-NEXT: tpc.accumulate_grad @bias, %[[DBIAS]] : tensor<8xf32>
// CHECK-NEXT: %[[DGELU:.*]] = tpc.gelu_grad %[[DXS]]#1, %{{.*}} : tensor<?x?x8xf32>
// CHECK-NEXT: %[[DQ:.*]], %[[DKV:.*]] = tpc.cross_attention_grad %[[DGELU]], %{{.*}}, %{{.*}} heads 2 window 3 : tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<?x?x16xf32>
// CHECK-NEXT: %[[DQKV2:.*]] = tpc.self_attention_grad %[[DQ]], %[[QKV:.*]] heads 2 causal : tensor<?x?x8xf32>, tensor<?x?x24xf32>
// CHECK-NEXT: %[[DS1A:.*]], %[[DKVW:.*]] = tpc.linear_grad %[[DKV]], %[[S1]], %{{.*}} : tensor<?x?x16xf32>, tensor<?x?x8xf32>, tensor<8x16xf32>
// CHECK-NEXT: %[[DS1:.*]] = tpc.add %[[DXS]]#0, %[[DS1A]] : tensor<?x?x8xf32>
// CHECK-NEXT: tpc.accumulate_grad @kv, %[[DKVW]] : tensor<8x16xf32>
// CHECK-NEXT: %[[DQKV1:.*]] = tpc.self_attention_grad %[[DS1]], %[[QKV]] heads 2 causal : tensor<?x?x8xf32>, tensor<?x?x24xf32>
// CHECK-NEXT: %[[DQKV:.*]] = tpc.add %[[DQKV2]], %[[DQKV1]] : tensor<?x?x24xf32>
// CHECK-NEXT: %{{.*}}, %[[DWQKV:.*]] = tpc.linear_grad %[[DQKV]]
// CHECK-NEXT: tpc.accumulate_grad @qkv, %[[DWQKV]] : tensor<8x24xf32>
func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>) -> (tensor<f32>, tensor<i32>, tensor<?x?x16xf32>) {
  %wte = tpc.get_param @wte : tensor<16x8xf32>
  %x = tpc.embedding %wte, %tokens : tensor<16x8xf32>, tensor<?x?xi32>
  %wqkv = tpc.get_param @qkv : tensor<8x24xf32>
  %qkv = tpc.linear %x, %wqkv : tensor<?x?x8xf32>, tensor<8x24xf32>
  %s1 = tpc.self_attention %qkv heads 2 causal : tensor<?x?x24xf32>
  %wkv = tpc.get_param @kv : tensor<8x16xf32>
  %kv = tpc.linear %s1, %wkv : tensor<?x?x8xf32>, tensor<8x16xf32>
  %q = tpc.self_attention %qkv heads 2 causal : tensor<?x?x24xf32>
  %c = tpc.cross_attention %q, %kv heads 2 window 3 : tensor<?x?x8xf32>, tensor<?x?x16xf32>
  %a = tpc.gelu %c : tensor<?x?x8xf32>
  %b = tpc.get_param @bias : tensor<8xf32>
  %s2 = tpc.bias_add %a, %b : tensor<?x?x8xf32>, tensor<8xf32>
  %alpha = tpc.get_param @alpha : tensor<2xf32>
  %y = tpc.weighted_sum %alpha, %s1, %s2 : tensor<2xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>
  %logits = tpc.linear %y, %wte transposed : tensor<?x?x8xf32>, tensor<16x8xf32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x16xf32>, tensor<?x?xi32>
  return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<?x?x16xf32>
}

// -----

// The same op off the path from the parameters (it reads only token ids) is
// not differentiated and needs no VJP.
tpc.param @w : tensor<8x16xf32> init <normal, std = 0.02>
func.func private @shift(tensor<2x4xi32>) -> tensor<2x4xi32>
func.func @forward(%tokens: tensor<2x4xi32>, %targets: tensor<2x4xi32>) -> (tensor<f32>, tensor<i32>) {
  %w = tpc.get_param @w : tensor<8x16xf32>
  %ids = func.call @shift(%tokens) : (tensor<2x4xi32>) -> tensor<2x4xi32>
  %x = tpc.embedding %w, %ids : tensor<8x16xf32>, tensor<2x4xi32>
  %sum, %count = tpc.cross_entropy %x, %targets ignore_index -1 : tensor<2x4x16xf32>, tensor<2x4xi32>
  return %sum, %count : tensor<f32>, tensor<i32>
}

// CHECK-LABEL: func.func @train_step
// CHECK: %[[IDS:.*]] = call @shift
// CHECK: tpc.cross_entropy_grad
// CHECK-NEXT: %[[DW:.*]] = tpc.embedding_grad %{{.*}}, %[[IDS]]
// CHECK-NEXT: tpc.accumulate_grad @w, %[[DW]]
// CHECK-NEXT: return
