//===- TpcOps.td - tpc operations --------------------------*- tablegen -*-===//
//
// Forward ops of a transformer language model and the collectives that the
// partition pass inserts. Result types are inferred from the operands, so the
// assembly shows operand types only.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_OPS_TD
#define TPC_OPS_TD

include "dialects/tpc/TpcDialect.td"
include "dialects/tpc/TpcAttrs.td"
include "dialects/tpc/TpcOptimOps.td"
include "dialects/tpc/TpcInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tpc_FloatTensor : RankedTensorOf<[F32, BF16, F16]>;
def Tpc_IdTensor : RankedTensorOf<[I32]>;
def Tpc_AnyTensor : RankedTensorOf<[F32, BF16, F16, I32]>;
def Tpc_ScalarF32 : 0DTensorOf<[F32]>;
def Tpc_ScalarI32 : 0DTensorOf<[I32]>;

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

def Tpc_ParamOp : Tpc_Op<"param", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "A trainable parameter at its global shape";
  let description = [{
    Declares a module-level parameter with its global shape and element type,
    its initializer and, optionally, its layout over the tensor-parallel group.
    Names follow Hugging Face GPT-2 (`wte`, `h.0.attn.c_attn.weight`), which
    are also the checkpoint names.

    ```mlir
    tpc.param @wte : tensor<50257x768xf32> init <normal, std = 0.02>
    tpc.param @h.0.mlp.c_fc.weight : tensor<768x3072xf32>
        init <normal, std = 0.02> layout <split 1>
    ```

    Under mixed precision (`tpc-mixed-precision`) the declared type is the
    f32 master copy, which the optimizer updates and checkpoints hold;
    `compute` names the element type of the working copy that functions
    read (`tpc.get_param`), rounded from the master by each optimizer update
    and when the runtime initializes or loads the masters; `grad` names the element type of the gradient
    buffer when it differs from the working copy's (f32 gradients reduced in
    f32). Optimizer state is always of the declared type.

    ```mlir
    tpc.param @h.0.mlp.c_fc.weight : tensor<768x3072xf32>
        init <normal, std = 0.02> layout <split 1> compute bf16 grad f32
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<AnyRankedTensor>:$type,
                       Tpc_InitAttr:$init,
                       OptionalAttr<Tpc_LayoutAttr>:$layout,
                       OptionalAttr<TypeAttr>:$compute,
                       OptionalAttr<TypeAttr>:$grad);
  let assemblyFormat = [{
    $sym_name `:` $type `init` $init (`layout` $layout^)?
    (`compute` $compute^)? (`grad` $grad^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::RankedTensorType getTensorType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getType());
    }
    /// The element type functions read: the working copy's under mixed
    /// precision, else the declared one.
    ::mlir::Type getComputeElementType() {
      if (auto compute = getComputeAttr())
        return compute.getValue();
      return getTensorType().getElementType();
    }
    /// The element type of the gradient buffer.
    ::mlir::Type getGradElementType() {
      if (auto grad = getGradAttr())
        return grad.getValue();
      return getComputeElementType();
    }
    /// Whether the parameter keeps a master copy apart from the copy
    /// functions read.
    bool hasMasterCopy() {
      return getComputeElementType() != getTensorType().getElementType();
    }
    /// The type one rank holds of the declared (master) tensor, given the
    /// module's tensor-parallel size.
    ::mlir::FailureOr<::mlir::RankedTensorType> getLocalType(int64_t tp);
    /// The type one rank reads with tpc.get_param.
    ::mlir::FailureOr<::mlir::RankedTensorType> getLocalComputeType(int64_t tp);
    /// The type of one rank's gradient buffer.
    ::mlir::FailureOr<::mlir::RankedTensorType> getLocalGradType(int64_t tp);
    /// Resolves `name` as seen from `user` to a tpc.param, or reports on
    /// `user` what it is instead.
    static ::mlir::FailureOr<ParamOp>
    lookup(::mlir::Operation *user, ::mlir::FlatSymbolRefAttr name,
           ::mlir::SymbolTableCollection &symbolTable);
  }];
}

def Tpc_GetParamOp : Tpc_Op<"get_param", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads a parameter in a function";
  let description = [{
    Reads the parameter named by the symbol. The result type is the slice one
    rank holds: the global type before partitioning, the local type after
    (the module's `tpc.tp` attribute and the parameter's layout decide it),
    of the parameter's compute element type (its working copy under mixed
    precision).

    ```mlir
    %w = tpc.get_param @h.0.mlp.c_fc.weight : tensor<768x3072xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

def Tpc_EmbeddingOp : Tpc_Op<"embedding", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Row lookup: out[b, t] = table[ids[b, t]]";
  let description = [{
    `table` is [V, H], `ids` is [B, T]; the result is [B, T, H]. With
    `vocab_parallel` the table is this rank's slice of the vocabulary, rows
    [r * V, (r + 1) * V) of the global table: ids outside it give zeros, and a
    following `tpc.g` sums the slices.

    ```mlir
    %x = tpc.embedding %wte, %tokens : tensor<50257x768xf32>, tensor<?x?xi32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$table, Tpc_IdTensor:$ids,
                       UnitAttr:$vocab_parallel);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $ids (`vocab_parallel` $vocab_parallel^)? attr-dict `:`
    type($table) `,` type($ids)
  }];
}

def Tpc_PositionEmbeddingOp
    : Tpc_Op<"position_embedding", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Learned position embedding broadcast over the batch";
  let description = [{
    `table` is [P, H] and `ids` is [B, T] (only its shape is used); the result
    is [B, T, H] with out[b, t] = table[t]. T must not exceed P.

    With `offset %pos` (a tensor<i32>, used by `decode_step`, which runs one
    position at a time) the positions start at %pos: out[b, t] =
    table[pos + t], and pos + T must not exceed P at run time. An offset
    position embedding has no VJP: it is not part of `forward`.

    ```mlir
    %p = tpc.position_embedding %wpe, %tokens : tensor<1024x768xf32>, tensor<?x?xi32>
    %q = tpc.position_embedding %wpe, %token offset %pos : tensor<1024x768xf32>, tensor<1x1xi32>, tensor<i32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$table, Tpc_IdTensor:$ids,
                       Optional<Tpc_ScalarI32>:$offset);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $ids (`offset` $offset^)? attr-dict `:` type($table) `,`
    type($ids) (`,` type($offset)^)?
  }];
}

