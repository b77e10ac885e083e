//===- CostReport.cpp - Per-rank cost of one training step ------*- C++ -*-===//
//
// One pass over the ops of the forward function collects, per op, what its
// backward pass keeps (saved values and op-internal buffers), its matmul
// FLOPs and its collectives. Layers are found from the residual stream, so
// that the same walk yields the memory with per-layer recompute and tells
// the layers' all-reduces from the embedding's and the output layer's.
//
//===----------------------------------------------------------------------===//

#include "compiler/CostReport.h"
#include "dialects/tpc/TpcCost.h"
#include "models/Models.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "dialects/tpc/TpcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace tpc;

StringRef tpc::stringifyPrecision(Precision precision) {
  switch (precision) {
  case Precision::fp32:
    return "fp32";
  case Precision::bf16:
    return "bf16";
  case Precision::fp16:
    return "fp16";
  }
  llvm_unreachable("unknown precision");
}

std::optional<Precision> tpc::parsePrecision(StringRef name) {
  return llvm::StringSwitch<std::optional<Precision>>(name)
      .Case("fp32", Precision::fp32)
      .Case("bf16", Precision::bf16)
      .Case("fp16", Precision::fp16)
      .Default(std::nullopt);
}

int64_t CostReport::computeBytes() const {
  return precision == Precision::fp32 ? 4 : 2;
}

int64_t CostReport::gradientElementBytes() const {
  return gradient == Precision::fp32 ? 4 : 2;
}

namespace {
/// Statistics that kernels keep in fp32 whatever the compute dtype
/// (layernorm mean and 1/std, the loss's row max and sum of exponentials).
constexpr int64_t kStatBytes = 4;
/// A dropout mask element.
constexpr int64_t kMaskBytes = 1;

/// The precision that names a floating-point element type.
Precision precisionOf(Type element) {
  if (element.isBF16())
    return Precision::bf16;
  if (element.isF16())
    return Precision::fp16;
  return Precision::fp32;
}

int64_t elementBytes(Type element) {
  return std::max<unsigned>(1, element.getIntOrFloatBitWidth() / 8);
}

int64_t numElements(Type type) {
  return cast<RankedTensorType>(type).getNumElements();
}

/// f is the identity in the forward pass: a value read through f is the
/// same buffer as the value f reads.
Value throughF(Value value) {
  while (auto f = value.getDefiningOp<FOp>())
    value = f.getInput();
  return value;
}

bool isParameter(Value value) {
  return isa_and_nonnull<GetParamOp>(throughF(value).getDefiningOp());
}

/// What one op costs, as the backward pass and the step see it.
struct OpCost {
  SmallVector<Value, 3> saved; ///< activations its backward reads
  int64_t bufferBytes = 0;     ///< op-internal buffers kept for backward
  int64_t flops = 0;           ///< forward matmul FLOPs on this rank
  int64_t globalAttentionFlops = 0;
};

class Analysis {
public:
  Analysis(ModuleOp module, func::FuncOp func, const CostReportConfig &config,
           CostReport &report)
      : module(module), func(func), config(config), report(report) {}

  LogicalResult run();

private:
  int64_t bytesOf(Value value) const;
  ParamOp paramOf(Value value);
  LogicalResult countParameters();
  LogicalResult shardOptimizerStates();
  void findVocabulary();
  OpCost costOf(Operation *op);
  void findLayers();
  void recordCollective(Operation *op, int64_t values, bool forward,
                        CollectiveKind kind = CollectiveKind::AllReduce);
  void sumActivations(ArrayRef<OpCost> costs);

  ModuleOp module;
  func::FuncOp func;
  const CostReportConfig &config;
  CostReport &report;
  SymbolTable *symbols = nullptr;

