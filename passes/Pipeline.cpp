//===- Pipeline.cpp - Per-chunk F, B and W functions and schedule -*- C++
//-*-===//
//
// After tpc-pipeline-cut has tagged every op of the step with its chunk (and
// tpc-autodiff the backward ops with the chunk of the op they differentiate),
// the training step is split into one function per (chunk, role):
//   F  the chunk's forward ops;
//   B  the backward ops that the gradients sent to the previous chunk
//      depend on (the critical path of the backward);
//   W  the rest of the chunk's backward: the parameters' gradients.
// A value one chunk defines and a later chunk reads travels through every
// chunk between them: forward values ride on F's messages, gradients on
// B's. What a chunk's B or W reads from its own F (or W from B) is "kept":
// returned by the producer and taken as an argument marked tpc.from, which
// tpc-plan-memory places on the same bytes, so it is never copied.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Utils.h"
#include "runtime/program/Abi.h"
#include "runtime/program/PipelineSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <set>

namespace tpc {
#define GEN_PASS_DEF_PIPELINE
#include "passes/Passes.h.inc"
} // namespace tpc

using namespace mlir;
using namespace tpc;

namespace {
enum Role : int64_t { kF = 0, kB = 1, kW = 2, kEval = 3 };

const char *roleSuffix(Role role) {
  switch (role) {
  case kF:
    return "_forward";
  case kB:
    return "_backward_input";
  case kW:
    return "_backward_weight";
  case kEval:
    break;
  }
  return "_eval";
}

int64_t chunkOf(Operation *op) {
  return cast<IntegerAttr>(op->getAttr(abi::kChunkAttr)).getInt();
}

/// One function being built: its arguments and results as values of the
/// original body, and the original ops it runs.
struct Part {
  SmallVector<Value> args;
  SmallVector<Attribute> argFrom; // per argument: tpc.from or null
  SmallVector<Value> results;
  SmallVector<Operation *> ops;
  /// Its messages: the values it receives first (tpc.recv), those it sends
  /// last (tpc.send), gradients or activations, and the chunks at the
  /// other ends.
  SmallVector<Value> received, sent;
  int64_t from = -1, to = -1;
  bool grad = false;
};

struct PipelinePass : public tpc::impl::PipelineBase<PipelinePass> {
  using PipelineBase::PipelineBase;

  int64_t stages = 1, virtualStages = 1, chunks = 1;
  /// The schedule runs W apart from B (zb-h1).
  bool splitsWeights = false;

  void runOnOperation() override;

  /// The values that cross each cut: crossing[c] holds what chunk c
  /// receives, in the order of the original body. Forward values travel up
  /// (from their chunk to each later reader's), gradients down.
  LogicalResult findCrossings(Block &body,
                              const llvm::SmallPtrSetImpl<Operation *> &forward,
                              SmallVector<llvm::SetVector<Value>> &up,
                              SmallVector<llvm::SetVector<Value>> &down);
  LogicalResult splitStep(ModuleOp module, func::FuncOp step);
  LogicalResult splitEval(ModuleOp module, func::FuncOp forward);
  LogicalResult splitApply(ModuleOp module, func::FuncOp apply,
                           ArrayRef<std::set<std::string>> held);
  func::FuncOp emit(ModuleOp module, Location loc, StringRef name,
                    const Part &part, int64_t chunk, Role role);
};

LogicalResult
PipelinePass::findCrossings(Block &body,
                            const llvm::SmallPtrSetImpl<Operation *> &forward,
                            SmallVector<llvm::SetVector<Value>> &up,
                            SmallVector<llvm::SetVector<Value>> &down) {
  up.assign(chunks, {});
  down.assign(chunks, {});
  for (Operation &op : body.without_terminator()) {
    int64_t user = chunkOf(&op);
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def)
        continue; // the step's arguments reach every chunk
      int64_t from = chunkOf(def);
      if (from == user)
        continue;
      bool fwd = forward.contains(def);
      if (fwd && from < user) {
        for (int64_t c = from + 1; c <= user; ++c)
          up[c].insert(v);
      } else if (!fwd && !forward.contains(&op) && from > user) {
        for (int64_t c = user; c < from; ++c)
          down[c].insert(v);
      } else {
        return op.emitOpError("in pipeline chunk ")
               << user << " reads a " << (fwd ? "forward" : "backward")
               << " value of chunk " << from
               << ", against the direction its messages travel";
      }
    }
  }
  return success();
}

