//===- TpcDialect.td - The tpc dialect ---------------------*- tablegen -*-===//
//
// The tpc dialect describes a transformer at its global size: parameters as
// module-level symbols, functions over builtin ranked tensors, and the ops of
// a GPT-2 style language model. The sharding passes annotate parameters with
// layouts and insert the tensor-parallel collectives `f` and `g`.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_DIALECT_TD
#define TPC_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tpc_Dialect : Dialect {
  let name = "tpc";
  let cppNamespace = "::tpc";
  let summary = "Transformer models for Megatron-style tensor parallelism";
  let description = [{
    The `tpc` dialect holds a language model written once at its global size.
    Parameters are `tpc.param` symbols with a global shape, an initializer
    and, after `tpc-megatron-shard`, a layout. Functions read them with
    `tpc.get_param`. Batch and sequence dimensions stay dynamic until
    `tpc-specialize` fixes them.

    After partitioning, the module attribute `tpc.tp` (an integer >= 1,
    absent = 1) records the tensor-parallel size that the local types of
    `tpc.get_param` and the collectives are computed for.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

class Tpc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tpc_Dialect, mnemonic, traits>;

#endif // TPC_DIALECT_TD
