//===- TpcInterfaces.td - tpc op interfaces ----------------*- tablegen -*-===//
//
// The interface through which an op takes part in reverse-mode automatic
// differentiation. `tpc-autodiff` knows no op by name: it walks the forward
// function backwards and asks each op for its vector-Jacobian product.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_INTERFACES_TD
#define TPC_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tpc_VjpOpInterface : OpInterface<"VjpOpInterface"> {
  let cppNamespace = "::tpc";
  let description = [{
    An op that implements this interface is differentiable: given the
    adjoints of its results (the gradients of the loss with respect to
    them) it builds the ops that compute the adjoints of its operands. This
    is the op's vector-Jacobian product, in the style of Toy's shape
    inference interface: a new op becomes trainable by implementing it, with
    no change to `tpc-autodiff`.

    Tensor-parallel convention (Megatron-LM): the adjoint of a value that
    every rank of the tp group holds whole (replicated) is the whole
    gradient, the same on every rank; the adjoint of a rank's slice (a
    column-parallel activation) is the gradient of that slice. `tpc.f` and
    `tpc.g` are the conjugates that switch between the two: f's VJP
    all-reduces the ranks' contributions, g's is the identity.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at the builder's insertion point, the backward ops of this op.
        `resultAdjoints` has one entry per result: the adjoint of that
        result, of the result's type, or a null value where the result has
        no adjoint (it does not reach the loss, or it is not differentiable,
        like a target count). At least one entry is non-null.
        `operandAdjoints` is filled with one entry per operand: the operand's
        adjoint, of the operand's type, or null where there is none (integer
        operands, or an operand the gradient does not depend on).
        An op that cannot be differentiated in its present form (a max
        all-reduce, a gather) emits an error naming itself and the fix and
        returns failure.
      }],
      "::mlir::LogicalResult", "buildVjp",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>,
  ];
}

def Tpc_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::tpc";
  let description = [{
    What an op costs on one rank, for the cost report, the pipeline cut and
    the planner's step-time model: its floating-point operations and the
    bytes it reads and writes. The ops whose work is matrix products (the
    linears and their gradients, the attention ops) implement it
    (dialects/tpc/TpcCost.cpp, attached to the ops as external models), and
    so do the gathers, whose bytes are their rows; every other op is costed
    by `tpc::opCost` as memory-bound, reading its operands and writing its
    results once.
  }];
  let methods = [
    InterfaceMethod<[{
        The op's matrix-product FLOPs on this rank, with the shapes it has
        (2 per multiply-add).
      }],
      "double", "getMatmulFlops", (ins)>,
    InterfaceMethod<[{
        The bytes the op reads and writes: its tensor operands and results
        once each, but for a gather (an embedding lookup), which reads the
        rows it returns rather than the whole table.
      }],
      "double", "getBytesMoved", (ins)>,
  ];
}

#endif // TPC_INTERFACES_TD
