//===- Search.cpp - The planner's layout search --------------------------===//

#include "compiler/Search.h"
#include "compiler/CostReport.h"
#include "runtime/program/PipelineSchedule.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace tpc;

namespace {
/// The fastest derived layouts compiled exactly before the best are chosen.
constexpr int64_t kExactlyCompiled = 5;

/// Compiles a copy of `source` with `options` and reads its profile. A
/// pipelined program's report needs the model's figures without stages:
/// `flat` is the report of tp's layout without them, compiled here when
/// unset.
FailureOr<StepProfile> compileProfile(ModuleOp source, CompileOptions &options,
                                      const Cluster &cluster,
                                      const StepModelOptions &model,
                                      std::optional<CostReport> &flat) {
  OwningOpRef<ModuleOp> copy = source.clone();
  if (failed(compile(*copy, options)))
    return failure();
  const bool full = options.recompute == "full";
  if (options.pp == 1) {
    FailureOr<CostReport> report =
        computeCostReport(*copy, CostReportConfig{options.dp, full});
    if (failed(report))
      return failure();
    if (!flat)
      flat = *report;
    return profileStep(*copy, options, *report, cluster, model);
  }
  if (!flat) {
    OwningOpRef<ModuleOp> whole = source.clone();
    CompileOptions flatOptions = withoutStages(options);
    if (failed(compile(*whole, flatOptions)))
      return failure();
    FailureOr<CostReport> report =
        computeCostReport(*whole, CostReportConfig{options.dp, full});
    if (failed(report))
      return failure();
    flat = *report;
  }
  // The stages' report reads tp, dp and the distributed optimizer of it.
  CostReport whole = *flat;
  whole.dp = options.dp;
  whole.distributedOptimizer = options.distributedOptimizer;
  FailureOr<PipelineCost> stages = computePipelineCost(*copy, whole);
  if (failed(stages))
    return failure();
  whole.pipeline = *stages;
  return profileStep(*copy, options, whole, cluster, model);
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t k = 1; k <= n; ++k)
    if (n % k == 0)
      d.push_back(k);
  return d;
}

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(message.str());
}

/// The options a layout's structure is compiled with: its tp, pp, virtual
/// stages, sequence parallelism and recompute, at micro-batch 1 with as
/// many micro-batches as stages, dp 2 where the layout has data
/// parallelism (so that its gradient buckets are there to time) and no
/// distributed optimizer.
CompileOptions structureOf(const CompileOptions &layout) {
  CompileOptions o = layout;
  o.dp = std::min<int64_t>(o.dp, 2);
  o.microBatch = 1;
  o.microBatches = o.pp;
  o.distributedOptimizer = false;
  o.schedule = o.virtualStages > 1 ? "interleaved" : "1f1b";
  return o;
}

/// What the program's structure depends on; the rest is derived.
using Key = std::tuple<int64_t, int64_t, int64_t, bool, std::string>;

class Searcher {
public:
  Searcher(ModuleOp module, const SearchOptions &s, const Cluster &cluster)
      : module(module), s(s), cluster(cluster) {}

  llvm::Expected<SearchResult> run();

private:
  /// Compiles one structure; the first error of a structure the model
  /// cannot take is kept in `reason`.
  const StepProfile *structure(const CompileOptions &options,
                               std::string &reason);
  /// Predicts the layouts derived from a structure's profile; true when
  /// one fits.
  bool derive(const StepProfile &profile, const CompileOptions &structure);
  void noteFootprint(int64_t bytes, const CompileOptions &layout) {
    if (smallestBytes < 0 || bytes < smallestBytes) {
      smallestBytes = bytes;
      smallest = layout;
    }
  }

  ModuleOp module;
  const SearchOptions &s;
  const Cluster &cluster;
  SearchResult result;
  std::map<int64_t, std::optional<CostReport>> flat;
  std::map<Key, std::optional<StepProfile>> profiles;
  std::vector<Layout> candidates;
  int64_t smallestBytes = -1;
  CompileOptions smallest;
  /// The weights and gradients of the pairs ruled out uncompiled.
  std::vector<std::pair<int64_t, CompileOptions>> bounds;
};

