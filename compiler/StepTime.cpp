//===- StepTime.cpp - Predicted step time of a compiled layout -----------===//

#include "compiler/StepTime.h"
#include "dialects/tpc/TpcCost.h"
#include "dialects/tpc/TpcOps.h"
#include "runtime/program/Abi.h"
#include "runtime/program/PipelineSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir;
using namespace tpc;

namespace {
/// Ring collectives over `g` ranks of a link: an all-reduce sends
/// 2 (g - 1) / g of the tensor in 2 (g - 1) steps, a reduce-scatter or an
/// all-gather half of that.
double ringAllReduce(double bytes, int64_t g, const Link &link) {
  if (g <= 1)
    return 0;
  return 2.0 * double(g - 1) / double(g) * bytes / link.bytesPerS +
         2.0 * double(g - 1) * link.latencyS;
}
double ringHalf(double bytes, int64_t g, const Link &link) {
  if (g <= 1)
    return 0;
  return double(g - 1) / double(g) * bytes / link.bytesPerS +
         double(g - 1) * link.latencyS;
}

double tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return 0;
  return double(t.getNumElements()) *
         double((t.getElementTypeBitWidth() + 7) / 8);
}

/// One function's time on one rank, by kind.
struct FunctionTime {
  double compute = 0, tp = 0, dp = 0, other = 0;
  double total() const { return compute + tp + dp + other; }
};

class Model {
public:
  Model(ModuleOp module, const CompileOptions &o, const Cluster &c)
      : module(module), o(o), c(c), symbols(module) {
    peak = c.peakFlops.at(stringifyPrecision(o.precision).str()) *
           c.gemmEfficiency;
  }

  /// The link a group's ring runs over: Megatron's rank order puts tp
  /// fastest, then dp, then pp, so a group stays inside a node while the
  /// ranks it spans fit one.
  const Link &linkOf(Group group) const {
    int64_t span = o.tp;
    if (group == Group::dp)
      span = o.tp * o.dp;
    else if (group == Group::pp || group == Group::embedding)
      span = o.tp * o.dp * o.pp;
    return span <= c.devicesPerNode ? c.intraNode : c.interNode;
  }
  int64_t sizeOf(Group group) const {
    switch (group) {
    case Group::tp:
      return o.tp;
    case Group::dp:
      return o.dp;
    case Group::pp:
      return o.pp;
    case Group::embedding:
      return o.pp > 1 ? 2 : 1;
    }
    return 1;
  }

  /// The gradient (or, for a gather, parameter) bytes of a bucket.
  double bucketBytes(ArrayAttr params, bool gradients) {
    double bytes = 0;
    for (auto name : params.getAsRange<FlatSymbolRefAttr>()) {
      auto param = symbols.lookup<ParamOp>(name.getValue());
      if (!param)
        continue;
      FailureOr<RankedTensorType> local = gradients
                                              ? param.getLocalGradType(o.tp)
                                              : param.getLocalComputeType(o.tp);
      if (succeeded(local))
        bytes += tensorBytes(*local);
    }
    return bytes;
  }