def Tpc_TokenTypeEmbeddingOp
    : Tpc_Op<"token_type_embedding", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "BERT's token-type (segment) embedding";
  let description = [{
    `table` is [S, H], one row per token type (segment), and `ids` is
    [B, T], the type of each token; the result is [B, T, H] with
    out[b, t] = table[ids[b, t]] (a type outside [0, S) gives zeros). The
    table is replicated: its gradient is the scatter-add of the result's
    adjoint into the rows of the types present.

    ```mlir
    %s = tpc.token_type_embedding %table, %types : tensor<2x768xf32>, tensor<?x?xi32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$table, Tpc_IdTensor:$ids);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $ids attr-dict `:` type($table) `,` type($ids)
  }];
}

def Tpc_LayerNormOp : Tpc_Op<"layernorm", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Layer normalization over the last dimension";
  let description = [{
    `input` is [..., H]; `gamma` and `beta` are [H]. Statistics accumulate in
    fp32 whatever the element type. `gamma` and `beta` have one element type:
    the input's, or f32 (fp32 weights normalizing a bf16 or f16 activation,
    as Megatron's mixed-precision layer norm does). The result has the
    input's type.

    ```mlir
    %y = tpc.layernorm %x, %g, %b eps 1.0e-05 : tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_FloatTensor:$gamma,
                       Tpc_FloatTensor:$beta,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $gamma `,` $beta `eps` $epsilon attr-dict `:` type($input) `,`
    type($gamma) `,` type($beta)
  }];
  let hasVerifier = 1;
}

def Tpc_RmsNormOp : Tpc_Op<"rmsnorm", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "RMS normalization over the last dimension (Llama)";
  let description = [{
    `input` is [..., H] and `weight` [H]: x * rsqrt(mean(x^2) + eps) *
    weight, with no mean subtracted and no shift. The statistics accumulate
    in fp32 whatever the element type. `weight` has the input's element type
    or f32, as `tpc.layernorm`'s scale. The result has the input's type.

    ```mlir
    %y = tpc.rmsnorm %x, %w eps 1.0e-05 : tensor<?x?x4096xf32>, tensor<4096xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_FloatTensor:$weight,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight `eps` $epsilon attr-dict `:` type($input) `,`
    type($weight)
  }];
  let hasVerifier = 1;
}

def Tpc_LinearOp : Tpc_Op<"linear", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Affine map x * W + b";
  let description = [{
    `input` is [..., I]; `weight` is [I, O] (Hugging Face GPT-2's Conv1D
    layout) or, with `transposed`, [O, I] (the tied output layer reads the
    [V, H] embedding table this way); the optional `bias` is [O]. The result
    is [..., O]. All operands have one element type.

    ```mlir
    %h = tpc.linear %x, %w, %b : tensor<?x?x768xf32>, tensor<768x3072xf32>, tensor<3072xf32>
    %logits = tpc.linear %x, %wte transposed : tensor<?x?x768xf32>, tensor<50257x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_FloatTensor:$weight,
                       Optional<Tpc_FloatTensor>:$bias,
                       UnitAttr:$transposed);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`transposed` $transposed^)? attr-dict `:`
    type($input) `,` type($weight) (`,` type($bias)^)?
  }];
}

