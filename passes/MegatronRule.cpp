//===- MegatronRule.cpp - The Megatron-LM sharding rule ---------*- C++ -*-===//
//
// A block is recognized only when the values between its column-parallel and
// its row-parallel linears have no other user: those values are split across
// the ranks after partitioning, so nothing outside the block may read them.
// Anything not recognized stays replicated, which is always correct.
//
//===----------------------------------------------------------------------===//

#include "passes/MegatronRule.h"
#include "runtime/program/Abi.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tpc;

int64_t tpc::getPaddedVocab(int64_t vocab, int64_t tp) {
  int64_t multiple = kVocabPadMultiple * tp;
  return (vocab + multiple - 1) / multiple * multiple;
}

FailureOr<func::FuncOp> tpc::getForward(ModuleOp module) {
  if (auto forward = module.lookupSymbol<func::FuncOp>(abi::kForward))
    if (!forward.isExternal())
      return forward;
  return module.emitError(
      "module has no `forward` function with a body; the Megatron rule "
      "reads the model's structure from func.func @forward, so define it");
}

std::string tpc::layoutText(LayoutAttr layout) {
  std::string s;
  llvm::raw_string_ostream os(s);
  cast<Attribute>(layout).print(os, /*elideType=*/true);
  // `#tpc.layout<split 1>` -> `<split 1>`, the form a tpc.param writes.
  size_t lt = s.find('<');
  return lt == std::string::npos ? s : s.substr(lt);
}

ParamOp tpc::getReadParam(Value value, SymbolTableCollection &symbols) {
  auto read = value.getDefiningOp<GetParamOp>();
  if (!read)
    return {};
  return symbols.lookupNearestSymbolFrom<ParamOp>(read, read.getNameAttr());
}