const StepProfile *Searcher::structure(const CompileOptions &options,
                                       std::string &reason) {
  Key key{options.tp, options.pp, options.virtualStages,
          options.sequenceParallel, options.recompute};
  auto [it, inserted] = profiles.try_emplace(key);
  if (!inserted)
    return it->second ? &*it->second : nullptr;
  CompileOptions compiled = options;
  ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &diag) {
    if (reason.empty() && diag.getSeverity() == DiagnosticSeverity::Error)
      reason = diag.str();
    return success();
  });
  ++result.compiled;
  FailureOr<StepProfile> profile =
      compileProfile(module, compiled, cluster, s.model, flat[options.tp]);
  if (failed(profile))
    return nullptr;
  it->second = std::move(*profile);
  return &*it->second;
}

bool Searcher::derive(const StepProfile &profile,
                      const CompileOptions &structure) {
  const int64_t P = structure.pp, V = structure.virtualStages;
  const int64_t dp = s.devices / (structure.tp * P);
  if (s.globalBatch % dp != 0)
    return false;
  const int64_t perRank = s.globalBatch / dp;
  std::vector<std::string> schedules = {"1f1b"};
  if (P > 1 && V == 1)
    schedules.push_back("zb-h1");
  if (V > 1)
    schedules = {"interleaved"};
  bool fits = false;
  for (int64_t b = 1; b <= 8 && b <= perRank; b *= 2) {
    if (perRank % b != 0)
      continue;
    for (const std::string &schedule : schedules)
      for (bool zero : {false, true}) {
        if (zero && dp == 1)
          continue;
        CompileOptions layout = structure;
        layout.dp = dp;
        layout.microBatch = b;
        layout.microBatches = perRank / b;
        layout.schedule = schedule;
        layout.distributedOptimizer = zero;
        pipeline::ScheduleKind kind;
        if (P > 1 && (!pipeline::parse_schedule(schedule, kind) ||
                      !pipeline::check_schedule(kind, int(P), int(V),
                                                int(layout.microBatches))
                           .empty()))
          continue;
        llvm::Expected<StepTime> t =
            predictStepTime(profile, layout, cluster, s.model);
        if (!t) {
          llvm::consumeError(t.takeError());
          continue;
        }
        ++result.derived;
        noteFootprint(t->memoryBytes, layout);
        if (t->memoryBytes > cluster.memoryBytes)
          continue;
        ++result.fit;
        fits = true;
        candidates.push_back({layout, *t});
      }
  }
  return fits;
}