  SmallVector<Operation *> ops;
  DenseMap<Operation *, int64_t> position;
  /// The layer of each op (index into `ops`), -1 outside layers.
  SmallVector<int64_t> layerOf;
  /// Parameters whose dimensions hold the padded vocabulary.
  DenseMap<Operation *, SmallVector<int64_t, 2>> vocabDims;
  std::map<std::pair<CollectiveKind, int64_t>, AllReduceGroup> layerGroups,
      otherGroups;
};

int64_t Analysis::bytesOf(Value value) const {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  return type.getNumElements() *
         (element.isIntOrFloat() ? elementBytes(element) : 4);
}

ParamOp Analysis::paramOf(Value value) {
  auto get = throughF(value).getDefiningOp<GetParamOp>();
  if (!get)
    return {};
  return symbols->lookup<ParamOp>(get.getName());
}

LogicalResult Analysis::countParameters() {
  for (ParamOp param : module.getOps<ParamOp>()) {
    FailureOr<RankedTensorType> local = param.getLocalType(report.tp);
    if (failed(local))
      return param.emitOpError("has a layout that tp = ")
             << report.tp << " cannot split; the cost report needs the "
             << "per-rank shape of every parameter";
    int64_t n = local->getNumElements();
    report.rankParams += n;
    report.weightBytes += n * elementBytes(param.getComputeElementType());
    report.gradientBytes += n * elementBytes(param.getGradElementType());
    int64_t master = n * elementBytes(param.getTensorType().getElementType());
    if (param.hasMasterCopy())
      report.masterBytes += master;
    report.adamMBytes += master;
    report.adamVBytes += master;
    report.precision = precisionOf(param.getComputeElementType());
    report.gradient = precisionOf(param.getGradElementType());
    // The global count leaves out the vocabulary padding.
    int64_t global = param.getTensorType().getNumElements();
    auto it = vocabDims.find(param);
    if (it != vocabDims.end() && report.paddedVocab > report.vocab)
      for (size_t i = 0; i < it->second.size(); ++i)
        global = global / report.paddedVocab * report.vocab;
    report.globalParams += global;
  }
  return shardOptimizerStates();
}

/// The distributed optimizer (tpc.bucket_reduce_scatter in apply_step)
/// keeps a rank's masters and moments for its shard of each bucket only:
/// ceil(n / dp) of the bucket's n elements, the largest shard.
LogicalResult Analysis::shardOptimizerStates() {
  SmallVector<BucketReduceScatterOp> shards;
  for (func::FuncOp f : module.getOps<func::FuncOp>())
    for (auto op : f.getOps<BucketReduceScatterOp>())
      shards.push_back(op);
  if (shards.empty())
    return success();
  report.distributedOptimizer = true;
  report.masterBytes = report.adamMBytes = report.adamVBytes = 0;
  for (BucketReduceScatterOp bucket : shards) {
    int64_t n = 0, master = 0;
    for (auto name : bucket.getParams().getAsRange<FlatSymbolRefAttr>()) {
      auto param = symbols->lookup<ParamOp>(name.getValue());
      if (!param)
        return bucket.emitOpError("names ") << name << ", not a tpc.param";
      int64_t local = param.getLocalType(report.tp)->getNumElements();
      n += local;
      master |= param.hasMasterCopy();
    }
    int64_t owned = (n + report.dp - 1) / report.dp * 4;
    report.adamMBytes += owned;
    report.adamVBytes += owned;
    if (master)
      report.masterBytes += owned;
  }
  return success();
}

/// The vocabulary and its padding: V from a parameter's `vocab_size`
/// attribute or the fused loss's `vocab`; the padded size from the loss's
/// logits (local columns times tp for the vocab-parallel loss) or else the
/// vocab-parallel embedding table.
void Analysis::findVocabulary() {
  auto addVocabDim = [&](ParamOp param, int64_t dim) {
    if (!param)
      return;
    SmallVector<int64_t, 2> &dims = vocabDims[param];
    if (!llvm::is_contained(dims, dim))
      dims.push_back(dim);
  };
  // The op that produces the loss's logits holds the vocabulary in its
  // output dimension.
  auto markLogitsProducer = [&](Value logits) {
    Operation *def = logits.getDefiningOp();
    if (auto linear = dyn_cast_or_null<LinearOp>(def))
      addVocabDim(paramOf(linear.getWeight()), linear.getTransposed() ? 0 : 1);
    else if (auto embedding = dyn_cast_or_null<EmbeddingOp>(def))
      addVocabDim(paramOf(embedding.getTable()), 1);
  };
  for (Operation *op : ops) {
    if (auto loss = dyn_cast<VocabParallelCrossEntropyOp>(op)) {
      report.vocab = loss.getVocabSize();
      report.paddedVocab =
          loss.getLogits().getType().getShape().back() * report.tp;
      markLogitsProducer(loss.getLogits());
    } else if (auto loss = dyn_cast<CrossEntropyOp>(op)) {
      report.vocab = report.paddedVocab =
          loss.getLogits().getType().getShape().back();
      markLogitsProducer(loss.getLogits());
    } else if (auto embedding = dyn_cast<EmbeddingOp>(op)) {
      if (!embedding.getVocabParallel())
        continue;
      ParamOp table = paramOf(embedding.getTable());
      addVocabDim(table, 0);
      if (table && report.paddedVocab == 0)
        report.paddedVocab = table.getTensorType().getDimSize(0);
    }
  }
  for (ParamOp param : module.getOps<ParamOp>()) {
    // `vocab_size`, with or without a dialect prefix.
    IntegerAttr attr;
    for (NamedAttribute named : param->getDiscardableAttrs())
      if (named.getName() == "vocab_size" ||
          named.getName().strref().ends_with(".vocab_size"))
        attr = dyn_cast<IntegerAttr>(named.getValue());
    if (!attr)
      continue;
    report.vocab = attr.getInt();
    for (auto [dim, extent] : llvm::enumerate(param.getTensorType().getShape()))
      if (extent == report.paddedVocab)
        addVocabDim(param, dim);
  }
  if (report.paddedVocab == 0)
    report.paddedVocab = report.vocab;
  // Only dimensions that actually hold the padded vocabulary are scaled.
  for (auto &[op, dims] : vocabDims) {
    ArrayRef<int64_t> shape = cast<ParamOp>(op).getTensorType().getShape();
    llvm::erase_if(dims, [&](int64_t d) {
      return d >= static_cast<int64_t>(shape.size()) ||
             shape[d] != report.paddedVocab;
    });
  }
}

// Saved activations follow the runtime's kernels (runtime/backend): a
// linear keeps its input, layernorm its input and per-row mean and 1/std
// (rmsnorm its input and 1/rms), gelu its input, tanh its result, swiglu
// both inputs, attention its q|k|v and the attention probabilities
// [B, heads, T, T], dropout a one-byte mask, cross-entropy the logits and
// targets (the vocab-parallel loss also its row max and sum of exponentials),
// embedding the token ids. Parameters are not activations.
OpCost Analysis::costOf(Operation *op) {
  OpCost cost;
  // The matrix products' FLOPs, as the ops give them (CostOpInterface).
  cost.flops = static_cast<int64_t>(opCost(op).matmulFlops);
  auto save = [&](Value value) {
    if (!isParameter(value))
      cost.saved.push_back(throughF(value));
  };
  auto rows = [](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return type.getNumElements() / type.getShape().back();
  };
  // A head-parallel attention's rank does 1/tp of the model's.
  auto attentionFlops = [&](bool headParallel) {
    cost.globalAttentionFlops = cost.flops * (headParallel ? report.tp : 1);
  };
  auto probabilities = [&](RankedTensorType query, int64_t heads) {
    int64_t b = query.getDimSize(0), t = query.getDimSize(1);
    cost.bufferBytes = b * heads * t * t * kStatBytes;
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](EmbeddingOp e) { save(e.getIds()); })
      .Case([&](LayerNormOp ln) {
        save(ln.getInput());
        save(ln.getGamma());
        cost.bufferBytes = 2 * rows(ln.getInput()) * kStatBytes;
      })
      .Case([&](LinearOp linear) {
        save(linear.getInput());
        save(linear.getWeight());
      })
      .Case([&](RmsNormOp norm) {
        save(norm.getInput());
        save(norm.getWeight());
        cost.bufferBytes = rows(norm.getInput()) * kStatBytes;
      })
      .Case([&](GeluOp gelu) { save(gelu.getInput()); })
      .Case([&](TanhOp tanh) { save(tanh.getResult()); })
      .Case([&](SwiGluOp swiglu) {
        save(swiglu.getGate());
        save(swiglu.getUp());
      })
      .Case([&](GroupedAttentionOp attention) {
        save(attention.getQ());
        save(attention.getK());
        save(attention.getV());
        RankedTensorType q = attention.getQ().getType();
        attentionFlops(attention.getHeadParallel());
        probabilities(q, attention.getHeads());
      })
      .Case([&](SelfAttentionOp attention) {
        save(attention.getQkv());
        RankedTensorType qkv = attention.getQkv().getType();
        attentionFlops(attention.getHeadParallel());
        probabilities(qkv, attention.getHeads());
      })
      .Case([&](CrossAttentionOp attention) {
        save(attention.getQuery());
        save(attention.getKv());
        RankedTensorType query = attention.getQuery().getType();
        attentionFlops(attention.getHeadParallel());
        probabilities(query, attention.getHeads());
      })
      .Case([&](DropoutOp dropout) {
        cost.bufferBytes = numElements(dropout.getType()) * kMaskBytes;
      })
      .Case([&](WeightedSumOp sum) {
        save(sum.getAlpha());
        for (Value input : sum.getInputs())
          save(input);
      })
      .Case([&](CrossEntropyOp loss) {
        save(loss.getLogits());
        save(loss.getTargets());
      })
      .Case([&](VocabParallelCrossEntropyOp loss) {
        save(loss.getLogits());
        save(loss.getTargets());
        cost.bufferBytes = 2 * rows(loss.getLogits()) * kStatBytes;
      })
      .Case<GetParamOp, PositionEmbeddingOp, BiasAddOp, AddOp, ScaleOp, FOp,
            GOp, AllReduceOp, AllGatherOp, SeqScatterOp, SeqGatherOp,
            func::ReturnOp>([](Operation *) {})
      .Default([&](Operation *other) {
        // An op the report does not know keeps all its tensor operands.
        for (Value operand : other->getOperands())
          if (isa<RankedTensorType>(operand.getType()))
            save(operand);
      });
  return cost;
}