func::FuncOp PipelinePass::emit(ModuleOp module, Location loc, StringRef name,
                                const Part &part, int64_t chunk, Role role) {
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> argTypes, resultTypes;
  for (Value v : part.args)
    argTypes.push_back(v.getType());
  for (Value v : part.results)
    resultTypes.push_back(v.getType());
  auto fn = func::FuncOp::create(
      builder, loc, name, builder.getFunctionType(argTypes, resultTypes));
  Block *block = fn.addEntryBlock();
  IRMapping map;
  for (auto [v, arg] : llvm::zip(part.args, block->getArguments()))
    map.map(v, arg);
  builder.setInsertionPointToEnd(block);
  for (auto [i, v] : llvm::enumerate(part.received))
    map.map(v, RecvOp::create(builder, loc, v.getType(), part.from, int64_t(i),
                              part.grad)
                   .getResult());
  for (Operation *op : part.ops) {
    Operation *clone = builder.clone(*op, map);
    clone->removeAttr(abi::kChunkAttr);
  }
  for (auto [i, v] : llvm::enumerate(part.sent))
    SendOp::create(builder, loc, map.lookupOrDefault(v), part.to, int64_t(i),
                   part.grad);
  SmallVector<Value> results;
  for (Value v : part.results)
    results.push_back(map.lookupOrDefault(v));
  func::ReturnOp::create(builder, loc, results);
  // The step's own arguments keep their attributes (a batch input's
  // abi::kInputAttr, which tpc-export records); kept ones say where from.
  for (auto [i, v, from] : llvm::enumerate(part.args, part.argFrom)) {
    if (from) {
      fn.setArgAttr(i, abi::kFromAttr, from);
    } else if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto source = cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (DictionaryAttr attrs = source.getArgAttrDict(arg.getArgNumber()))
        fn.setArgAttrs(i, attrs);
    }
  }
  fn->setAttr(
      abi::kChunkFunctionAttr,
      builder.getDictionaryAttr({
          builder.getNamedAttr("chunk", builder.getI64IntegerAttr(chunk)),
          builder.getNamedAttr("role", builder.getI64IntegerAttr(role)),
      }));
  return fn;
}

std::string chunkName(int64_t chunk, Role role) {
  return "chunk" + std::to_string(chunk) + roleSuffix(role);
}