llvm::Expected<SearchResult> Searcher::run() {
  auto start = std::chrono::steady_clock::now();
  const int64_t node = cluster.devicesPerNode;
  if (s.devices < 1)
    return error("--devices must be >= 1");
  if (s.globalBatch < 1)
    return error("--global-batch must be >= 1");
  if (s.devices % node != 0 && node % s.devices != 0)
    return error(llvm::formatv(
        "{0} devices are not whole nodes of {1} ({2}); give a multiple of "
        "{1}, e.g. --devices {3}",
        s.devices, node, cluster.name, (s.devices / node + 1) * node));
  const int64_t maxTp = std::min(s.maxTp ? s.maxTp : node, s.devices);

  // The model's own figures: its sequence length, layers and parameters.
  CompileOptions base;
  base.seq = s.seq;
  base.precision = s.precision;
  std::string reason;
  {
    ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &d) {
      if (reason.empty() && d.getSeverity() == DiagnosticSeverity::Error)
        reason = d.str();
      return success();
    });
    CompileOptions probe = base;
    if (failed(resolveOptions(module, probe)))
      return error(reason);
    base.seq = probe.seq;
  }
  base.microBatches = 0;
  CompileOptions first = base;
  first.dp = s.devices > 1 ? 2 : 1;
  const StepProfile *reference = structure(first, reason);
  if (!reference)
    return error(reason.empty() ? "the model does not compile" : reason);
  const CostReport &model = *flat[1];
  const int64_t layers = std::max<int64_t>(1, model.layers);

  // tp and pp pairs whose data-parallel size divides the global batch.
  std::vector<std::pair<int64_t, int64_t>> pairs;
  std::vector<int64_t> dps;
  for (int64_t tp : divisors(s.devices)) {
    if (tp > maxTp)
      break;
    for (int64_t pp : divisors(s.devices / tp)) {
      if (pp > layers)
        break;
      int64_t dp = s.devices / (tp * pp);
      dps.push_back(dp);
      if (s.globalBatch % dp == 0)
        pairs.push_back({tp, pp});
    }
  }
  if (pairs.empty()) {
    std::sort(dps.begin(), dps.end());
    dps.erase(std::unique(dps.begin(), dps.end()), dps.end());
    std::string sizes;
    for (int64_t dp : dps)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(dp);
    return error(llvm::formatv(
        "global batch {0} is not divisible by any data-parallel size that "
        "{1} devices allow (dp = devices / (tp x pp), with tp <= {2} and pp "
        "<= {3} layers: {4}); give a global batch that one of them divides, "
        "e.g. --global-batch {5}",
        s.globalBatch, s.devices, maxTp, layers, sizes,
        (s.globalBatch / dps.front() + 1) * dps.front()));
  }

  // Model states of weights and gradients alone, which no dp shards: a
  // bound below which no compile is needed to rule a pair out.
  const int64_t element = s.precision == Precision::fp32 ? 4 : 2;
  // Why the model refuses a tp (its first error), and the tps it refuses
  // whatever the pipeline.
  std::map<int64_t, std::string> rejected;
  std::set<int64_t> refused;
  for (auto [tp, pp] : pairs) {
    int64_t bound = model.globalParams * 2 * element / (tp * pp);
    CompileOptions structure = base;
    structure.tp = tp;
    structure.pp = pp;
    structure.dp = s.devices / (tp * pp) > 1 ? 2 : 1;
    if (bound > cluster.memoryBytes) {
      bounds.push_back({bound, structure});
      continue;
    }
    if (refused.count(tp))
      continue;
    // Sequence parallelism sends the all-reduces' bytes as halves and
    // divides the activations and the work between blocks by tp: it is the
    // structure compiled wherever the sequence allows it.
    structure.sequenceParallel = tp > 1 && *base.seq % tp == 0;
    std::vector<int64_t> chunks = {1};
    for (int64_t v : {2, 4})
      if (pp > 1 && pp * v <= layers)
        chunks.push_back(v);
    for (int64_t v : chunks) {
      structure.virtualStages = v;
      structure.schedule = v > 1 ? "interleaved" : "1f1b";
      structure.microBatches = pp;
      // Full recompute only adds work: it is tried where nothing fits
      // without it.
      bool fits = false;
      for (const char *recompute : {"none", "full"}) {
        if (fits)
          break;
        structure.recompute = recompute;
        std::string why;
        const StepProfile *profile = this->structure(structure, why);
        if (!profile) {
          rejected.try_emplace(tp, why);
          if (pp == 1)
            refused.insert(tp);
          break;
        }
        fits = derive(*profile, structure);
      }
      if (refused.count(tp))
        break;
    }
  }

  if (candidates.empty()) {
    // Which tps the model refuses whatever the memory, so that the fix
    // names them (the heads a tp must divide, say).
    for (int64_t tp : divisors(s.devices)) {
      if (tp > maxTp)
        break;
      if (rejected.count(tp) || flat.count(tp))
        continue;
      CompileOptions structure = base;
      structure.tp = tp;
      std::string why;
      if (!this->structure(structure, why))
        rejected.try_emplace(tp, why);
    }
    int64_t smallestBound = -1;
    CompileOptions bounded;
    for (auto &[bytes, structure] : bounds)
      if (!rejected.count(structure.tp) &&
          (smallestBound < 0 || bytes < smallestBound)) {
        smallestBound = bytes;
        bounded = structure;
      }
    std::string refused;
    for (auto &[tp, why] : rejected)
      refused += llvm::formatv("; tp {0} is not possible: {1}", tp, why).str();
    if (smallestBytes < 0 && smallestBound < 0)
      return error(llvm::formatv("no layout of {0} devices compiles{1}",
                                 s.devices, refused));
    std::string footprint =
        smallestBytes >= 0
            ? llvm::formatv("{0}, at {1}", humanBytes(smallestBytes),
                            describeLayout(smallest))
                  .str()
            : llvm::formatv("{0} of weights and gradients alone, at tp {1} "
                            "x pp {2}",
                            humanBytes(smallestBound), bounded.tp, bounded.pp)
                  .str();
    return error(llvm::formatv(
        "no layout of {0} devices fits {1} per device (the cluster's "
        "memory_bytes): the smallest footprint found is {2}{3}; use more "
        "devices, a smaller --global-batch or --seq, or a cluster with more "
        "memory per device",
        s.devices, humanBytes(cluster.memoryBytes), footprint, refused));
  }

  // Each of the fastest is then compiled as it would run, so that the
  // figures are the program's own (and the derived memory checked).
  // The fastest first; of equal ones the smaller footprint.
  auto faster = [](const Layout &a, const Layout &b) {
    return std::tie(a.time.seconds, a.time.memoryBytes) <
           std::tie(b.time.seconds, b.time.memoryBytes);
  };
  std::stable_sort(candidates.begin(), candidates.end(), faster);
  // The exact compiles can reorder the derived ranking, so as many are
  // compiled whatever --top asks for: the first choice of `--top 1` (and of
  // tpc-compile --auto) is the first of the default list.
  const int64_t pool = std::max<int64_t>(s.top, kExactlyCompiled);
  const size_t tries = size_t(3 * pool);
  for (size_t k = 0;
       k < candidates.size() && k < tries && int64_t(result.best.size()) < pool;
       ++k) {
    const Layout &candidate = candidates[k];
    std::string why;
    ScopedDiagnosticHandler capture(module.getContext(), [&](Diagnostic &d) {
      if (why.empty() && d.getSeverity() == DiagnosticSeverity::Error)
        why = d.str();
      return success();
    });
    CompileOptions exact = candidate.options;
    if (exact.pp == 1)
      exact.microBatches = 0;
    ++result.compiled;
    FailureOr<StepProfile> profile =
        compileProfile(module, exact, cluster, s.model, flat[exact.tp]);
    if (failed(profile))
      continue;
    llvm::Expected<StepTime> t =
        predictStepTime(*profile, candidate.options, cluster, s.model);
    if (!t) {
      llvm::consumeError(t.takeError());
      continue;
    }
    if (t->memoryBytes > cluster.memoryBytes)
      continue;
    if (candidate.options.recompute == "full") {
      CompileOptions none = candidate.options;
      none.recompute = "none";
      std::string unused;
      if (const StepProfile *plain = structure(structureOf(none), unused)) {
        llvm::Expected<StepTime> without =
            predictStepTime(*plain, none, cluster, s.model);
        if (without)
          t->recompute = std::max(0.0, t->compute - without->compute);
        else
          llvm::consumeError(without.takeError());
      }
    }
    result.best.push_back({candidate.options, *t});
  }
  std::stable_sort(result.best.begin(), result.best.end(), faster);
  if (int64_t(result.best.size()) > s.top)
    result.best.resize(size_t(s.top));
  if (result.best.empty())
    return error("the fastest layouts the model predicted do not fit once "
                 "compiled exactly; give the device more memory headroom");
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return std::move(result);
}
} // namespace

