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

/// Ring collectives over `g` ranks of a link: an all-reduce sends
/// 2 (g - 1) / g of the tensor in 2 (g - 1) steps, a reduce-scatter or an
/// all-gather half of that, each at the link's fit of its kind.
double RingTraffic::seconds(int64_t g, const Link &link) const {
  if (g <= 1)
    return 0;
  double steps = double(g - 1), share = steps / double(g);
  auto ring = [&](const RingFit &fit, double bytes, int64_t count,
                  double hops) {
    return hops * (share * bytes / fit.bytesPerS +
                   steps * double(count) * fit.latencyS);
  };
  return ring(link.allReduceFit(), allReduceBytes, allReduces, 2) +
         ring(link.reduceScatterFit(), scatterBytes, scatters, 1) +
         ring(link.allGatherFit(), gatherBytes, gathers, 1);
}

// Per kernel: its products on the GEMM curve (one GEMM per head and
// sequence), its bytes through memory, whichever is longer. Per head, the
// scores S = Q K^T, P = softmax(S) and the dropped-out P_d are [seq, seq];
// the forward keeps P, P_d and the dropout's byte mask for the backward.
double tpc::unfusedAttentionSeconds(double batch, double heads, double seq,
                                    double headDim, double elementBytes,
                                    bool dropout, bool backward,
                                    const Cluster &cluster,
                                    llvm::StringRef dtype) {
  const double gemms = batch * heads;
  const double scores = gemms * seq * seq * elementBytes;
  const double mask = gemms * seq * seq; // a byte per element
  const double rows = gemms * seq * headDim * elementBytes; // a Q, K, V...
  const double flops = 2 * gemms * seq * seq * headDim;     // one product
  auto kernel = [&](double matmulFlops, double bytes) {
    return std::max(cluster.gemmSeconds(dtype, matmulFlops, gemms),
                    bytes / cluster.hbmBytesPerS);
  };
  if (!backward) {
    double s = kernel(flops, 2 * rows + scores); // S = Q K^T
    s += kernel(0, 2 * scores);                  // P = softmax(scale S + mask)
    if (dropout)
      s += kernel(0, 2 * scores + mask); // P_d and its mask
    s += kernel(flops, scores + 2 * rows); // O = P_d V
    return s;
  }
  double s = kernel(flops, 2 * rows + scores); // dP_d = dO V^T
  s += kernel(flops, scores + 2 * rows);       // dV = P_d^T dO
  if (dropout)
    s += kernel(0, 2 * scores + mask); // dP = dP_d * mask / (1 - p)
  s += kernel(0, 3 * scores);          // dS from dP and P
  s += kernel(flops, scores + 2 * rows); // dQ = dS K
  s += kernel(flops, scores + 2 * rows); // dK = dS^T Q
  return s;
}