void Analysis::findLayers() { layerOf = tpc::findLayers(ops, report.layers); }

void Analysis::recordCollective(Operation *op, int64_t values, bool forward,
                                CollectiveKind kind) {
  bool inLayer = layerOf[position.lookup(op)] >= 0;
  AllReduceGroup &group = (inLayer ? layerGroups : otherGroups)[{kind, values}];
  group.kind = kind;
  group.values = values;
  ++group.count;
  ++(forward ? group.forward : group.backward);
}

// Without recompute every saved activation lives until its backward op.
// With per-layer recompute, the step keeps what ops outside layers save plus
// every value a layer reads from outside itself (its input on the residual
// stream; for a StagFormer stack also the previous stack's final
// activations); the backward pass of one layer then recomputes and holds
// that layer's own activations, so the largest layer's are added once.
void Analysis::sumActivations(ArrayRef<OpCost> costs) {
  DenseSet<Value> all, kept;
  int64_t allBuffers = 0, keptBuffers = 0;
  SmallVector<DenseSet<Value>> layerValues(report.layers);
  SmallVector<int64_t> layerBuffers(report.layers, 0);
  auto layerOfValue = [&](Value value) -> int64_t {
    Operation *def = value.getDefiningOp();
    return def ? layerOf[position.lookup(def)] : -1;
  };
  for (auto [i, op] : llvm::enumerate(ops)) {
    const OpCost &cost = costs[i];
    int64_t layer = layerOf[i];
    allBuffers += cost.bufferBytes;
    for (Value value : cost.saved)
      all.insert(value);
    if (layer < 0) {
      keptBuffers += cost.bufferBytes;
      for (Value value : cost.saved)
        kept.insert(value);
      continue;
    }
    layerBuffers[layer] += cost.bufferBytes;
    for (Value value : cost.saved)
      if (layerOfValue(value) == layer)
        layerValues[layer].insert(value);
    for (Value operand : op->getOperands()) {
      operand = throughF(operand);
      if (isa<RankedTensorType>(operand.getType()) && !isParameter(operand) &&
          layerOfValue(operand) != layer)
        kept.insert(operand);
    }
  }
  auto sum = [&](const DenseSet<Value> &values, const DenseSet<Value> *skip) {
    int64_t bytes = 0;
    for (Value value : values)
      if (!skip || !skip->contains(value))
        bytes += bytesOf(value);
    return bytes;
  };
  report.activationBytes = sum(all, nullptr) + allBuffers;
  report.recomputeKeptBytes = sum(kept, nullptr) + keptBuffers;
  for (int64_t k = 0; k < report.layers; ++k)
    report.recomputeLayerBytes =
        std::max(report.recomputeLayerBytes,
                 sum(layerValues[k], &kept) + layerBuffers[k]);
}