def Tpc_BiasAddOp : Tpc_Op<"bias_add", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Adds a bias vector along the last dimension";
  let description = [{
    `input` is [..., O] and `bias` is [O]. The partition pass moves the bias
    of a row-parallel linear here, after its `tpc.g`, so that it is added once
    rather than once per rank.

    ```mlir
    %y = tpc.bias_add %x, %b : tensor<?x?x768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_FloatTensor:$bias);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $bias attr-dict `:` type($input) `,` type($bias)
  }];
}

def Tpc_GeluOp : Tpc_Op<"gelu", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "GELU: tanh approximation (GPT-2) or exact (BERT)";
  let description = [{
    By default the tanh approximation 0.5 x (1 + tanh(sqrt(2/pi) (x +
    0.044715 x^3))) of GPT-2 and Megatron-LM; with `exact`, x * Phi(x) =
    0.5 x (1 + erf(x / sqrt(2))), Hugging Face BERT's `gelu`.

    ```mlir
    %y = tpc.gelu %x : tensor<?x?x3072xf32>
    %z = tpc.gelu %x exact : tensor<?x?x3072xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, UnitAttr:$exact);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input (`exact` $exact^)? attr-dict `:` type($input)";
}

def Tpc_TanhOp : Tpc_Op<"tanh", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Hyperbolic tangent (BERT's pooler)";
  let description = [{
    Elementwise tanh. BERT's pooler is tanh(dense(h[:, 0])); the VJP reads
    the result, not the input (1 - tanh^2).

    ```mlir
    %p = tpc.tanh %x : tensor<2x1x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tpc_SelectPositionOp : Tpc_Op<"select_position", [
    Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "One position of every sequence (BERT's pooler reads token 0)";
  let description = [{
    `input` is [B, T, H]; the result is [B, 1, H], the hidden state at
    `position` of each row. The VJP scatters the adjoint back into zeros at
    that position (`tpc.select_position_grad`). Under sequence parallelism
    the input is gathered whole first, as Megatron-LM's pooler does.

    ```mlir
    %first = tpc.select_position %h at 0 : tensor<2x128x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, I64Attr:$position);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input `at` $position attr-dict `:` type($input)";
}

def Tpc_ScaleByOp : Tpc_Op<"scale_by", [
    Pure, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Multiplication by a scalar known at run time";
  let description = [{
    `input` times the 0-d `factor` of the same element type: the weight of
    BERT's sentence-order loss in the loss sum, which the trainer sets every
    step. Only `input` is differentiated: the factor must not depend on a
    parameter.

    ```mlir
    %weighted = tpc.scale_by %sop_sum, %weight : tensor<f32>, tensor<f32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_FloatTensor:$factor);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $factor attr-dict `:` type($input) `,` type($factor)
  }];
  let hasVerifier = 1;
}

def Tpc_SwiGluOp : Tpc_Op<"swiglu", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "SwiGLU gating: silu(gate) * up (Llama's MLP)";
  let description = [{
    Elementwise silu(gate) * up with silu(x) = x * sigmoid(x), where `gate`
    and `up` are the outputs of the MLP's gate and up projections; the down
    projection follows.

    ```mlir
    %h = tpc.swiglu %gate, %up : tensor<?x?x11008xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$gate, Tpc_FloatTensor:$up);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($gate)";
}

def Tpc_SelfAttentionOp : Tpc_Op<"self_attention", [
    InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Multi-head self-attention over a fused q|k|v tensor";
  let description = [{
    `qkv` is [B, T, 3C] made of three blocks [q | k | v], each C = heads *
    head_dim. The result is [B, T, C]. Scores are scaled by 1/sqrt(head_dim).
    With `causal` a position sees itself and earlier positions; with `window
    W` only the last W of those. `dropout P` drops attention probabilities;
    its masks are keyed by `key` and by global head index, so that
    `head_parallel` ops (which hold heads [r * heads, (r + 1) * heads) of
    heads * tp) draw the same masks head for head as the unsplit op. A `key`
    is given only with a dropout probability > 0. `rope THETA` and
    `rope_dims R` rotate q and k by their positions first, as in
    `tpc.grouped_attention` (StagFormer applies RoPE on top of learned
    position embeddings).

    ```mlir
    %a = tpc.self_attention %qkv heads 12 causal : tensor<?x?x2304xf32>
    %b = tpc.self_attention %qkv heads 6 causal window 128 dropout 1.0e-01 key 3 head_parallel : tensor<?x?x1152xf32>
    %c = tpc.self_attention %qkv heads 12 causal rope 1.0e+04 : tensor<?x?x2304xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$qkv, I64Attr:$heads, UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       DefaultValuedAttr<I64Attr, "0">:$key,
                       UnitAttr:$head_parallel);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $qkv `heads` $heads (`causal` $causal^)? (`window` $window^)?
    (`rope` $rope_theta^)? (`rope_dims` $rope_dims^)?
    (`dropout` $dropout^ `key` $key)? (`head_parallel` $head_parallel^)?
    attr-dict `:` type($qkv)
  }];
  let hasVerifier = 1;
}

def Tpc_GroupedAttentionOp : Tpc_Op<"grouped_attention", [
    InferTypeOpAdaptor, AllTypesMatch<["k", "v"]>, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Grouped-query self-attention over separate q, k, v, with RoPE";
  let description = [{
    Llama's attention. `q` is [B, T, heads * D], `k` and `v` are
    [B, T, kv_heads * D]; the result is [B, T, heads * D]. Query head h
    attends with key/value head h / (heads / kv_heads): `kv_heads = heads`
    is multi-head attention, `kv_heads = 1` multi-query attention. Scores are
    scaled by 1/sqrt(D).

    With `rope THETA`, q and k are rotated before the dot products (rotary
    position embedding, Hugging Face's rotate-half convention): for position
    t and pair i < R/2, the angle t * THETA^(-2i/R) rotates (x[i],
    x[i + R/2]); `rope_dims R` rotates only the first R of each head's D
    dimensions (default D). `causal`, `window`, `dropout`, `key` and
    `head_parallel` (which here holds heads and kv_heads of this rank) are as
    in `tpc.self_attention`. With `kv_replicated` (tp > kv_heads, as
    tpc-partition writes it) every rank holds all kv_heads key/value heads
    and query head g of heads * tp reads key/value head
    g / (heads * tp / kv_heads).

    With `key_lengths` (i32 [B], BERT's key padding mask: padding is at the
    end of a row), keys at positions >= key_lengths[b] get -inf scores, so
    padded positions never influence the others. Queries at padded
    positions still attend to the real keys (their outputs are finite and
    their targets ignored); a row of length 0 gives zeros. The lengths are
    the same on every rank of a tensor-parallel group (replicated).

    ```mlir
    %a = tpc.grouped_attention %q, %k, %v heads 32 kv_heads 8 causal rope 5.0e+05 : tensor<?x?x4096xf32>, tensor<?x?x1024xf32>
    %b = tpc.grouped_attention %q, %k, %v key_lengths %len : tensor<?xi32> heads 12 kv_heads 12 : tensor<?x?x768xf32>, tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$q, Tpc_FloatTensor:$k,
                       Tpc_FloatTensor:$v,
                       Optional<Tpc_IdTensor>:$key_lengths,
                       I64Attr:$heads, I64Attr:$kv_heads,
                       UnitAttr:$causal, OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       DefaultValuedAttr<I64Attr, "0">:$key,
                       UnitAttr:$head_parallel,
                       UnitAttr:$kv_replicated);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v (`key_lengths` $key_lengths^ `:` type($key_lengths))?
    `heads` $heads `kv_heads` $kv_heads
    (`causal` $causal^)? (`window` $window^)? (`rope` $rope_theta^)?
    (`rope_dims` $rope_dims^)? (`dropout` $dropout^ `key` $key)?
    (`head_parallel` $head_parallel^)?
    (`kv_replicated` $kv_replicated^)? attr-dict `:` type($q) `,` type($k)
  }];
  // Without key lengths, as every model but BERT builds it.
  let builders = [
    OpBuilder<(ins "::mlir::Value":$q, "::mlir::Value":$k,
                   "::mlir::Value":$v, "::mlir::IntegerAttr":$heads,
                   "::mlir::IntegerAttr":$kv_heads, "::mlir::UnitAttr":$causal,
                   "::mlir::IntegerAttr":$window,
                   "::mlir::FloatAttr":$rope_theta,
                   "::mlir::IntegerAttr":$rope_dims,
                   "::mlir::FloatAttr":$dropout, "::mlir::IntegerAttr":$key,
                   "::mlir::UnitAttr":$head_parallel,
                   CArg<"::mlir::UnitAttr", "{}">:$kv_replicated), [{
      build($_builder, $_state, q, k, v, /*key_lengths=*/::mlir::Value(), heads,
            kv_heads, causal, window, rope_theta, rope_dims, dropout, key,
            head_parallel, kv_replicated);
    }]>
  ];
  let hasVerifier = 1;
}

def Tpc_CrossAttentionOp : Tpc_Op<"cross_attention", [
    InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "StagFormer cross-attention to strictly earlier positions";
  let description = [{
    Queries come from this stack, keys and values from another stack's final
    activations. `query` is [B, T, C] and `kv` is [B, T, 2C] ([k | v]), both
    of the same sequence length. Position t attends to positions s < t
    (with `window W`, to t - W <= s < t); position 0 attends to nothing and
    gives zeros. The result is [B, T, C]. With `rope THETA` (and
    `rope_dims R`) the query of position t and the key of position s are
    rotated by their own positions, as in `tpc.grouped_attention`, so that
    scores depend on t - s.

    ```mlir
    %c = tpc.cross_attention %q, %kv heads 4 window 8 : tensor<?x?x64xf32>, tensor<?x?x128xf32>
    %d = tpc.cross_attention %q, %kv heads 4 rope 1.0e+04 : tensor<?x?x64xf32>, tensor<?x?x128xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$query, Tpc_FloatTensor:$kv,
                       I64Attr:$heads, OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout,
                       DefaultValuedAttr<I64Attr, "0">:$key,
                       UnitAttr:$head_parallel);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $kv `heads` $heads (`window` $window^)?
    (`rope` $rope_theta^)? (`rope_dims` $rope_dims^)?
    (`dropout` $dropout^ `key` $key)? (`head_parallel` $head_parallel^)?
    attr-dict `:` type($query) `,` type($kv)
  }];
  let hasVerifier = 1;
}

def Tpc_DecodeAttentionOp : Tpc_Op<"decode_attention", [
    InferTypeOpAdaptor, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Causal self-attention of one position over a KV cache";
  let description = [{
    The decoding form of a causal `tpc.self_attention`: `tpc-decode` puts one
    in `decode_step` for each self-attention of `forward`. `qkv` is
    [B, 1, 3C], the [q | k | v] of position `pos` (a tensor<i32>); the
    result is [B, 1, C].

    The op owns a cache of `capacity` keys and values per sequence, which
    the runtime allocates on first use and clears before each generation.
    It writes this position's k and v at `pos`, then attends to the cached
    positions [0, pos] (with `window W`, [pos - W + 1, pos]), exactly as
    `self_attention ... causal` attends at position pos. `pos` must be below
    `capacity` and the cache must hold positions [0, pos) from earlier
    calls. With `head_parallel` the op holds heads [r * heads, (r + 1) *
    heads) of heads * tp and caches only those. Reading and writing the
    cache are memory effects, so the op is never folded away. With `rope`,
    q and k are rotated at `pos` and the cache holds rotated keys. Decode
    ops with the same `cache` name share one cache, in every entry point of
    the program (`tpc-decode` names them when two entry points read one
    cache).

    ```mlir
    %a = tpc.decode_attention %qkv, %pos heads 12 capacity 1024 : tensor<1x1x2304xf32>, tensor<i32>
    %b = tpc.decode_attention %qkv, %pos heads 6 capacity 1024 window 128 head_parallel : tensor<1x1x1152xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$qkv, Tpc_ScalarI32:$pos,
                       I64Attr:$heads, I64Attr:$capacity,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       UnitAttr:$head_parallel,
                       OptionalAttr<StrAttr>:$cache);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $qkv `,` $pos `heads` $heads `capacity` $capacity (`window` $window^)?
    (`rope` $rope_theta^)? (`rope_dims` $rope_dims^)?
    (`head_parallel` $head_parallel^)? (`cache` $cache^)? attr-dict `:`
    type($qkv) `,` type($pos)
  }];
  let hasVerifier = 1;
}