namespace {
double tensorBytes(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return 0;
  return double(t.getNumElements()) *
         double((t.getElementTypeBitWidth() + 7) / 8);
}

/// Reads each function of a compiled module into a FunctionProfile.
class Reader {
public:
  Reader(ModuleOp module, const CompileOptions &o, const Cluster &c,
         const StepModelOptions &m)
      : o(o), c(c), m(m), symbols(module) {
    dtype = stringifyPrecision(o.precision).str();
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

  /// A roofline: the matrix products at the cluster's GEMM efficiency for
  /// their size, everything moving its bytes through HBM once.
  double roofline(Operation *op) {
    OpCostFigures cost = opCost(op);
    return std::max(c.gemmSeconds(dtype, cost.matmulFlops),
                    cost.bytes / c.hbmBytesPerS);
  }

  FunctionProfile read(func::FuncOp fn) {
    FunctionProfile p;
    enum Kind { allReduce, scatter, gather };
    auto ring = [&](Group g, double bytes, Kind kind, int64_t count = 1) {
      RingTraffic &r = p.groups[size_t(g)];
      (kind == allReduce ? r.allReduceBytes
       : kind == scatter ? r.scatterBytes
                         : r.gatherBytes) += bytes;
      (kind == allReduce ? r.allReduces
       : kind == scatter ? r.scatters
                         : r.gathers) += count;
    };
    auto copy = [&](double bytes) { p.compute += bytes / c.hbmBytesPerS; };
    fn.walk([&](Operation *op) {
      llvm::TypeSwitch<Operation *>(op)
          .Case<GetParamOp, GetGradOp, FillOp, FOp, RecvOp, SendOp,
                func::ReturnOp, func::FuncOp>([](Operation *) {})
          .Case([&](GOp g) {
            ring(Group::tp, tensorBytes(g.getType()), allReduce);
          })
          .Case([&](AllReduceOp a) {
            ring(a.getGroup(), tensorBytes(a.getType()), allReduce);
          })
          // The runtime gathers into a scratch buffer and copies the
          // pieces into place, packs a reduce-scatter's input rank by rank
          // and copies a plain scatter's share (runtime/exec/ops/
          // Collectives.cpp): each copy reads and writes its bytes.
          .Case([&](AllGatherOp a) {
            ring(a.getGroup(), tensorBytes(a.getType()), gather);
            copy(2 * tensorBytes(a.getType()));
          })
          .Case([&](SeqScatterOp s) {
            if (!s.getReduce()) {
              copy(2 * tensorBytes(s.getType()));
              return;
            }
            ring(Group::tp, tensorBytes(s.getInput().getType()), scatter);
            copy(2 * tensorBytes(s.getInput().getType()));
          })
          .Case([&](SeqGatherOp s) {
            ring(Group::tp, tensorBytes(s.getType()), gather);
            copy(2 * tensorBytes(s.getType()));
          })
          .Case([&](BucketAllReduceOp b) {
            if (b.getGroup() != Group::dp) {
              ring(b.getGroup(), bucketBytes(b.getParams(), true), allReduce);
              return;
            }
            p.bucketGradientBytes += bucketBytes(b.getParams(), true);
            p.bucketParameterBytes += bucketBytes(b.getParams(), false);
            ++p.buckets;
          })
          .Case([&](BucketReduceScatterOp b) {
            p.bucketGradientBytes += bucketBytes(b.getParams(), true);
            ++p.buckets;
          })
          .Case([&](BucketAllGatherOp b) {
            p.bucketParameterBytes += bucketBytes(b.getParams(), false);
          })
          .Case([&](VocabParallelCrossEntropyOp loss) {
            // Inside the fused loss: all-reduces of the rows' max, sum of
            // exponentials and target logit, one f32 per target each.
            double values = tensorBytes(loss.getTargets().getType());
            ring(Group::tp, 3 * values, allReduce, 3);
            p.compute += roofline(loss);
          })
          .Case([&](SelfAttentionOp a) {
            p.compute += m.unfusedAttention
                             ? unfused(a.getQkv(), a.getHeads(),
                                       a.getDropout().convertToDouble(), false)
                             : roofline(a);
          })
          .Case([&](SelfAttentionGradOp a) {
            p.compute += m.unfusedAttention
                             ? unfused(a.getQkv(), a.getHeads(),
                                       a.getDropout().convertToDouble(), true)
                             : roofline(a);
          })
          .Case<AdamWUpdateOp, SgdUpdateOp>([&](Operation *update) {
            // The program gives each update a whole parameter, which the
            // runtime shards under the distributed optimizer.
            double seconds = roofline(update);
            p.compute += seconds;
            p.update += seconds;
          })
          .Default([&](Operation *other) { p.compute += roofline(other); });
    });
    return p;
  }

private:
  /// A self-attention (or its gradient) of `qkv` [B, T, 3C] as unfused
  /// kernels.
  double unfused(Value qkv, int64_t heads, double dropout, bool backward) {
    auto t = cast<RankedTensorType>(qkv.getType());
    double width = double(t.getDimSize(2)) / 3;
    return unfusedAttentionSeconds(
        double(t.getDimSize(0)), double(heads), double(t.getDimSize(1)),
        width / double(heads), double((t.getElementTypeBitWidth() + 7) / 8),
        dropout > 0, backward, c, dtype);
  }

  const CompileOptions &o;
  const Cluster &c;
  const StepModelOptions &m;
  SymbolTable symbols;
  std::string dtype;
};

/// One function's seconds on one rank, by kind.
struct Parts {
  double compute = 0, tp = 0, dp = 0, other = 0;
  double total() const { return compute + tp + dp + other; }
};

/// Clocks profiles for one layout.
class Clock {
public:
  Clock(const StepProfile &p, const CompileOptions &o, const Cluster &c,
        const StepModelOptions &m)
      : p(p), o(o), c(c), m(m),
        scale(double(o.microBatch) /
              double(std::max<int64_t>(1, p.microBatch))) {}

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
  double comm(const FunctionProfile &f, Group g, double bytesScale) const {
    RingTraffic r = f.groups[size_t(g)];
    r.allReduceBytes *= bytesScale;
    r.scatterBytes *= bytesScale;
    r.gatherBytes *= bytesScale;
    return r.seconds(sizeOf(g), linkOf(g));
  }

