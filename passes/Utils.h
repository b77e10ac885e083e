//===- Utils.h - Helpers shared by the tpc passes ---------------*- C++ -*-===//

#ifndef TPC_PASSES_UTILS_H
#define TPC_PASSES_UTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

namespace tpc {
/// Fails with "module is already partitioned (tpc.tp = N); <fix>" when
/// tpc-partition has run on `module`: for the passes that work on the global
/// model.
mlir::LogicalResult expectGlobalModule(mlir::ModuleOp module,
                                       llvm::StringRef fix);

/// Fails with "<pass> needs a partitioned module (tpc.tp absent); run
/// tpc-partition first" when tpc-partition has not run on `module`.
mlir::LogicalResult expectPartitionedModule(mlir::ModuleOp module,
                                            llvm::StringRef pass);

/// Recomputes every result type in `func` from its operands, in program
/// order, after argument or parameter types changed, and updates the
/// function's signature to the types it returns. Fails (with a diagnostic
/// on the offending op) when an op rejects its new operand types.
mlir::LogicalResult refreshResultTypes(mlir::func::FuncOp func);

/// The same for one op, whose operands have their final types; `tp` is the
/// module's tensor-parallel size (the factor of a tp all_gather).
mlir::LogicalResult refreshOpResultTypes(mlir::Operation *op, int64_t tp);

/// The transformer layers of a forward computation `ops` (in program order),
/// found from its residual stream: each residual add `add(x, F(x))` closes a
/// sublayer that starts after x's definition; a sublayer that contains a
/// self-attention starts a new layer, the others (MLP, StagFormer's
/// cross-attention) extend the current one. A layer thus runs from just
/// after its input to its last residual add (in a pre-norm GPT-2 block,
/// ln_1 to the MLP's add). Returns each op's layer, or -1 outside layers (the
/// embedding, the final norm, the output layer, the loss; in a post-norm
/// model the norm between two layers); `layers` receives their count.
llvm::SmallVector<int64_t> findLayers(llvm::ArrayRef<mlir::Operation *> ops,
                                      int64_t &layers);

/// The ops `roots` depend on, not looking past the values in `stop`.
llvm::SmallPtrSet<mlir::Operation *, 32>
opsFeeding(mlir::ValueRange roots,
           const llvm::DenseSet<mlir::Value> &stop = {});

/// The ops of a StagFormer stack whose final activation is `final` (or of
/// what depends on it within decode_step): what it depends on, not following
/// a decode cross-attention's memory into the previous stack.
llvm::SmallPtrSet<mlir::Operation *, 32> stackOps(mlir::Value final);

/// Walks back from `value` through the ops that move or convert a tensor
/// without mixing positions (f, g, casts) and through linears' inputs: from
/// a cross-attention's keys and values to the activation they project, or
/// from logits to the final norm.
mlir::Value throughProjections(mlir::Value value);

/// The operand of `ret` that returns the logits of `func`'s last loss op
/// (tpc.cross_entropy or its vocabulary-parallel form; with `classifier`,
/// the last tpc.cross_entropy marked classifier), as they are or cast back
/// to f32; none when `ret` does not return them.
std::optional<int> returnedLossLogits(mlir::func::FuncOp func,
                                      mlir::Operation *ret,
                                      bool classifier = false);

/// Builds the `lagged` form of decode cross-attention `cross`, its operands
/// looked up in `map` and reading position `pos`: it writes its keys and
/// values (the memory of the previous position) at pos - 1 before attending
/// to [0, pos). Maps cross's result to the new one's.
void cloneLagged(mlir::OpBuilder &builder, mlir::Operation *cross,
                 mlir::IRMapping &map, mlir::Value pos);
} // namespace tpc

#endif // TPC_PASSES_UTILS_H
