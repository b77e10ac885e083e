// RUN: tpc-opt %s --tpc-cost-report -o /dev/null | FileCheck %s
// RUN: tpc-opt %s --tpc-cost-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: tpc-opt %s --tpc-mixed-precision=precision=bf16 --tpc-cost-report=dp=2 -o /dev/null | FileCheck %s --check-prefix=BF16
// RUN: tpc-opt %s "--tpc-mixed-precision=precision=bf16 grad-reduce-dtype=fp32" --tpc-cost-report=dp=2 -o /dev/null | FileCheck %s --check-prefix=GRAD32
// RUN: tpc-opt %s --tpc-cost-report -o - | FileCheck %s --check-prefix=IR

// A two-layer GPT-2 (H = 16, 4 heads, V = 100, 16 positions) as the partition
// pass leaves it for tp = 2, B = 2, T = 8: the vocabulary padded to 256
// (a multiple of 128 * tp), local shapes, f before each column-parallel
// region, g after each row-parallel one, row-parallel biases after g.
//
// Parameters. Global, unpadded: V*H + P*H + L*(12H^2 + 13H) + 2H
//   = 1,600 + 256 + 2 * 3,280 + 32 = 8,448.
// Per rank: wte 128x16 = 2,048; wpe 256; per layer ln 4*16 = 64, c_attn
//   16x24 + 24 = 408, attn c_proj 8x16 + 16 = 144, c_fc 16x32 + 32 = 544,
//   mlp c_proj 32x16 + 16 = 528: 1,688, twice 3,376; ln_f 32: 5,712.
//   fp32: 4 bytes each for weights, gradients, Adam m and v = 22,848 each.
// FLOPs per rank, M = B*T = 16 rows: c_attn 2*16*16*24 = 12,288; attention
//   4*B*T*T*C = 4*2*8*8*8 = 4,096; attn c_proj 2*16*8*16 = 4,096; c_fc
//   2*16*16*32 = 16,384; mlp c_proj 16,384: 53,248 per layer, 106,496 for
//   both; logits 2*16*16*128 = 65,536. Forward 172,032; step 3x = 516,096;
//   with recompute + 106,496 = 622,592.
// Model FLOPs per token: 6N = 50,688 plus 12*L*T*H = 3,072: 53,760; a step
//   of 16 tokens 860,160.
// Activations (bytes, fp32). Per layer: ln_1 input 1,024 + mean/rstd 128,
//   c_attn input 1,024, attention q|k|v 2x8x24 = 1,536 + probabilities
//   2x2x8x8 = 1,024, c_proj input 512, ln_2 input 1,024 + 128, c_fc input
//   1,024, gelu input 2,048, mlp c_proj input 2,048: 11,520. Outside layers:
//   token ids 64, ln_f input 1,024 + 128, logits-layer input 1,024, loss
//   logits 2x8x128 = 8,192 + targets 64 + max/sum-exp 128.
//   No recompute: 64 + 2 * 11,520 + 10,560 = 33,664.
//   Recompute: kept = outside 10,624 + the two layer inputs 2,048 = 12,672;
//   a layer recomputes 11,520 - 1,024 (its input is kept) = 10,496;
//   23,168 in all.
// All-reduces of B*T*H = 256 values: per layer 2 g (forward) and 2 f
//   (backward): 8; the embedding g and the output layer's f: 2. The loss
//   exchanges 3 x B*T = 16 values where gathering the logits would move
//   B*T*Vpad = 4,096. Ring bytes: (10 * 1,024 + 3 * 64) * 2(tp-1)/tp = 10,432.