  /// A function of one micro-batch: its compute and messages scale with
  /// the micro-batch size.
  Parts micro(const FunctionProfile &f) const {
    Parts t;
    t.compute = scale * f.compute;
    t.tp = comm(f, Group::tp, scale);
    t.dp = comm(f, Group::dp, scale);
    t.other = comm(f, Group::pp, scale) + comm(f, Group::embedding, scale);
    return t;
  }

  /// An apply_step; `reduce` is its gradient reduction, the part that an
  /// overlapped reduction can hide.
  Parts apply(const FunctionProfile &f, double &reduce) const {
    Parts t;
    // The distributed optimizer updates 1/dp of the parameters.
    t.compute = f.compute - f.update +
                (o.distributedOptimizer ? f.update / double(o.dp) : f.update);
    t.tp = comm(f, Group::tp, 1);
    const Link &link = linkOf(Group::dp);
    RingTraffic gradients, parameters;
    double copies = 0;
    if (o.distributedOptimizer) {
      gradients.scatterBytes = f.bucketGradientBytes;
      gradients.scatters = f.buckets;
      parameters.gatherBytes = f.bucketParameterBytes;
      parameters.gathers = f.buckets;
      copies = shardCopyBytes(f) / c.hbmBytesPerS;
    } else {
      gradients.allReduceBytes = f.bucketGradientBytes;
      gradients.allReduces = f.buckets;
    }
    reduce = gradients.seconds(o.dp, link);
    t.dp = comm(f, Group::dp, 1) + reduce + parameters.seconds(o.dp, link) +
           copies;
    t.other = comm(f, Group::pp, 1) + comm(f, Group::embedding, 1);
    return t;
  }

  /// The bytes the distributed optimizer's buckets move through memory
  /// besides the collectives (runtime/exec/ops/Collectives.cpp), where an
  /// all-reduce works in place: after a reduce-scatter, the rank's summed
  /// shard is copied into the gradients and the rest of them zeroed (the
  /// gradients written once, the shard read); before an all-gather, the
  /// rank's updated parameters are packed into one shard (read and
  /// written), and after it the gathered bucket is copied back into every
  /// parameter (read and written).
  double shardCopyBytes(const FunctionProfile &f) const {
    double shard = 1.0 / double(o.dp);
    return f.bucketGradientBytes * (1 + shard) +
           2 * f.bucketParameterBytes * (1 + shard);
  }

  /// The part of a reduction of `buckets` taking `reduce` seconds that
  /// hides behind `window` seconds of backward: all but the last bucket at
  /// most, which is final only when the backward ends.
  double hidden(double reduce, int64_t buckets, double window) const {
    if (!m.overlapGradReduce || buckets == 0)
      return 0;
    double exposed = std::max(reduce - window, reduce / double(buckets));
    return reduce - exposed;
  }

  int64_t shardable(int64_t bytes) const {
    if (o.distributedOptimizer && !p.distributedOptimizer)
      return (bytes + o.dp - 1) / o.dp;
    if (!o.distributedOptimizer && p.distributedOptimizer)
      return bytes * p.dp;
    return bytes;
  }