LogicalResult Analysis::run() {
  SymbolTable table(module);
  symbols = &table;
  report.tp = getModuleTp(module);
  report.dp = config.dp;
  if (report.tp < 1)
    return module.emitError("module attribute ")
           << kTpAttrName << " must be >= 1, got " << report.tp;
  if (!func.getBody().hasOneBlock())
    return func.emitError("the cost report expects @")
           << func.getSymName() << " to be a single block";

  auto isStatic = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !tensor || tensor.hasStaticShape();
  };
  for (BlockArgument arg : func.getArguments()) {
    if (!isStatic(arg.getType()))
      return func.emitError("argument ")
             << arg.getArgNumber() << " of @" << func.getSymName() << " has "
             << arg.getType()
             << "; the cost report needs static shapes: run tpc-specialize "
                "(tpc-compile --micro-batch --seq) first";
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (report.microBatch == 0 && type && type.getRank() == 2 &&
        type.getElementType().isInteger(32)) {
      report.microBatch = type.getDimSize(0);
      report.seq = type.getDimSize(1);
    }
  }
  if (report.microBatch == 0)
    return func.emitError("the cost report needs a [batch, seq] i32 token "
                          "argument on @")
           << func.getSymName();

  for (Operation &op : func.getBody().front()) {
    for (Type type : op.getResultTypes())
      if (!isStatic(type))
        return op.emitError("result type ")
               << type
               << " is not static; the cost report needs static shapes: run "
                  "tpc-specialize (tpc-compile --micro-batch --seq) first";
    position[&op] = static_cast<int64_t>(ops.size());
    ops.push_back(&op);
  }

  findVocabulary();
  if (failed(countParameters()))
    return failure();
  findLayers();

  SmallVector<OpCost> costs;
  costs.reserve(ops.size());
  int64_t globalAttention = 0;
  for (auto [i, op] : llvm::enumerate(ops)) {
    costs.push_back(costOf(op));
    const OpCost &cost = costs.back();
    report.forwardFlops += cost.flops;
    if (layerOf[i] >= 0)
      report.layerForwardFlops += cost.flops;
    globalAttention += cost.globalAttentionFlops;

    auto tpGroup = [](Group group) { return group == Group::tp; };
    if (auto f = dyn_cast<FOp>(op)) {
      if (tpGroup(f.getGroup()))
        recordCollective(op, numElements(f.getType()), /*forward=*/false);
    } else if (auto g = dyn_cast<GOp>(op)) {
      if (tpGroup(g.getGroup()))
        recordCollective(op, numElements(g.getType()), /*forward=*/true);
    } else if (auto reduce = dyn_cast<AllReduceOp>(op)) {
      if (tpGroup(reduce.getGroup()))
        recordCollective(op, numElements(reduce.getType()), /*forward=*/true);
    } else if (auto scatter = dyn_cast<SeqScatterOp>(op)) {
      report.sequenceParallel = true;
      // Sequence parallelism: the backward gathers what was scattered, and
      // reduce-scatters what was gathered for column-parallel readers.
      int64_t whole = numElements(scatter.getInput().getType());
      if (scatter.getReduce())
        recordCollective(op, whole, /*forward=*/true,
                         CollectiveKind::ReduceScatter);
      recordCollective(op, whole, /*forward=*/false, CollectiveKind::AllGather);
    } else if (auto gather = dyn_cast<SeqGatherOp>(op)) {
      int64_t whole = numElements(gather.getType());
      recordCollective(op, whole, /*forward=*/true, CollectiveKind::AllGather);
      if (gather.getReduceGrad())
        recordCollective(op, whole, /*forward=*/false,
                         CollectiveKind::ReduceScatter);
      // tpc-recompute gathers again for the backward's readers.
      if (llvm::any_of(gather->getUsers(), [](Operation *user) {
            return !isa<func::ReturnOp>(user);
          }))
        recordCollective(op, whole, /*forward=*/false,
                         CollectiveKind::AllGather);
    } else if (auto loss = dyn_cast<VocabParallelCrossEntropyOp>(op)) {
      report.vocabParallelLoss = true;
      report.lossAllReduces += 3;
      report.lossValues = numElements(loss.getTargets().getType());
      report.gatheredLogitsValues =
          numElements(loss.getLogits().getType()) * report.tp;
    }
  }
  for (auto &[values, group] : layerGroups)
    report.layerAllReduces.push_back(group);
  for (auto &[values, group] : otherGroups)
    report.otherAllReduces.push_back(group);

  // Ring all-reduce: each rank sends 2 (n - 1) / n of the buffer; a ring
  // reduce-scatter or all-gather half of that.
  auto ring = [&](int64_t bytes) {
    return 2 * (report.tp - 1) * bytes / report.tp;
  };
  for (const auto *groups : {&report.layerAllReduces, &report.otherAllReduces})
    for (const AllReduceGroup &group : *groups) {
      int64_t bytes = ring(group.values * report.computeBytes());
      if (group.kind != CollectiveKind::AllReduce)
        bytes /= 2;
      report.tpRingBytesPerStep += group.count * bytes;
    }
  report.tpRingBytesPerStep +=
      report.lossAllReduces * ring(report.lossValues * kStatBytes);

  int64_t tokens = report.microBatch * report.seq;
  report.attentionFlopsPerToken = 3 * globalAttention / tokens;
  report.modelFlopsPerToken =
      6 * report.globalParams + report.attentionFlopsPerToken;

  report.dpGradientValues = report.dp > 1 ? report.rankParams : 0;

  sumActivations(costs);
  return success();
}

func::FuncOp findFunction(ModuleOp module) {
  if (auto forward = module.lookupSymbol<func::FuncOp>(abi::kForward))
    return forward;
  func::FuncOp only;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (only)
      return {};
    only = func;
  }
  return only;
}
} // namespace

