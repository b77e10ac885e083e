// RUN: tpc-opt %s --tpc-mixed-precision=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: tpc-opt %s "--tpc-mixed-precision=precision=fp16 grad-reduce-dtype=fp32" | FileCheck %s --check-prefix=FP32GRAD
// RUN: tpc-opt %s --tpc-mixed-precision=precision=fp32 | FileCheck %s --check-prefix=FP32
// RUN: tpc-opt %s --tpc-mixed-precision=precision=bf16 --tpc-autodiff --tpc-data-parallel --tpc-optimizer --tpc-decode | FileCheck %s --check-prefix=STEP
// RUN: tpc-opt %s "--tpc-mixed-precision=precision=bf16 grad-reduce-dtype=fp32" --tpc-autodiff --tpc-data-parallel --tpc-optimizer | FileCheck %s --check-prefix=STEP32

// A partitioned GPT-2 block without attention (tp = 2, dp = 2): a
// vocabulary-parallel embedding, a layer norm, a Megatron MLP and the tied,
// vocabulary-parallel output layer and loss.
module attributes {tpc.dp = 2 : i64, tpc.tp = 2 : i64} {
  tpc.param @wte : tensor<256x16xf32> init <normal, std = 2.000000e-02> layout <split 0> {vocab_size = 128 : i64}
  tpc.param @ln.weight : tensor<16xf32> init <ones> layout <replicated>
  tpc.param @ln.bias : tensor<16xf32> init <zeros> layout <replicated>
  tpc.param @c_fc.weight : tensor<16x64xf32> init <normal, std = 2.000000e-02> layout <split 1>
  tpc.param @c_fc.bias : tensor<64xf32> init <zeros> layout <split 0>
  tpc.param @c_proj.weight : tensor<64x16xf32> init <normal, std = 2.000000e-02> layout <split 0>
  tpc.param @c_proj.bias : tensor<16xf32> init <zeros> layout <replicated>
  func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>) {
    %wte = tpc.get_param @wte : tensor<128x16xf32>
    %e = tpc.embedding %wte, %tokens vocab_parallel : tensor<128x16xf32>, tensor<2x8xi32>
    %x = tpc.g %e group tp : tensor<2x8x16xf32>
    %lw = tpc.get_param @ln.weight : tensor<16xf32>
    %lb = tpc.get_param @ln.bias : tensor<16xf32>
    %n = tpc.layernorm %x, %lw, %lb eps 1.000000e-05 : tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>
    %w1 = tpc.get_param @c_fc.weight : tensor<16x32xf32>
    %b1 = tpc.get_param @c_fc.bias : tensor<32xf32>
    %nf = tpc.f %n group tp : tensor<2x8x16xf32>
    %h = tpc.linear %nf, %w1, %b1 : tensor<2x8x16xf32>, tensor<16x32xf32>, tensor<32xf32>
    %a = tpc.gelu %h : tensor<2x8x32xf32>
    %w2 = tpc.get_param @c_proj.weight : tensor<32x16xf32>
    %b2 = tpc.get_param @c_proj.bias : tensor<16xf32>
    %p = tpc.linear %a, %w2 : tensor<2x8x32xf32>, tensor<32x16xf32>
    %r = tpc.g %p group tp : tensor<2x8x16xf32>
    %v = tpc.bias_add %r, %b2 : tensor<2x8x16xf32>, tensor<16xf32>
    %y = tpc.add %x, %v : tensor<2x8x16xf32>
    %yf = tpc.f %y group tp : tensor<2x8x16xf32>
    %logits = tpc.linear %yf, %wte transposed : tensor<2x8x16xf32>, tensor<128x16xf32>
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 128 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<2x8x128xf32>
  }
}

