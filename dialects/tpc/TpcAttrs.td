//===- TpcAttrs.td - tpc attributes and enums --------------*- tablegen -*-===//

#ifndef TPC_ATTRS_TD
#define TPC_ATTRS_TD

include "dialects/tpc/TpcDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tpc_GroupTp : I32EnumAttrCase<"tp", 0>;
def Tpc_GroupDp : I32EnumAttrCase<"dp", 1>;
// The pipeline's stages (the ranks of one tp and dp rank), and Megatron's
// embedding group: the first and the last stage, which both hold a tied
// embedding table.
def Tpc_GroupPp : I32EnumAttrCase<"pp", 2>;
def Tpc_GroupEmbedding : I32EnumAttrCase<"embedding", 3>;
def Tpc_GroupAttr : I32EnumAttr<"Group", "process group of a collective",
                                [Tpc_GroupTp, Tpc_GroupDp, Tpc_GroupPp,
                                 Tpc_GroupEmbedding]> {
  let cppNamespace = "::tpc";
}

def Tpc_StreamReplicated : I32EnumAttrCase<"replicated", 0>;
def Tpc_StreamPerRank : I32EnumAttrCase<"per_rank", 1>;
def Tpc_RngStreamAttr : I32EnumAttr<"RngStream", "random stream of a dropout",
                                    [Tpc_StreamReplicated, Tpc_StreamPerRank]> {
  let cppNamespace = "::tpc";
}

def Tpc_ReduceSum : I32EnumAttrCase<"sum", 0>;
def Tpc_ReduceMax : I32EnumAttrCase<"max", 1>;
def Tpc_ReduceKindAttr : I32EnumAttr<"ReduceKind", "reduction of an all-reduce",
                                     [Tpc_ReduceSum, Tpc_ReduceMax]> {
  let cppNamespace = "::tpc";
}

def Tpc_InitNormal : I32EnumAttrCase<"normal", 0>;
def Tpc_InitZeros : I32EnumAttrCase<"zeros", 1>;
def Tpc_InitOnes : I32EnumAttrCase<"ones", 2>;
def Tpc_InitKind : I32EnumAttr<"InitKind", "parameter initializer",
                               [Tpc_InitNormal, Tpc_InitZeros, Tpc_InitOnes]> {
  let cppNamespace = "::tpc";
  let genSpecializedAttr = 0;
}

def Tpc_LayoutReplicated : I32EnumAttrCase<"replicated", 0>;
def Tpc_LayoutSplit : I32EnumAttrCase<"split", 1>;
def Tpc_LayoutPartial : I32EnumAttrCase<"partial", 2>;
def Tpc_LayoutKind : I32EnumAttr<"LayoutKind", "parameter layout",
                                 [Tpc_LayoutReplicated, Tpc_LayoutSplit,
                                  Tpc_LayoutPartial]> {
  let cppNamespace = "::tpc";
  let genSpecializedAttr = 0;
}

def Tpc_InitAttr : AttrDef<Tpc_Dialect, "Init"> {
  let mnemonic = "init";
  let summary = "How a parameter is initialized";
  let description = [{
    `normal` draws N(0, std^2) from the counter-based generator keyed by
    (seed, parameter name, global element index); with `residual_layers = L`
    the standard deviation is scaled by 1/sqrt(2L) as GPT-2 does for the
    projections that feed the residual stream. `zeros` and `ones` are
    constants.

    ```mlir
    #tpc.init<normal, std = 0.02>
    #tpc.init<normal, std = 0.02, residual_layers = 12>
    #tpc.init<zeros>
    ```
  }];
  let parameters = (ins "InitKind":$kind, "::llvm::APFloat":$std,
                        "int64_t":$residualLayers);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The standard deviation after the residual scaling.
    double getEffectiveStd() const;
  }];
}

def Tpc_LayoutAttr : AttrDef<Tpc_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "How a tensor is distributed over the tensor-parallel group";
  let description = [{
    `replicated`: every rank holds the whole tensor. `split D`: the tensor is
    cut into tp equal pieces along dimension D. `split D blocks K`: dimension
    D is made of K equal blocks (the fused [H, 3H] QKV weight has K = 3) and
    each block is cut into tp pieces, so rank r holds piece r of every block
    and thereby whole heads of q, k and v. `partial`: every rank holds a
    summand of the tensor.

    ```mlir
    #tpc.layout<replicated>
    #tpc.layout<split 1>
    #tpc.layout<split 1 blocks 3>
    #tpc.layout<partial>
    ```
  }];
  let parameters = (ins "LayoutKind":$kind, "int64_t":$dim, "int64_t":$blocks);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static LayoutAttr getReplicated(::mlir::MLIRContext *ctx);
    static LayoutAttr getSplit(::mlir::MLIRContext *ctx, int64_t dim,
                               int64_t blocks = 1);
    bool isReplicated() const { return getKind() == LayoutKind::replicated; }
    bool isSplit() const { return getKind() == LayoutKind::split; }
    /// The shape one rank holds of a tensor of global shape `global` when
    /// the group has `tp` ranks; fails when the split does not divide.
    ::mlir::FailureOr<::llvm::SmallVector<int64_t>>
    localShape(::llvm::ArrayRef<int64_t> global, int64_t tp) const;
  }];
}

#endif // TPC_ATTRS_TD