/// Per stack of a stack-parallel module (tpc.stacks), what its ranks hold:
/// the parameters its decode_stack_<s> (and, for the last, decode_head)
/// read and the KV caches of its decode attention ops.
static void countStacks(ModuleOp module, CostReport &report) {
  auto stacks = module->getAttrOfType<IntegerAttr>(abi::kStacksAttr);
  if (!stacks || stacks.getInt() < 2)
    return;
  SymbolTable symbols(module);
  int64_t p = stacks.getInt();
  SmallVector<llvm::DenseSet<StringAttr>> reads(p);
  SmallVector<llvm::DenseSet<StringAttr>> tables(p);
  report.stacks.assign(p, StackMemory());
  for (int64_t s = 0; s < p; ++s) {
    SmallVector<func::FuncOp> funcs;
    if (auto f = symbols.lookup<func::FuncOp>(
            (abi::kDecodeStackPrefix + Twine(s)).str()))
      funcs.push_back(f);
    if (s == p - 1)
      if (auto head = symbols.lookup<func::FuncOp>(abi::kDecodeHead))
        funcs.push_back(head);
    StackMemory &m = report.stacks[s];
    for (func::FuncOp f : funcs) {
      if (auto arena = f->getAttrOfType<IntegerAttr>(abi::kArenaBytesAttr))
        m.arenaBytes += arena.getInt();
      if (s < p - 1 && f.getNumResults() == 1)
        if (auto final = dyn_cast<RankedTensorType>(f.getResultTypes()[0]))
          report.stackMessageBytes =
              final.getNumElements() * elementBytes(final.getElementType());
      f.walk([&](Operation *op) {
        if (auto get = dyn_cast<GetParamOp>(op))
          reads[s].insert(get.getNameAttr().getAttr());
        if (isa<EmbeddingOp, PositionEmbeddingOp>(op))
          if (auto get = op->getOperand(0).getDefiningOp<GetParamOp>())
            tables[s].insert(get.getNameAttr().getAttr());
        // Keys and values: (B, capacity, width) each, in the compute type.
        Value kv;
        int64_t width = 0, capacity = 0;
        if (auto self = dyn_cast<DecodeAttentionOp>(op)) {
          kv = self.getQkv();
          capacity = self.getCapacity();
          width = cast<RankedTensorType>(kv.getType()).getDimSize(2) / 3 * 2;
        } else if (auto grouped = dyn_cast<DecodeGroupedAttentionOp>(op)) {
          kv = grouped.getK();
          capacity = grouped.getCapacity();
          width = cast<RankedTensorType>(kv.getType()).getDimSize(2) * 2;
        } else if (auto cross = dyn_cast<DecodeCrossAttentionOp>(op)) {
          kv = cross.getKv();
          capacity = cross.getCapacity();
          width = cast<RankedTensorType>(kv.getType()).getDimSize(2);
        }
        if (kv) {
          auto type = cast<RankedTensorType>(kv.getType());
          m.kvCacheBytes += type.getDimSize(0) * capacity * width *
                            elementBytes(type.getElementType());
        }
      });
    }
  }
  for (int64_t s = 0; s < p; ++s) {
    StackMemory &m = report.stacks[s];
    for (StringAttr name : reads[s]) {
      auto param = symbols.lookup<ParamOp>(name);
      if (!param)
        continue;
      FailureOr<RankedTensorType> local = param.getLocalType(report.tp);
      if (failed(local))
        continue;
      int64_t bytes =
          local->getNumElements() * elementBytes(param.getComputeElementType());
      m.weightBytes += bytes;
      if (tables[s].contains(name))
        m.embeddingBytes += bytes;
      for (int64_t t = 0; t < p; ++t)
        if (t != s && reads[t].contains(name)) {
          m.sharedBytes += bytes;
          break;
        }
    }
  }
}

FailureOr<CostReport> tpc::computeCostReport(ModuleOp module,
                                             const CostReportConfig &config) {
  if (config.dp < 1)
    return module.emitError("the data-parallel size must be >= 1, got ")
           << config.dp;
  func::FuncOp func = findFunction(module);
  if (!func || func.isExternal())
    return module.emitError(
        "the cost report needs a function @forward (or a single function "
        "with a body) to analyze");
  CostReport report;
  Analysis analysis(module, func, config, report);
  if (failed(analysis.run()))
    return failure();
  countStacks(module, report);
  // Where tpc-plan-memory has run, its arenas are the memory the runtime
  // allocates; the training step's replaces the count of saved values.
  for (auto planned : module.getOps<func::FuncOp>()) {
    auto arena = planned->getAttrOfType<IntegerAttr>(abi::kArenaBytesAttr);
    if (!arena)
      continue;
    report.plannedArenas.emplace_back(planned.getSymName().str(),
                                      arena.getInt());
    if (planned.getSymName() != abi::kTrainStep)
      continue;
    if (config.fullRecompute) {
      report.recomputePlannedBytes = arena.getInt();
    } else {
      report.activationBytes = arena.getInt();
      report.activationsPlanned = true;
    }
  }
  return report;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

std::string tpc::humanBytes(int64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0)
    return llvm::formatv("{0} B", bytes).str();
  return llvm::formatv("{0:F2} {1}", value, units[unit]).str();
}

namespace {
using tpc::models::withThousands;

/// Rows of label, right-aligned figure and note; printed with one label
/// width and one figure width for the whole report.
class Table {
public:
  void heading(StringRef text) { rows.push_back({text.str(), "", "", true}); }
  void row(StringRef label, StringRef figure, StringRef note = "") {
    rows.push_back({label.str(), figure.str(), note.str(), false});
  }
  void print(llvm::raw_ostream &os) const {
    size_t labelWidth = 0, figureWidth = 0;
    for (const Row &r : rows) {
      if (r.isHeading)
        continue;
      labelWidth = std::max(labelWidth, r.label.size());
      figureWidth = std::max(figureWidth, r.figure.size());
    }
    for (const Row &r : rows) {
      if (r.isHeading) {
        os << r.label << "\n";
        continue;
      }
      std::string line = r.label;
      line.append(labelWidth - r.label.size() + 2, ' ');
      line.append(figureWidth - r.figure.size(), ' ');
      line += r.figure;
      if (!r.note.empty())
        line += "  " + r.note;
      os << line << "\n";
    }
  }

private:
  struct Row {
    std::string label, figure, note;
    bool isHeading;
  };
  std::vector<Row> rows;
};

StringRef kindName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all-reduce";
  case CollectiveKind::ReduceScatter:
    return "reduce-scatter";
  case CollectiveKind::AllGather:
    return "all-gather";
  }
  llvm_unreachable("unknown collective kind");
}

std::string directions(const AllReduceGroup &group) {
  SmallVector<std::string, 2> parts;
  if (group.forward)
    parts.push_back(withThousands(group.forward) + " forward");
  if (group.backward)
    parts.push_back(withThousands(group.backward) + " backward");
  return "values (" + llvm::join(parts, ", ") + ")";
}
} // namespace

