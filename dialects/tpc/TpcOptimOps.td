//===- TpcOptimOps.td - tpc optimizer-step operations ------*- tablegen -*-===//
//
// The ops of `apply_step`, the entry point the runtime calls once per
// optimizer step: read the accumulated gradients, sum them over the
// data-parallel group, measure their global norm and update every parameter.
//
// Gradient buffers and optimizer state (AdamW's m and v, SGD's momentum) are
// owned by the runtime, one of each per `tpc.param`, holding this rank's
// slice at the parameter's local type. The ops name them by the parameter's
// symbol; the ops that touch them carry memory effects so that no pass moves
// a read of a gradient across its reduction or an update.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_OPTIM_OPS_TD
#define TPC_OPTIM_OPS_TD

include "dialects/tpc/TpcDialect.td"
include "dialects/tpc/TpcAttrs.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A gradient: this rank's slice of a parameter, which is f32, bf16 or f16.
def Tpc_OptimGradTensor : RankedTensorOf<[F32, BF16, F16]>;

/// A scalar f32 tensor; buildable, so the assembly need not spell it.
def Tpc_OptimScalarF32 : 0DTensorOf<[F32]> {
  let builderCall = "::mlir::RankedTensorType::get({}, $_builder.getF32Type())";
}

def Tpc_GetGradOp : Tpc_Op<"get_grad", [
    MemoryEffects<[MemRead]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Reads the gradient buffer of a parameter";
  let description = [{
    Reads the runtime-owned gradient buffer of the parameter named by the
    symbol: this rank's slice, at the parameter's local shape (the module's
    `tpc.tp` and the parameter's layout decide it, as for `tpc.get_param`)
    and its gradient element type.
    The buffer holds the gradient of the loss sum accumulated by every
    `train_step` since the runtime last zeroed it and, after a
    `tpc.bucket_all_reduce` naming the parameter, summed over the
    data-parallel group.

    ```mlir
    %g = tpc.get_grad @h.0.mlp.c_fc.weight : tensor<16x32xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs Tpc_OptimGradTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

def Tpc_BucketAllReduceOp : Tpc_Op<"bucket_all_reduce", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Sums the gradient buffers of a bucket of parameters in place";
  let description = [{
    All-reduces (sum) the gradient buffers of the listed parameters over the
    data-parallel group, in place, as one collective. The runtime keeps the
    gradient buffers of all parameters contiguous in the module's parameter
    order, so the parameters of a bucket, which must be consecutive
    `tpc.param`s of the module (listed in either order) and share one
    gradient element type, occupy one contiguous range: one NCCL or MPI all-reduce per bucket.
    `tpc-data-parallel` lists them in reverse parameter order, the order in
    which backward produces the gradients. Only group `dp` is meaningful: the
    gradients of the tensor-parallel ranks are slices of one gradient or,
    for replicated parameters, already equal.

    ```mlir
    tpc.bucket_all_reduce [@h.1.mlp.c_proj.bias, @h.1.mlp.c_proj.weight] group dp
    ```
  }];
  let arguments = (ins FlatSymbolRefArrayAttr:$params, Tpc_GroupAttr:$group);
  let assemblyFormat = "$params `group` $group attr-dict";
  let hasVerifier = 1;
}

def Tpc_BucketReduceScatterOp : Tpc_Op<"bucket_reduce_scatter", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Sums a bucket's gradients over dp into each rank's shard";
  let description = [{
    The distributed optimizer's gradient reduction (ZeRO stage 1, Megatron's
    `--use-distributed-optimizer`). The listed parameters form one bucket,
    with the rules of `tpc.bucket_all_reduce` (consecutive `tpc.param`s, one
    gradient element type). Their gradient elements, taken in parameter
    order as one range of n elements, are cut into `size(dp)` shards of
    `ceil(n / size(dp))` elements; data-parallel rank r owns shard r. After
    the op, a rank's gradient buffers hold the sum over the data-parallel
    group in the elements of its shard and zero in all others, in one
    reduce-scatter per bucket: half an all-reduce's traffic.

    The program then has a partitioned optimizer: the update ops of
    `apply_step` update only the elements a rank owns, the optimizer state
    (AdamW m and v, SGD momentum, and the f32 master of a parameter with a
    working copy) exists only for them, and `tpc.bucket_all_gather` of the
    same bucket makes the parameters whole again on every rank. A sum of
    squares over the gradients covers this rank's shard; an all-reduce over
    dp completes it. Every parameter of such a program is in exactly one
    bucket.

    ```mlir
    tpc.bucket_reduce_scatter [@h.1.mlp.c_proj.bias, @h.1.mlp.c_proj.weight] group dp
    ```
  }];
  let arguments = (ins FlatSymbolRefArrayAttr:$params, Tpc_GroupAttr:$group);
  let assemblyFormat = "$params `group` $group attr-dict";
  let hasVerifier = 1;
}

def Tpc_BucketAllGatherOp : Tpc_Op<"bucket_all_gather", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Makes a bucket's parameters whole after a partitioned update";
  let description = [{
    The counterpart of `tpc.bucket_reduce_scatter` of the same bucket after
    the distributed optimizer's updates: each data-parallel rank contributes
    the elements of the listed parameters that its shard owns (the copy
    functions read, in the parameters' compute type) and receives everyone
    else's, in one all-gather per bucket. The parameters follow the rules of
    `tpc.bucket_all_reduce` and share one compute element type.

    ```mlir
    tpc.bucket_all_gather [@h.1.mlp.c_proj.bias, @h.1.mlp.c_proj.weight] group dp
    ```
  }];
  let arguments = (ins FlatSymbolRefArrayAttr:$params, Tpc_GroupAttr:$group);
  let assemblyFormat = "$params `group` $group attr-dict";
  let hasVerifier = 1;
}

def Tpc_SumSquaresOp : Tpc_Op<"sum_squares", [Pure]> {
  let summary = "Sum of the squares of every element of its operands";
  let description = [{
    Returns sum_i sum_j x_i[j]^2 over all elements of all operands as an f32
    scalar, accumulated in f32 whatever the element type. One op covers
    many tensors so that the runtime accumulates them into one scalar
    without an add per tensor.

    ```mlir
    %sq = tpc.sum_squares %g0, %g1 : tensor<16x32xf32>, tensor<32xf32>
    ```
  }];
  let arguments = (ins Variadic<Tpc_OptimGradTensor>:$inputs);
  let results = (outs Tpc_OptimScalarF32:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def Tpc_GradNormOp : Tpc_Op<"grad_norm", [Pure]> {
  let summary = "Global gradient norm and the scale of the update";
  let description = [{
    `sum_sq` is the sum of squares of every element of the raw (loss-sum)
    gradient, each counted once over the whole model; `inv_count` is
    1 / (the global target count of the step). The gradient the optimizer
    follows is `inv_count * g`, so

    - `norm = inv_count * sqrt(sum_sq)`, its global L2 norm;
    - `scale = inv_count * min(1, max_norm / (norm + 1e-6))` with
      `max_norm` (gradient clipping as torch.nn.utils.clip_grad_norm_),
      `scale = inv_count` without it.

    The update ops multiply the raw gradient by `scale`, so normalising and
    clipping cost no pass over the gradients.

    ```mlir
    %norm, %scale = tpc.grad_norm %sum_sq, %inv_count max_norm 1.000000e+00
    ```
  }];
  let arguments = (ins Tpc_OptimScalarF32:$sum_sq, Tpc_OptimScalarF32:$inv_count,
                       OptionalAttr<F64Attr>:$max_norm);
  let results = (outs Tpc_OptimScalarF32:$norm, Tpc_OptimScalarF32:$scale);
  let assemblyFormat = [{
    $sum_sq `,` $inv_count (`max_norm` $max_norm^)? attr-dict
  }];
  let hasVerifier = 1;
}

def Tpc_AdamWUpdateOp : Tpc_Op<"adamw_update", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "AdamW step of one parameter, in place";
  let description = [{
    Updates the parameter named by the symbol (its f32 master copy under
    mixed precision) and its runtime-owned first and second moments m and v
    (the master's local type, zero before the first step), with
    `g' = scale * grad`, computed in f32 whatever the gradient's type:

    ```
    m = beta1 * m + (1 - beta1) * g'
    v = beta2 * v + (1 - beta2) * g'^2
    p = p - lr * (m / (1 - beta1^t) / (sqrt(v / (1 - beta2^t)) + eps)
                  + weight_decay * p)
    ```

    Weight decay is decoupled (Loshchilov & Hutter). A parameter with a
    working copy (`compute bf16`) gets the updated master rounded into it in
    the same pass, so the working copy is cast once per optimizer step. `t` is the runtime's
    optimizer step counter: 1 for the first call of `apply_step`, advanced
    by the runtime by one before every call and saved in checkpoints with
    m and v; it is runtime state like the moments, not an operand. `lr` and
    `scale` are f32 scalars (the runtime's schedule and `tpc.grad_norm`).

    ```mlir
    tpc.adamw_update @h.0.mlp.c_fc.weight, %g, %lr, %scale beta1 9.000000e-01 beta2 9.500000e-01 eps 1.000000e-08 weight_decay 1.000000e-01 : tensor<16x32xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name, Tpc_OptimGradTensor:$grad,
                       Tpc_OptimScalarF32:$lr, Tpc_OptimScalarF32:$scale,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$eps,
                       F64Attr:$weight_decay);
  let assemblyFormat = [{
    $name `,` $grad `,` $lr `,` $scale `beta1` $beta1 `beta2` $beta2 `eps`
    $eps `weight_decay` $weight_decay attr-dict `:` type($grad)
  }];
  let hasVerifier = 1;
}

def Tpc_SgdUpdateOp : Tpc_Op<"sgd_update", [
    MemoryEffects<[MemRead, MemWrite]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "SGD step (optionally with momentum) of one parameter";
  let description = [{
    Updates the parameter named by the symbol (its f32 master copy under
    mixed precision; a working copy gets the result rounded into it in the
    same pass) in place, as torch.optim.SGD does, with
    `d = scale * grad + weight_decay * p` (coupled decay), in f32:

    ```
    b = momentum * b + d      (momentum > 0; b is a runtime-owned buffer of
                               the master's local type, zero at first)
    p = p - lr * (momentum > 0 ? b : d)
    ```

    ```mlir
    tpc.sgd_update @wte, %g, %lr, %scale momentum 9.000000e-01 weight_decay 0.000000e+00 : tensor<128x16xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name, Tpc_OptimGradTensor:$grad,
                       Tpc_OptimScalarF32:$lr, Tpc_OptimScalarF32:$scale,
                       F64Attr:$momentum, F64Attr:$weight_decay);
  let assemblyFormat = [{
    $name `,` $grad `,` $lr `,` $scale `momentum` $momentum `weight_decay`
    $weight_decay attr-dict `:` type($grad)
  }];
  let hasVerifier = 1;
}

#endif // TPC_OPTIM_OPS_TD