llvm::Expected<SearchResult> tpc::searchLayouts(ModuleOp module,
                                                const SearchOptions &search,
                                                const Cluster &cluster) {
  return Searcher(module, search, cluster).run();
}

FailureOr<StepTime> tpc::predictLayout(ModuleOp module, CompileOptions &options,
                                       const Cluster &cluster,
                                       const StepModelOptions &model) {
  std::optional<CostReport> flat;
  auto predict = [&](CompileOptions &o) -> FailureOr<StepTime> {
    FailureOr<StepProfile> profile =
        compileProfile(module, o, cluster, model, flat);
    if (failed(profile))
      return failure();
    llvm::Expected<StepTime> t = predictStepTime(*profile, o, cluster, model);
    if (!t)
      return module.emitError(llvm::toString(t.takeError()));
    return *t;
  };
  FailureOr<StepTime> t = predict(options);
  if (failed(t) || options.recompute != "full")
    return t;
  CompileOptions none = options;
  none.recompute = "none";
  FailureOr<StepTime> without = predict(none);
  if (failed(without))
    return failure();
  t->recompute = std::max(0.0, t->compute - without->compute);
  return t;
}

std::string tpc::describeLayout(const CompileOptions &o) {
  std::string text = llvm::formatv("tp {0}, pp {1}", o.tp, o.pp).str();
  if (o.pp > 1)
    text += llvm::formatv(" (V {0}, {1}, {2} micro-batches)", o.virtualStages,
                          o.schedule, o.microBatches)
                .str();
  text += llvm::formatv(", dp {0}, micro-batch {1}", o.dp, o.microBatch).str();
  if (o.pp == 1 && o.microBatches > 1)
    text += llvm::formatv(" x {0} accumulated", o.microBatches).str();
  if (o.sequenceParallel)
    text += ", sequence-parallel";
  if (o.recompute == "full")
    text += ", full recompute";
  if (o.distributedOptimizer)
    text += ", distributed optimizer";
  return text;
}