// CHECK-LABEL: tpc cost report: tp 2 x dp 1 = 2 GPUs, micro-batch 2, seq 8, fp32
// CHECK-LABEL: {{^}}model
// CHECK-NEXT:    parameters (global, unpadded) 8,448
// CHECK-NEXT:    vocabulary 100 -> 256 padded
// CHECK-NEXT:    layers 2
// CHECK-NEXT:    model FLOPs per token 53,760 6N 50,688 + attention 3,072
// CHECK-NEXT:    model FLOPs per step 860,160 16 tokens
// CHECK-LABEL: {{^}}per rank
// CHECK-NEXT:    parameters 5,712
// CHECK-NEXT:    memory
// CHECK-NEXT:      weights (fp32) 22,848 B
// CHECK-NEXT:      gradients (fp32) 22,848 B
// CHECK-NEXT:      Adam m (fp32) 22,848 B
// CHECK-NEXT:      Adam v (fp32) 22,848 B
// CHECK-NEXT:      model states 91,392 B
// CHECK-NEXT:      activations, no recompute 33,664 B
// CHECK-NEXT:      activations, per-layer recompute 23,168 B
// CHECK-NEXT:        kept through the step 12,672 B
// CHECK-NEXT:        largest layer, recomputed 10,496 B
// CHECK-NEXT:      total, no recompute 125,056 B
// CHECK-NEXT:      total, per-layer recompute 114,560 B
// CHECK-NEXT:    FLOPs per micro-batch
// CHECK-NEXT:      forward 172,032
// CHECK-NEXT:      forward + backward 516,096 3 x forward
// CHECK-NEXT:      with per-layer recompute 622,592
// CHECK-LABEL: {{^}}communication per step, per rank
// CHECK-NEXT:    TP layer all-reduces 8 x 256 values (4 forward, 4 backward)
// CHECK-NEXT:    TP embedding/output layer all-reduces 2 x 256 values (1 forward, 1 backward)
// CHECK-NEXT:    vocab-parallel loss all-reduces 3 x 16 values (max, target logit, sum of exp; fp32)
// CHECK-NEXT:      gathering the logits instead 1 x 4,096 values
// CHECK-NEXT:    TP bytes sent (ring) 10,432 B
// CHECK-NEXT:    DP gradient all-reduce 0 dp = 1
// CHECK-LABEL: {{^}}legend

// JSON:      "config": {
// JSON-NEXT:   "tp": 2,
// JSON-NEXT:   "dp": 1,
// JSON-NEXT:   "gpus": 2,
// JSON-NEXT:   "micro_batch": 2,
// JSON-NEXT:   "seq": 8,
// JSON-NEXT:   "precision": "fp32"
// JSON:      "model": {
// JSON-NEXT:   "parameters": 8448,
// JSON-NEXT:   "vocab": 100,
// JSON-NEXT:   "padded_vocab": 256,
// JSON-NEXT:   "layers": 2,
// JSON-NEXT:   "flops_per_token": 53760,
// JSON-NEXT:   "attention_flops_per_token": 3072,
// JSON-NEXT:   "flops_per_step": 860160
// JSON:      "rank": {
// JSON-NEXT:   "parameters": 5712,
// JSON-NEXT:   "memory_bytes": {
// JSON-NEXT:     "weights": 22848,
// JSON-NEXT:     "gradients": 22848,
// JSON-NEXT:     "master_weights": 0,
// JSON-NEXT:     "adam_m": 22848,
// JSON-NEXT:     "adam_v": 22848,
// JSON-NEXT:     "model_states": 91392,
// JSON-NEXT:     "activations": 33664,
// JSON-NEXT:     "activations_recompute": 23168,
// JSON-NEXT:     "recompute_kept": 12672,
// JSON-NEXT:     "recompute_largest_layer": 10496,
// JSON-NEXT:     "total": 125056,
// JSON-NEXT:     "total_recompute": 114560
// JSON:        "flops": {
// JSON-NEXT:     "forward": 172032,
// JSON-NEXT:     "step": 516096,
// JSON-NEXT:     "step_recompute": 622592
// JSON:      "communication": {
// JSON-NEXT:   "tp_layer_collectives": [
// JSON-NEXT:     {
// JSON-NEXT:       "kind": "all-reduce",
// JSON-NEXT:       "count": 8,
// JSON-NEXT:       "forward": 4,
// JSON-NEXT:       "backward": 4,
// JSON-NEXT:       "values": 256,
// JSON-NEXT:       "bytes": 1024
// JSON:        "tp_other_collectives": [
// JSON-NEXT:     {
// JSON-NEXT:       "kind": "all-reduce",
// JSON-NEXT:       "count": 2,
// JSON-NEXT:       "forward": 1,
// JSON-NEXT:       "backward": 1,
// JSON-NEXT:       "values": 256,
// JSON:        "loss": {
// JSON-NEXT:     "vocab_parallel": true,
// JSON-NEXT:     "all_reduces": 3,
// JSON-NEXT:     "values": 16,
// JSON-NEXT:     "gathered_logits_values": 4096
// JSON:        "tp_bytes_sent": 10432,
// JSON-NEXT:   "dp_gradient_values": 0,
// JSON-NEXT:   "distributed_optimizer": false,
// JSON-NEXT:   "sequence_parallel": false,
// JSON-NEXT:   "dp_bytes_sent": 0

