//===- MegatronRule.h - The Megatron-LM sharding rule -----------*- C++ -*-===//
//
// Recognizes the blocks that Megatron-LM splits (MLP, self-attention,
// StagFormer cross-attention, vocabulary embedding, output layer, bigram
// table) in a model's `forward` function by the structure of the graph, and
// derives from them the layout of every parameter. Shared by
// tpc-megatron-shard, tpc-partition and the cost report.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_PASSES_MEGATRONRULE_H
#define TPC_PASSES_MEGATRONRULE_H

#include "dialects/tpc/TpcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/MapVector.h"

#include <string>

namespace tpc {
/// Module attribute (i64) written by tpc-megatron-shard: the tensor-parallel
/// size the layouts were chosen for. tpc-partition consumes it and writes
/// `tpc.tp` (kTpAttrName) instead.
inline constexpr llvm::StringLiteral kShardTpAttrName = "tpc.shard_tp";

/// Parameter attribute (i64) written by tpc-partition on a parameter whose
/// vocabulary dimension was padded: the unpadded vocabulary size. Entries of
/// that dimension at or beyond it are padding.
inline constexpr llvm::StringLiteral kVocabSizeAttrName = "vocab_size";

/// The vocabulary is padded to a multiple of this times tp (Megatron's
/// make-vocab-size-divisible-by).
inline constexpr int64_t kVocabPadMultiple = 128;

/// The smallest multiple of kVocabPadMultiple * tp that holds `vocab`.
int64_t getPaddedVocab(int64_t vocab, int64_t tp);

/// The function whose structure decides the layouts; emits an error on the
/// module when there is none.
mlir::FailureOr<mlir::func::FuncOp> getForward(mlir::ModuleOp module);

/// A layout as a tpc.param writes it, e.g. `<split 1 blocks 3>`.
std::string layoutText(LayoutAttr layout);

/// The parameter `value` reads when it is a tpc.get_param result, else null;
/// `symbols` caches the module's symbol table across calls.
ParamOp getReadParam(mlir::Value value, mlir::SymbolTableCollection &symbols);

enum class BlockKind { Mlp, SelfAttention, CrossAttention };

/// One column-parallel then row-parallel block: `columns` are the
/// column-parallel linears (c_fc; c_attn; c_q and c_kv), `core` the op between
/// (gelu, self_attention, cross_attention), `dropouts` the dropouts inside the
/// block, `row` the row-parallel linear (c_proj).
struct TpBlock {
  BlockKind kind;
  llvm::SmallVector<LinearOp, 2> columns;
  mlir::Operation *core = nullptr;
  llvm::SmallVector<DropoutOp> dropouts;
  LinearOp row;
  /// Grouped attention whose kv_heads tp does not divide but divides tp:
  /// every rank keeps all key/value heads (k and v weights replicated, their
  /// gradients summed over tp by an f on each weight).
  bool replicatedKv = false;
};

/// A loss over the vocabulary: `producer` computes the logits, either the
/// output layer (a tpc.linear) or a bigram table lookup (a tpc.embedding).
struct VocabLoss {
  mlir::Operation *producer;
  CrossEntropyOp loss;
  int64_t vocab;
};

/// The layout the rule gives one parameter, why, and which op asked for it.
struct ParamAssignment {
  LayoutAttr layout;
  std::string role;
  mlir::Operation *reader = nullptr;
  /// The vocabulary dimension (padded by tpc-partition), or -1.
  int64_t vocabDim = -1;
};

/// The Megatron structure of a `forward` function.
struct MegatronModel {
  mlir::func::FuncOp forward;
  llvm::SmallVector<TpBlock> blocks;
  /// Token embeddings over the vocabulary (vocab-parallel, then g).
  llvm::SmallVector<EmbeddingOp> vocabEmbeddings;
  llvm::SmallVector<VocabLoss> losses;
  /// Every parameter read by `forward`, in order of first read.
  llvm::MapVector<mlir::Operation *, ParamAssignment> params;
};

/// Finds the blocks of `forward` and assigns every parameter it reads the
/// layout the rule gives it for a tensor-parallel size `tp`. Emits an error
/// and fails when one parameter would need two different layouts.
mlir::FailureOr<MegatronModel> analyzeMegatron(mlir::func::FuncOp forward,
                                               int64_t tp);

/// Checks that `tp` can split what the rule splits: attention heads, and
/// every split dimension except the (padded) vocabulary one.
mlir::LogicalResult checkDivisibility(const MegatronModel &model, int64_t tp);

/// Checks that every layout already on a parameter is the one the rule
/// gives it; emits an error naming the parameter and the fix otherwise.
mlir::LogicalResult checkExistingLayouts(const MegatronModel &model);
} // namespace tpc

#endif // TPC_PASSES_MEGATRONRULE_H
