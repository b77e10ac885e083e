//===- PipelineCost.cpp - Per-stage cost of a pipelined module ---*- C++
//-*-===//
//
// What each pipeline stage of a module compiled with --pp holds and does:
// the parameters of its chunks and their optimizer state, the activation
// arenas the runtime allocates for it (one per micro-batch a chunk keeps in
// flight, as the schedule's slots say, plus the shared arena), the bytes it
// sends per step, and its chunks' F, B and W FLOPs, from which the
// schedule's own action lists are simulated for the bubble.
//
//===----------------------------------------------------------------------===//

#include "compiler/CostReport.h"
#include "dialects/tpc/TpcCost.h"
#include "dialects/tpc/TpcOps.h"
#include "runtime/program/Abi.h"
#include "runtime/program/PipelineSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;
using namespace tpc;

namespace {
double functionFlops(func::FuncOp fn) {
  double flops = 0.0;
  fn.walk([&](Operation *op) { flops += opCost(op).matmulFlops; });
  return flops;
}

int64_t bytesOf(Type type) {
  auto t = cast<RankedTensorType>(type);
  int64_t bits = t.getElementTypeBitWidth();
  return t.getNumElements() * ((bits + 7) / 8);
}

int64_t integer(DictionaryAttr dict, StringRef key) {
  auto attr = dyn_cast_or_null<IntegerAttr>(dict.get(key));
  return attr ? attr.getInt() : 0;
}
} // namespace

FailureOr<PipelineCost> tpc::computePipelineCost(ModuleOp module,
                                                 const CostReport &whole) {
  auto cut = module->getAttrOfType<DictionaryAttr>(abi::kPipelineAttr);
  if (!cut)
    return module.emitError("the module has no pipeline (run tpc-pipeline)");
  PipelineCost cost;
  cost.stages = integer(cut, "stages");
  cost.virtualStages = integer(cut, "virtual_stages");
  cost.microBatches = integer(cut, "micro_batches");
  auto schedule = dyn_cast_or_null<StringAttr>(cut.get("schedule"));
  auto slots = dyn_cast_or_null<DenseI64ArrayAttr>(cut.get("slots"));
  auto layers = dyn_cast_or_null<DenseI64ArrayAttr>(cut.get("layers"));
  pipeline::ScheduleKind kind;
  if (!schedule || !slots || !layers ||
      !pipeline::parse_schedule(schedule.getValue(), kind))
    return module.emitError("the module's pipeline is not scheduled");
  cost.schedule = schedule.getValue().str();
  const int64_t P = cost.stages, chunks = P * cost.virtualStages;
  cost.perStage.resize(P);
  pipeline::ChunkTimes times;
  times.forward.assign(chunks, 0.0);
  times.backward_input.assign(chunks, 0.0);
  times.backward_weight.assign(chunks, 0.0);
  SmallVector<std::set<std::string>> held(P);
  SmallVector<int64_t> shared(P, 0), scratch(P, 0);
  for (auto fn : module.getOps<func::FuncOp>()) {
    auto arena = fn->getAttrOfType<IntegerAttr>(abi::kArenaBytesAttr);
    auto info = fn->getAttrOfType<DictionaryAttr>(abi::kChunkFunctionAttr);
    if (!info) {
      // A stage's apply_step runs in the shared arena.
      for (int64_t s = 0; s < P; ++s)
        if (fn.getSymName() == abi::stage_apply_step(s) && arena)
          shared[s] = std::max(shared[s], arena.getInt());
      continue;
    }
    int64_t c = integer(info, "chunk"), role = integer(info, "role");
    int64_t s = c % P;
    StageCost &stage = cost.perStage[s];
    fn.walk([&](Operation *op) {
      if (isa<GetParamOp, AccumulateGradOp>(op))
        if (auto name = op->getAttrOfType<FlatSymbolRefAttr>("name"))
          held[s].insert(name.getValue().str());
    });
    double flops = functionFlops(fn);
    int64_t sent = 0;
    for (SendOp send : fn.getOps<SendOp>())
      sent += bytesOf(send.getInput().getType());
    if (role != 3)
      stage.p2pBytesPerStep += sent * cost.microBatches;
    switch (role) {
    case 0:
      times.forward[c] = flops;
      stage.forwardFlops += flops;
      stage.chunks.push_back(c);
      stage.layers += layers[c];
      if (arena) {
        // Each micro-batch in flight holds a slot; the temporaries share
        // one scratch per stage.
        auto slot = fn->getAttrOfType<IntegerAttr>(abi::kSlotBytesAttr);
        int64_t slotBytes = slot ? slot.getInt() : arena.getInt();
        stage.activationBytes += slots[c] * slotBytes;
        scratch[s] = std::max(scratch[s], arena.getInt() - slotBytes);
      }
      break;
    case 1:
      times.backward_input[c] = flops;
      stage.backwardInputFlops += flops;
      break;
    case 2:
      times.backward_weight[c] = flops;
      stage.backwardWeightFlops += flops;
      break;
    default:
      if (arena)
        shared[s] = std::max(shared[s], arena.getInt());
      break;
    }
  }
  // Parameters, by the whole module's per-rank rules (CostReport).
  const int64_t tp = whole.tp;
  for (ParamOp param : module.getOps<ParamOp>()) {
    FailureOr<RankedTensorType> local = param.getLocalType(tp);
    if (failed(local))
      return param.emitOpError("has a layout that tp = ")
             << tp << " cannot split";
    int64_t n = local->getNumElements();
    int64_t master =
        n * ((param.getTensorType().getElementTypeBitWidth() + 7) / 8);
    // The distributed optimizer keeps 1/dp of the fp32 state.
    int64_t shard = whole.distributedOptimizer
                        ? (master + whole.dp - 1) / whole.dp
                        : master;
    for (int64_t s = 0; s < P; ++s) {
      if (!held[s].count(param.getSymName().str()))
        continue;
      StageCost &stage = cost.perStage[s];
      stage.params += n;
      stage.weightBytes +=
          n * ((param.getComputeElementType().getIntOrFloatBitWidth() + 7) / 8);
      stage.gradientBytes +=
          n * ((param.getGradElementType().getIntOrFloatBitWidth() + 7) / 8);
      if (param.hasMasterCopy())
        stage.masterBytes += shard;
      stage.adamBytes += 2 * shard;
    }
  }
  for (int64_t s = 0; s < P; ++s)
    cost.perStage[s].activationBytes += shared[s] + scratch[s];
  pipeline::Schedule plan = pipeline::build_schedule(
      kind, int(P), int(cost.virtualStages), int(cost.microBatches));
  pipeline::Simulation sim = pipeline::simulate(plan, times);
  cost.bubbleFraction = sim.bubble_fraction;
  for (int64_t s = 0; s < P; ++s)
    cost.perStage[s].inFlight = sim.peak_in_flight[s];
  cost.closedFormBubble =
      double(P - 1) / double(cost.virtualStages * cost.microBatches);
  return cost;
}