// bf16 (tpc-mixed-precision) with dp = 2: weights and gradients 2 bytes, an
// fp32 master copy, fp32 Adam: 16 bytes per parameter as in fp32, split
// differently. Activations halve except token ids, targets and what kernels
// keep in fp32 (statistics, attention probabilities): per layer 2,560 values
// * 2 + probabilities 1,024 + mean/rstd 256 = 6,400; outside 64 + 512 + 128
// + 512 + 4,096 + 64 + 128 = 5,504; no recompute 5,504 + 2 * 6,400 =
// 18,304; recompute kept 5,504 + 2 * 512 = 6,528, largest layer 6,400 - 512
// = 5,888: 12,416. The f and g all-reduces move bf16: (10 * 512 + 3 * 64) *
// 2(tp-1)/tp = 5,312 bytes. Each rank all-reduces its 5,712 bf16 gradients
// over dp: 2(dp-1)/dp * 11,424 = 11,424 bytes sent.
// BF16-LABEL: tpc cost report: tp 2 x dp 2 = 4 GPUs, micro-batch 2, seq 8, bf16
// BF16:       model FLOPs per step 1,720,320 32 tokens
// BF16:       weights (bf16) 11,424 B
// BF16-NEXT:  gradients (bf16) 11,424 B
// BF16-NEXT:  master weights (fp32) 22,848 B
// BF16-NEXT:  Adam m (fp32) 22,848 B
// BF16-NEXT:  Adam v (fp32) 22,848 B
// BF16-NEXT:  model states 91,392 B
// BF16-NEXT:  activations, no recompute 18,304 B
// BF16-NEXT:  activations, per-layer recompute 12,416 B
// BF16-NEXT:    kept through the step 6,528 B
// BF16-NEXT:    largest layer, recomputed 5,888 B
// BF16:       TP bytes sent (ring) 5,312 B
// BF16-NEXT:  DP gradient all-reduce 1 x 5,712 values (bf16)
// BF16-NEXT:  DP bytes sent (ring) 11,424 B

// With gradients in fp32 (--grad-reduce-dtype=fp32) the gradient buffers
// double to 4 bytes each, 22,848, model states grow by 11,424 to 102,816,
// and the data-parallel all-reduce moves fp32: 2(dp-1)/dp * 22,848 bytes.
// GRAD32:      weights (bf16) 11,424 B
// GRAD32-NEXT: gradients (fp32) 22,848 B
// GRAD32-NEXT: master weights (fp32) 22,848 B
// GRAD32:      model states 102,816 B
// GRAD32:      TP bytes sent (ring) 5,312 B
// GRAD32-NEXT: DP gradient all-reduce 1 x 5,712 values (fp32)
// GRAD32-NEXT: DP bytes sent (ring) 22,848 B

// The pass leaves the IR unchanged.
// IR-LABEL: func.func @forward
// IR:       tpc.vocab_parallel_cross_entropy