  const StepProfile &p;
  const CompileOptions &o;
  const Cluster &c;
  const StepModelOptions &m;
  double scale;
};
} // namespace

FailureOr<StepProfile> tpc::profileStep(ModuleOp module,
                                        const CompileOptions &compiled,
                                        const CostReport &whole,
                                        const Cluster &cluster,
                                        const StepModelOptions &model) {
  Reader reader(module, compiled, cluster, model);
  StepProfile p;
  p.tp = compiled.tp;
  p.dp = compiled.dp;
  p.pp = compiled.pp;
  p.virtualStages = compiled.virtualStages;
  p.microBatch = compiled.microBatch;
  p.distributedOptimizer = compiled.distributedOptimizer;
  p.modelFlopsPerToken = whole.modelFlopsPerToken;
  auto cut = module->getAttrOfType<DictionaryAttr>(abi::kPipelineAttr);
  if (!cut) {
    auto step = module.lookupSymbol<func::FuncOp>(abi::kTrainStep);
    auto apply = module.lookupSymbol<func::FuncOp>(abi::kApplyStep);
    if (!step || !apply)
      return module.emitError("the module has no train_step and apply_step "
                              "to time; compile it with tpc-compile");
    p.pp = p.virtualStages = 1;
    p.forward.push_back(reader.read(step));
    p.apply.push_back(reader.read(apply));
    p.fixedBytes.push_back(whole.weightBytes + whole.gradientBytes);
    p.shardableBytes.push_back(whole.masterBytes + whole.adamMBytes +
                               whole.adamVBytes);
    p.activationBytes.push_back(whole.activationBytes);
    return p;
  }
  auto slots = dyn_cast_or_null<DenseI64ArrayAttr>(cut.get("slots"));
  if (!slots || !whole.pipeline)
    return module.emitError("the module's pipeline is not scheduled");
  const int64_t P = compiled.pp, chunks = P * compiled.virtualStages;
  if (int64_t(slots.size()) != chunks)
    return module.emitError("the module's pipeline has ")
           << slots.size() << " chunks where the options give " << chunks;
  p.forward.resize(chunks);
  p.backwardInput.resize(chunks);
  p.backwardWeight.resize(chunks);
  p.apply.resize(P);
  p.slots.assign(slots.asArrayRef().begin(), slots.asArrayRef().end());
  p.slotBytes.assign(chunks, 0);
  for (auto fn : module.getOps<func::FuncOp>()) {
    auto info = fn->getAttrOfType<DictionaryAttr>(abi::kChunkFunctionAttr);
    if (!info) {
      for (int64_t s = 0; s < P; ++s)
        if (fn.getSymName() == abi::stage_apply_step(s))
          p.apply[s] = reader.read(fn);
      continue;
    }
    int64_t chunk = cast<IntegerAttr>(info.get("chunk")).getInt();
    int64_t role = cast<IntegerAttr>(info.get("role")).getInt();
    if (role == 3 || chunk < 0 || chunk >= chunks)
      continue;
    FunctionProfile f = reader.read(fn);
    for (SendOp send : fn.getOps<SendOp>())
      p.p2pBytes = std::max(p.p2pBytes, tensorBytes(send.getInput().getType()));
    if (role == 0) {
      auto slot = fn->getAttrOfType<IntegerAttr>(abi::kSlotBytesAttr);
      auto arena = fn->getAttrOfType<IntegerAttr>(abi::kArenaBytesAttr);
      p.slotBytes[chunk] = slot ? slot.getInt() : arena ? arena.getInt() : 0;
    }
    (role == 0   ? p.forward
     : role == 1 ? p.backwardInput
                 : p.backwardWeight)[chunk] = std::move(f);
  }
  for (const StageCost &s : whole.pipeline->perStage) {
    p.fixedBytes.push_back(s.weightBytes + s.gradientBytes);
    p.shardableBytes.push_back(s.masterBytes + s.adamBytes);
    p.activationBytes.push_back(s.activationBytes);
  }
  if (int64_t(p.fixedBytes.size()) != P)
    return module.emitError("the module's report has ")
           << p.fixedBytes.size() << " stages where the options give " << P;
  return p;
}

llvm::Expected<StepTime> tpc::predictStepTime(const StepProfile &profile,
                                              const CompileOptions &layout,
                                              const Cluster &cluster,
                                              const StepModelOptions &model) {
  Clock clock(profile, layout, cluster, model);
  StepTime t;
  const int64_t M = std::max<int64_t>(1, layout.microBatches
                                             ? layout.microBatches
                                             : (layout.pp > 1 ? layout.pp : 1));
  t.devices = layout.tp * layout.dp * layout.pp;
  if (profile.pp == 1) {
    Parts micro = clock.micro(profile.forward.front());
    double reduce = 0;
    Parts update = clock.apply(profile.apply.front(), reduce);
    // The backward is about two thirds of a micro-batch's work.
    double hidden = clock.hidden(reduce, profile.apply.front().buckets,
                                 2.0 / 3.0 * (micro.compute + micro.tp));
    t.compute = double(M) * micro.compute;
    t.tpComm = double(M) * micro.tp + update.tp;
    t.dpComm = double(M) * micro.dp + update.dp + update.other - hidden;
    t.optimizer = update.compute;
    t.seconds = double(M) * micro.total() + update.total() - hidden;
    t.memoryBytes =
        profile.fixedBytes.front() +
        clock.shardable(profile.shardableBytes.front()) +
        int64_t(clock.scale * double(profile.activationBytes.front()));
  } else {
    // The stage's schedule, each F, B and W taking its function's time and
    // each message the time of its bytes over the pp link.
    const int64_t P = profile.pp, V = profile.virtualStages, chunks = P * V;
    pipeline::ScheduleKind kind;
    if (!pipeline::parse_schedule(layout.schedule, kind))
      return llvm::createStringError("unknown pipeline schedule '" +
                                     layout.schedule + "'");
    std::string problem =
        pipeline::check_schedule(kind, int(P), int(V), int(M));
    if (!problem.empty())
      return llvm::createStringError(problem);
    pipeline::ChunkTimes times;
    times.forward.assign(chunks, 0);
    times.backward_input.assign(chunks, 0);
    times.backward_weight.assign(chunks, 0);
    std::vector<Parts> perStage(P);
    std::vector<double> window(P, 0);
    for (int64_t c = 0; c < chunks; ++c) {
      Parts f = clock.micro(profile.forward[c]),
            b = clock.micro(profile.backwardInput[c]),
            w = clock.micro(profile.backwardWeight[c]);
      times.forward[c] = f.total();
      times.backward_input[c] = b.total();
      times.backward_weight[c] = w.total();
      perStage[c % P].compute +=
          double(M) * (f.compute + b.compute + w.compute);
      perStage[c % P].tp += double(M) * (f.tp + b.tp + w.tp);
      window[c % P] += b.total() + w.total();
    }
    if (profile.p2pBytes > 0) {
      const Link &link = clock.linkOf(Group::pp);
      times.p2p =
          link.latencyS + clock.scale * profile.p2pBytes / link.bytesPerS;
    }
    pipeline::Schedule plan =
        pipeline::build_schedule(kind, int(P), int(V), int(M));
    pipeline::Simulation sim = pipeline::simulate(plan, times);
    int64_t busiest = 0;
    for (int64_t s = 0; s < P; ++s)
      if (sim.busy[s] > sim.busy[busiest])
        busiest = s;
    double apply = 0;
    Parts busiestApply;
    double busiestHidden = 0;
    for (int64_t s = 0; s < P; ++s) {
      double reduce = 0;
      Parts u = clock.apply(profile.apply[s], reduce);
      double h = clock.hidden(reduce, profile.apply[s].buckets, window[s]);
      apply = std::max(apply, u.total() - h);
      if (s == busiest) {
        busiestApply = u;
        busiestHidden = h;
      }
      int64_t activations = profile.activationBytes[s];
      for (int64_t c = s; c < chunks; c += P)
        activations +=
            (int64_t(plan.slots[c]) - profile.slots[c]) * profile.slotBytes[c];
      t.memoryBytes = std::max(t.memoryBytes,
                               profile.fixedBytes[s] +
                                   clock.shardable(profile.shardableBytes[s]) +
                                   int64_t(clock.scale * double(activations)));
    }
    t.seconds = sim.makespan + apply;
    t.compute = perStage[busiest].compute;
    t.tpComm = perStage[busiest].tp;
    t.bubble = sim.makespan - sim.busy[busiest];
    t.dpComm = busiestApply.dp + busiestApply.other - busiestHidden;
    t.optimizer = busiestApply.compute + busiestApply.tp;
  }
  t.tokens = double(M) * double(layout.microBatch) *
             double(layout.seq.value_or(0)) * double(layout.dp);
  t.tokensPerS = t.tokens / t.seconds;
  t.modelFlopsPerDevice =
      double(profile.modelFlopsPerToken) * t.tokensPerS / double(t.devices);
  t.mfu = t.modelFlopsPerDevice /
          cluster.peakFlops.at(stringifyPrecision(layout.precision).str());
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
  row("compute", t.compute - t.recompute);
  row("recompute", t.recompute);
  row("tensor-parallel comm", t.tpComm);
  row("data-parallel comm", t.dpComm);
  row("pipeline bubble", t.bubble);
  row("optimizer", t.optimizer);
}

void tpc::writeStepTimeJson(const StepTime &t, llvm::json::OStream &j) {
  j.attribute("devices", t.devices);
  j.attribute("step_seconds", t.seconds);
  j.attribute("tokens_per_step", t.tokens);
  j.attribute("tokens_per_second", t.tokensPerS);
  j.attribute("model_flops_per_device", t.modelFlopsPerDevice);
  j.attribute("mfu", t.mfu);
  j.attribute("memory_bytes", t.memoryBytes);
  j.attributeObject("breakdown_seconds", [&] {
    j.attribute("compute", t.compute - t.recompute);
    j.attribute("recompute", t.recompute);
    j.attribute("tp_comm", t.tpComm);
    j.attribute("dp_comm", t.dpComm);
    j.attribute("bubble", t.bubble);
    j.attribute("optimizer", t.optimizer);
  });
}

void tpc::printStepTimeJson(const StepTime &t, const Cluster &cluster,
                            llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("cluster", cluster.name);
    writeStepTimeJson(t, j);
  });
  os << "\n";
}