LogicalResult PipelinePass::splitStep(ModuleOp module, func::FuncOp step) {
  Block &body = step.getBody().front();
  Operation *ret = body.getTerminator();
  for (Operation &op : body.without_terminator())
    if (!op.hasAttr(abi::kChunkAttr))
      return op.emitOpError("has no pipeline chunk (")
             << abi::kChunkAttr
             << "); a pass between tpc-pipeline-cut and tpc-pipeline built it "
                "without one";
  llvm::SmallPtrSet<Operation *, 32> forward = opsFeeding(ret->getOperands());
  for (Value v : ret->getOperands())
    if (Operation *def = v.getDefiningOp(); def && chunkOf(def) != chunks - 1)
      return def->emitOpError("computes the loss in pipeline chunk ")
             << chunkOf(def) << ", not in the last one (" << chunks - 1 << ")";
  SmallVector<llvm::SetVector<Value>> up, down;
  if (failed(findCrossings(body, forward, up, down)))
    return failure();

  SmallVector<Value> data(body.getArguments());
  for (int64_t c = 0; c < chunks; ++c) {
    Part f, b, w;
    // F: the data; it receives from the previous chunk and sends what the
    // next chunk receives.
    f.args.append(data.begin(), data.end());
    f.argFrom.assign(f.args.size(), nullptr);
    f.received.append(up[c].begin(), up[c].end());
    f.from = c - 1;
    f.to = c + 1;
    SmallVector<Operation *> backward;
    for (Operation &op : body.without_terminator()) {
      if (chunkOf(&op) != c)
        continue;
      if (forward.contains(&op))
        f.ops.push_back(&op);
      else
        backward.push_back(&op);
    }
    if (c + 1 < chunks)
      f.sent.append(up[c + 1].begin(), up[c + 1].end());
    if (c == chunks - 1)
      f.results.append(ret->getOperands().begin(), ret->getOperands().end());
    // B: what the gradients sent to the previous chunk are computed from.
    SmallVector<Value> sent;
    if (c > 0)
      sent.append(down[c - 1].begin(), down[c - 1].end());
    llvm::SmallPtrSet<Operation *, 32> critical = opsFeeding(sent);
    // Only a zero-bubble schedule moves W away from B; the others run it
    // right after, so splitting would only keep B's values for W longer.
    for (Operation *op : backward)
      (critical.contains(op) || !splitsWeights ? b.ops : w.ops).push_back(op);

    // Where each value of the chunk is defined: F (its ops and arguments),
    // B (its ops and received gradients).
    DenseMap<Value, Role> home;
    for (Value v : f.args)
      home[v] = kF;
    for (Value v : f.received)
      home[v] = kF;
    for (Operation *op : f.ops)
      for (Value r : op->getResults())
        home[r] = kF;
    for (Value v : down[c])
      home[v] = kB;
    for (Operation *op : b.ops)
      for (Value r : op->getResults())
        home[r] = kB;
    b.received.append(down[c].begin(), down[c].end());
    b.sent.append(sent.begin(), sent.end());
    b.grad = true;
    b.from = c + 1;
    b.to = c - 1;
    // Kept values: returned by their producer, taken by their reader.
    Builder builder(&getContext());
    auto keep = [&](Part &reader, Value v) -> LogicalResult {
      if (llvm::is_contained(reader.args, v) ||
          llvm::is_contained(reader.received, v))
        return success();
      auto it = home.find(v);
      if (it == home.end())
        return emitError(v.getLoc(), "pipeline chunk ")
               << c << " reads a value that neither its forward nor its "
               << "backward computes or receives";
      Part &producer = it->second == kF ? f : b;
      auto at = llvm::find(producer.results, v);
      int64_t index = at - producer.results.begin();
      if (at == producer.results.end())
        producer.results.push_back(v);
      reader.args.push_back(v);
      reader.argFrom.push_back(builder.getDenseI64ArrayAttr(
          {static_cast<int64_t>(it->second), index}));
      return success();
    };
    for (Part *reader : {&b, &w}) {
      DenseSet<Operation *> own(reader->ops.begin(), reader->ops.end());
      // Parameter reads and constants are read again, not kept.
      SmallVector<Operation *> reads;
      for (Operation *op : reader->ops)
        for (Value v : op->getOperands()) {
          Operation *def = v.getDefiningOp();
          if (def && own.contains(def))
            continue;
          if (def && def->getNumOperands() == 0 &&
              isa<GetParamOp, FillOp>(def)) {
            own.insert(def);
            reads.push_back(def);
            continue;
          }
          if (failed(keep(*reader, v)))
            return failure();
        }
      reader->ops.insert(reader->ops.begin(), reads.begin(), reads.end());
    }
    emit(module, step.getLoc(), chunkName(c, kF), f, c, kF);
    emit(module, step.getLoc(), chunkName(c, kB), b, c, kB);
    emit(module, step.getLoc(), chunkName(c, kW), w, c, kW);
  }
  return success();
}

LogicalResult PipelinePass::splitEval(ModuleOp module, func::FuncOp forward) {
  Block &body = forward.getBody().front();
  Operation *ret = body.getTerminator();
  llvm::SmallPtrSet<Operation *, 32> all;
  for (Operation &op : body.without_terminator()) {
    if (!op.hasAttr(abi::kChunkAttr))
      return op.emitOpError("has no pipeline chunk");
    all.insert(&op);
  }
  SmallVector<llvm::SetVector<Value>> up, down;
  if (failed(findCrossings(body, all, up, down)))
    return failure();
  for (int64_t c = 0; c < chunks; ++c) {
    Part e;
    e.args.append(body.getArguments().begin(), body.getArguments().end());
    e.argFrom.assign(e.args.size(), nullptr);
    e.received.append(up[c].begin(), up[c].end());
    e.from = c - 1;
    e.to = c + 1;
    for (Operation &op : body.without_terminator())
      if (chunkOf(&op) == c)
        e.ops.push_back(&op);
    if (c + 1 < chunks)
      e.sent.append(up[c + 1].begin(), up[c + 1].end());
    if (c == chunks - 1)
      e.results.append(ret->getOperands().begin(), ret->getOperands().end());
    emit(module, forward.getLoc(), chunkName(c, kEval), e, c, kEval);
  }
  return success();
}

/// The parameter an op names (get_grad, an update), if any.
std::optional<std::string> paramOf(Operation *op) {
  if (auto name = op->getAttrOfType<FlatSymbolRefAttr>("name"))
    return name.getValue().str();
  return std::nullopt;
}