namespace {
/// Walks back from `value` through dropouts; every value on the way must
/// have a single user. Returns null when one has more.
Value skipDropoutsBack(Value value, SmallVectorImpl<DropoutOp> &dropouts) {
  while (true) {
    if (!value.hasOneUse())
      return {};
    auto dropout = value.getDefiningOp<DropoutOp>();
    if (!dropout)
      return value;
    dropouts.push_back(dropout);
    value = dropout.getInput();
  }
}

/// Walks forward from `value` through dropouts to its single user.
Operation *skipDropoutsForward(Value value,
                               SmallVectorImpl<DropoutOp> &dropouts) {
  while (true) {
    if (!value.hasOneUse())
      return nullptr;
    Operation *user = *value.getUsers().begin();
    auto dropout = dyn_cast<DropoutOp>(user);
    if (!dropout)
      return user;
    dropouts.push_back(dropout);
    value = dropout.getResult();
  }
}

/// A linear whose weight (and bias, if any) are parameters read directly.
bool readsParams(LinearOp linear, SymbolTableCollection &symbols) {
  return getReadParam(linear.getWeight(), symbols) &&
         (!linear.getBias() || getReadParam(linear.getBias(), symbols));
}

/// The column-parallel linear that produces `value`, if it is one.
LinearOp columnProducer(Value value, SmallVectorImpl<DropoutOp> &dropouts,
                        SymbolTableCollection &symbols) {
  Value produced = skipDropoutsBack(value, dropouts);
  if (!produced)
    return {};
  auto linear = produced.getDefiningOp<LinearOp>();
  if (!linear || !readsParams(linear, symbols))
    return {};
  return linear;
}

/// The row-parallel linear that consumes `value` as its input, if it is one.
LinearOp rowConsumer(Value value, SmallVectorImpl<DropoutOp> &dropouts,
                     SymbolTableCollection &symbols) {
  SmallVector<DropoutOp> after;
  auto linear = dyn_cast_or_null<LinearOp>(skipDropoutsForward(value, after));
  if (!linear || !getReadParam(linear.getWeight(), symbols))
    return {};
  Value input = after.empty() ? value : after.back().getResult();
  if (linear.getInput() != input)
    return {};
  dropouts.append(after.begin(), after.end());
  return linear;
}

std::optional<TpBlock> matchBlock(Operation *op,
                                  SymbolTableCollection &symbols) {
  TpBlock block;
  block.core = op;
  if (auto gelu = dyn_cast<GeluOp>(op)) {
    block.kind = BlockKind::Mlp;
    if (LinearOp fc = columnProducer(gelu.getInput(), block.dropouts, symbols))
      block.columns.push_back(fc);
  } else if (auto attention = dyn_cast<SelfAttentionOp>(op)) {
    block.kind = BlockKind::SelfAttention;
    if (LinearOp qkv =
            columnProducer(attention.getQkv(), block.dropouts, symbols))
      block.columns.push_back(qkv);
  } else if (auto swiglu = dyn_cast<SwiGluOp>(op)) {
    block.kind = BlockKind::Mlp;
    LinearOp gate = columnProducer(swiglu.getGate(), block.dropouts, symbols);
    LinearOp up = columnProducer(swiglu.getUp(), block.dropouts, symbols);
    if (gate && up && gate != up)
      block.columns.append({gate, up});
  } else if (auto grouped = dyn_cast<GroupedAttentionOp>(op)) {
    block.kind = BlockKind::SelfAttention;
    LinearOp q = columnProducer(grouped.getQ(), block.dropouts, symbols);
    LinearOp k = columnProducer(grouped.getK(), block.dropouts, symbols);
    LinearOp v = columnProducer(grouped.getV(), block.dropouts, symbols);
    if (q && k && v && q != k && k != v && q != v)
      block.columns.append({q, k, v});
  } else if (auto cross = dyn_cast<CrossAttentionOp>(op)) {
    block.kind = BlockKind::CrossAttention;
    LinearOp q = columnProducer(cross.getQuery(), block.dropouts, symbols);
    LinearOp kv = columnProducer(cross.getKv(), block.dropouts, symbols);
    if (q && kv && q != kv)
      block.columns.append({q, kv});
  } else {
    return std::nullopt;
  }
  if (block.columns.empty())
    return std::nullopt;
  block.row = rowConsumer(op->getResult(0), block.dropouts, symbols);
  if (!block.row)
    return std::nullopt;
  return block;
}

StringRef blockName(BlockKind kind) {
  switch (kind) {
  case BlockKind::Mlp:
    return "MLP";
  case BlockKind::SelfAttention:
    return "self-attention";
  case BlockKind::CrossAttention:
    return "cross-attention";
  }
  llvm_unreachable("unknown block kind");
}

/// What the rule asks of one operand that reads a parameter.
struct Demand {
  LayoutAttr layout;
  std::string role;
  int64_t vocabDim = -1;
};

/// The logits of a loss may be returned besides; any other reader would see
/// a vocabulary slice.
bool onlyFeedsLoss(Value logits, CrossEntropyOp loss) {
  for (Operation *user : logits.getUsers())
    if (user != loss.getOperation() && !isa<func::ReturnOp>(user))
      return false;
  return true;
}
} // namespace