module attributes {tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<256x16xf32> init <normal, std = 0.02> layout <split 0> {vocab_size = 100 : i64}
  tpc.param @wpe : tensor<16x16xf32> init <normal, std = 0.01> layout <replicated>
  tpc.param @h.0.ln_1.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @h.0.ln_1.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.0.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>
  tpc.param @h.0.attn.c_attn.bias : tensor<48xf32> init <zeros> layout <split 0 blocks 3>
  tpc.param @h.0.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 2> layout <split 0>
  tpc.param @h.0.attn.c_proj.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.0.ln_2.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @h.0.ln_2.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> init <zeros> layout <split 0>
  tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 2> layout <split 0>
  tpc.param @h.0.mlp.c_proj.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.1.ln_1.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @h.1.ln_1.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.1.attn.c_attn.weight : tensor<16x48xf32> init <normal, std = 0.02> layout <split 1 blocks 3>
  tpc.param @h.1.attn.c_attn.bias : tensor<48xf32> init <zeros> layout <split 0 blocks 3>
  tpc.param @h.1.attn.c_proj.weight : tensor<16x16xf32> init <normal, std = 0.02, residual_layers = 2> layout <split 0>
  tpc.param @h.1.attn.c_proj.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.1.ln_2.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @h.1.ln_2.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @h.1.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
  tpc.param @h.1.mlp.c_fc.bias : tensor<64xf32> init <zeros> layout <split 0>
  tpc.param @h.1.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02, residual_layers = 2> layout <split 0>
  tpc.param @h.1.mlp.c_proj.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @ln_f.bias : tensor<16xf32> init <zeros> layout <replicated>

  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>) {
    %wte = tpc.get_param @wte : tensor<128x16xf32>
    %e = tpc.embedding %wte, %tokens vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
    %eg = tpc.g %e group tp : tensor<2x8x16xf32>
    %wpe = tpc.get_param @wpe : tensor<16x16xf32>
    %p = tpc.position_embedding %wpe, %tokens : tensor<16x16xf32>, tensor<2x8xi32>
    %h0 = tpc.add %eg, %p : tensor<2x8x16xf32>

    %l0g1 = tpc.get_param @h.0.ln_1.weight : tensor<16xf32>
    %l0b1 = tpc.get_param @h.0.ln_1.bias : tensor<16xf32>
    %l0a = tpc.layernorm %h0, %l0g1, %l0b1 eps 1.0e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l0af = tpc.f %l0a group tp : tensor<2x8x16xf32>
    %l0wqkv = tpc.get_param @h.0.attn.c_attn.weight : tensor<16x24xf32>
    %l0bqkv = tpc.get_param @h.0.attn.c_attn.bias : tensor<24xf32>
    %l0qkv = tpc.linear %l0af, %l0wqkv, %l0bqkv : tensor<2x8x16xf32>, tensor<16x24xf32>, tensor<24xf32>
    %l0s = tpc.self_attention %l0qkv heads 2 causal head_parallel : tensor<2x8x24xf32>
    %l0wo = tpc.get_param @h.0.attn.c_proj.weight : tensor<8x16xf32>
    %l0o = tpc.linear %l0s, %l0wo : tensor<2x8x8xf32>, tensor<8x16xf32>
    %l0og = tpc.g %l0o group tp : tensor<2x8x16xf32>
    %l0bo = tpc.get_param @h.0.attn.c_proj.bias : tensor<16xf32>
    %l0ob = tpc.bias_add %l0og, %l0bo : tensor<2x8x16xf32>, tensor<16xf32>
    %h1 = tpc.add %h0, %l0ob : tensor<2x8x16xf32>
    %l0g2 = tpc.get_param @h.0.ln_2.weight : tensor<16xf32>
    %l0b2 = tpc.get_param @h.0.ln_2.bias : tensor<16xf32>
    %l0m = tpc.layernorm %h1, %l0g2, %l0b2 eps 1.0e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l0mf = tpc.f %l0m group tp : tensor<2x8x16xf32>
    %l0wfc = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x32xf32>
    %l0bfc = tpc.get_param @h.0.mlp.c_fc.bias : tensor<32xf32>
    %l0u = tpc.linear %l0mf, %l0wfc, %l0bfc : tensor<2x8x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %l0gu = tpc.gelu %l0u : tensor<2x8x32xf32>
    %l0wp = tpc.get_param @h.0.mlp.c_proj.weight : tensor<32x16xf32>
    %l0v = tpc.linear %l0gu, %l0wp : tensor<2x8x32xf32>, tensor<32x16xf32>
    %l0vg = tpc.g %l0v group tp : tensor<2x8x16xf32>
    %l0bp = tpc.get_param @h.0.mlp.c_proj.bias : tensor<16xf32>
    %l0vb = tpc.bias_add %l0vg, %l0bp : tensor<2x8x16xf32>, tensor<16xf32>
    %h2 = tpc.add %h1, %l0vb : tensor<2x8x16xf32>

    %l1g1 = tpc.get_param @h.1.ln_1.weight : tensor<16xf32>
    %l1b1 = tpc.get_param @h.1.ln_1.bias : tensor<16xf32>
    %l1a = tpc.layernorm %h2, %l1g1, %l1b1 eps 1.0e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l1af = tpc.f %l1a group tp : tensor<2x8x16xf32>
    %l1wqkv = tpc.get_param @h.1.attn.c_attn.weight : tensor<16x24xf32>
    %l1bqkv = tpc.get_param @h.1.attn.c_attn.bias : tensor<24xf32>
    %l1qkv = tpc.linear %l1af, %l1wqkv, %l1bqkv : tensor<2x8x16xf32>, tensor<16x24xf32>, tensor<24xf32>
    %l1s = tpc.self_attention %l1qkv heads 2 causal head_parallel : tensor<2x8x24xf32>
    %l1wo = tpc.get_param @h.1.attn.c_proj.weight : tensor<8x16xf32>
    %l1o = tpc.linear %l1s, %l1wo : tensor<2x8x8xf32>, tensor<8x16xf32>
    %l1og = tpc.g %l1o group tp : tensor<2x8x16xf32>
    %l1bo = tpc.get_param @h.1.attn.c_proj.bias : tensor<16xf32>
    %l1ob = tpc.bias_add %l1og, %l1bo : tensor<2x8x16xf32>, tensor<16xf32>
    %h3 = tpc.add %h2, %l1ob : tensor<2x8x16xf32>
    %l1g2 = tpc.get_param @h.1.ln_2.weight : tensor<16xf32>
    %l1b2 = tpc.get_param @h.1.ln_2.bias : tensor<16xf32>
    %l1m = tpc.layernorm %h3, %l1g2, %l1b2 eps 1.0e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %l1mf = tpc.f %l1m group tp : tensor<2x8x16xf32>
    %l1wfc = tpc.get_param @h.1.mlp.c_fc.weight : tensor<16x32xf32>
    %l1bfc = tpc.get_param @h.1.mlp.c_fc.bias : tensor<32xf32>
    %l1u = tpc.linear %l1mf, %l1wfc, %l1bfc : tensor<2x8x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %l1gu = tpc.gelu %l1u : tensor<2x8x32xf32>
    %l1wp = tpc.get_param @h.1.mlp.c_proj.weight : tensor<32x16xf32>
    %l1v = tpc.linear %l1gu, %l1wp : tensor<2x8x32xf32>, tensor<32x16xf32>
    %l1vg = tpc.g %l1v group tp : tensor<2x8x16xf32>
    %l1bp = tpc.get_param @h.1.mlp.c_proj.bias : tensor<16xf32>
    %l1vb = tpc.bias_add %l1vg, %l1bp : tensor<2x8x16xf32>, tensor<16xf32>
    %h4 = tpc.add %h3, %l1vb : tensor<2x8x16xf32>

    %gf = tpc.get_param @ln_f.weight : tensor<16xf32>
    %bf = tpc.get_param @ln_f.bias : tensor<16xf32>
    %n = tpc.layernorm %h4, %gf, %bf eps 1.0e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %nf = tpc.f %n group tp : tensor<2x8x16xf32>
    %logits = tpc.linear %nf, %wte transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<2x8x128xf32>
  }
}