LogicalResult PipelinePass::splitApply(ModuleOp module, func::FuncOp apply,
                                       ArrayRef<std::set<std::string>> held) {
  // Parameters several stages hold: Megatron's embedding group joins the
  // first and the last stage only.
  std::map<std::string, SmallVector<int64_t>> holders;
  for (int64_t s = 0; s < stages; ++s)
    for (const std::string &name : held[s])
      holders[name].push_back(s);
  for (auto &[name, where] : holders)
    if (where.size() > 1 &&
        (where.size() != 2 || where[0] != 0 || where[1] != stages - 1))
      return apply.emitOpError("parameter @")
             << name << " is read on pipeline stages other than the first "
             << "and the last together; only a tied embedding table may be "
             << "shared between stages (choose another --pipeline-layout)";
  Builder b(&getContext());
  llvm::StringMap<int64_t> position; // of each parameter in the module
  for (ParamOp param : module.getOps<ParamOp>())
    position[param.getSymName()] = int64_t(position.size());
  for (int64_t s = 0; s < stages; ++s) {
    auto clone = cast<func::FuncOp>(apply->clone());
    clone.setSymName(abi::stage_apply_step(s));
    module.push_back(clone);
    Block &body = clone.getBody().front();
    auto holds = [&](const std::string &name) {
      return held[s].count(name) > 0;
    };
    auto shared = [&](const std::string &name) {
      return holders[name].size() > 1;
    };
    // Symbol lists (the data-parallel buckets) keep this stage's names; a
    // bucket is consecutive parameters, so what is left of one may become
    // several.
    SmallVector<Operation *> dead;
    for (Operation &op : body.without_terminator()) {
      for (NamedAttribute attr : op.getAttrs()) {
        auto list = dyn_cast<ArrayAttr>(attr.getValue());
        if (!list || list.empty() || !isa<FlatSymbolRefAttr>(list[0]))
          continue;
        SmallVector<SmallVector<Attribute>> runs(1);
        int64_t previous = -2;
        for (Attribute a : list) {
          std::string name = cast<FlatSymbolRefAttr>(a).getValue().str();
          if (!holds(name))
            continue;
          int64_t at = position.lookup(name);
          if (!runs.back().empty() && std::abs(at - previous) != 1)
            runs.emplace_back();
          runs.back().push_back(a);
          previous = at;
        }
        dead.push_back(&op);
        OpBuilder before(&op);
        for (ArrayRef<Attribute> run : runs) {
          if (run.empty())
            continue;
          Operation *piece = before.clone(op);
          piece->setAttr(attr.getName(), b.getArrayAttr(run));
        }
        break;
      }
    }
    for (Operation *op : dead)
      op->erase();
    // Both copies of a tied table sum their gradient buffers over the
    // embedding group first, before the data-parallel reduction reads them.
    OpBuilder builder(&getContext());
    builder.setInsertionPointToStart(&body);
    for (ParamOp param : module.getOps<ParamOp>()) {
      std::string name = param.getSymName().str();
      if (holds(name) && shared(name))
        BucketAllReduceOp::create(builder, apply.getLoc(),
                                  builder.getArrayAttr({FlatSymbolRefAttr::get(
                                      param.getSymNameAttr())}),
                                  Group::embedding);
    }
    // The norm counts a parameter once: the first stage's copy.
    for (auto squares :
         llvm::make_early_inc_range(body.getOps<SumSquaresOp>())) {
      SmallVector<Value> inputs;
      for (Value v : squares.getInputs()) {
        auto read = v.getDefiningOp<GetGradOp>();
        std::string name = read ? read.getName().str() : "";
        if (read && (!holds(name) || (shared(name) && s != 0)))
          continue;
        inputs.push_back(v);
      }
      builder.setInsertionPoint(squares);
      Value replacement =
          inputs.empty()
              ? FillOp::create(builder, squares.getLoc(),
                               squares.getResult().getType(),
                               builder.getF64FloatAttr(0.0))
                    .getResult()
              : SumSquaresOp::create(builder, squares.getLoc(),
                                     squares.getResult().getType(), inputs)
                    .getResult();
      squares.getResult().replaceAllUsesWith(replacement);
      squares.erase();
    }
    // Updates of other stages' parameters go, then their reads.
    SmallVector<Operation *> order;
    for (Operation &op : body.without_terminator())
      order.push_back(&op);
    for (Operation *op : llvm::reverse(order)) {
      std::optional<std::string> name = paramOf(op);
      if (name && !holds(*name) && op->use_empty())
        op->erase();
    }
    for (Operation &op : body.without_terminator())
      if (std::optional<std::string> name = paramOf(&op); name && !holds(*name))
        return op.emitOpError("of parameter @")
               << *name << " is still read on pipeline stage " << s
               << ", which does not hold it";
    // The squared norm sums over every stage.
    for (auto norm : body.getOps<GradNormOp>()) {
      builder.setInsertionPoint(norm);
      auto total = AllReduceOp::create(builder, norm.getLoc(), norm.getSumSq(),
                                       ReduceKind::sum, Group::pp);
      norm.getSumSqMutable().assign(total.getResult());
    }
  }
  return success();
}