  FunctionTime timeOf(func::FuncOp fn) {
    FunctionTime t;
    fn.walk([&](Operation *op) {
      auto collective = [&](Group g, double seconds) {
        (g == Group::tp ? t.tp : g == Group::dp ? t.dp : t.other) += seconds;
      };
      llvm::TypeSwitch<Operation *>(op)
          .Case<GetParamOp, GetGradOp, FillOp, FOp, RecvOp, SendOp,
                func::ReturnOp, func::FuncOp>([](Operation *) {})
          .Case([&](GOp g) {
            collective(Group::tp, ringAllReduce(tensorBytes(g.getType()), o.tp,
                                                linkOf(Group::tp)));
          })
          .Case([&](AllReduceOp a) {
            Group g = a.getGroup();
            collective(g, ringAllReduce(tensorBytes(a.getType()), sizeOf(g),
                                        linkOf(g)));
          })
          .Case([&](AllGatherOp a) {
            Group g = a.getGroup();
            collective(
                g, ringHalf(tensorBytes(a.getType()), sizeOf(g), linkOf(g)));
          })
          .Case([&](SeqScatterOp s) {
            if (s.getReduce())
              collective(Group::tp,
                         ringHalf(tensorBytes(s.getInput().getType()), o.tp,
                                  linkOf(Group::tp)));
          })
          .Case([&](SeqGatherOp s) {
            collective(Group::tp, ringHalf(tensorBytes(s.getType()), o.tp,
                                           linkOf(Group::tp)));
          })
          .Case([&](BucketAllReduceOp b) {
            Group g = b.getGroup();
            collective(g, ringAllReduce(bucketBytes(b.getParams(), true),
                                        sizeOf(g), linkOf(g)));
          })
          .Case([&](BucketReduceScatterOp b) {
            collective(Group::dp, ringHalf(bucketBytes(b.getParams(), true),
                                           o.dp, linkOf(Group::dp)));
          })
          .Case([&](BucketAllGatherOp b) {
            collective(Group::dp, ringHalf(bucketBytes(b.getParams(), false),
                                           o.dp, linkOf(Group::dp)));
          })
          .Case([&](VocabParallelCrossEntropyOp loss) {
            // Inside the fused loss: all-reduces of the rows' max, sum of
            // exponentials and target logit, one f32 per target each.
            double values = tensorBytes(loss.getTargets().getType());
            collective(Group::tp,
                       3 * ringAllReduce(values, o.tp, linkOf(Group::tp)));
            OpCostFigures cost = opCost(loss);
            t.compute +=
                std::max(cost.matmulFlops / peak, cost.bytes / c.hbmBytesPerS);
          })
          .Default([&](Operation *other) {
            // A roofline: the matrix products at the GEMM efficiency of the
            // peak, everything moving its bytes through HBM once.
            OpCostFigures cost = opCost(other);
            t.compute +=
                std::max(cost.matmulFlops / peak, cost.bytes / c.hbmBytesPerS);
          });
    });
    return t;
  }

  ModuleOp module;
  const CompileOptions &o;
  const Cluster &c;
  SymbolTable symbols;
  double peak = 1;
};
} // namespace

FailureOr<StepTime> tpc::predictStepTime(ModuleOp module,
                                         const CompileOptions &options,
                                         const CostReport &whole,
                                         const Cluster &cluster) {
  Model model(module, options, cluster);
  StepTime t;
  const int64_t M = std::max<int64_t>(1, options.microBatches);
  t.devices = options.tp * options.dp * options.pp;
  if (auto cut = module->getAttrOfType<DictionaryAttr>(abi::kPipelineAttr)) {
    // The stage's schedule, each F, B and W taking its function's time and
    // each message the time of its bytes over the pp link.
    const int64_t P = options.pp, chunks = P * options.virtualStages;
    pipeline::ChunkTimes times;
    times.forward.assign(chunks, 0);
    times.backward_input.assign(chunks, 0);
    times.backward_weight.assign(chunks, 0);
    SmallVector<FunctionTime> perStage(P);
    SmallVector<double> applyOf(P, 0), dpOf(P, 0);
    for (auto fn : module.getOps<func::FuncOp>()) {
      FunctionTime ft = model.timeOf(fn);
      auto info = fn->getAttrOfType<DictionaryAttr>(abi::kChunkFunctionAttr);
      if (!info) {
        for (int64_t s = 0; s < P; ++s)
          if (fn.getSymName() == abi::stage_apply_step(s)) {
            applyOf[s] = ft.total();
            dpOf[s] = ft.dp + ft.other;
          }
        continue;
      }
      int64_t chunk = cast<IntegerAttr>(info.get("chunk")).getInt();
      int64_t role = cast<IntegerAttr>(info.get("role")).getInt();
      if (role == 3)
        continue;
      double seconds = ft.total();
      (role == 0   ? times.forward
       : role == 1 ? times.backward_input
                   : times.backward_weight)[chunk] = seconds;
      perStage[chunk % P].compute += double(M) * ft.compute;
      perStage[chunk % P].tp += double(M) * ft.tp;
      for (SendOp send : fn.getOps<SendOp>()) {
        const Link &link = model.linkOf(Group::pp);
        times.p2p = std::max(
            times.p2p, link.latencyS + tensorBytes(send.getInput().getType()) /
                                           link.bytesPerS);
      }
    }
    auto kind = cut.getAs<StringAttr>("schedule");
    pipeline::ScheduleKind k;
    if (!kind || !pipeline::parse_schedule(kind.getValue(), k))
      return module.emitError("the module's pipeline is not scheduled");
    pipeline::Schedule plan =
        pipeline::build_schedule(k, int(P), int(options.virtualStages), int(M));
    pipeline::Simulation sim = pipeline::simulate(plan, times);
    int64_t busiest = 0;
    for (int64_t s = 0; s < P; ++s)
      if (sim.busy[s] > sim.busy[busiest])
        busiest = s;
    double apply = *std::max_element(applyOf.begin(), applyOf.end());
    t.seconds = sim.makespan + apply;
    t.compute = perStage[busiest].compute;
    t.tpComm = perStage[busiest].tp;
    t.bubble = sim.makespan - sim.busy[busiest];
    t.dpComm = dpOf[busiest];
    t.optimizer = applyOf[busiest] - dpOf[busiest];
    if (whole.pipeline)
      for (const StageCost &s : whole.pipeline->perStage)
        t.memoryBytes = std::max(t.memoryBytes, s.totalBytes());
  } else {
    auto step = module.lookupSymbol<func::FuncOp>(abi::kTrainStep);
    auto apply = module.lookupSymbol<func::FuncOp>(abi::kApplyStep);
    if (!step || !apply)
      return module.emitError("the module has no train_step and apply_step "
                              "to time; compile it with tpc-compile");
    FunctionTime micro = model.timeOf(step), update = model.timeOf(apply);
    t.compute = double(M) * micro.compute;
    t.tpComm = double(M) * micro.tp + update.tp;
    t.dpComm = double(M) * micro.dp + update.dp + update.other;
    t.optimizer = update.compute;
    t.seconds = double(M) * micro.total() + update.total();
    t.memoryBytes = whole.modelStateBytes() + whole.activationBytes;
  }
  t.tokens = double(M) * double(options.microBatch) *
             double(options.seq.value_or(0)) * double(options.dp);
  t.tokensPerS = t.tokens / t.seconds;
  t.modelFlopsPerDevice =
      double(whole.modelFlopsPerToken) * t.tokensPerS / double(t.devices);
  t.mfu = t.modelFlopsPerDevice /
          cluster.peakFlops.at(stringifyPrecision(options.precision).str());
  return t;
}