FailureOr<MegatronModel> tpc::analyzeMegatron(func::FuncOp forward,
                                              int64_t tp) {
  MLIRContext *ctx = forward.getContext();
  MegatronModel model;
  model.forward = forward;
  SymbolTableCollection symbols;

  // Blocks, in program order; a linear belongs to at most one block.
  llvm::DenseSet<Operation *> claimed;
  forward.walk([&](Operation *op) {
    std::optional<TpBlock> block = matchBlock(op, symbols);
    if (!block)
      return;
    SmallVector<Operation *> linears = {block->row};
    for (LinearOp column : block->columns)
      linears.push_back(column);
    if (llvm::any_of(linears, [&](Operation *l) { return claimed.count(l); }))
      return;
    claimed.insert(linears.begin(), linears.end());
    if (auto grouped = dyn_cast<GroupedAttentionOp>(block->core)) {
      int64_t kv = grouped.getKvHeads();
      block->replicatedKv = tp > 1 && kv > 0 && kv % tp != 0 && tp % kv == 0;
    }
    model.blocks.push_back(std::move(*block));
  });

  // Losses over the vocabulary: the output layer or a bigram table.
  forward.walk([&](CrossEntropyOp loss) {
    Value logits = loss.getLogits();
    // A sequence classifier's few classes stay whole on every rank.
    if (loss.getClassifier() || !onlyFeedsLoss(logits, loss))
      return;
    int64_t vocab = cast<RankedTensorType>(logits.getType()).getShape().back();
    if (ShapedType::isDynamic(vocab))
      return;
    if (auto linear = logits.getDefiningOp<LinearOp>()) {
      if (readsParams(linear, symbols) && !claimed.count(linear))
        model.losses.push_back({linear, loss, vocab});
    } else if (auto lookup = logits.getDefiningOp<EmbeddingOp>()) {
      if (getReadParam(lookup.getTable(), symbols) &&
          !lookup.getVocabParallel())
        model.losses.push_back({lookup, loss, vocab});
    }
  });

  // Token embeddings over the same vocabulary.
  forward.walk([&](EmbeddingOp lookup) {
    if (lookup.getVocabParallel() || !getReadParam(lookup.getTable(), symbols))
      return;
    int64_t rows = lookup.getTable().getType().getDimSize(0);
    bool isBigram = false, overVocab = false;
    for (const VocabLoss &loss : model.losses) {
      isBigram |= loss.producer == lookup.getOperation();
      overVocab |= loss.vocab == rows;
    }
    if (!isBigram && overVocab)
      model.vocabEmbeddings.push_back(lookup);
  });

  // What each operand that reads a parameter asks for.
  llvm::DenseMap<OpOperand *, Demand> demands;
  auto demand = [&](OpOperand &operand, LayoutAttr layout, const Twine &role,
                    int64_t vocabDim = -1) {
    demands[&operand] = {layout, role.str(), vocabDim};
  };
  for (TpBlock &block : model.blocks) {
    StringRef name = blockName(block.kind);
    for (auto [index, column] : llvm::enumerate(block.columns)) {
      // Cross-attention columns are [query, kv], grouped attention's
      // [q, k, v] and SwiGLU's [gate, up] by construction.
      int64_t blocks = 1;
      std::string what = "column-parallel";
      if (isa<SelfAttentionOp>(block.core)) {
        blocks = 3;
        what = "fused q|k|v";
      } else if (isa<GroupedAttentionOp>(block.core)) {
        what = index == 0 ? "query" : index == 1 ? "key" : "value";
      } else if (isa<SwiGluOp>(block.core)) {
        what = index == 0 ? "gate" : "up";
      } else if (block.kind == BlockKind::CrossAttention) {
        blocks = index == 0 ? 1 : 2;
        what = index == 0 ? "query" : "fused k|v";
      }
      if (block.replicatedKv && index > 0) {
        demand(column->getOpOperand(1), LayoutAttr::getReplicated(ctx),
               what + " weight of the " + name +
                   " (replicated: tp exceeds its key/value heads)");
        continue;
      }
      // A transposed weight is [out, in]: its output features are dim 0.
      int64_t outDim = column.getTransposed() ? 0 : 1;
      demand(column->getOpOperand(1), LayoutAttr::getSplit(ctx, outDim, blocks),
             what + " weight of the " + name);
      if (column.getBias())
        demand(column->getOpOperand(2), LayoutAttr::getSplit(ctx, 0, blocks),
               what + " bias of the " + name);
    }
    demand(block.row->getOpOperand(1),
           LayoutAttr::getSplit(ctx, block.row.getTransposed() ? 1 : 0),
           "row-parallel weight of the " + name);
    if (block.row.getBias())
      demand(block.row->getOpOperand(2), LayoutAttr::getReplicated(ctx),
             "row-parallel bias of the " + name + " (added after g)");
  }
  for (VocabLoss &loss : model.losses) {
    if (auto linear = dyn_cast<LinearOp>(loss.producer)) {
      int64_t dim = linear.getTransposed() ? 0 : 1;
      demand(linear->getOpOperand(1), LayoutAttr::getSplit(ctx, dim),
             "weight of the output layer", dim);
      if (linear.getBias())
        demand(linear->getOpOperand(2), LayoutAttr::getSplit(ctx, 0),
               "bias of the output layer", 0);
    } else {
      demand(loss.producer->getOpOperand(0), LayoutAttr::getSplit(ctx, 1),
             "bigram table", 1);
    }
  }
  for (EmbeddingOp lookup : model.vocabEmbeddings)
    demand(lookup->getOpOperand(0), LayoutAttr::getSplit(ctx, 0),
           "vocabulary-parallel embedding table", 0);

  // One layout per parameter, whoever reads it.
  bool conflict = false;
  forward.walk([&](GetParamOp read) {
    ParamOp param = getReadParam(read.getResult(), symbols);
    if (!param)
      return;
    for (OpOperand &use : read.getResult().getUses()) {
      Demand want;
      auto it = demands.find(&use);
      if (it != demands.end())
        want = it->second;
      else
        want = {LayoutAttr::getReplicated(ctx),
                "replicated operand of '" +
                    use.getOwner()->getName().getStringRef().str() + "'",
                -1};
      auto [entry, inserted] =
          model.params.insert({param.getOperation(),
                               ParamAssignment{want.layout, want.role,
                                               use.getOwner(), want.vocabDim}});
      ParamAssignment &have = entry->second;
      if (inserted ||
          (have.layout == want.layout && have.vocabDim == want.vocabDim))
        continue;
      InFlightDiagnostic diag =
          param.emitOpError("parameter @")
          << param.getSymName() << " is read as the " << have.role << " ("
          << layoutText(have.layout) << ") and as the " << want.role << " ("
          << layoutText(want.layout)
          << "); one layout cannot serve both, so give each use its own "
             "parameter";
      diag.attachNote(have.reader->getLoc())
          << "read here as the " << have.role;
      diag.attachNote(use.getOwner()->getLoc())
          << "read here as the " << want.role;
      conflict = true;
    }
  });
  if (conflict)
    return failure();
  return model;
}