void PipelinePass::runOnOperation() {
  ModuleOp module = getOperation();
  auto cut = module->getAttrOfType<DictionaryAttr>(abi::kPipelineAttr);
  if (!cut) {
    module.emitError("tpc-pipeline needs the chunks of tpc-pipeline-cut "
                     "(the module has no ")
        << abi::kPipelineAttr << ")";
    return signalPassFailure();
  }
  stages = cast<IntegerAttr>(cut.get("stages")).getInt();
  virtualStages = cast<IntegerAttr>(cut.get("virtual_stages")).getInt();
  chunks = stages * virtualStages;
  pipeline::ScheduleKind kind;
  if (!pipeline::parse_schedule(schedule, kind)) {
    module.emitError("--schedule must be 1f1b, interleaved or zb-h1, got '")
        << std::string(schedule) << "'";
    return signalPassFailure();
  }
  splitsWeights = kind == pipeline::ScheduleKind::ZeroBubbleH1;
  std::string problem = pipeline::check_schedule(
      kind, int(stages), int(virtualStages), int(microBatches));
  if (!problem.empty()) {
    module.emitError(problem);
    return signalPassFailure();
  }
  auto step = module.lookupSymbol<func::FuncOp>(abi::kTrainStep);
  auto forward = module.lookupSymbol<func::FuncOp>(abi::kForward);
  auto apply = module.lookupSymbol<func::FuncOp>(abi::kApplyStep);
  if (!step || !forward || !apply) {
    module.emitError("tpc-pipeline needs @")
        << abi::kForward << ", @" << abi::kTrainStep << " and @"
        << abi::kApplyStep << " (run tpc-autodiff and tpc-optimizer first)";
    return signalPassFailure();
  }
  if (failed(splitStep(module, step)) || failed(splitEval(module, forward)))
    return signalPassFailure();
  // What each stage holds: the parameters its chunks read.
  SmallVector<std::set<std::string>> held(stages);
  for (auto fn : module.getOps<func::FuncOp>()) {
    auto info = fn->getAttrOfType<DictionaryAttr>(abi::kChunkFunctionAttr);
    if (!info)
      continue;
    int64_t stage = cast<IntegerAttr>(info.get("chunk")).getInt() % stages;
    fn.walk([&](Operation *op) {
      if (isa<GetParamOp, AccumulateGradOp>(op))
        if (std::optional<std::string> name = paramOf(op))
          held[stage].insert(*name);
    });
  }
  if (failed(splitApply(module, apply, held)))
    return signalPassFailure();
  // The pipelined program decodes nothing: a checkpoint is global, and a
  // program compiled without --pp generates from it.
  for (StringRef name :
       {StringRef(abi::kTrainStep), StringRef(abi::kForward),
        StringRef(abi::kApplyStep), StringRef(abi::kDecodeStep),
        StringRef(abi::kDecodeRecurrent)})
    if (Operation *fn = module.lookupSymbol(name))
      fn->erase();

  pipeline::Schedule plan = pipeline::build_schedule(
      kind, int(stages), int(virtualStages), int(microBatches));
  if (std::string bad = pipeline::verify_schedule(plan); !bad.empty()) {
    module.emitError("the ")
        << std::string(schedule) << " schedule is not executable: " << bad;
    return signalPassFailure();
  }
  Builder b(&getContext());
  SmallVector<NamedAttribute> attrs(cut.getValue());
  attrs.push_back(b.getNamedAttr("schedule", b.getStringAttr(schedule)));
  attrs.push_back(
      b.getNamedAttr("micro_batches", b.getI64IntegerAttr(microBatches)));
  SmallVector<int64_t> slots(plan.slots.begin(), plan.slots.end());
  attrs.push_back(b.getNamedAttr("slots", b.getDenseI64ArrayAttr(slots)));
  module->setAttr(abi::kPipelineAttr, b.getDictionaryAttr(attrs));
  SmallVector<Attribute> actions;
  for (const auto &list : plan.actions)
    actions.push_back(b.getStringAttr(pipeline::format_actions(list)));
  module->setAttr(abi::kPipelineActionsAttr, b.getArrayAttr(actions));
}
} // namespace