// Every parameter keeps its f32 master and gains a bf16 working copy, which
// the functions read; every activation follows, the loss sum stays f32 and
// the logits are cast back to f32 where they leave the function.
// BF16:      tpc.param @wte : tensor<256x16xf32> init <normal, std = 2.000000e-02> layout <split 0> compute bf16 {vocab_size = 128 : i64}
// BF16-NEXT: tpc.param @ln.weight : tensor<16xf32> init <ones> layout <replicated> compute bf16
// BF16-NEXT: tpc.param @ln.bias : tensor<16xf32> init <zeros> layout <replicated> compute bf16
// BF16-NEXT: tpc.param @c_fc.weight : tensor<16x64xf32> {{.*}} layout <split 1> compute bf16
// BF16-NEXT: tpc.param @c_fc.bias : tensor<64xf32> {{.*}} compute bf16
// BF16-NEXT: tpc.param @c_proj.weight : tensor<64x16xf32> {{.*}} compute bf16
// BF16-NEXT: tpc.param @c_proj.bias : tensor<16xf32> {{.*}} compute bf16
// BF16-LABEL: func.func @forward(%{{.*}}: tensor<2x8xi32>, %{{.*}}: tensor<2x8xi32>) -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>)
// BF16-NEXT:    %[[WTE:.*]] = tpc.get_param @wte : tensor<128x16xbf16>
// BF16-NEXT:    tpc.embedding %[[WTE]], %{{.*}} vocab_parallel : tensor<128x16xbf16>, tensor<2x8xi32>
// BF16-NEXT:    tpc.g %{{.*}} group tp : tensor<2x8x16xbf16>
// BF16-NEXT:    tpc.get_param @ln.weight : tensor<16xbf16>
// BF16-NEXT:    tpc.get_param @ln.bias : tensor<16xbf16>
// BF16-NEXT:    tpc.layernorm {{.*}} : tensor<2x8x16xbf16>, tensor<16xbf16>, tensor<16xbf16>
// BF16-NEXT:    tpc.get_param @c_fc.weight : tensor<16x32xbf16>
// BF16-NEXT:    tpc.get_param @c_fc.bias : tensor<32xbf16>
// BF16-NEXT:    tpc.f %{{.*}} group tp : tensor<2x8x16xbf16>
// BF16-NEXT:    tpc.linear {{.*}} : tensor<2x8x16xbf16>, tensor<16x32xbf16>, tensor<32xbf16>
// BF16-NEXT:    tpc.gelu %{{.*}} : tensor<2x8x32xbf16>
// BF16-NEXT:    tpc.get_param @c_proj.weight : tensor<32x16xbf16>
// BF16-NEXT:    tpc.get_param @c_proj.bias : tensor<16xbf16>
// BF16-NEXT:    tpc.linear {{.*}} : tensor<2x8x32xbf16>, tensor<32x16xbf16>
// BF16-NEXT:    tpc.g %{{.*}} group tp : tensor<2x8x16xbf16>
// BF16-NEXT:    tpc.bias_add {{.*}} : tensor<2x8x16xbf16>, tensor<16xbf16>
// BF16-NEXT:    tpc.add {{.*}} : tensor<2x8x16xbf16>
// BF16-NEXT:    tpc.f %{{.*}} group tp : tensor<2x8x16xbf16>
// BF16-NEXT:    %[[LOGITS:.*]] = tpc.linear %{{.*}}, %[[WTE]] transposed : tensor<2x8x16xbf16>, tensor<128x16xbf16>
// BF16-NEXT:    %[[SUM:.*]], %[[COUNT:.*]] = tpc.vocab_parallel_cross_entropy %[[LOGITS]], %{{.*}} vocab 128 ignore_index -1 : tensor<2x8x128xbf16>, tensor<2x8xi32>
// BF16-NEXT:    %[[OUT:.*]] = tpc.cast %[[LOGITS]] : tensor<2x8x128xbf16> to tensor<2x8x128xf32>
// BF16-NEXT:    return %[[SUM]], %[[COUNT]], %[[OUT]] : tensor<f32>, tensor<i32>, tensor<2x8x128xf32>

// FP32GRAD: tpc.param @wte : tensor<256x16xf32> {{.*}} compute f16 grad f32 {vocab_size = 128 : i64}
// FP32GRAD: tpc.param @c_proj.bias : tensor<16xf32> {{.*}} compute f16 grad f32
// FP32GRAD: tpc.layernorm {{.*}} : tensor<2x8x16xf16>, tensor<16xf16>, tensor<16xf16>

// fp32 leaves the module as it is.
// FP32:     tpc.param @wte : tensor<256x16xf32> init <normal, std = 2.000000e-02> layout <split 0> {vocab_size = 128 : i64}
// FP32-NOT: compute
// FP32-NOT: tpc.cast
// FP32:     tpc.get_param @wte : tensor<128x16xf32>

// The training step: gradients follow the activations (bf16, and so do the
// backward all-reduce of each f and the dp buckets); the sums of squares,
// the norm and the optimizer inputs stay f32 scalars; each update reads a
// bf16 gradient (and updates the f32 master and its working copy).
// STEP-LABEL: func.func @train_step
// STEP:         tpc.fill 1.000000e+00 : tensor<f32>
// STEP:         tpc.vocab_parallel_cross_entropy_grad {{.*}} : tensor<2x8x128xbf16>, tensor<2x8xi32>
// STEP:         tpc.all_reduce %{{.*}} sum group tp : tensor<2x8x16xbf16>
// STEP:         tpc.accumulate_grad @c_proj.weight, %{{.*}} : tensor<32x16xbf16>
// STEP:         tpc.accumulate_grad @wte, %{{.*}} : tensor<128x16xbf16>
// STEP-LABEL: func.func @apply_step(%{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>) -> tensor<f32>
// STEP:         tpc.bucket_all_reduce
// STEP:         %[[G:.*]] = tpc.get_grad @wte : tensor<128x16xbf16>
// STEP:         tpc.sum_squares %[[G]], {{.*}} : tensor<128x16xbf16>,
// STEP:         tpc.grad_norm
// STEP:         tpc.adamw_update @wte, %[[G]], {{.*}} : tensor<128x16xbf16>
// STEP-NEXT:    tpc.adamw_update @ln.weight, {{.*}} : tensor<16xbf16>
// STEP:         tpc.adamw_update @c_proj.bias, {{.*}} : tensor<16xbf16>
// STEP-NEXT:    return
// The generator samples from f32 logits.
// STEP-LABEL: func.func @decode_step(%{{.*}}: tensor<1x1xi32>, %{{.*}}: tensor<i32>) -> tensor<1x1x256xf32>
// STEP:         %[[ROW:.*]] = tpc.all_gather %{{.*}} dim 2 group tp : tensor<1x1x128xbf16> -> tensor<1x1x256xbf16>
// STEP-NEXT:    %[[ROW32:.*]] = tpc.cast %[[ROW]] : tensor<1x1x256xbf16> to tensor<1x1x256xf32>
// STEP-NEXT:    return %[[ROW32]]

// With f32 gradients the backward still computes in bf16; the buffers and
// the data-parallel all-reduce are f32.
// STEP32-LABEL: func.func @train_step
// STEP32:         tpc.accumulate_grad @wte, %{{.*}} : tensor<128x16xbf16>
// STEP32-LABEL: func.func @apply_step
// STEP32:         tpc.get_grad @wte : tensor<128x16xf32>
// STEP32:         tpc.adamw_update @wte, {{.*}} : tensor<128x16xf32>
