//===- PipelineCut.cpp - Cut the layers into pipeline chunks ----*- C++ -*-===//
//
// The forward's layers (found from the residual stream) are cut into
// stages x virtual-stages chunks of consecutive layers, balanced by forward
// FLOPs unless an explicit layout is given. Every forward op is tagged with
// its chunk; tpc-autodiff carries the tag to the backward and tpc-pipeline
// splits the step by it.
//
//===----------------------------------------------------------------------===//

#include "dialects/tpc/TpcCost.h"
#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

namespace tpc {
#define GEN_PASS_DEF_PIPELINECUT
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
/// The cut: the first layer of each chunk, then the layer count.
using Cut = SmallVector<int64_t>;

/// Splits `cost` (per layer) into `chunks` runs of at least one layer that
/// minimize the largest run's cost, `head` added to the first run and
/// `tail` to the last: a dynamic program over (chunks, layers).
Cut balancedCut(ArrayRef<double> cost, int64_t chunks, double head,
                double tail) {
  int64_t layers = static_cast<int64_t>(cost.size());
  SmallVector<double> prefix(layers + 1, 0.0);
  for (int64_t i = 0; i < layers; ++i)
    prefix[i + 1] = prefix[i] + cost[i];
  auto span = [&](int64_t chunk, int64_t begin, int64_t end) {
    double c = prefix[end] - prefix[begin];
    if (chunk == 0)
      c += head;
    if (chunk == chunks - 1)
      c += tail;
    return c;
  };
  const double inf = std::numeric_limits<double>::infinity();
  // best[k][e]: the smallest largest cost of chunks 0..k covering layers
  // [0, e); from[k][e] where chunk k starts.
  SmallVector<SmallVector<double>> best(chunks,
                                        SmallVector<double>(layers + 1, inf));
  SmallVector<SmallVector<int64_t>> from(chunks,
                                         SmallVector<int64_t>(layers + 1, 0));
  for (int64_t e = 1; e <= layers; ++e)
    best[0][e] = span(0, 0, e);
  for (int64_t k = 1; k < chunks; ++k)
    for (int64_t e = k + 1; e <= layers; ++e)
      for (int64_t b = k; b < e; ++b) {
        double c = std::max(best[k - 1][b], span(k, b, e));
        if (c < best[k][e]) {
          best[k][e] = c;
          from[k][e] = b;
        }
      }
  Cut cut(chunks + 1, 0);
  cut[chunks] = layers;
  for (int64_t k = chunks - 1, e = layers; k > 0; --k) {
    cut[k] = from[k][e];
    e = cut[k];
  }
  return cut;
}

/// The time of `op` in FLOP-equivalents: its matrix products, and the bytes
/// it moves at a device balance of kFlopsPerByte (a GPU's or a CPU's peak
/// FLOP/s over its memory bandwidth is 50 to 200), so that memory-bound ops
/// such as the loss over a large vocabulary count too.
constexpr double kFlopsPerByte = 100.0;
double forwardCost(Operation *op) {
  OpCostFigures cost = opCost(op);
  return cost.matmulFlops + kFlopsPerByte * cost.bytes;
}

struct PipelineCutPass : public tpc::impl::PipelineCutBase<PipelineCutPass> {
  using PipelineCutBase::PipelineCutBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (stages < 1 || virtualStages < 1) {
      module.emitError("tpc-pipeline-cut: stages and virtual-stages must be "
                       ">= 1, got ")
          << int64_t(stages) << " and " << int64_t(virtualStages);
      return signalPassFailure();
    }
    if (module->hasAttr(abi::kPipelineAttr)) {
      module.emitError("the module is already cut into pipeline chunks; run "
                       "tpc-pipeline-cut once");
      return signalPassFailure();
    }
    auto forward = module.lookupSymbol<func::FuncOp>(abi::kForward);
    if (!forward || forward.isExternal() || !forward.getBody().hasOneBlock()) {
      module.emitError("tpc-pipeline-cut needs a single-block func.func @")
          << abi::kForward;
      return signalPassFailure();
    }
    if (module.lookupSymbol(abi::kTrainStep)) {
      module.emitError("tpc-pipeline-cut runs before tpc-autodiff, which "
                       "carries the chunks into @")
          << abi::kTrainStep;
      return signalPassFailure();
    }
    Block &body = forward.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    int64_t layers = 0;
    SmallVector<int64_t> layerOf = findLayers(ops, layers);
    int64_t chunks = stages * virtualStages;
    if (layers == 0) {
      module.emitError("the model has no transformer layers (residual "
                       "blocks) to cut into pipeline stages; compile it "
                       "without --pp");
      return signalPassFailure();
    }
    if (chunks > layers) {
      module.emitError("--pp=")
          << int64_t(stages) << " x --virtual-stages=" << int64_t(virtualStages)
          << " = " << chunks << " pipeline chunks, but the model has " << layers
          << " layers and each chunk needs one; use at most " << layers
          << " chunks";
      return signalPassFailure();
    }
    FailureOr<Cut> cut = cutLayers(module, ops, layerOf, layers, chunks);
    if (failed(cut))
      return signalPassFailure();
    SmallVector<int64_t> chunkOfLayer(layers);
    for (int64_t k = 0; k < chunks; ++k)
      for (int64_t l = (*cut)[k]; l < (*cut)[k + 1]; ++l)
        chunkOfLayer[l] = k;

