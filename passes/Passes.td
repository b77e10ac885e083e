//===- Passes.td - tpc passes ------------------------------*- tablegen -*-===//

#ifndef TPC_PASSES_TD
#define TPC_PASSES_TD

include "mlir/Pass/PassBase.td"

def Specialize : Pass<"tpc-specialize", "mlir::ModuleOp"> {
  let summary = "Fix the batch and sequence dimensions of a model";
  let description = [{
    A model file leaves the batch B and the sequence length T of its token
    inputs open. This pass gives every rank-2 i32 argument of every function
    the shape [batch, seq] and recomputes all result types from there, so
    that later passes and the cost report see static shapes.

    Input:
    ```mlir
    func.func @forward(%tokens: tensor<?x?xi32>, %targets: tensor<?x?xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<?x?x64xf32>)
    ```
    Output with `batch=4 seq=16`:
    ```mlir
    func.func @forward(%tokens: tensor<4x16xi32>, %targets: tensor<4x16xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<4x16x64xf32>)
    ```
  }];
  let options = [
    Option<"batch", "batch", "int64_t", "0",
           "micro-batch size B (0 keeps the model's own)">,
    Option<"seq", "seq", "int64_t", "0",
           "sequence length T (0 keeps the model's own)">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def MegatronShard : Pass<"tpc-megatron-shard", "mlir::ModuleOp"> {
  let summary = "Choose the Megatron-LM layout of every parameter";
  let description = [{
    Reads the structure of `func.func @forward` (not the parameter names) and
    gives every `tpc.param` the layout Megatron-LM's tensor parallelism uses
    for tp ranks:

    - MLP (linear -> gelu -> linear): the first weight `split 1`, its bias
      `split 0` (column-parallel); the second weight `split 0`
      (row-parallel), its bias replicated.
    - Self-attention (linear -> self_attention -> linear): the fused q|k|v
      weight `split 1 blocks 3` and bias `split 0 blocks 3`, so that a rank
      owns heads/tp whole heads of q, k and v; the output projection
      `split 0`.
    - StagFormer cross-attention (c_q, c_kv -> cross_attention -> c_proj):
      c_q weight `split 1`, bias `split 0`; c_kv weight `split 1 blocks 2`,
      bias `split 0 blocks 2`; c_proj `split 0`.
    - The output layer feeding `tpc.cross_entropy` splits its vocabulary
      dimension (`split 0` when it reads [V, H] `transposed`, as the tied
      embedding table), and a token embedding over the same vocabulary is
      split the same way (`split 0`); a bigram table whose lookup feeds
      `tpc.cross_entropy` directly is `split 1`.
    - Every other parameter is `replicated`.

    Values between a block's column- and row-parallel linears (gelu output,
    attention output and dropouts of them) must have no other user, or the
    block is left replicated. Dropouts may sit between the ops of a block.

    Layouts already written on a parameter are kept and must be the ones the
    rule gives. The pass records tp as the module attribute `tpc.shard_tp`
    (i64) for `tpc-partition`; shapes are not changed, and the vocabulary
    dimension need not divide by tp because `tpc-partition` pads it. Errors:
    tp < 1, attention heads or any non-vocabulary split dimension (per block)
    not divisible by tp, a parameter that two uses need with different
    layouts, a hand-written layout that differs from the rule, a module
    without `forward`, an already partitioned module (`tpc.tp` present).
    tp = 1 is valid and records the same layouts.

    Input:
    ```mlir
    tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02>
    tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02>
    func.func @forward(...) {
      %u = tpc.linear %x, %fc_w, %fc_b : ...
      %a = tpc.gelu %u : tensor<?x?x64xf32>
      %v = tpc.linear %a, %proj_w, %proj_b : ...
    ```
    Output with `tp=2`:
    ```mlir
    module attributes {tpc.shard_tp = 2 : i64} {
      tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
      tpc.param @h.0.mlp.c_proj.weight : tensor<64x16xf32> init <normal, std = 0.02> layout <split 0>
      ...
    ```
  }];
  let options = [
    Option<"tp", "tp", "int64_t", "1", "tensor-parallel size">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def Partition : Pass<"tpc-partition", "mlir::ModuleOp"> {
  let summary = "Rewrite a sharded model to per-rank shapes (Megatron SPMD)";
  let description = [{
    Consumes the layouts and the `tpc.shard_tp` attribute of
    `tpc-megatron-shard` and rewrites `@forward` into the program every rank
    runs:

    - `tpc.f` before each column-parallel linear (for cross-attention before
      both c_q and c_kv); `tpc.g` after each row-parallel linear, whose bias
      moves after g as a `tpc.bias_add` so that it is added once.
    - Attention ops get heads/tp heads and `head_parallel` (their
      probability dropout is then drawn per global head). Dropouts inside a
      block become `per_rank` with `layout <split D>` (D the last dimension),
      so masks follow global element indices and never depend on tp.
      Dropout, layernorm and residual adds outside blocks are unchanged
      (duplicated, `replicated` streams).
    - The vocabulary is padded to a multiple of 128 * tp: each vocabulary
      split parameter gets the padded global shape and records the
      unpadded size as its `vocab_size` (i64) attribute. The token
      embedding becomes `tpc.embedding ... vocab_parallel` then `tpc.g`; the
      output layer gets `tpc.f` before it and computes this rank's logits;
      `tpc.cross_entropy` becomes `tpc.vocab_parallel_cross_entropy ... vocab
      V` with the unpadded V, which excludes the padding. A bigram table
      [V, Vpad] is read as [V, Vpad/tp] by a plain lookup that feeds the
      vocabulary-parallel loss directly. `@forward` returns local logits.
    - Finally `tpc.tp` (i64) replaces `tpc.shard_tp` on the module, every
      `tpc.get_param` gets the per-rank type and result types are re-inferred.

    tp = 1 takes the same path (padding, f, g, vocabulary-parallel ops; the
    collectives of a group of one are identities), so that one program shape
    serves every tp. For GPT-2 with L layers `@forward` has 2L+1 f and 2L+1 g.

    Input (after `tpc-megatron-shard{tp=2}`, V = 100):
    ```mlir
    module attributes {tpc.shard_tp = 2 : i64} {
      tpc.param @wte : tensor<100x16xf32> init <normal, std = 0.02> layout <split 0>
      ...
        %e = tpc.embedding %wte, %tokens : tensor<100x16xf32>, tensor<?x?xi32>
        ...
        %v = tpc.linear %a, %proj_w, %proj_b : tensor<?x?x64xf32>, tensor<64x16xf32>, tensor<16xf32>
        ...
        %logits = tpc.linear %n, %wte transposed : tensor<?x?x16xf32>, tensor<100x16xf32>
        %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : ...
    ```
    Output:
    ```mlir
    module attributes {tpc.tp = 2 : i64} {
      tpc.param @wte : tensor<256x16xf32> init <normal, std = 0.02> layout <split 0> {vocab_size = 100 : i64}
      ...
        %e = tpc.embedding %wte, %tokens vocab_parallel : tensor<128x16xf32>, tensor<?x?xi32>
        %e1 = tpc.g %e group tp : tensor<?x?x16xf32>
        ...
        %p = tpc.linear %a, %proj_w : tensor<?x?x32xf32>, tensor<32x16xf32>
        %r = tpc.g %p group tp : tensor<?x?x16xf32>
        %v = tpc.bias_add %r, %proj_b : tensor<?x?x16xf32>, tensor<16xf32>
        ...
        %nf = tpc.f %n group tp : tensor<?x?x16xf32>
        %logits = tpc.linear %nf, %wte transposed : tensor<?x?x16xf32>, tensor<128x16xf32>
        %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : ...
    ```
  }];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def MixedPrecision : Pass<"tpc-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Compute in bf16 or f16 with f32 master weights";
  let description = [{
    Rewrites a partitioned module (before `tpc-autodiff`) to compute in
    `precision` (bf16 or f16; fp32 leaves the module as it is), the scheme
    of Micikevicius et al. (2018) and Megatron-LM:

    - every f32 `tpc.param` gains a working copy of the compute type
      (`compute bf16`): the declared f32 tensor becomes the master copy,
      which the optimizer updates and checkpoints hold; `tpc.get_param`
      reads the working copy, which the optimizer's update rounds from the
      updated master once per optimizer step;
    - every activation (every floating-point tensor of rank >= 1 a function
      computes) is of the compute type, and so are, after `tpc-autodiff`,
      their gradients and the collectives that move them: the f/g
      all-reduces of the forward and backward passes;
    - parameter gradients accumulate in a buffer of the compute type, or in
      f32 with `grad-reduce-dtype=fp32` (Megatron's
      `accumulate_allreduce_grads_in_fp32`): the data-parallel bucket
      all-reduces then move f32;
    - f32 stay: the loss sum and every scalar (the optimizer's inputs, the
      sums of squares and the gradient norm), AdamW's moments and SGD's
      momentum (of the master's type), and what the kernels keep inside an
      op (layer-norm mean and rstd, attention probabilities and softmax,
      the max, sum of exponentials and target logit of the cross-entropy),
      which accumulate in f32 whatever the storage type;
    - a function's floating-point results of rank >= 1 (the logits of
      `@forward`) are cast back to f32 with `tpc.cast`, so that every entry
      point returns f32 and takes f32 or i32 arguments (a floating-point
      argument is cast to the compute type where the function starts).
    - f16's range ends at 65504 and its smallest normal is 6e-5, so f16
      gradients need dynamic loss scaling: tpc-compile runs `tpc-autodiff`
      with `loss-scale=true` for `--precision fp16`, and train_step takes the
      scale that tpc-run's trainer adjusts. bf16 has f32's range and needs
      none.

    Input (tp = 1, one linear layer shown):
    ```mlir
    tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
    func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>) {
      %w = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xf32>
      %h = tpc.linear %x, %w : tensor<2x8x16xf32>, tensor<16x64xf32>
      ...
      %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
      return %sum, %count, %logits : tensor<f32>, tensor<i32>, tensor<2x8x128xf32>
    }
    ```
    Output (`precision=bf16`):
    ```mlir
    tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1> compute bf16
    func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<2x8x128xf32>) {
      %w = tpc.get_param @h.0.mlp.c_fc.weight : tensor<16x64xbf16>
      %h = tpc.linear %x, %w : tensor<2x8x16xbf16>, tensor<16x64xbf16>
      ...
      %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : tensor<2x8x128xbf16>, tensor<2x8xi32>
      %out = tpc.cast %logits : tensor<2x8x128xbf16> to tensor<2x8x128xf32>
      return %sum, %count, %out : tensor<f32>, tensor<i32>, tensor<2x8x128xf32>
    }
    ```

    Errors: an unknown precision or gradient type, a module that is not
    partitioned or already differentiated (run it between `tpc-partition`
    and `tpc-autodiff`), a parameter that is not f32 (a model written in
    bf16 has no master copy to keep; write it in f32) or that already has
    a working copy.
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"fp32\"",
           "compute type: fp32 (no change), bf16 or fp16">,
    Option<"gradReduceDtype", "grad-reduce-dtype", "std::string",
           "\"compute\"",
           "element type of parameter gradients and their data-parallel "
           "all-reduce: compute (the compute type) or fp32">,
  ];
  let dependentDialects = ["::tpc::TpcDialect", "::mlir::func::FuncDialect"];
}

def Decode : Pass<"tpc-decode", "mlir::ModuleOp"> {
  let summary = "Add decode_step: one position of the partitioned forward "
                "with KV caches";
  let description = [{
    Derives from the partitioned `@forward` the entry point the generator
    calls once per token:

    ```
    func.func @decode_step(%tokens: tensor<Bx1xi32>, %pos: tensor<i32>)
        -> tensor<Bx1xVpad x f32>
    ```

    The ops that compute the logits of `@forward`'s
    `tpc.vocab_parallel_cross_entropy` are cloned for one position, so that
    decoding runs the same per-rank graph as training: the same f and g,
    head-parallel attention and vocabulary-parallel output layer.

    - `tpc.position_embedding` reads position %pos (`offset %pos`).
    - Each causal `tpc.self_attention` becomes `tpc.decode_attention ...
      capacity C`, which appends this position's k and v to a KV cache the
      runtime keeps per op and attends to cache[0..pos] (window kept); each
      `tpc.cross_attention` (StagFormer) becomes
      `tpc.decode_cross_attention`, which attends to cache[0..pos-1] and
      then appends. C is the number of rows of the position table (n_ctx),
      or the specialized sequence length of a model without one. Probability
      dropout is dropped.
    - `tpc.dropout` ops are dropped (inference), and so are the loss and
      every op the logits do not need.
    - The local logits [B, 1, Vpad/tp] are gathered with `tpc.all_gather
      ... dim 2 group tp`, so that every rank holds the whole padded row
      and draws the same next token; logits of a bf16 or f16 compute type
      are then cast to f32 (`tpc.cast`). Columns at or beyond the vocabulary
      size of the loss are padding, which the generator ignores.

    A sequence-parallel `@forward` decodes whole positions: its
    `tpc.seq_scatter reduce` and `tpc.seq_gather reduce_grad` become g and
    f again, the other sequence ops disappear.

    For a shared-weights StagFormer whose logits read only its last stack
    (2 stacks, or p stacks without alpha), the pass also adds recurrent
    decoding, one pass of the last stack per token:

    ```
    func.func @decode_recurrent(%tokens: tensor<Bx1xi32>, %pos: tensor<i32>,
        %final: tensor<Bx1xH>) -> (tensor<Bx1xVpad x f32>, tensor<Bx1xH>)
    ```

    It clones the last stack's ops of `@decode_step`; their self-attentions
    and those of `@decode_step` get one `cache` name each, so that the
    recurrent pass continues the caches the prompt filled. Each
    cross-attention's memory projection reads %final, the previous token's
    final activation, as a `lagged` `tpc.decode_cross_attention` with a
    cache of its own. `@decode_step` then also returns the last stack's
    final activation (the input of the final norm), which the generator
    hands to the first recurrent step.

    A model whose logits depend on bidirectional self-attention cannot be
    decoded one position at a time: the pass then warns and adds nothing.
    Errors: a module that is not partitioned (`tpc-partition` first), an
    existing `@decode_step`, a `@forward` without exactly one
    vocabulary-parallel loss, logits that read `@forward`'s targets.

    Input (after `tpc-partition`, tp = 2, one layer shown):
    ```mlir
    func.func @forward(%tokens: tensor<4x16xi32>, %targets: tensor<4x16xi32>) -> ... {
      %wpe = tpc.get_param @wpe : tensor<64x16xf32>
      %p = tpc.position_embedding %wpe, %tokens : tensor<64x16xf32>, tensor<4x16xi32>
      ...
      %x = tpc.f %a group tp : tensor<4x16x16xf32>
      %qkv = tpc.linear %x, %w, %b : tensor<4x16x16xf32>, tensor<16x24xf32>, tensor<24xf32>
      %s = tpc.self_attention %qkv heads 2 causal dropout 1.0e-01 key 3 head_parallel : tensor<4x16x24xf32>
      ...
      %logits = tpc.linear %nf, %wte transposed : tensor<4x16x16xf32>, tensor<128x16xf32>
      %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 100 ignore_index -1 : ...
    ```
    Output (`batch=1`), at the end of the module:
    ```mlir
    func.func @decode_step(%tokens: tensor<1x1xi32>, %pos: tensor<i32>) -> tensor<1x1x256xf32> {
      %wpe = tpc.get_param @wpe : tensor<64x16xf32>
      %p = tpc.position_embedding %wpe, %tokens offset %pos : tensor<64x16xf32>, tensor<1x1xi32>, tensor<i32>
      ...
      %x = tpc.f %a group tp : tensor<1x1x16xf32>
      %qkv = tpc.linear %x, %w, %b : tensor<1x1x16xf32>, tensor<16x24xf32>, tensor<24xf32>
      %s = tpc.decode_attention %qkv, %pos heads 2 capacity 64 head_parallel : tensor<1x1x24xf32>, tensor<i32>
      ...
      %logits = tpc.linear %nf, %wte transposed : tensor<1x1x16xf32>, tensor<128x16xf32>
      %all = tpc.all_gather %logits dim 2 group tp : tensor<1x1x128xf32> -> tensor<1x1x256xf32>
      return %all : tensor<1x1x256xf32>
    }
    ```
  }];
  let options = [
    Option<"batch", "batch", "int64_t", "1",
           "sequences decoded together (B of decode_step's tokens)">,
  ];
  let dependentDialects = ["::tpc::TpcDialect", "::mlir::func::FuncDialect"];
}

def StackParallel : Pass<"tpc-stack-parallel", "mlir::ModuleOp"> {
  let summary = "Split a StagFormer's decode_step into one entry point per "
                "stack, for decoding the stacks on ranks of their own";
  let description = [{
    At decode time the stacks of a StagFormer do not depend on each other
    within a position: stack s reads the token and, through its
    cross-attentions, stack s-1's final activations of earlier positions.
    The pass splits the `@decode_step` that `tpc-decode` built into

    ```
    func.func @decode_stack_0(%tokens: tensor<Bx1xi32>, %pos: tensor<i32>)
        -> tensor<Bx1xH>
    func.func @decode_stack_<s>(%tokens, %pos, %memory: tensor<Bx1xH>)
        -> tensor<Bx1xH>                       // s = 1 .. p-1
    func.func @decode_head(%final_0, ..) -> tensor<Bx1xVpad x f32>
    ```

    so that the tp ranks of each stack run their stack alone and all stacks
    process token i at once. Each function clones the ops of its stack from
    `@decode_step` (the token and position embeddings in every stack, the
    paper's duplicated embeddings; the stack's f and g over its own tp
    group); `%memory` is stack s-1's final activation of position pos - 1,
    which the generator sends from stack s-1's ranks to stack s's once per
    token, and each cross-attention becomes `lagged`: it writes the
    memory's keys and values at pos - 1, then attends to [0, pos), what
    `@decode_step`'s cross-attention attends to. `@decode_head` is the
    output layer (final norm, logits, their all-gather over tp) on the
    last stack's final activation, or on every stack's, in order, under the
    alpha combination. The module gets `tpc.stacks = p`: the program runs
    on p x tp ranks, rank r holding stack r / tp.

    Errors: no `@decode_step` (run `tpc-decode` first), a model that is not
    a StagFormer (no cross-attention between stacks), a data-parallel module
    (the stacks take the place of dp), a second run.
  }];
  let dependentDialects = ["::tpc::TpcDialect", "::mlir::func::FuncDialect"];
}

def SequenceParallel : Pass<"tpc-sequence-parallel", "mlir::ModuleOp"> {
  let summary = "Split the regions between tensor-parallel blocks along the sequence";
  let description = [{
    Megatron-LM's sequence parallelism (Korthikanti et al. 2022) on the
    `@forward` that `tpc-partition` wrote. Between the tensor-parallel blocks
    (layer norms, dropout, residual adds, the row-parallel biases) every rank
    then holds T / tp positions [B, T / tp, H] instead of the whole sequence:

    - each `tpc.g` of an activation becomes `tpc.seq_scatter reduce`, a
      reduce-scatter along the sequence (the token embedding's g too);
    - each `tpc.f` that receives a split value becomes
      `tpc.seq_gather reduce_grad`, an all-gather whose backward
      reduce-scatters the column-parallel ranks' partial gradients;
    - layer norms, RMS norms, residual adds, bias adds, dropout, scale, cast,
      gelu and StagFormer's weighted sum run on the split values. A
      whole-sequence activation they meet (the position embedding) is sliced
      by `tpc.seq_scatter` without `reduce`; a replicated operand that is
      not an activation (a norm's scale and shift, a bias, alpha) is read
      through `tpc.f`, whose backward all-reduces over tp the gradient each
      rank computed from its own positions;
    - a dropout on split values becomes `per_rank` with `layout <split 1>`:
      each rank draws its positions' part of the global mask, the same
      elements drop as without sequence parallelism;
    - any other reader of a split value (the output, a replicated linear)
      gets it back whole through `tpc.seq_gather`, whose backward takes this
      rank's slice.

    Communication volume is that of the all-reduces it replaces (an
    all-reduce is a reduce-scatter plus an all-gather); the per-position
    activations between blocks shrink tp-fold. `@forward`'s sequence length
    must be static and divisible by tp. Run after `tpc-partition` and before
    `tpc-autodiff`; `tpc-decode` turns the ops back into f and g for one
    position.

    Input (`tpc.tp = 2`, T = 8):
    ```mlir
    %r = tpc.g %p group tp : tensor<2x8x16xf32>
    %v = tpc.bias_add %r, %b : tensor<2x8x16xf32>, tensor<16xf32>
    %x = tpc.add %res, %v : tensor<2x8x16xf32>
    %n = tpc.layernorm %x, %w, %s eps 1.0e-05 : ...
    %nf = tpc.f %n group tp : tensor<2x8x16xf32>
    ```
    Output:
    ```mlir
    %r = tpc.seq_scatter %p reduce : tensor<2x8x16xf32> -> tensor<2x4x16xf32>
    %bf = tpc.f %b group tp : tensor<16xf32>
    %v = tpc.bias_add %r, %bf : tensor<2x4x16xf32>, tensor<16xf32>
    %x = tpc.add %res, %v : tensor<2x4x16xf32>
    ...
    %nf = tpc.seq_gather %n reduce_grad : tensor<2x4x16xf32> -> tensor<2x8x16xf32>
    ```
  }];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def Recompute : Pass<"tpc-recompute", "mlir::ModuleOp"> {
  let summary = "Activation recompute: each layer's backward re-runs its forward";
  let description = [{
    With `mode=full` (Megatron-LM's full activation checkpointing), the
    training step keeps of each transformer layer only what crosses the
    layer's boundary (its input on the residual stream, its output, and
    values such as the previous stack's activations that StagFormer's
    cross-attention reads); everything the layer's backward needs besides
    is computed again just before that backward starts, by clones of the
    forward ops it depends on. Layers are found from the residual stream as
    the cost report finds them. The clones are the same ops with the same
    operands (dropout masks come from the same keys, a `tpc.g` all-reduces
    again), so losses and weights equal the program without recompute bit
    for bit, while tpc-plan-memory reuses the layers' buffers.

    In every mode, a `tpc.seq_gather` of sequence parallelism that the
    backward reads (a column-parallel linear's weight gradient needs its
    whole input) is cloned before its first backward reader, as Megatron-LM
    gathers again in the backward instead of keeping the gathered copy: the
    forward's copy then dies at its last forward reader, and only the split
    value is kept.

    `mode=selective` (Megatron's `--recompute-activations`: recompute only
    the attention's [B, heads, T, T] intermediates) and `mode=none` leave
    the program as it is: tpc's attention grad ops always recompute the
    probabilities from q, k and v, which is what selective recompute does.

    Input (`@train_step` after tpc-autodiff, one layer):
    ```mlir
    %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : ...
    %h = tpc.gelu %y : tensor<4x8xf32>
    ...
    %dy = tpc.gelu_grad %dh, %y : tensor<4x8xf32>
    ```
    Output (`mode=full`): the backward reads a recomputed %y.
    ```mlir
    %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : ...
    %h = tpc.gelu %y : tensor<4x8xf32>
    ...
    %y2 = tpc.layernorm %x, %g, %b eps 1.0e-05 : ...
    %dy = tpc.gelu_grad %dh, %y2 : tensor<4x8xf32>
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", "\"none\"",
           "none, selective or full">,
  ];
  let dependentDialects = ["::tpc::TpcDialect", "::mlir::func::FuncDialect"];
}

def SplitWeightGrad : Pass<"tpc-split-weight-grad", "mlir::ModuleOp"> {
  let summary = "Split each linear's backward into input (B) and weight (W) gradients";
  let description = [{
    Rewrites every `tpc.linear_grad` into a `tpc.linear_input_grad` (B, the
    input gradient, on the backward's critical path) and a
    `tpc.linear_weight_grad` (W, the weight and bias gradients, which flow
    only into the parameters' gradient buffers), the split of the backward that
    zero-bubble pipeline schedules are built from (Qi et al. 2024). B reads
    dout and the weight, W reads dout and the forward's input; every use of
    the old results reads the new ones. Both are placed where the
    `tpc.linear_grad` was, B first, so the program computes the same values
    in the same order and its gradients are bit-identical; a later pass may
    move the W ops. A half whose results nothing reads is not built.

    Norm grads (`tpc.layernorm_grad`, `tpc.rmsnorm_grad`) stay whole, in B:
    their weight gradients are row reductions over the same normalized rows
    and the forward's kept per-row statistics that the input gradient
    reads, so a separate W would recompute or keep those rows for little
    work.

    Run after `tpc-autodiff` and before `tpc-plan-memory` (the split
    results need their own offsets). Result types are inferred from the
    operands; a `tpc.linear_grad` whose result types are more specific than
    its operands' (dynamic extents) is refused: run `tpc-specialize` first.

    Input:
    ```mlir
    %dx, %dw, %db = tpc.linear_grad %dout, %x, %w bias : tensor<2x8x64xf32>, tensor<2x8x32xf32>, tensor<32x64xf32>
    tpc.accumulate_grad @fc.weight, %dw : tensor<32x64xf32>
    tpc.accumulate_grad @fc.bias, %db : tensor<64xf32>
    ```
    Output:
    ```mlir
    %dx = tpc.linear_input_grad %dout, %w : tensor<2x8x64xf32>, tensor<32x64xf32>
    %dw, %db = tpc.linear_weight_grad %dout, %x bias : tensor<2x8x64xf32>, tensor<2x8x32xf32>
    tpc.accumulate_grad @fc.weight, %dw : tensor<32x64xf32>
    tpc.accumulate_grad @fc.bias, %db : tensor<64xf32>
    ```
  }];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def PipelineCut : Pass<"tpc-pipeline-cut", "mlir::ModuleOp"> {
  let summary = "Cut the forward's layers into pipeline chunks";
  let description = [{
    Pipeline parallelism, first half: finds the transformer layers of
    `@forward` (from the residual stream, as the cost report and recompute
    find them) and cuts them into `stages` x `virtual-stages` chunks of
    consecutive layers. Chunk c runs on stage c % stages (Megatron-LM's
    interleaved placement). By default the cut balances the chunks' forward
    time (matrix-product FLOPs, as the ops' CostOpInterface gives them, and
    the bytes every op moves at a nominal 100 FLOPs per byte), counting the
    ops before the first layer (the embeddings) on the
    first chunk and those after the last (final norm, output layer, loss)
    on the last; `layout` takes an explicit cut instead, as the layers of
    each chunk ("3,5,5,3"; the counts need not be equal).

    Every op of `@forward` gets its chunk as `tpc.chunk`; a parameter read
    or another operand-free op that several chunks use is cloned into each,
    so that a tied embedding table is read separately by the first and the
    last chunk. `tpc-autodiff` carries the chunks to the backward ops it
    builds and `tpc-pipeline` splits the step by them. The module records
    the cut as `tpc.pipeline`.

    Input (two layers, `stages=2`):
    ```mlir
    %w = tpc.get_param @wte : tensor<512x64xf32>
    %e = tpc.embedding %w, %ids : ...
    ...
    %logits = tpc.linear %h, %w transposed : ...
    ```
    Output:
    ```mlir
    %w = tpc.get_param @wte {tpc.chunk = 0 : i64} : tensor<512x64xf32>
    %e = tpc.embedding %w, %ids {tpc.chunk = 0 : i64} : ...
    ...
    %w1 = tpc.get_param @wte {tpc.chunk = 1 : i64} : tensor<512x64xf32>
    %logits = tpc.linear %h, %w1 transposed {tpc.chunk = 1 : i64} : ...
    ```
  }];
  let options = [
    Option<"stages", "stages", "int64_t", "1", "pipeline stages (--pp)">,
    Option<"virtualStages", "virtual-stages", "int64_t", "1",
           "chunks per stage (--virtual-stages)">,
    Option<"layout", "layout", "std::string", "\"\"",
           "layers per chunk, comma-separated; empty: balanced by time">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def Pipeline : Pass<"tpc-pipeline", "mlir::ModuleOp"> {
  let summary = "Split the training step into per-chunk F, B and W functions and schedule them";
  let description = [{
    Pipeline parallelism, second half, after `tpc-pipeline-cut`,
    `tpc-autodiff`, the optimizer and recompute. For every chunk c it builds
    from `@train_step`:
    - `@chunk<c>_forward(tokens, targets[, loss scale]) -> ([loss sum,
      count,] kept...)`: the chunk's forward ops; what the previous chunk
      sends comes from `tpc.recv`, what a later chunk reads leaves by
      `tpc.send`; the last chunk also returns the loss; `kept` are the
      values its backward reads.
    - `@chunk<c>_backward_input(kept...) -> (kept for W...)`: the backward
      ops that the gradients sent to the previous chunk depend on (B),
      receiving and sending gradients with `tpc.recv`/`tpc.send ... grad`.
    - `@chunk<c>_backward_weight(kept...)`: the rest of the backward, the
      parameters' gradients (W), which a zero-bubble schedule moves into
      the pipeline's bubbles.
    and from `@forward` an `@chunk<c>_eval` for evaluation. A kept argument
    names where its value comes from (`tpc.from = [role, result]`), and
    `tpc-plan-memory` places the three functions of a chunk in one arena so
    that a kept value is never copied. `@apply_step` becomes one
    `@stage<s>_apply_step` per stage, updating the parameters that stage
    holds: the squared gradient norm is summed over `pp` as well, and a
    parameter that the first and the last stage both hold (a tied embedding
    table) has its gradient all-reduced over the `embedding` group and
    counted once in the norm. The per-stage action lists of `schedule`
    (1f1b, interleaved or zb-h1) over `micro-batches` micro-batches are
    recorded on the module as `tpc.pipeline_actions`.
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", "\"1f1b\"",
           "1f1b, interleaved or zb-h1">,
    Option<"microBatches", "micro-batches", "int64_t", "1",
           "micro-batches per optimizer step">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def PlanMemory : Pass<"tpc-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every activation in one arena by liveness";
  let description = [{
    Walks each function in program order and gives every op result a byte
    offset in a single per-rank arena. A buffer is taken when its op runs
    and given back after its last use (results that a function returns live
    to its end); freed ranges are reused first-fit and merged with their
    neighbours. Parameters, their gradient buffers (`tpc.get_grad`) and
    function arguments have storage of their own. The result of `tpc.f`,
    `tpc.g` or `tpc.all_reduce` takes its operand's bytes when the operand
    dies there (the runtime then skips f's copy and reduces in place),
    unless the function's arena comes out smaller without that: first fit
    can place the other buffers worse around a result in place.
    Offsets are recorded on each op as `tpc.offsets`, the arena size on the
    function as `tpc.arena_bytes`. All shapes must be static: run
    `tpc-specialize` first.

    Input:
    ```mlir
    %a = tpc.gelu %x : tensor<4x8xf32>
    %b = tpc.gelu %a : tensor<4x8xf32>
    %c = tpc.gelu %b : tensor<4x8xf32>
    ```
    Output: `%c` reuses the bytes of `%a`.
    ```mlir
    %a = tpc.gelu %x {tpc.offsets = array<i64: 0>} : tensor<4x8xf32>
    %b = tpc.gelu %a {tpc.offsets = array<i64: 128>} : tensor<4x8xf32>
    %c = tpc.gelu %b {tpc.offsets = array<i64: 0>} : tensor<4x8xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "256",
           "byte alignment of every buffer">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def Export : Pass<"tpc-export", "mlir::ModuleOp"> {
  let summary = "Write the module as a tpc program file";
  let description = [{
    Serializes the partitioned, memory-planned module into the program format
    of runtime/program/program.proto: one tensor per parameter (this rank's
    slice, with its global shape, layout and initializer) and per value, one
    instruction per op with all of its attributes (defaults made explicit),
    one function per `func.func`; tp and dp come from the module's `tpc.tp`
    and `tpc.dp` attributes (absent means 1), the model FLOPs per token from
    its `tpc.model_flops_per_token` (tpc-compile sets it from the cost
    report; absent means not recorded). The names are runtime/program/Abi.h's.
    The file starts with a `#!` line naming tpc-run, so `./model.tpc eval
    ...` runs it. The IR is left unchanged.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"\"",
           "path of the program file to write">,
    Option<"interpreter", "interpreter", "std::string",
           "\"/usr/bin/env tpc-run\"",
           "the program named on the file's #! line">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

def DataParallel : Pass<"tpc-data-parallel", "mlir::ModuleOp"> {
  let summary = "Sum the gradients over the data-parallel group in buckets";
  let description = [{
    With the module's data-parallel size `tpc.dp` (set by tpc-compile
    `--dp`; absent = 1) above 1, puts at the start of `apply_step` one
    `tpc.bucket_all_reduce ... group dp` per bucket so that the gradient
    buffer of every parameter is summed over the data-parallel group exactly
    once before the optimizer reads it. Buckets take parameters in reverse
    module order (the order backward finishes their gradients, as PyTorch
    DDP), hold consecutive parameters of one element type, and hold at most
    `bucket-bytes` bytes of local (per-rank) gradients; a parameter larger
    than the bound is a bucket of its own. The runtime keeps gradient
    buffers contiguous in parameter order, so each bucket is one NCCL or
    MPI all-reduce. With dp = 1 the pass adds nothing.

    The reduction sits in `apply_step` (rather than after each `train_step`)
    because gradients accumulate over micro-batches in the buffers first:
    one reduction per optimizer step. The sums are of loss-sum gradients;
    `tpc-optimizer` divides them by the global target count. `apply_step` is
    created as `(%lr: tensor<f32>, %inv_count: tensor<f32>) -> ()` when
    absent; `tpc-optimizer` completes it, before or after this pass.

    Needs a partitioned module (`tpc-partition` first): bucket sizes are
    those of the local types.

    With `distributed-optimizer` (ZeRO stage 1, Megatron's
    `--use-distributed-optimizer`), each bucket is a
    `tpc.bucket_reduce_scatter` instead: every data-parallel rank receives
    the sum of its own 1/dp shard of the bucket, and `tpc-optimizer`, which
    must run after this pass, updates only those elements (keeping AdamW's
    m and v and the f32 masters for them alone), completes the gradient
    norm over dp and gathers each bucket's parameters with
    `tpc.bucket_all_gather`. Buckets then also close where the parameters'
    compute types change, since the gather moves the copies functions read.

    Input (`tpc.dp = 2`, `bucket-bytes=4096`):
    ```mlir
    module attributes {tpc.dp = 2 : i64, tpc.tp = 1 : i64} {
      tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> ... layout <split 1>
      tpc.param @h.0.mlp.c_fc.bias : tensor<64xf32> ... layout <split 0>
      tpc.param @ln_f.weight : tensor<16xf32> ... layout <replicated>
    ```
    Output:
    ```mlir
    func.func @apply_step(%arg0: tensor<f32>, %arg1: tensor<f32>) {
      tpc.bucket_all_reduce [@ln_f.weight, @h.0.mlp.c_fc.bias] group dp
      tpc.bucket_all_reduce [@h.0.mlp.c_fc.weight] group dp
      return
    }
    ```
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", "26214400",
           "most bytes of gradients per all-reduce (default 25 MiB, as "
           "PyTorch DDP)">,
    Option<"distributedOptimizer", "distributed-optimizer", "bool", "false",
           "reduce-scatter the buckets and partition the optimizer over dp "
           "(ZeRO stage 1)">,
  ];
  let dependentDialects = ["::tpc::TpcDialect", "::mlir::func::FuncDialect"];
}

def Optimizer : Pass<"tpc-optimizer", "mlir::ModuleOp"> {
  let summary = "Build apply_step: global-norm clipping and AdamW or SGD";
  let description = [{
    Builds (or completes, after `tpc-data-parallel`) the entry point the
    runtime calls once per optimizer step:

    ```
    func.func @apply_step(%lr: tensor<f32>, %inv_count: tensor<f32>) -> tensor<f32>
    ```

    `%lr` is the learning rate of this step (the runtime's schedule);
    `%inv_count` is 1 / (the number of targets of the whole step, summed over
    micro-batches and data-parallel ranks). The result is the global L2
    norm of the normalised gradient (before clipping). The body:

    1. `tpc.get_grad` of every parameter (after the data-parallel sums);
    2. the sum of squares of every element once: `tpc.sum_squares` of the
       split parameters' slices, all-reduced over group tp (one scalar, one
       all-reduce), plus `tpc.sum_squares` of the replicated parameters,
       equal on every rank and therefore not all-reduced. Vocabulary padding
       has zero gradient (no id looks it up and its logits are masked), so
       it adds nothing;
    3. `tpc.grad_norm`: norm = inv_count * sqrt(sum), and the scale every
       update applies to the raw gradient, inv_count * min(1, max-grad-norm /
       (norm + 1e-6)), or inv_count when `max-grad-norm` is 0;
    4. one `tpc.adamw_update` or `tpc.sgd_update` per parameter, in module
       order. Weight decay applies to parameters of rank >= 2 (matrices and
       embeddings) and, with `decay-1d`, also to biases, gains and vectors.
       A parameter with a master copy (`tpc-mixed-precision`) has it
       updated, and the result rounded into its working copy, by the same
       op.
    5. after `tpc.bucket_reduce_scatter`s (tpc-data-parallel's
       `distributed-optimizer`), the sum of squares of step 2 is also
       all-reduced over group dp, each rank's updates touch only its shard,
       and one `tpc.bucket_all_gather` per bucket follows the updates.

    The runtime provides per parameter a gradient buffer (zeroed before the
    step's first `train_step`; of the parameter's gradient element type) and
    the optimizer state (AdamW: m and v; SGD with momentum: one buffer), of
    the parameter's local (master) type, and AdamW's step counter t (1 at
    the first call, advanced before each).

    Needs a partitioned module (`tpc-partition` first).

    Input (tp = 2):
    ```mlir
    tpc.param @h.0.mlp.c_fc.weight : tensor<16x64xf32> init <normal, std = 0.02> layout <split 1>
    tpc.param @ln_f.weight : tensor<16xf32> init <ones> layout <replicated>
    ```
    Output:
    ```mlir
    func.func @apply_step(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
      %0 = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x32xf32>
      %1 = tpc.get_grad @ln_f.weight : tensor<16xf32>
      %2 = tpc.sum_squares %0 : tensor<16x32xf32>
      %3 = tpc.all_reduce %2 sum group tp : tensor<f32>
      %4 = tpc.sum_squares %1 : tensor<16xf32>
      %5 = tpc.add %3, %4 : tensor<f32>
      %norm, %scale = tpc.grad_norm %5, %arg1 max_norm 1.000000e+00
      tpc.adamw_update @h.0.mlp.c_fc.weight, %0, %arg0, %scale beta1 ... weight_decay 1.000000e-01 : tensor<16x32xf32>
      tpc.adamw_update @ln_f.weight, %1, %arg0, %scale beta1 ... weight_decay 0.000000e+00 : tensor<16xf32>
      return %norm : tensor<f32>
    }
    ```
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", "\"adamw\"",
           "adamw or sgd">,
    Option<"beta1", "beta1", "double", "0.9", "AdamW first-moment decay">,
    Option<"beta2", "beta2", "double", "0.95", "AdamW second-moment decay">,
    Option<"eps", "eps", "double", "1.0e-8", "AdamW denominator epsilon">,
    Option<"weightDecay", "weight-decay", "double", "0.1",
           "weight decay (decoupled for AdamW, added to the gradient for "
           "SGD)">,
    Option<"momentum", "momentum", "double", "0.0",
           "SGD momentum (0: plain SGD)">,
    Option<"maxGradNorm", "max-grad-norm", "double", "1.0",
           "clip the global gradient norm to this (0: no clipping)">,
    Option<"decay1d", "decay-1d", "bool", "false",
           "also decay parameters of rank < 2 (biases, layer-norm gains)">,
  ];
  let dependentDialects = ["::tpc::TpcDialect", "::mlir::func::FuncDialect"];
}

def Autodiff : Pass<"tpc-autodiff", "mlir::ModuleOp"> {
  let summary = "Build train_step: forward, then reverse mode from each op's VJP";
  let description = [{
    Builds `func.func @train_step(%tokens, %targets) -> (tensor<f32>,
    tensor<i32>)` from `@forward`, which stays unchanged for evaluation and
    generation. `train_step` runs the forward ops, seeds the adjoint of the
    loss sum (forward's first result) with `tpc.fill 1.0 : tensor<f32>`,
    walks the ops backwards asking each for its vector-Jacobian product
    through `tpc::VjpOpInterface`, and returns the loss sum and the target
    count (forward's second result; the logits are not returned). The pass
    knows no op by name: a new op becomes trainable by implementing the
    interface.

    - Gradients are of the loss sum: the optimizer divides by the global
      target count.
    - A value used several times gets the `tpc.add` of its adjoints.
    - Every parameter that the loss depends on gets exactly one
      `tpc.accumulate_grad`, after its last contribution: a parameter read
      once and used twice (the tied `wte` of the embedding and the
      transposed output layer, StagFormer's shared weights used by every
      stack) accumulates the sum of all contributions, as does a parameter
      read by several `tpc.get_param`s.
    - Only values that depend on a parameter are differentiated; integer
      values (ids, targets, counts) have no adjoints.
    - On a partitioned module the backward collectives come from the VJPs of
      f and g (Megatron's conjugates): each f becomes one `tpc.all_reduce sum
      group tp` of its adjoint, each g none. For GPT-2 with L layers the
      backward holds 2L + 1 of them (two per layer, one for the output
      layer's f), besides the exchanges inside the vocabulary-parallel loss
      gradient.

    - With `loss-scale=true` (tpc-compile sets it for `--precision fp16`),
      `train_step` takes a third argument, `%loss_scale : tensor<f32>`, and
      seeds the loss adjoint with it in place of 1.0: dynamic loss scaling
      (Micikevicius et al. 2018) multiplies every gradient by it so that
      small fp16 gradients do not underflow. tpc-run's trainer passes its
      scale over the step's target positions (these gradients are of the
      loss sum, GradScaler's of a mean), divides it out through
      apply_step's `inv_count`, and skips steps whose gradient norm is not
      finite.

    Errors: no `@forward`, an existing `@train_step`, a forward whose first
    two results are not the f32 loss sum and i32 count, and an op on the
    path from the parameters to the loss without the interface (the
    diagnostic names the op and the interface to implement) or whose VJP
    rejects it (max all-reduce, all-gather).

    Input:
    ```mlir
    func.func @forward(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>)
        -> (tensor<f32>, tensor<i32>, tensor<2x8x100xf32>) {
      %t = tpc.get_param @table : tensor<100x100xf32>
      %logits = tpc.embedding %t, %tokens : tensor<100x100xf32>, tensor<2x8xi32>
      %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : ...
      return %sum, %count, %logits : ...
    }
    ```
    Output (`@forward` is kept as it is):
    ```mlir
    func.func @train_step(%tokens: tensor<2x8xi32>, %targets: tensor<2x8xi32>)
        -> (tensor<f32>, tensor<i32>) {
      %t = tpc.get_param @table : tensor<100x100xf32>
      %logits = tpc.embedding %t, %tokens : tensor<100x100xf32>, tensor<2x8xi32>
      %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : ...
      %one = tpc.fill 1.000000e+00 : tensor<f32>
      %dlogits = tpc.cross_entropy_grad %logits, %targets, %one ignore_index -1 : ...
      %dt = tpc.embedding_grad %dlogits, %tokens : ... -> tensor<100x100xf32>
      tpc.accumulate_grad @table, %dt : tensor<100x100xf32>
      return %sum, %count : tensor<f32>, tensor<i32>
    }
    ```
  }];
  let options = [
    Option<"lossScale", "loss-scale", "bool", "false",
           "train_step takes the loss scale as a third argument and seeds "
           "the loss adjoint with it">,
  ];
  let dependentDialects = ["::tpc::TpcDialect"];
}

#endif // TPC_PASSES_TD
