// RUN: tpc-opt %s --tpc-cost-report -o /dev/null | FileCheck %s

// StagFormer with 2 stacks of 1 layer each (separate weights), H = 8, 2
// heads, V = 32, unpartitioned, B = 1, T = 4. Stack 2 reads the token
// embeddings again and cross-attends to stack 1's final activations.
//
// Layers: stack 1's layer runs from its ln_1 to its MLP's residual add;
// stack 2's from its ln_1 (after stack 1) to its MLP's residual add, with
// the cross-attention sublayer inside it: 2 layers.
// Parameters: wte 256 + wpe 64 + stack 1 872 (ln 32, c_attn 216, c_proj 72,
//   c_fc 288, c_proj 264) + stack 2 1,176 (872 + ln_x 16, c_q 72, c_kv 144,
//   xattn c_proj 72) + ln_f 16 = 2,384; 6N = 14,304.
// FLOPs (M = 4 rows): stack 1 c_attn 1,536 + attention 4*1*4*4*8 = 512 +
//   c_proj 512 + c_fc 2,048 + c_proj 2,048 = 6,656; stack 2 6,656 + c_q 512
//   + c_kv 1,024 + cross-attention 512 + its c_proj 512 = 9,216; logits
//   2,048: forward 17,920, layers 15,872, step 53,760, with recompute 69,632.
//   Attention per token: 3 * (3 * 512) / 4 = 1,152; model 15,456.
// Activations (bytes): a [1,4,8] tensor is 128, q|k|v 384, [1,4,32] 512,
//   kv 256, probabilities 1x2x4x4 = 128, layernorm statistics 32, token ids
//   and targets 16, logits 512.
//   Stack 1: h0 128 + 32, ln_1 out 128, qkv 384 + 128, attention out 128,
//   residual 128 + 32, ln_2 out 128, c_fc out 512, gelu out 512 = 2,240.
//   Stack 2 (h0 already counted): 32 + 128 + 384 + 128 + 128, residual
//   128 + 32, ln_x out 128, stack 1's output 128 (read by c_kv), q 128, kv
//   256 + 128, cross-attention out 128, residual 128 + 32, ln_2 out 128, 512,
//   512 = 3,168. Outside layers: ids 16, ln_f 128 + 32, its output 128,
//   logits 512, targets 16 = 832. No recompute: 6,240.
//   Recompute keeps the 832 and what the layers read from outside: h0 (both
//   stacks) and stack 1's output (stack 2): 1,088. Stack 1 recomputes
//   2,240 - 128 = 2,112, stack 2 3,168 - 128 = 3,040: 1,088 + 3,040 = 4,128.

// CHECK-LABEL: tpc cost report: tp 1 x dp 1 = 1 GPU, micro-batch 1, seq 4, fp32
// CHECK:       parameters (global, unpadded) 2,384
// CHECK-NEXT:  vocabulary 32{{$}}
// CHECK-NEXT:  layers 2
// CHECK-NEXT:  model FLOPs per token 15,456 6N 14,304 + attention 1,152
// CHECK:       activations, no recompute 6,240 B
// CHECK-NEXT:  activations, per-layer recompute 4,128 B
// CHECK-NEXT:    kept through the step 1,088 B
// CHECK-NEXT:    largest layer, recomputed 3,040 B
// CHECK:       forward 17,920
// CHECK-NEXT:  forward + backward 53,760
// CHECK-NEXT:  with per-layer recompute 69,632