def Tpc_DecodeGroupedAttentionOp : Tpc_Op<"decode_grouped_attention", [
    InferTypeOpAdaptor, AllTypesMatch<["k", "v"]>, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Grouped-query attention of one position over a KV cache";
  let description = [{
    The decoding form of a causal `tpc.grouped_attention`. `q` is
    [B, 1, heads * D], `k` and `v` [B, 1, kv_heads * D] at position `pos`.
    The op rotates q and k at `pos` (with `rope`), caches the rotated key and
    the value, and attends to positions [0, pos] (with `window W`,
    [pos - W + 1, pos]) exactly as the training op does at position pos.
    Cache, `cache`, `capacity` and `head_parallel` as
    `tpc.decode_attention`; the cache holds kv_heads heads per position.

    ```mlir
    %a = tpc.decode_grouped_attention %q, %k, %v, %pos heads 32 kv_heads 8 capacity 2048 rope 1.0e+04 : tensor<1x1x4096xf32>, tensor<1x1x1024xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$q, Tpc_FloatTensor:$k,
                       Tpc_FloatTensor:$v, Tpc_ScalarI32:$pos,
                       I64Attr:$heads, I64Attr:$kv_heads, I64Attr:$capacity,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       UnitAttr:$head_parallel,
                       UnitAttr:$kv_replicated,
                       OptionalAttr<StrAttr>:$cache);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $pos `heads` $heads `kv_heads` $kv_heads `capacity`
    $capacity (`window` $window^)? (`rope` $rope_theta^)?
    (`rope_dims` $rope_dims^)? (`head_parallel` $head_parallel^)?
    (`kv_replicated` $kv_replicated^)? (`cache` $cache^)? attr-dict
    `:` type($q) `,` type($k) `,` type($pos)
  }];
  let hasVerifier = 1;
}

def Tpc_DecodeCrossAttentionOp : Tpc_Op<"decode_cross_attention", [
    InferTypeOpAdaptor, MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "StagFormer cross-attention of one position over a KV cache";
  let description = [{
    The decoding form of `tpc.cross_attention`. `query` is [B, 1, C] and
    `kv` [B, 1, 2C] ([k | v] of the previous stack's final activation at
    position `pos`); the result is [B, 1, C]. The op attends to its cached
    positions [0, pos) (with `window W`, [pos - W, pos)), which are strictly
    earlier, and then writes this position's k and v at `pos`; at pos = 0 it
    attends to nothing and gives zeros, as `cross_attention` does at
    position 0. Cache, `cache`, `capacity`, `rope` and `head_parallel` as
    `tpc.decode_attention`.

    With `lagged`, `kv` is the [k | v] of position pos - 1 (recurrent
    decoding computes it from the previous token's final activation, known
    only after that token's step): the op writes it at pos - 1 first
    (nothing at pos = 0, with k rotated at pos - 1 under `rope`) and then
    attends to [0, pos) including it.

    ```mlir
    %c = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 64 window 8 : tensor<1x1x64xf32>, tensor<1x1x128xf32>, tensor<i32>
    %d = tpc.decode_cross_attention %q, %kv, %pos heads 4 capacity 64 lagged cache "recurrent.0" : tensor<1x1x64xf32>, tensor<1x1x128xf32>, tensor<i32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$query, Tpc_FloatTensor:$kv,
                       Tpc_ScalarI32:$pos, I64Attr:$heads, I64Attr:$capacity,
                       OptionalAttr<I64Attr>:$window,
                       DefaultValuedAttr<F64Attr, "0.0">:$rope_theta,
                       DefaultValuedAttr<I64Attr, "0">:$rope_dims,
                       UnitAttr:$head_parallel,
                       UnitAttr:$lagged,
                       OptionalAttr<StrAttr>:$cache);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $kv `,` $pos `heads` $heads `capacity` $capacity
    (`window` $window^)? (`rope` $rope_theta^)? (`rope_dims` $rope_dims^)?
    (`head_parallel` $head_parallel^)? (`lagged` $lagged^)?
    (`cache` $cache^)? attr-dict `:`
    type($query) `,` type($kv) `,` type($pos)
  }];
  let hasVerifier = 1;
}