void tpc::printCostReportText(const CostReport &r, llvm::raw_ostream &os) {
  StringRef compute = stringifyPrecision(r.precision);
  int64_t gpus = r.tp * r.dp;
  int64_t tokens = r.microBatch * r.seq;
  Table t;
  t.heading(llvm::formatv("tpc cost report: tp {0} x dp {1} = {2} GPU{3}, "
                          "micro-batch {4}, seq {5}, {6}{7}",
                          r.tp, r.dp, gpus, gpus == 1 ? "" : "s", r.microBatch,
                          r.seq, compute,
                          r.sequenceParallel ? ", sequence-parallel" : "")
                .str());
  t.heading("");
  t.heading("model");
  t.row("  parameters (global, unpadded)", withThousands(r.globalParams));
  if (r.vocab > 0)
    t.row("  vocabulary",
          r.paddedVocab != r.vocab
              ? withThousands(r.vocab) + " -> " + withThousands(r.paddedVocab)
              : withThousands(r.vocab),
          r.paddedVocab != r.vocab ? "padded" : "");
  t.row("  layers", withThousands(r.layers));
  t.row("  model FLOPs per token", withThousands(r.modelFlopsPerToken),
        "6N " + withThousands(6 * r.globalParams) + " + attention " +
            withThousands(r.attentionFlopsPerToken));
  t.row("  model FLOPs per step",
        withThousands(r.modelFlopsPerToken * tokens * r.dp),
        withThousands(tokens * r.dp) + " tokens");
  t.heading("");
  t.heading("per rank");
  t.row("  parameters", withThousands(r.rankParams));
  t.heading("  memory");
  std::string computeTag = "(" + compute.str() + ")";
  auto bytesRow = [&](StringRef label, int64_t bytes) {
    t.row(label, withThousands(bytes) + " B",
          bytes >= 1024 ? humanBytes(bytes) : "");
  };
  std::string gradientTag = "(" + stringifyPrecision(r.gradient).str() + ")";
  bytesRow("    weights " + computeTag, r.weightBytes);
  bytesRow("    gradients " + gradientTag, r.gradientBytes);
  if (r.masterBytes)
    bytesRow("    master weights (fp32)", r.masterBytes);
  bytesRow("    Adam m (fp32)", r.adamMBytes);
  bytesRow("    Adam v (fp32)", r.adamVBytes);
  bytesRow("    model states", r.modelStateBytes());
  for (const auto &[name, bytes] : r.plannedArenas)
    bytesRow("    arena of " + name + ", planned", bytes);
  bytesRow(r.activationsPlanned ? "    activations, no recompute (planned)"
                                : "    activations, no recompute",
           r.activationBytes);
  if (r.recomputePlannedBytes) {
    bytesRow("    activations, full recompute (planned)",
             r.recomputeActivationBytes());
  } else {
    bytesRow("    activations, per-layer recompute",
             r.recomputeActivationBytes());
    bytesRow("      kept through the step", r.recomputeKeptBytes);
    bytesRow("      largest layer, recomputed", r.recomputeLayerBytes);
  }
  bytesRow("    total, no recompute", r.modelStateBytes() + r.activationBytes);
  bytesRow(r.recomputePlannedBytes ? "    total, full recompute"
                                   : "    total, per-layer recompute",
           r.modelStateBytes() + r.recomputeActivationBytes());
  t.heading("  FLOPs per micro-batch");
  t.row("    forward", withThousands(r.forwardFlops));
  t.row("    forward + backward", withThousands(r.stepFlops()), "3 x forward");
  t.row(r.recomputePlannedBytes ? "    with full recompute"
                                : "    with per-layer recompute",
        withThousands(r.recomputeStepFlops()), "+ the layers' forward again");
  t.heading("");
  t.heading("communication per step, per rank");
  if (r.layerAllReduces.empty() && r.otherAllReduces.empty())
    t.row("  TP all-reduces", "0");
  for (const AllReduceGroup &g : r.layerAllReduces)
    t.row(("  TP layer " + kindName(g.kind) + "s").str(),
          withThousands(g.count) + " x " + withThousands(g.values),
          directions(g));
  for (const AllReduceGroup &g : r.otherAllReduces)
    t.row(("  TP embedding/output layer " + kindName(g.kind) + "s").str(),
          withThousands(g.count) + " x " + withThousands(g.values),
          directions(g));
  if (r.vocabParallelLoss) {
    t.row("  vocab-parallel loss all-reduces",
          withThousands(r.lossAllReduces) + " x " + withThousands(r.lossValues),
          "values (max, target logit, sum of exp; fp32)");
    t.row("    gathering the logits instead",
          "1 x " + withThousands(r.gatheredLogitsValues), "values");
  }
  if (!r.vocabParallelLoss)
    t.row("  loss all-reduces", "0", "the loss is not vocab-parallel");
  bytesRow("  TP bytes sent (ring)", r.tpRingBytesPerStep);
  if (r.dp > 1 && r.distributedOptimizer) {
    t.row("  DP gradient reduce-scatter",
          "1 x " + withThousands(r.dpGradientValues), "values " + gradientTag);
    t.row("  DP parameter all-gather",
          "1 x " + withThousands(r.dpGradientValues), "values " + computeTag);
    bytesRow("  DP bytes sent (ring)", r.dpBytesSent());
  } else if (r.dp > 1) {
    t.row("  DP gradient all-reduce",
          "1 x " + withThousands(r.dpGradientValues), "values " + gradientTag);
    bytesRow("  DP bytes sent (ring)", r.dpBytesSent());
  } else {
    t.row("  DP gradient all-reduce", "0", "dp = 1");
  }
  if (r.pipeline) {
    const PipelineCost &p = *r.pipeline;
    t.heading("");
    t.heading(llvm::formatv("pipeline: {0} stages x {1} chunk{2}, {3}, {4} "
                            "micro-batches per step (the figures above are "
                            "the whole model on one rank)",
                            p.stages, p.virtualStages,
                            p.virtualStages == 1 ? "" : "s", p.schedule,
                            p.microBatches)
                  .str());
    t.row("  bubble, simulated",
          llvm::formatv("{0:F3}", p.bubbleFraction).str(),
          "the schedule's action lists, F/B/W times from FLOPs, messages free");
    t.row("  bubble, (P - 1) / (V M)",
          llvm::formatv("{0:F3}", p.closedFormBubble).str());
    size_t largest = 0;
    for (auto [s, stage] : llvm::enumerate(p.perStage))
      if (stage.totalBytes() > p.perStage[largest].totalBytes())
        largest = s;
    for (auto [s, stage] : llvm::enumerate(p.perStage)) {
      std::string chunks;
      for (int64_t c : stage.chunks)
        chunks += (chunks.empty() ? "" : ", ") + std::to_string(c);
      t.heading(("  stage " + Twine(s) + ": chunks " + chunks + ", " +
                 Twine(stage.layers) + " layers, " + Twine(stage.inFlight) +
                 " micro-batches in flight" +
                 (s == largest ? " (the most: what must fit)" : ""))
                    .str());
      t.row("    parameters", withThousands(stage.params));
      bytesRow("    model states", stage.modelStateBytes());
      bytesRow("    activations (arenas)", stage.activationBytes);
      bytesRow("    total", stage.totalBytes());
      bytesRow("    sent per step", stage.p2pBytesPerStep);
    }
  }
  if (!r.stacks.empty()) {
    int64_t p = int64_t(r.stacks.size());
    t.heading("");
    t.heading(llvm::formatv("stack-parallel decoding: {0} stacks x tp {1} = "
                            "{2} ranks, per rank of each stack",
                            p, r.tp, p * r.tp)
                  .str());
    for (int64_t s = 0; s < p; ++s) {
      const StackMemory &m = r.stacks[s];
      t.heading(("  stack " + Twine(s) +
                 (s == p - 1 ? " (and the output layer)" : ""))
                    .str());
      bytesRow("    weights " + computeTag, m.weightBytes);
      bytesRow("      token and position tables", m.embeddingBytes);
      bytesRow("      also held by other stacks", m.sharedBytes);
      bytesRow("    KV caches, whole context", m.kvCacheBytes);
      if (m.arenaBytes)
        bytesRow("    arenas, planned", m.arenaBytes);
      bytesRow("    total", m.weightBytes + m.kvCacheBytes + m.arenaBytes);
    }
    bytesRow("  message per token to the next stack", r.stackMessageBytes);
  }
  t.print(os);
  os << R"(
legend
  Parameters per rank are the local shapes of every tpc.param (vocabulary
  padding included); the global count leaves the padding out.
  Memory, from the element types of the program: weights in the compute
  dtype; gradients in it too, or in fp32 with --grad-reduce-dtype=fp32;
  with bf16/fp16 an fp32 master copy; AdamW m and v in fp32. With
  --distributed-optimizer the masters and moments are a rank's shard of
  each data-parallel bucket, ceil(n / dp) of its n elements, and the DP
  all-reduce becomes a reduce-scatter of the gradients and an all-gather of
  the parameters (the same bytes sent).
  Activations of one micro-batch: each distinct value that a backward op
  reads (linear: input; layernorm: input and fp32 mean and 1/std per row;
  rmsnorm: input and fp32 1/rms per row; gelu: input; swiglu: gate and up;
  attention: q|k|v and the fp32 [B, heads, T, T] probabilities;
  dropout: a 1-byte mask; loss: logits and targets, the vocab-parallel loss
  also fp32 row max and sum of exp; embedding: token ids). f's result is its
  input's buffer. Parameters are not activations. Where tpc-plan-memory
  has run, "arena of F, planned" is the buffer the runtime allocates for
  function F (liveness-based reuse); once the module has a train_step, its
  planned arena is the activation figure without recompute, and tpc-compile
  --report plans it with --recompute=full too.
  Layers: a residual add x + F(x) closes a sublayer; a sublayer holding a
  self-attention starts a layer, the others (MLP, cross-attention) extend it.
  Per-layer recompute, where it is not planned, is counted: what ops outside
  layers save plus every value a layer reads from outside (its input), and
  one layer's activations at a time, the largest layer's.
  FLOPs: matrix products only, 2 per multiply-add: linear 2*M*N*K; attention
  QK^T and AV 2*B*h*T*T*d each over the full T x T (no causal halving, as in
  Megatron-LM). A step is forward + backward = 3 x forward; recompute adds
  the layers' forward once more. Model FLOPs per token: 6N (N global,
  unpadded) plus 3 x the global attention FLOPs per token.
  Communication: each tpc.f is one all-reduce in the backward pass, each
  tpc.g (and tpc.all_reduce) one in the forward pass, of the values of its
  tensor in the compute dtype; "embedding/output layer" counts those outside
  every layer. With --sequence-parallel a tpc.seq_scatter reduce is a
  reduce-scatter forward and an all-gather backward, a tpc.seq_gather
  reduce_grad the reverse (a plain seq_scatter gathers only backward, a
  plain seq_gather only forward), and the backward gathers each seq_gather's
  input again for its readers' gradients (Megatron's re-gather, placed by
  tpc-recompute), counted at the whole tensor's size; the
  norms' and biases' gradients add small backward all-reduces. tpc.all_gather
  (not used by the Megatron partition) is not counted. Ring all-reduce: a
  rank sends 2(n-1)/n of the buffer, a reduce-scatter or all-gather half of
  that. The DP gradient all-reduce moves the rank's gradients when dp > 1.
  Stack-parallel decoding (--stack-parallel): the ranks of stack s hold the
  parameters its decode_stack_<s> reads (the last stack also the output
  layer's), the token and position tables in every stack (the duplication
  the StagFormer paper notes; shared-weights layers are held by every stack
  too), and the KV caches of its decode ops: B x capacity x (k and v width)
  in the compute type. Each stack sends its final activation of every token
  to the next stack's ranks, one point-to-point message.
)";
}