std::string tpc::compileCommand(llvm::StringRef modelFile,
                                const CompileOptions &o,
                                llvm::StringRef program) {
  std::string cmd = ("tpc-compile " + modelFile).str();
  auto flag = [&](llvm::StringRef name, auto value) {
    cmd += llvm::formatv(" --{0} {1}", name, value).str();
  };
  if (o.tp > 1)
    flag("tp", o.tp);
  if (o.pp > 1) {
    flag("pp", o.pp);
    if (o.virtualStages > 1)
      flag("virtual-stages", o.virtualStages);
    flag("schedule", o.schedule);
    flag("micro-batches", o.microBatches);
  }
  if (o.dp > 1)
    flag("dp", o.dp);
  flag("micro-batch", o.microBatch);
  if (o.seq)
    flag("seq", *o.seq);
  if (o.precision != Precision::fp32)
    flag("precision", stringifyPrecision(o.precision));
  if (o.sequenceParallel)
    cmd += " --sequence-parallel";
  if (o.recompute != "none")
    flag("recompute", o.recompute);
  if (o.distributedOptimizer)
    cmd += " --distributed-optimizer";
  return cmd + " -o " + program.str();
}

static std::string programCommand(llvm::StringRef modelFile,
                                  const CompileOptions &options) {
  std::string program = llvm::sys::path::stem(modelFile).str() + ".tpc";
  return compileCommand(modelFile, options, program);
}

void tpc::printSearchJson(const SearchResult &result,
                          const SearchOptions &search, const Cluster &cluster,
                          llvm::StringRef modelFile, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("cluster", cluster.name);
    j.attribute("devices", search.devices);
    j.attribute("global_batch", search.globalBatch);
    j.attribute("seq", result.best.front().options.seq.value_or(0));
    j.attributeObject("search", [&] {
      j.attribute("compiled", result.compiled);
      j.attribute("derived", result.derived);
      j.attribute("fit", result.fit);
      j.attribute("seconds", result.seconds);
    });
    j.attributeArray("layouts", [&] {
      for (const Layout &l : result.best)
        j.object([&] {
          const CompileOptions &o = l.options;
          j.attribute("tp", o.tp);
          j.attribute("pp", o.pp);
          j.attribute("virtual_stages", o.virtualStages);
          j.attribute("dp", o.dp);
          j.attribute("micro_batch", o.microBatch);
          j.attribute("micro_batches", o.microBatches);
          j.attribute("schedule", o.pp > 1 ? o.schedule : "");
          j.attribute("sequence_parallel", o.sequenceParallel);
          j.attribute("recompute", o.recompute);
          j.attribute("distributed_optimizer", o.distributedOptimizer);
          writeStepTimeJson(l.time, j);
          j.attribute("command", programCommand(modelFile, o));
        });
    });
  });
  os << "\n";
}

void tpc::printSearchText(const SearchResult &result,
                          const SearchOptions &search, const Cluster &cluster,
                          llvm::StringRef modelFile, llvm::raw_ostream &os) {
  const CompileOptions &best = result.best.front().options;
  os << llvm::formatv("{0} on {1} devices ({2}), global batch {3} of {4} "
                      "tokens, {5}\n",
                      modelFile, search.devices, cluster.name,
                      search.globalBatch, best.seq.value_or(0),
                      stringifyPrecision(search.precision));
  os << llvm::formatv("searched {0} layouts from {1} compiled programs in "
                      "{2:F1} s; {3} fit {4} per device\n",
                      result.derived, result.compiled, result.seconds,
                      result.fit, humanBytes(cluster.memoryBytes));
  auto seconds = [](double s) {
    return s >= 1 ? llvm::formatv("{0:F3} s", s).str()
                  : llvm::formatv("{0:F2} ms", s * 1e3).str();
  };
  int rank = 0;
  for (const Layout &l : result.best) {
    const StepTime &t = l.time;
    os << llvm::formatv("\n#{0}  {1}\n", ++rank, describeLayout(l.options));
    os << llvm::formatv("    step {0}, {1:F0} tokens/s, {2:F1} TFLOP/s per "
                        "device, MFU {3:F1}%, memory {4} per rank\n",
                        seconds(t.seconds), t.tokensPerS,
                        t.modelFlopsPerDevice / 1e12, 100 * t.mfu,
                        humanBytes(t.memoryBytes));
    os << llvm::formatv("    compute {0}, exposed TP {1}, exposed DP {2}, "
                        "bubble {3}, recompute {4}, optimizer {5}\n",
                        seconds(t.compute - t.recompute), seconds(t.tpComm),
                        seconds(t.dpComm), seconds(t.bubble),
                        seconds(t.recompute), seconds(t.optimizer));
    os << "    " << programCommand(modelFile, l.options);
    if (l.options.pp == 1 && l.options.microBatches > 1)
      os << llvm::formatv("  (tpc-run train --grad-accum {0})",
                          l.options.microBatches);
    os << "\n";
  }
}