LogicalResult tpc::checkDivisibility(const MegatronModel &model, int64_t tp) {
  // A model repeats its layers, so one problem shows in every layer: say it
  // once, at its first op, with the count (72 layers of the 8.3B model
  // would otherwise print 72 identical errors).
  struct HeadsProblem {
    Operation *first;
    int64_t heads;
    int count;
    bool kv = false; // key/value heads of a grouped attention
  };
  std::vector<HeadsProblem> headProblems;
  for (const TpBlock &block : model.blocks) {
    int64_t heads = 0;
    bool kv = false;
    if (auto self = dyn_cast<SelfAttentionOp>(block.core)) {
      heads = self.getHeads();
    } else if (auto cross = dyn_cast<CrossAttentionOp>(block.core)) {
      heads = cross.getHeads();
    } else if (auto grouped = dyn_cast<GroupedAttentionOp>(block.core)) {
      // Each rank holds whole query groups: its query heads and the key and
      // value heads they read.
      heads = grouped.getHeads();
      int64_t kvHeads = grouped.getKvHeads();
      if (heads > 0 && heads % tp == 0 && kvHeads % tp != 0 &&
          tp % kvHeads != 0) {
        heads = kvHeads;
        kv = true;
      }
    }
    if (heads <= 0 || heads % tp == 0)
      continue;
    auto same = llvm::find_if(headProblems, [&](const HeadsProblem &p) {
      return p.heads == heads && p.kv == kv &&
             p.first->getName() == block.core->getName();
    });
    if (same != headProblems.end())
      ++same->count;
    else
      headProblems.push_back({block.core, heads, 1, kv});
  }
  for (const HeadsProblem &p : headProblems) {
    InFlightDiagnostic diag = p.first->emitOpError("has ");
    if (p.kv)
      diag << p.heads << " key/value heads, which tp = " << tp
           << " neither splits (tp divides them) nor replicates (they divide "
              "tp, each rank keeping the key/value head its query heads "
              "read); choose a tp that divides "
           << p.heads << " or a multiple of it";
    else
      diag << p.heads << " heads, which tp = " << tp
           << " cannot split into whole heads per rank; choose a tp that "
              "divides "
           << p.heads;
    if (p.count > 1)
      diag << " (" << p.count << " " << p.first->getName()
           << " ops have this problem; this is the first)";
  }
  if (!headProblems.empty())
    return failure();

  struct SplitProblem {
    Operation *reader;
    ParamOp param;
    std::string role;
    int64_t dim, extent, blocks;
    int count;
  };
  std::vector<SplitProblem> splitProblems;
  for (auto &entry : model.params) {
    Operation *op = entry.first;
    // A named reference, not a structured binding: the lambda below captures
    // it, which C++17 (and so clang 14) does not allow for a binding.
    const auto &assignment = entry.second;
    LayoutAttr layout = assignment.layout;
    if (!layout.isSplit() || assignment.vocabDim >= 0)
      continue;
    auto param = cast<ParamOp>(op);
    int64_t extent = param.getTensorType().getDimSize(layout.getDim());
    int64_t blocks = layout.getBlocks();
    int64_t piece = extent / blocks;
    if (extent % blocks == 0 && piece % tp == 0)
      continue;
    auto same = llvm::find_if(splitProblems, [&](const SplitProblem &p) {
      return p.role == assignment.role && p.dim == layout.getDim() &&
             p.extent == extent && p.blocks == blocks;
    });
    if (same != splitProblems.end()) {
      ++same->count;
      continue;
    }
    splitProblems.push_back({assignment.reader, param, assignment.role,
                             layout.getDim(), extent, blocks, 1});
  }
  // model.params is keyed by pointer: report in the order of the module.
  llvm::sort(splitProblems, [](const SplitProblem &a, const SplitProblem &b) {
    return ParamOp(a.param)->isBeforeInBlock(ParamOp(b.param));
  });
  for (const SplitProblem &p : splitProblems) {
    int64_t piece = p.extent / p.blocks;
    InFlightDiagnostic diag = p.reader->emitOpError("");
    diag << "cannot split the " << p.role << " @"
         << ParamOp(p.param).getSymName() << ": ";
    if (p.blocks > 1)
      diag << "each of the " << p.blocks << " blocks of dimension " << p.dim
           << " (" << piece << " of " << p.extent << ")";
    else
      diag << "dimension " << p.dim << " (" << p.extent << ")";
    diag << " does not divide by tp = " << tp << "; choose a tp that divides "
         << piece;
    if (p.count > 1)
      diag << " (" << p.count << " parameters used as the " << p.role
           << " have this problem; this is the first)";
  }
  return success(splitProblems.empty());
}

LogicalResult tpc::checkExistingLayouts(const MegatronModel &model) {
  bool ok = true;
  for (auto &[op, assignment] : model.params) {
    auto param = cast<ParamOp>(op);
    LayoutAttr layout = param.getLayoutAttr();
    if (!layout || layout == assignment.layout)
      continue;
    InFlightDiagnostic diag =
        param.emitOpError("layout ")
        << layoutText(layout) << " of @" << param.getSymName()
        << " is not what the Megatron rule needs for the " << assignment.role
        << "; write `layout " << layoutText(assignment.layout)
        << "` or remove the layout";
    diag.attachNote(assignment.reader->getLoc())
        << "read here as the " << assignment.role;
    ok = false;
  }
  return success(ok);
}