def Tpc_DropoutOp : Tpc_Op<"dropout", [
    SameOperandsAndResultType, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Inverted dropout from a counter-based generator";
  let description = [{
    Zeroes each element with probability `p` and scales the others by
    1/(1-p). The mask is a function of (seed, step, `key`, global element
    index). A `replicated` stream is the same on every rank (dropout outside
    the tensor-parallel regions); a `per_rank` stream draws the mask of this
    rank's slice of the global tensor, whose layout `layout` gives, so that
    ranks differ while the masks do not depend on the tensor-parallel size.
    A layout needs a `per_rank` stream and cannot be `partial` (drop out the
    sum after `tpc.g`, not its summands).

    ```mlir
    %y = tpc.dropout %x p 1.0e-01 replicated key 7 : tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, F64Attr:$p,
                       Tpc_RngStreamAttr:$stream, I64Attr:$key,
                       OptionalAttr<Tpc_LayoutAttr>:$layout);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `p` $p $stream `key` $key (`layout` $layout^)? attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def Tpc_AddOp : Tpc_Op<"add", [
    Pure, Commutative, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Elementwise sum (residual connections)";
  let arguments = (ins Tpc_FloatTensor:$lhs, Tpc_FloatTensor:$rhs);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs)";
}

def Tpc_ScaleOp : Tpc_Op<"scale", [
    Pure, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Multiplication by a constant";
  let arguments = (ins Tpc_FloatTensor:$input, F64Attr:$factor);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input `by` $factor attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tpc_CastOp : Tpc_Op<"cast", [
    Pure, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Converts a tensor to another floating-point element type";
  let description = [{
    Rounds every element to the nearest value of the result's element type
    (round to nearest even; values beyond the range of f16 become infinite).
    `tpc-mixed-precision` casts a function's floating-point results back to
    f32, so that entry points return f32 whatever the compute type. The VJP
    casts the adjoint back to the operand's type.

    ```mlir
    %logits = tpc.cast %x : tensor<2x8x128xbf16> to tensor<2x8x128xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
}

def Tpc_WeightedSumOp : Tpc_Op<"weighted_sum", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Learned linear combination sum_i alpha[i] * x_i";
  let description = [{
    StagFormer with p > 2 stacks combines the stacks' final activations with
    learned weights. `alpha` is [p] and there are p inputs of one type.

    ```mlir
    %y = tpc.weighted_sum %alpha, %s1, %s2 : tensor<2xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$alpha,
                       Variadic<Tpc_FloatTensor>:$inputs);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $alpha `,` $inputs attr-dict `:` type($alpha) `,` type($inputs)
  }];
}

def Tpc_CrossEntropyOp : Tpc_Op<"cross_entropy", [
    Pure, InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Softmax cross-entropy: loss sum and target count";
  let description = [{
    `logits` is [B, T, V] and `targets` [B, T]. Targets equal to
    `ignore_index` do not count. Returns the sum of the losses and the number
    of counted targets, so that callers form token-weighted means across
    micro-batches and ranks. Accumulates in fp32.

    With `classifier`, the loss is a sequence classifier's over a few
    classes (BERT's sentence order: [B, 1, 2] logits, one label per row):
    it stays whole on every rank, never vocabulary-parallel, and it is not
    the program's language-model loss, whose vocabulary and logits the
    runtime reads.

    ```mlir
    %sum, %count = tpc.cross_entropy %logits, %targets ignore_index -1 : tensor<?x?x50257xf32>, tensor<?x?xi32>
    %s, %n = tpc.cross_entropy %sop, %labels ignore_index -1 classifier : tensor<2x1x2xf32>, tensor<2x1xi32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$logits, Tpc_IdTensor:$targets,
                       DefaultValuedAttr<I64Attr, "-1">:$ignore_index,
                       UnitAttr:$classifier);
  let results = (outs Tpc_ScalarF32:$loss_sum, Tpc_ScalarI32:$count);
  let assemblyFormat = [{
    $logits `,` $targets `ignore_index` $ignore_index (`classifier` $classifier^)?
    attr-dict `:` type($logits) `,` type($targets)
  }];  let hasVerifier = 1;
}

def Tpc_VocabParallelCrossEntropyOp
    : Tpc_Op<"vocab_parallel_cross_entropy", [
    InferTypeOpAdaptor, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Cross-entropy over vocabulary-split logits (Megatron)";
  let description = [{
    `logits` is [B, T, Vl]: this rank's columns [r * Vl, (r + 1) * Vl) of the
    padded vocabulary. Columns at or beyond `vocab_size` are padding and are
    excluded, so `vocab_size` is at most Vl times the module's `tpc.tp`. The
    ranks exchange only B*T values per all-reduce over the tp group: the row
    maximum, then the target logit and the sum of exponentials. Results as
    `tpc.cross_entropy`.

    ```mlir
    %sum, %count = tpc.vocab_parallel_cross_entropy %logits, %targets vocab 50257 ignore_index -1 : tensor<?x?x25600xf32>, tensor<?x?xi32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$logits, Tpc_IdTensor:$targets,
                       I64Attr:$vocab_size,
                       DefaultValuedAttr<I64Attr, "-1">:$ignore_index);
  let results = (outs Tpc_ScalarF32:$loss_sum, Tpc_ScalarI32:$count);
  let assemblyFormat = [{
    $logits `,` $targets `vocab` $vocab_size `ignore_index` $ignore_index
    attr-dict `:` type($logits) `,` type($targets)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Tpc_FOp : Tpc_Op<"f", [
    SameOperandsAndResultType, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Megatron's f: identity forward, all-reduce backward";
  let description = [{
    Placed before a column-parallel region: every rank needs the whole input,
    and the gradients that the ranks compute for it must be summed. Works on
    group `tp` only; the data-parallel group uses `tpc.all_reduce`.

    ```mlir
    %y = tpc.f %x group tp : tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_GroupAttr:$group);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input `group` $group attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tpc_GOp : Tpc_Op<"g", [
    SameOperandsAndResultType, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Megatron's g: all-reduce forward, identity backward";
  let description = [{
    Placed after a row-parallel region: the ranks hold partial sums of the
    output and g adds them up. Works on group `tp` only.

    ```mlir
    %y = tpc.g %x group tp : tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, Tpc_GroupAttr:$group);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = "$input `group` $group attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tpc_AllReduceOp : Tpc_Op<"all_reduce", [
    SameOperandsAndResultType, DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "All-reduce over a process group";
  let description = [{
    ```mlir
    %y = tpc.all_reduce %x sum group dp : tensor<f32>
    ```
  }];
  let arguments = (ins Tpc_AnyTensor:$input, Tpc_ReduceKindAttr:$reduce,
                       Tpc_GroupAttr:$group);
  let results = (outs Tpc_AnyTensor:$result);
  let assemblyFormat = [{
    $input $reduce `group` $group attr-dict `:` type($input)
  }];
}

def Tpc_AllGatherOp : Tpc_Op<"all_gather", [
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Concatenates the ranks' tensors along a dimension";
  let description = [{
    The result's dimension `dim` is the group size times the input's; for
    group `tp` that size is the module's `tpc.tp` (1 when absent), for `dp`
    the result's extent must be a multiple of the input's.

    ```mlir
    %y = tpc.all_gather %x dim 2 group tp : tensor<4x8x16xf32> -> tensor<4x8x32xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, I64Attr:$dim,
                       Tpc_GroupAttr:$group);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim `group` $group attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tpc_RecvOp : Tpc_Op<"recv", [MemoryEffects<[MemWrite]>]> {
  let summary = "Pipeline message: a value another chunk sends this one";
  let description = [{
    In a pipeline chunk's function (tpc-pipeline): the `index`-th value
    that chunk `chunk` sends this chunk, an activation of the forward or,
    with `grad`, a gradient of the backward. The runtime posts the receive
    into the result's bytes where the stage's schedule says (before the
    function runs) and the function waits for it; the op itself computes
    nothing.

    ```mlir
    %x = tpc.recv from chunk 0 index 0 : tensor<4x64x768xbf16>
    ```
  }];
  let arguments = (ins I64Attr:$chunk, I64Attr:$index, UnitAttr:$grad);
  let results = (outs Tpc_AnyTensor:$result);
  let assemblyFormat = [{
    `from` `chunk` $chunk `index` $index (`grad` $grad^)? attr-dict `:`
    type($result)
  }];
  let hasVerifier = 1;
}

def Tpc_SendOp : Tpc_Op<"send", [MemoryEffects<[MemRead]>]> {
  let summary = "Pipeline message: a value this chunk sends another";
  let description = [{
    In a pipeline chunk's function: `input` is the `index`-th value this
    chunk sends chunk `chunk` (its next chunk with activations, its
    previous one with `grad`). The runtime sends it once the function has
    run, from the input's bytes, which tpc-plan-memory keeps until the end
    of the chunk's functions.

    ```mlir
    tpc.send %y to chunk 1 index 0 : tensor<4x64x768xbf16>
    ```
  }];
  let arguments = (ins Tpc_AnyTensor:$input, I64Attr:$chunk, I64Attr:$index,
                       UnitAttr:$grad);
  let assemblyFormat = [{
    $input `to` `chunk` $chunk `index` $index (`grad` $grad^)? attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
}

def Tpc_SeqScatterOp : Tpc_Op<"seq_scatter", [
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Sequence parallelism: split along the sequence over tp";
  let description = [{
    `input` is [B, T, ...] on every rank of the tp group and the result is
    this rank's [B, T / tp, ...]: positions [r * T / tp, (r + 1) * T / tp).
    With `reduce` the ranks hold partial sums and the result is the sum's
    slice (a reduce-scatter: the `tpc.g` of a sequence-parallel region);
    without it the input is whole on every rank and each takes its slice,
    with no communication. The adjoint is gathered back along the sequence
    (`tpc.seq_gather`). `tpc-sequence-parallel` places these ops.

    ```mlir
    %y = tpc.seq_scatter %x reduce : tensor<2x8x64xf32> -> tensor<2x4x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, UnitAttr:$reduce);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`reduce` $reduce^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tpc_SeqGatherOp : Tpc_Op<"seq_gather", [
    DeclareOpInterfaceMethods<Tpc_VjpOpInterface>]> {
  let summary = "Sequence parallelism: all-gather along the sequence over tp";
  let description = [{
    `input` is this rank's [B, T / tp, ...] and the result the whole
    [B, T, ...] on every rank of the tp group. With `reduce_grad` the
    consumers are column-parallel, each rank's adjoint is a partial sum, and
    the backward reduce-scatters it (the `tpc.f` of a sequence-parallel
    region); without it the consumers are replicated, every rank holds the
    whole adjoint, and the backward takes this rank's slice of it.

    ```mlir
    %y = tpc.seq_gather %x reduce_grad : tensor<2x4x64xf32> -> tensor<2x8x64xf32>
    ```
  }];
  let arguments = (ins Tpc_FloatTensor:$input, UnitAttr:$reduce_grad);
  let results = (outs Tpc_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`reduce_grad` $reduce_grad^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

include "dialects/tpc/TpcGradOps.td"

#endif // TPC_OPS_TD