tpc.param @wte : tensor<32x8xf32> init <normal, std = 0.02>
tpc.param @wpe : tensor<8x8xf32> init <normal, std = 0.01>
tpc.param @s1.h.0.ln_1.weight : tensor<8xf32> init <ones>
tpc.param @s1.h.0.ln_1.bias : tensor<8xf32> init <zeros>
tpc.param @s1.h.0.attn.c_attn.weight : tensor<8x24xf32> init <normal, std = 0.02>
tpc.param @s1.h.0.attn.c_attn.bias : tensor<24xf32> init <zeros>
tpc.param @s1.h.0.attn.c_proj.weight : tensor<8x8xf32> init <normal, std = 0.02>
tpc.param @s1.h.0.attn.c_proj.bias : tensor<8xf32> init <zeros>
tpc.param @s1.h.0.ln_2.weight : tensor<8xf32> init <ones>
tpc.param @s1.h.0.ln_2.bias : tensor<8xf32> init <zeros>
tpc.param @s1.h.0.mlp.c_fc.weight : tensor<8x32xf32> init <normal, std = 0.02>
tpc.param @s1.h.0.mlp.c_fc.bias : tensor<32xf32> init <zeros>
tpc.param @s1.h.0.mlp.c_proj.weight : tensor<32x8xf32> init <normal, std = 0.02>
tpc.param @s1.h.0.mlp.c_proj.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.ln_1.weight : tensor<8xf32> init <ones>
tpc.param @s2.h.0.ln_1.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.attn.c_attn.weight : tensor<8x24xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.attn.c_attn.bias : tensor<24xf32> init <zeros>
tpc.param @s2.h.0.attn.c_proj.weight : tensor<8x8xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.attn.c_proj.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.ln_x.weight : tensor<8xf32> init <ones>
tpc.param @s2.h.0.ln_x.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.xattn.c_q.weight : tensor<8x8xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.xattn.c_q.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.xattn.c_kv.weight : tensor<8x16xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.xattn.c_kv.bias : tensor<16xf32> init <zeros>
tpc.param @s2.h.0.xattn.c_proj.weight : tensor<8x8xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.xattn.c_proj.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.ln_2.weight : tensor<8xf32> init <ones>
tpc.param @s2.h.0.ln_2.bias : tensor<8xf32> init <zeros>
tpc.param @s2.h.0.mlp.c_fc.weight : tensor<8x32xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.mlp.c_fc.bias : tensor<32xf32> init <zeros>
tpc.param @s2.h.0.mlp.c_proj.weight : tensor<32x8xf32> init <normal, std = 0.02>
tpc.param @s2.h.0.mlp.c_proj.bias : tensor<8xf32> init <zeros>
tpc.param @ln_f.weight : tensor<8xf32> init <ones>
tpc.param @ln_f.bias : tensor<8xf32> init <zeros>

