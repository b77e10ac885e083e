//===- TpcGradOps.td - tpc backward operations -------------*- tablegen -*-===//
//
// The ops that `tpc-autodiff` builds from the forward ops' vector-Jacobian
// products. Each maps onto one backward kernel of the runtime
// (runtime/backend/Backend.h). Where a kernel needs what the forward pass
// computed on the side (layer norm statistics, attention probabilities, the
// softmax of the loss), the grad op takes the forward op's inputs and the
// kernel recomputes it, so that no forward op has hidden results.
//
// Included at the end of TpcOps.td: these ops share its types and its
// generated files.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_GRAD_OPS_TD
#define TPC_GRAD_OPS_TD

/// The adjoint of a loss sum: an f32 scalar, so the assembly needs no type.
def Tpc_LossAdjoint : 0DTensorOf<[F32]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getF32Type())";
}

//===----------------------------------------------------------------------===//
// Seed and gradient sink
//===----------------------------------------------------------------------===//

def Tpc_FillOp : Tpc_Op<"fill", [Pure]> {
  let summary = "A tensor whose elements all equal a constant";
  let description = [{
    Seeds reverse-mode differentiation: the adjoint of the loss sum is
    `tpc.fill 1.0 : tensor<f32>`. The shape must be static.

    ```mlir
    %one = tpc.fill 1.000000e+00 : tensor<f32>
    ```
  }];
  let arguments = (ins F64Attr:$value);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tpc_AccumulateGradOp : Tpc_Op<"accumulate_grad", [
    MemoryEffects<[MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Adds a gradient into a parameter's gradient buffer";
  let description = [{
    The runtime keeps one gradient buffer per `tpc.param`, of the
    parameter's shape on this rank and its gradient element type, zeroed at
    the start of each optimizer step; this op adds `gradient` into the
    buffer of the parameter named by the symbol, so that micro-batches
    accumulate. `train_step` ends every parameter's gradient with exactly one
    of them. The gradient's type must be the type `tpc.get_param` reads
    (the parameter's local type given the module's `tpc.tp`, of its compute
    element type); a buffer of f32 gradients accumulates a bf16 or f16
    gradient in f32.

    ```mlir
    tpc.accumulate_grad @h.0.mlp.c_fc.weight, %dw : tensor<32x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name, Tpc_FloatTensor:$gradient);
  let assemblyFormat = "$name `,` $gradient attr-dict `:` type($gradient)";
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

def Tpc_EmbeddingGradOp : Tpc_Op<"embedding_grad", [Pure]> {
  let summary = "Gradient of a table lookup: scatter-add of rows";
  let description = [{
    The adjoint of `tpc.embedding`'s table: `dout` is [B, T, H], `ids`
    [B, T]; the result is [V, H] (the table's type on this rank) with
    row v the sum of dout[b, t] over the positions where ids[b, t] = v. With
    `vocab_parallel` the result is this rank's slice of the vocabulary, rows
    [r * V, (r + 1) * V), and ids outside it contribute nothing; `dout` is
    the whole gradient (the VJP of the forward op's `tpc.g` is the
    identity). Kernel: `embedding_backward`.

    ```mlir
    %dwte = tpc.embedding_grad %dout, %tokens vocab_parallel : tensor<2x8x32xf32>, tensor<2x8xi32> -> tensor<128x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_IdTensor:$ids,
                       UnitAttr:$vocab_parallel);
  let results = (outs Tpc_FloatTensor:$dtable);
  let assemblyFormat = [{
    $dout `,` $ids (`vocab_parallel` $vocab_parallel^)? attr-dict `:`
    type($dout) `,` type($ids) `->` type($dtable)
  }];
  let hasVerifier = 1;
}

def Tpc_PositionEmbeddingGradOp
    : Tpc_Op<"position_embedding_grad", [Pure]> {
  let summary = "Gradient of a position embedding: sum over the batch";
  let description = [{
    The adjoint of `tpc.position_embedding`'s table: `dout` is [B, T, H];
    the result is the table's type [P, H] (T <= P), with row t the sum of
    dout[b, t] over the batch for t < T and zeros below. Kernel:
    `position_embedding_backward`.

    ```mlir
    %dwpe = tpc.position_embedding_grad %dout : tensor<2x8x32xf32> -> tensor<16x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout);
  let results = (outs Tpc_FloatTensor:$dtable);
  let assemblyFormat = "$dout attr-dict `:` type($dout) `->` type($dtable)";
  let hasVerifier = 1;
}

def Tpc_TokenTypeEmbeddingGradOp
    : Tpc_Op<"token_type_embedding_grad", [Pure]> {
  let summary = "Gradient of the token-type embedding";
  let description = [{
    The adjoint of `tpc.token_type_embedding`'s table: `dout` is [B, T, H]
    and `ids` [B, T] the forward op's types; the result is the table's type
    [S, H], row s the sum of dout over the tokens of type s (the kernel of
    `tpc.embedding_grad`, a scatter-add).

    ```mlir
    %dtt = tpc.token_type_embedding_grad %dout, %types : tensor<2x8x32xf32>, tensor<2x8xi32> -> tensor<2x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_IdTensor:$ids);
  let results = (outs Tpc_FloatTensor:$dtable);
  let assemblyFormat = [{
    $dout `,` $ids attr-dict `:` type($dout) `,` type($ids) `->` type($dtable)
  }];
  let hasVerifier = 1;
}

def Tpc_LayerNormGradOp
    : Tpc_Op<"layernorm_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of layer normalization (recomputes the statistics)";
  let description = [{
    Given `dout`, the forward op's `input` and `gamma`, and its epsilon,
    returns the adjoints of the input, of gamma and of beta. The kernel
    (`layernorm_backward`) recomputes the mean and reciprocal standard
    deviation of each row from `input`, in fp32. `dout` has the input's
    type; the results have the types of input, gamma and gamma (beta has
    gamma's type).

    ```mlir
    %dx, %dgamma, %dbeta = tpc.layernorm_grad %dout, %x, %gamma eps 1.000000e-05 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$input,
                       Tpc_FloatTensor:$gamma,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs Tpc_FloatTensor:$dinput, Tpc_FloatTensor:$dgamma,
                      Tpc_FloatTensor:$dbeta);
  let assemblyFormat = [{
    $dout `,` $input `,` $gamma `eps` $epsilon attr-dict `:` type($dout) `,`
    type($input) `,` type($gamma)
  }];
  let hasVerifier = 1;
}

def Tpc_RmsNormGradOp : Tpc_Op<"rmsnorm_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of RMS normalization (recomputes the statistics)";
  let description = [{
    Given `dout`, the forward op's `input` and `weight`, and its epsilon,
    returns the adjoints of the input and of the weight. The kernel
    (`rmsnorm_backward`) recomputes each row's reciprocal RMS from `input`
    in fp32.

    ```mlir
    %dx, %dw = tpc.rmsnorm_grad %dout, %x, %w eps 1.000000e-05 : tensor<2x8x32xf32>, tensor<2x8x32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$input,
                       Tpc_FloatTensor:$weight,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs Tpc_FloatTensor:$dinput, Tpc_FloatTensor:$dweight);
  let assemblyFormat = [{
    $dout `,` $input `,` $weight `eps` $epsilon attr-dict `:` type($dout) `,`
    type($input) `,` type($weight)
  }];
  let hasVerifier = 1;
}

def Tpc_LinearGradOp : Tpc_Op<"linear_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of x * W + b: the adjoints of x, W and b";
  let description = [{
    Given `dout` [..., O], the forward op's `input` [..., I] and `weight`
    ([I, O], or [O, I] with `transposed`), returns dinput = dout * W^T,
    dweight = x^T * dout (of the weight's layout) and, with `bias`, dbias =
    the sum of dout over all but its last dimension. Kernel:
    `matmul_backward` (`matmul_nt_backward` when transposed).
    `tpc-split-weight-grad` rewrites it into `tpc.linear_input_grad` and
    `tpc.linear_weight_grad`.

    ```mlir
    %dx, %dw, %db = tpc.linear_grad %dout, %x, %w bias : tensor<2x8x64xf32>, tensor<2x8x32xf32>, tensor<32x64xf32>
    %dn, %dwte = tpc.linear_grad %dlogits, %n, %wte transposed : tensor<2x8x128xf32>, tensor<2x8x32xf32>, tensor<128x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$input,
                       Tpc_FloatTensor:$weight, UnitAttr:$transposed,
                       UnitAttr:$bias);
  let results = (outs Tpc_FloatTensor:$dinput, Tpc_FloatTensor:$dweight,
                      Optional<Tpc_FloatTensor>:$dbias);
  let assemblyFormat = [{
    $dout `,` $input `,` $weight (`transposed` $transposed^)?
    (`bias` $bias^)? attr-dict `:` type($dout) `,` type($input) `,`
    type($weight)
  }];
}

def Tpc_LinearInputGradOp : Tpc_Op<"linear_input_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Input gradient of x * W + b: the backward's B half";
  let description = [{
    The half of `tpc.linear_grad` on the backward's critical path (B in Qi
    et al. 2024, "Zero Bubble Pipeline Parallelism"): given `dout` [..., O]
    and the forward op's `weight` ([I, O], or [O, I] with `transposed`),
    returns dinput = dout * W^T [..., I], of dout's element type. It reads
    neither the forward's input nor the bias. `tpc-split-weight-grad`
    builds it; its partner `tpc.linear_weight_grad` computes the rest.
    Kernel: `matmul_backward` with only the input gradient requested
    (bit-identical to `linear_grad`'s dinput).

    ```mlir
    %dx = tpc.linear_input_grad %dout, %w : tensor<2x8x64xf32>, tensor<32x64xf32>
    %dn = tpc.linear_input_grad %dlogits, %wte transposed : tensor<2x8x128xf32>, tensor<128x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$weight,
                       UnitAttr:$transposed);
  let results = (outs Tpc_FloatTensor:$dinput);
  let assemblyFormat = [{
    $dout `,` $weight (`transposed` $transposed^)? attr-dict `:` type($dout)
    `,` type($weight)
  }];
}

def Tpc_LinearWeightGradOp : Tpc_Op<"linear_weight_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Weight (and bias) gradient of x * W + b: the backward's W half";
  let description = [{
    The half of `tpc.linear_grad` that nothing else in the backward waits
    for (W in Qi et al. 2024): given `dout` [..., O] and the forward op's
    `input` [..., I], returns dweight = x^T * dout, [I, O] or, with
    `transposed`, [O, I], and with `bias` dbias = the sum of dout over all
    but its last dimension [O], of the input's element type. It does not
    read the weight, so a schedule may run it any time after its operands
    exist. `tpc-split-weight-grad` builds it. Kernel: `matmul_backward`
    with only the weight and bias gradients requested (bit-identical to
    `linear_grad`'s).

    ```mlir
    %dw, %db = tpc.linear_weight_grad %dout, %x bias : tensor<2x8x64xf32>, tensor<2x8x32xf32>
    %dwte = tpc.linear_weight_grad %dlogits, %n transposed : tensor<2x8x128xf32>, tensor<2x8x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$input,
                       UnitAttr:$transposed, UnitAttr:$bias);
  let results = (outs Tpc_FloatTensor:$dweight,
                      Optional<Tpc_FloatTensor>:$dbias);
  let assemblyFormat = [{
    $dout `,` $input (`transposed` $transposed^)? (`bias` $bias^)? attr-dict
    `:` type($dout) `,` type($input)
  }];
}

def Tpc_BiasAddGradOp : Tpc_Op<"bias_add_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of a bias: sum over all but the last dimension";
  let description = [{
    `dout` is [..., O]; the result is [O]. The adjoint of `tpc.bias_add`'s
    input is `dout` itself. Kernel: `matmul_backward` with only the bias
    gradient requested.

    ```mlir
    %db = tpc.bias_add_grad %dout : tensor<2x8x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout);
  let results = (outs Tpc_FloatTensor:$dbias);
  let assemblyFormat = "$dout attr-dict `:` type($dout)";
}

def Tpc_GeluGradOp : Tpc_Op<"gelu_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "Gradient of GELU at the forward input";
  let description = [{
    dinput = dout * gelu'(input), of the tanh approximation or, with
    `exact`, of the exact GELU. Kernels: `gelu_backward`,
    `gelu_exact_backward`.

    ```mlir
    %dx = tpc.gelu_grad %dout, %x : tensor<2x8x64xf32>
    %dy = tpc.gelu_grad %dout, %x exact : tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$input,
                       UnitAttr:$exact);
  let results = (outs Tpc_FloatTensor:$dinput);
  let assemblyFormat = [{
    $dout `,` $input (`exact` $exact^)? attr-dict `:` type($dout)
  }];
}

def Tpc_TanhGradOp : Tpc_Op<"tanh_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "Gradient of tanh at the forward result";
  let description = [{
    dinput = dout * (1 - result^2), `result` being the forward's tanh.
    Kernel: `tanh_backward`.

    ```mlir
    %dx = tpc.tanh_grad %dout, %y : tensor<2x1x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$result);
  let results = (outs Tpc_FloatTensor:$dinput);
  let assemblyFormat = "$dout `,` $result attr-dict `:` type($dout)";
}

def Tpc_SelectPositionGradOp
    : Tpc_Op<"select_position_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of tpc.select_position";
  let description = [{
    `dout` is [B, 1, H]; the result, of the forward input's type [B, T, H]
    (`input` gives the shape only, its values are not read), holds it at
    `position` and zeros elsewhere.

    ```mlir
    %dh = tpc.select_position_grad %dfirst, %h at 0 : tensor<2x1x64xf32>, tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$input,
                       I64Attr:$position);
  let results = (outs Tpc_FloatTensor:$dinput);
  let assemblyFormat = [{
    $dout `,` $input `at` $position attr-dict `:` type($dout) `,` type($input)
  }];
}

def Tpc_SwiGluGradOp : Tpc_Op<"swiglu_grad", [Pure, AllTypesMatch<["dout", "gate", "up", "dgate", "dup"]>]> {
  let summary = "Gradient of SwiGLU at the forward inputs";
  let description = [{
    dgate = dout * up * silu'(gate), dup = dout * silu(gate). Kernel:
    `swiglu_backward`.

    ```mlir
    %dgate, %dup = tpc.swiglu_grad %dout, %gate, %up : tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$gate,
                       Tpc_FloatTensor:$up);
  let results = (outs Tpc_FloatTensor:$dgate, Tpc_FloatTensor:$dup);
  let assemblyFormat = "$dout `,` $gate `,` $up attr-dict `:` type($dout)";
}

def Tpc_SelfAttentionGradOp
    : Tpc_Op<"self_attention_grad", [InferTypeOpAdaptor]> {
  let summary = "Gradient of self-attention (recomputes the probabilities)";
  let description = [{
    Given `dout` [B, T, C] and the forward op's `qkv` [B, T, 3C], returns
    dqkv [B, T, 3C]. The attributes are the forward op's: the kernel
    (`attention_backward`) recomputes the attention probabilities from `qkv`
    with the same mask, and redraws the same dropout masks from `key` and
    the global head index (`head_parallel`: this rank's heads of the global
    op).

    ```mlir
    %dqkv = tpc.self_attention_grad %dout, %qkv heads 2 causal dropout 1.000000e-01 key 3 head_parallel : tensor<2x8x16xf32>, tensor<2x8x48xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$qkv,
                       I64Attr:$heads, UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       DefaultValuedAttr<I64Attr, "0">:$key,
                       UnitAttr:$head_parallel);
  let results = (outs Tpc_FloatTensor:$dqkv);
  let assemblyFormat = [{
    $dout `,` $qkv `heads` $heads (`causal` $causal^)? (`window` $window^)?
    (`rope` $rope_theta^)? (`rope_dims` $rope_dims^)?
    (`dropout` $dropout^ `key` $key)? (`head_parallel` $head_parallel^)?
    attr-dict `:` type($dout) `,` type($qkv)
  }];
  let hasVerifier = 1;
}

def Tpc_GroupedAttentionGradOp
    : Tpc_Op<"grouped_attention_grad", [
        InferTypeOpAdaptor, AllTypesMatch<["dout", "q"]>,
        AllTypesMatch<["k", "v"]>]> {
  let summary = "Gradient of grouped-query attention (recomputes the probabilities)";
  let description = [{
    Given `dout` [B, T, heads * D] and the forward op's `q`, `k` and `v`,
    returns dq, dk and dv. The attributes are the forward op's: the kernel
    (`gqa_attention_backward`) rotates q and k again, recomputes the
    probabilities and their dropout, and rotates the adjoints of the rotated
    q and k back. The adjoint of a key or value head sums over the query
    heads of its group. With the forward op's `key_lengths`, the padded
    keys get no probability and so zero dk and dv.

    ```mlir
    %dq, %dk, %dv = tpc.grouped_attention_grad %dout, %q, %k, %v heads 4 kv_heads 2 causal rope 1.000000e+04 : tensor<2x8x32xf32>, tensor<2x8x16xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$q,
                       Tpc_FloatTensor:$k, Tpc_FloatTensor:$v,
                       Optional<Tpc_IdTensor>:$key_lengths,
                       I64Attr:$heads, I64Attr:$kv_heads, UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       DefaultValuedAttr<I64Attr, "0">:$key,
                       UnitAttr:$head_parallel,
                       UnitAttr:$kv_replicated);
  let results = (outs Tpc_FloatTensor:$dq, Tpc_FloatTensor:$dk,
                      Tpc_FloatTensor:$dv);
  let assemblyFormat = [{
    $dout `,` $q `,` $k `,` $v
    (`key_lengths` $key_lengths^ `:` type($key_lengths))?
    `heads` $heads `kv_heads` $kv_heads
    (`causal` $causal^)? (`window` $window^)? (`rope` $rope_theta^)?
    (`rope_dims` $rope_dims^)? (`dropout` $dropout^ `key` $key)?
    (`head_parallel` $head_parallel^)?
    (`kv_replicated` $kv_replicated^)? attr-dict `:` type($q) `,` type($k)
  }];
  let hasVerifier = 1;
}

def Tpc_CrossAttentionGradOp
    : Tpc_Op<"cross_attention_grad", [InferTypeOpAdaptor]> {
  let summary = "Gradient of StagFormer cross-attention";
  let description = [{
    Given `dout` [B, T, C] and the forward op's `query` [B, T, C] and `kv`
    [B, T, 2C], returns (dquery, dkv). The attributes are the forward op's;
    the kernel (`cross_attention_backward`) recomputes the probabilities and
    the dropout masks.

    ```mlir
    %dq, %dkv = tpc.cross_attention_grad %dout, %q, %kv heads 2 window 4 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$query,
                       Tpc_FloatTensor:$kv, I64Attr:$heads,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       DefaultValuedAttr<I64Attr, "0">:$key,
                       UnitAttr:$head_parallel);
  let results = (outs Tpc_FloatTensor:$dquery, Tpc_FloatTensor:$dkv);
  let assemblyFormat = [{
    $dout `,` $query `,` $kv `heads` $heads (`window` $window^)?
    (`rope` $rope_theta^)? (`rope_dims` $rope_dims^)?
    (`dropout` $dropout^ `key` $key)? (`head_parallel` $head_parallel^)?
    attr-dict `:` type($dout) `,` type($query) `,` type($kv)
  }];
  let hasVerifier = 1;
}

def Tpc_WeightedSumGradOp
    : Tpc_Op<"weighted_sum_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of sum_i alpha[i] * x_i";
  let description = [{
    Given `dout` and the forward op's `alpha` [p] and p inputs, returns
    dalpha (dalpha[i] = sum of dout * x_i) and dx_i = alpha[i] * dout.
    Kernel: `weighted_sum_backward`.

    ```mlir
    %dalpha, %dx:3 = tpc.weighted_sum_grad %dout, %alpha, %x1, %x2, %x3 : tensor<2x8x16xf32>, tensor<3xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$dout, Tpc_FloatTensor:$alpha,
                       Variadic<Tpc_FloatTensor>:$inputs);
  let results = (outs Tpc_FloatTensor:$dalpha,
                      Variadic<Tpc_FloatTensor>:$dinputs);
  let assemblyFormat = [{
    $dout `,` $alpha `,` $inputs attr-dict `:` type($dout) `,` type($alpha)
    `,` type($inputs)
  }];
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Tpc_CrossEntropyGradOp
    : Tpc_Op<"cross_entropy_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "Gradient of the softmax cross-entropy sum w.r.t. the logits";
  let description = [{
    dlogits = dloss * (softmax(logits) - onehot(target)) for every counted
    position, zeros where the target equals `ignore_index`. `dloss` is the
    adjoint of the forward op's loss sum (an f32 scalar; 1 in `train_step`,
    so gradients are of the sum and the optimizer divides by the target
    count). Kernel: `crossentropy_backward` with scale = dloss.

    ```mlir
    %dlogits = tpc.cross_entropy_grad %logits, %targets, %dloss ignore_index -1 : tensor<2x8x100xf32>, tensor<2x8xi32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$logits, Tpc_IdTensor:$targets,
                       Tpc_LossAdjoint:$dloss,
                       DefaultValuedAttr<I64Attr, "-1">:$ignore_index);
  let results = (outs Tpc_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $logits `,` $targets `,` $dloss `ignore_index` $ignore_index attr-dict `:`
    type($logits) `,` type($targets)
  }];  let hasVerifier = 1;
}

def Tpc_VocabParallelCrossEntropyGradOp
    : Tpc_Op<"vocab_parallel_cross_entropy_grad", [InferTypeOpAdaptor]> {
  let summary = "Gradient of the vocabulary-parallel cross-entropy (Megatron)";
  let description = [{
    `logits` is this rank's [B, T, Vl] slice of the padded vocabulary, as for
    `tpc.vocab_parallel_cross_entropy`; the result is the gradient of the
    loss sum with respect to it, scaled by `dloss`, zero in the padding
    columns (at or beyond `vocab_size`) and at ignored targets. Like the
    forward op it exchanges only B*T values over the tp group: it recomputes
    the row maximum and the sum of exponentials with its own all-reduces
    (max, then sum), never gathering the logits. Kernels:
    `vocab_parallel_ce_max`, `vocab_parallel_ce_sumexp`,
    `vocab_parallel_ce_backward`.

    ```mlir
    %dlogits = tpc.vocab_parallel_cross_entropy_grad %logits, %targets, %dloss vocab 100 ignore_index -1 : tensor<2x8x128xf32>, tensor<2x8xi32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$logits, Tpc_IdTensor:$targets,
                       Tpc_LossAdjoint:$dloss, I64Attr:$vocab_size,
                       DefaultValuedAttr<I64Attr, "-1">:$ignore_index);
  let results = (outs Tpc_FloatTensor:$dlogits);
  let assemblyFormat = [{
    $logits `,` $targets `,` $dloss `vocab` $vocab_size `ignore_index`
    $ignore_index attr-dict `:` type($logits) `,` type($targets)
  }];
  let hasVerifier = 1;
}

#endif // TPC_GRAD_OPS_TD