static std::string seconds(double s) {
  if (s >= 1)
    return llvm::formatv("{0:F3} s", s).str();
  return llvm::formatv("{0:F3} ms", s * 1e3).str();
}

void tpc::printStepTimeText(const StepTime &t, const Cluster &cluster,
                            llvm::raw_ostream &os) {
  os << "cluster          " << cluster.name << "\n";
  os << llvm::formatv("step             {0} on {1} devices\n",
                      seconds(t.seconds), t.devices);
  os << llvm::formatv("tokens/s         {0:F0} ({1:F0} tokens per step)\n",
                      t.tokensPerS, t.tokens);
  os << llvm::formatv("model TFLOP/s    {0:F1} per device, MFU {1:F1}%\n",
                      t.modelFlopsPerDevice / 1e12, 100 * t.mfu);
  os << llvm::formatv("memory           {0} on the rank that holds the most "
                      "(device: {1})\n",
                      humanBytes(t.memoryBytes),
                      humanBytes(cluster.memoryBytes));
  os << "where the time goes (the busiest rank)\n";
  auto row = [&](StringRef what, double s) {
    os << llvm::formatv("  {0,-22} {1,12}  {2,5:F1}%\n", what, seconds(s),
                        t.seconds > 0 ? 100 * s / t.seconds : 0.0);
  };
  row("compute", t.compute);
  row("tensor-parallel comm", t.tpComm);
  row("data-parallel comm", t.dpComm);
  row("pipeline bubble", t.bubble);
  row("optimizer", t.optimizer);
}

void tpc::printStepTimeJson(const StepTime &t, const Cluster &cluster,
                            llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("cluster", cluster.name);
    j.attribute("devices", t.devices);
    j.attribute("step_seconds", t.seconds);
    j.attribute("tokens_per_step", t.tokens);
    j.attribute("tokens_per_second", t.tokensPerS);
    j.attribute("model_flops_per_device", t.modelFlopsPerDevice);
    j.attribute("mfu", t.mfu);
    j.attribute("memory_bytes", t.memoryBytes);
    j.attributeObject("breakdown_seconds", [&] {
      j.attribute("compute", t.compute);
      j.attribute("tp_comm", t.tpComm);
      j.attribute("dp_comm", t.dpComm);
      j.attribute("bubble", t.bubble);
      j.attribute("optimizer", t.optimizer);
    });
  });
  os << "\n";
}