func.func @forward(%tokens: tensor<1x4xi32>, %targets: tensor<1x4xi32>) -> (tensor<f32>, tensor<i32>, tensor<1x4x32xf32>) {
  %wte = tpc.get_param @wte : tensor<32x8xf32>
  %e = tpc.embedding %wte, %tokens : tensor<32x8xf32>, tensor<1x4xi32>
  %wpe = tpc.get_param @wpe : tensor<8x8xf32>
  %p = tpc.position_embedding %wpe, %tokens : tensor<8x8xf32>, tensor<1x4xi32>
  %h0 = tpc.add %e, %p : tensor<1x4x8xf32>

  // Stack 1.
  %g1 = tpc.get_param @s1.h.0.ln_1.weight : tensor<8xf32>
  %b1 = tpc.get_param @s1.h.0.ln_1.bias : tensor<8xf32>
  %a = tpc.layernorm %h0, %g1, %b1 eps 1.0e-05 : tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %wqkv = tpc.get_param @s1.h.0.attn.c_attn.weight : tensor<8x24xf32>
  %bqkv = tpc.get_param @s1.h.0.attn.c_attn.bias : tensor<24xf32>
  %qkv = tpc.linear %a, %wqkv, %bqkv : tensor<1x4x8xf32>, tensor<8x24xf32>, tensor<24xf32>
  %s = tpc.self_attention %qkv heads 2 causal : tensor<1x4x24xf32>
  %wo = tpc.get_param @s1.h.0.attn.c_proj.weight : tensor<8x8xf32>
  %bo = tpc.get_param @s1.h.0.attn.c_proj.bias : tensor<8xf32>
  %o = tpc.linear %s, %wo, %bo : tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
  %r = tpc.add %h0, %o : tensor<1x4x8xf32>
  %g2 = tpc.get_param @s1.h.0.ln_2.weight : tensor<8xf32>
  %b2 = tpc.get_param @s1.h.0.ln_2.bias : tensor<8xf32>
  %m = tpc.layernorm %r, %g2, %b2 eps 1.0e-05 : tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %wfc = tpc.get_param @s1.h.0.mlp.c_fc.weight : tensor<8x32xf32>
  %bfc = tpc.get_param @s1.h.0.mlp.c_fc.bias : tensor<32xf32>
  %u = tpc.linear %m, %wfc, %bfc : tensor<1x4x8xf32>, tensor<8x32xf32>, tensor<32xf32>
  %gu = tpc.gelu %u : tensor<1x4x32xf32>
  %wp = tpc.get_param @s1.h.0.mlp.c_proj.weight : tensor<32x8xf32>
  %bp = tpc.get_param @s1.h.0.mlp.c_proj.bias : tensor<8xf32>
  %v = tpc.linear %gu, %wp, %bp : tensor<1x4x32xf32>, tensor<32x8xf32>, tensor<8xf32>
  %s1 = tpc.add %r, %v : tensor<1x4x8xf32>

  // Stack 2: self-attention, cross-attention to stack 1, MLP.
  %g21 = tpc.get_param @s2.h.0.ln_1.weight : tensor<8xf32>
  %b21 = tpc.get_param @s2.h.0.ln_1.bias : tensor<8xf32>
  %a2 = tpc.layernorm %h0, %g21, %b21 eps 1.0e-05 : tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %wqkv2 = tpc.get_param @s2.h.0.attn.c_attn.weight : tensor<8x24xf32>
  %bqkv2 = tpc.get_param @s2.h.0.attn.c_attn.bias : tensor<24xf32>
  %qkv2 = tpc.linear %a2, %wqkv2, %bqkv2 : tensor<1x4x8xf32>, tensor<8x24xf32>, tensor<24xf32>
  %sa2 = tpc.self_attention %qkv2 heads 2 causal : tensor<1x4x24xf32>
  %wo2 = tpc.get_param @s2.h.0.attn.c_proj.weight : tensor<8x8xf32>
  %bo2 = tpc.get_param @s2.h.0.attn.c_proj.bias : tensor<8xf32>
  %o2 = tpc.linear %sa2, %wo2, %bo2 : tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
  %r2 = tpc.add %h0, %o2 : tensor<1x4x8xf32>
  %gx = tpc.get_param @s2.h.0.ln_x.weight : tensor<8xf32>
  %bx = tpc.get_param @s2.h.0.ln_x.bias : tensor<8xf32>
  %x2 = tpc.layernorm %r2, %gx, %bx eps 1.0e-05 : tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %wq = tpc.get_param @s2.h.0.xattn.c_q.weight : tensor<8x8xf32>
  %bq = tpc.get_param @s2.h.0.xattn.c_q.bias : tensor<8xf32>
  %q = tpc.linear %x2, %wq, %bq : tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
  %wkv = tpc.get_param @s2.h.0.xattn.c_kv.weight : tensor<8x16xf32>
  %bkv = tpc.get_param @s2.h.0.xattn.c_kv.bias : tensor<16xf32>
  %kv = tpc.linear %s1, %wkv, %bkv : tensor<1x4x8xf32>, tensor<8x16xf32>, tensor<16xf32>
  %c = tpc.cross_attention %q, %kv heads 2 : tensor<1x4x8xf32>, tensor<1x4x16xf32>
  %wco = tpc.get_param @s2.h.0.xattn.c_proj.weight : tensor<8x8xf32>
  %bco = tpc.get_param @s2.h.0.xattn.c_proj.bias : tensor<8xf32>
  %co = tpc.linear %c, %wco, %bco : tensor<1x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>
  %r3 = tpc.add %r2, %co : tensor<1x4x8xf32>
  %g22 = tpc.get_param @s2.h.0.ln_2.weight : tensor<8xf32>
  %b22 = tpc.get_param @s2.h.0.ln_2.bias : tensor<8xf32>
  %m2 = tpc.layernorm %r3, %g22, %b22 eps 1.0e-05 : tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %wfc2 = tpc.get_param @s2.h.0.mlp.c_fc.weight : tensor<8x32xf32>
  %bfc2 = tpc.get_param @s2.h.0.mlp.c_fc.bias : tensor<32xf32>
  %u2 = tpc.linear %m2, %wfc2, %bfc2 : tensor<1x4x8xf32>, tensor<8x32xf32>, tensor<32xf32>
  %gu2 = tpc.gelu %u2 : tensor<1x4x32xf32>
  %wp2 = tpc.get_param @s2.h.0.mlp.c_proj.weight : tensor<32x8xf32>
  %bp2 = tpc.get_param @s2.h.0.mlp.c_proj.bias : tensor<8xf32>
  %v2 = tpc.linear %gu2, %wp2, %bp2 : tensor<1x4x32xf32>, tensor<32x8xf32>, tensor<8xf32>
  %s2 = tpc.add %r3, %v2 : tensor<1x4x8xf32>

  %gf = tpc.get_param @ln_f.weight : tensor<8xf32>
  %bf = tpc.get_param @ln_f.bias : tensor<8xf32>
  %n = tpc.layernorm %s2, %gf, %bf eps 1.0e-05 : tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>
  %logits = tpc.linear %n, %wte transposed : tensor<1x4x8xf32>, tensor<32x8xf32>
  %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<1x4x32xf32>, tensor<1x4xi32>
  return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<1x4x32xf32>
}