void tpc::printCostReportJson(const CostReport &r, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  int64_t tokens = r.microBatch * r.seq;
  auto groups = [&](StringRef key, ArrayRef<AllReduceGroup> list) {
    j.attributeArray(key, [&] {
      for (const AllReduceGroup &g : list)
        j.object([&] {
          j.attribute("kind", kindName(g.kind));
          j.attribute("count", g.count);
          j.attribute("forward", g.forward);
          j.attribute("backward", g.backward);
          j.attribute("values", g.values);
          j.attribute("bytes", g.values * r.computeBytes());
        });
    });
  };
  j.object([&] {
    j.attributeObject("config", [&] {
      j.attribute("tp", r.tp);
      j.attribute("dp", r.dp);
      j.attribute("gpus", r.tp * r.dp);
      j.attribute("micro_batch", r.microBatch);
      j.attribute("seq", r.seq);
      j.attribute("precision", stringifyPrecision(r.precision));
      j.attribute("gradient_precision", stringifyPrecision(r.gradient));
    });
    j.attributeObject("model", [&] {
      j.attribute("parameters", r.globalParams);
      j.attribute("vocab", r.vocab);
      j.attribute("padded_vocab", r.paddedVocab);
      j.attribute("layers", r.layers);
      j.attribute("flops_per_token", r.modelFlopsPerToken);
      j.attribute("attention_flops_per_token", r.attentionFlopsPerToken);
      j.attribute("flops_per_step", r.modelFlopsPerToken * tokens * r.dp);
    });
    j.attributeObject("rank", [&] {
      j.attribute("parameters", r.rankParams);
      j.attributeObject("memory_bytes", [&] {
        j.attribute("weights", r.weightBytes);
        j.attribute("gradients", r.gradientBytes);
        j.attribute("master_weights", r.masterBytes);
        j.attribute("adam_m", r.adamMBytes);
        j.attribute("adam_v", r.adamVBytes);
        j.attribute("model_states", r.modelStateBytes());
        j.attribute("activations", r.activationBytes);
        j.attribute("activations_recompute", r.recomputeActivationBytes());
        j.attribute("recompute_kept", r.recomputeKeptBytes);
        j.attribute("recompute_largest_layer", r.recomputeLayerBytes);
        j.attribute("total", r.modelStateBytes() + r.activationBytes);
        j.attribute("total_recompute",
                    r.modelStateBytes() + r.recomputeActivationBytes());
        j.attribute("activations_planned", r.activationsPlanned);
        j.attribute("activations_recompute_planned",
                    r.recomputePlannedBytes.has_value());
        j.attributeObject("planned_arenas", [&] {
          for (const auto &[name, bytes] : r.plannedArenas)
            j.attribute(name, bytes);
        });
      });
      j.attributeObject("flops", [&] {
        j.attribute("forward", r.forwardFlops);
        j.attribute("step", r.stepFlops());
        j.attribute("step_recompute", r.recomputeStepFlops());
      });
    });
    j.attributeObject("communication", [&] {
      groups("tp_layer_collectives", r.layerAllReduces);
      groups("tp_other_collectives", r.otherAllReduces);
      j.attributeObject("loss", [&] {
        j.attribute("vocab_parallel", r.vocabParallelLoss);
        j.attribute("all_reduces", r.lossAllReduces);
        j.attribute("values", r.lossValues);
        j.attribute("gathered_logits_values", r.gatheredLogitsValues);
      });
      j.attribute("tp_bytes_sent", r.tpRingBytesPerStep);
      j.attribute("dp_gradient_values", r.dpGradientValues);
      j.attribute("distributed_optimizer", r.distributedOptimizer);
      j.attribute("sequence_parallel", r.sequenceParallel);
      j.attribute("dp_bytes_sent", r.dpBytesSent());
      j.attribute("stack_message_bytes", r.stackMessageBytes);
    });
    if (r.pipeline) {
      const PipelineCost &p = *r.pipeline;
      j.attributeObject("pipeline", [&] {
        j.attribute("stages", p.stages);
        j.attribute("virtual_stages", p.virtualStages);
        j.attribute("micro_batches", p.microBatches);
        j.attribute("schedule", p.schedule);
        j.attribute("bubble_fraction", p.bubbleFraction);
        j.attribute("closed_form_bubble", p.closedFormBubble);
        j.attributeArray("per_stage", [&] {
          for (const StageCost &s : p.perStage)
            j.object([&] {
              j.attributeArray("chunks", [&] {
                for (int64_t c : s.chunks)
                  j.value(c);
              });
              j.attribute("layers", s.layers);
              j.attribute("parameters", s.params);
              j.attribute("weights", s.weightBytes);
              j.attribute("gradients", s.gradientBytes);
              j.attribute("master_weights", s.masterBytes);
              j.attribute("adam", s.adamBytes);
              j.attribute("model_states", s.modelStateBytes());
              j.attribute("activations", s.activationBytes);
              j.attribute("total", s.totalBytes());
              j.attribute("in_flight", s.inFlight);
              j.attribute("p2p_bytes_per_step", s.p2pBytesPerStep);
              j.attribute("forward_flops", s.forwardFlops);
              j.attribute("backward_input_flops", s.backwardInputFlops);
              j.attribute("backward_weight_flops", s.backwardWeightFlops);
            });
        });
      });
    }
    if (!r.stacks.empty())
      j.attributeArray("stacks", [&] {
        for (const StackMemory &m : r.stacks)
          j.object([&] {
            j.attribute("weights", m.weightBytes);
            j.attribute("embeddings", m.embeddingBytes);
            j.attribute("shared", m.sharedBytes);
            j.attribute("kv_cache", m.kvCacheBytes);
            j.attribute("arenas", m.arenaBytes);
          });
      });
  });
  os << "\n";
}