    // Ops outside layers: before the first layer on chunk 0, after the last
    // on the last chunk, between two layers on the earlier one's.
    Builder b(&getContext());
    int64_t current = 0;
    DenseMap<Operation *, int64_t> chunkOf;
    for (auto [i, op] : llvm::enumerate(ops)) {
      if (layerOf[i] >= 0)
        current = chunkOfLayer[layerOf[i]];
      else if (llvm::any_of(ArrayRef(layerOf).take_front(i),
                            [](int64_t l) { return l >= 0; }) &&
               llvm::none_of(ArrayRef(layerOf).drop_front(i + 1),
                             [](int64_t l) { return l >= 0; }))
        current = chunks - 1;
      chunkOf[op] = current;
    }
    // An operand-free op (a parameter read, a constant) is cloned into each
    // chunk that reads it: chunks on other stages cannot share a value that
    // was never sent.
    for (Operation *op : ops) {
      if (op->getNumOperands() != 0)
        continue;
      int64_t own = chunkOf[op];
      std::map<int64_t, Operation *> clones;
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        int64_t user = chunkOf.lookup(use.getOwner());
        if (use.getOwner() == body.getTerminator() || user == own)
          continue;
        Operation *&clone = clones[user];
        if (!clone) {
          OpBuilder builder(use.getOwner());
          clone = builder.clone(*op);
          chunkOf[clone] = user;
          clone->setAttr(abi::kChunkAttr, b.getI64IntegerAttr(user));
        }
        use.set(clone->getResult(cast<OpResult>(use.get()).getResultNumber()));
      }
    }
    for (auto [op, chunk] : chunkOf)
      op->setAttr(abi::kChunkAttr, b.getI64IntegerAttr(chunk));
    // A value may flow only to the same or a later chunk.
    for (Operation *op : ops)
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && chunkOf[def] > chunkOf[op]) {
          op->emitOpError("reads a value of pipeline chunk ")
              << chunkOf[def] << " from chunk " << chunkOf[op]
              << "; the forward must run in chunk order";
          return signalPassFailure();
        }

    SmallVector<int64_t> counts;
    for (int64_t k = 0; k < chunks; ++k)
      counts.push_back((*cut)[k + 1] - (*cut)[k]);
    module->setAttr(
        abi::kPipelineAttr,
        b.getDictionaryAttr({
            b.getNamedAttr("stages", b.getI64IntegerAttr(stages)),
            b.getNamedAttr("virtual_stages",
                           b.getI64IntegerAttr(virtualStages)),
            b.getNamedAttr("layers", b.getDenseI64ArrayAttr(counts)),
        }));
  }

  /// The explicit layout, or the cut balanced by forward FLOPs.
  FailureOr<Cut> cutLayers(ModuleOp module, ArrayRef<Operation *> ops,
                           ArrayRef<int64_t> layerOf, int64_t layers,
                           int64_t chunks) {
    if (!layout.empty()) {
      SmallVector<StringRef> parts;
      StringRef(layout).split(parts, ',');
      Cut cut{0};
      for (StringRef part : parts) {
        int64_t n = 0;
        if (part.trim().getAsInteger(10, n) || n < 1) {
          module.emitError("--pipeline-layout '")
              << layout << "': '" << part
              << "' is not a layer count >= 1; give the layers of each "
                 "chunk, comma-separated, e.g. 3,5,5,3";
          return failure();
        }
        cut.push_back(cut.back() + n);
      }
      if (int64_t(parts.size()) != chunks || cut.back() != layers) {
        module.emitError("--pipeline-layout '")
            << layout << "' gives " << parts.size() << " chunks of "
            << cut.back() << " layers, but the model has " << layers
            << " layers and the pipeline " << chunks
            << " chunks (--pp x --virtual-stages); give " << chunks
            << " counts that sum to " << layers;
        return failure();
      }
      return cut;
    }
    SmallVector<double> cost(layers, 0.0);
    double head = 0.0, tail = 0.0;
    int64_t last = -1; // the latest layer seen
    for (auto [i, op] : llvm::enumerate(ops)) {
      double flops = forwardCost(op);
      if (layerOf[i] >= 0)
        last = layerOf[i];
      if (layerOf[i] >= 0 || (last >= 0 && last < layers - 1))
        cost[last] += flops; // in a layer, or between two
      else if (last < 0)
        head += flops;
      else
        tail += flops;
    }
    return balancedCut(cost, chunks, head, tail);
  }
};
} // namespace
