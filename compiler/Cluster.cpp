//===- Cluster.cpp - Reading a cluster description -----------------------===//

#include "compiler/Cluster.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <optional>

using namespace tpc;
using llvm::StringRef;
using llvm::Twine;

double tpc::interpolateGemmCurve(const GemmCurve &curve, double flops) {
  if (flops <= curve.front().first)
    return curve.front().second;
  if (flops >= curve.back().first)
    return curve.back().second;
  auto hi = std::upper_bound(
      curve.begin(), curve.end(), flops,
      [](double f, const std::pair<double, double> &p) { return f < p.first; });
  auto lo = std::prev(hi);
  double w = std::log(flops / lo->first) / std::log(hi->first / lo->first);
  return lo->second + w * (hi->second - lo->second);
}

double Cluster::gemmEfficiencyAt(StringRef dtype, double flops) const {
  auto curve = gemmCurve.find(dtype.str());
  return curve == gemmCurve.end() ? gemmEfficiency
                                  : interpolateGemmCurve(curve->second, flops);
}

double Cluster::gemmSeconds(StringRef dtype, double flops, double gemms) const {
  if (!(flops > 0))
    return 0;
  double each = flops / std::max(gemms, 1.0);
  return flops / (peakFlops.at(dtype.str()) * gemmEfficiencyAt(dtype, each));
}

llvm::Expected<Cluster> tpc::readCluster(StringRef path) {
  auto fail = [&](const Twine &what) {
    return llvm::createStringError(
        (path + ": " + what +
         "; see compiler/clusters/*.json for the fields a cluster file has")
            .str());
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return llvm::createStringError((path + ": cannot read the cluster file (" +
                                    buffer.getError().message() + ")")
                                       .str());
  llvm::Expected<llvm::json::Value> value =
      llvm::json::parse((*buffer)->getBuffer());
  if (!value)
    return fail("not JSON (" + llvm::toString(value.takeError()) + ")");
  const llvm::json::Object *o = value->getAsObject();
  if (!o)
    return fail("not a JSON object");
  Cluster c;
  if (auto name = o->getString("name"))
    c.name = name->str();
  auto positive = [&](const llvm::json::Object &from, StringRef key,
                      double &into) -> llvm::Error {
    std::optional<double> v = from.getNumber(key);
    if (!v || !(*v > 0))
      return fail("'" + key + "' must be a positive number");
    into = *v;
    return llvm::Error::success();
  };
  double perNode = 0, memory = 0;
  if (llvm::Error e = positive(*o, "devices_per_node", perNode))
    return std::move(e);
  if (llvm::Error e = positive(*o, "memory_bytes", memory))
    return std::move(e);
  c.devicesPerNode = static_cast<int64_t>(perNode);
  c.memoryBytes = static_cast<int64_t>(memory);
  if (llvm::Error e = positive(*o, "hbm_bytes_per_s", c.hbmBytesPerS))
    return std::move(e);
  if (llvm::Error e = positive(*o, "gemm_efficiency", c.gemmEfficiency))
    return std::move(e);
  if (c.gemmEfficiency > 1)
    return fail("'gemm_efficiency' is a fraction of the peak, at most 1");
  const llvm::json::Object *peaks = o->getObject("peak_flops");
  if (!peaks)
    return fail("'peak_flops' must be an object of FLOP/s per dtype");
  for (StringRef dtype : {"fp32", "bf16", "fp16"})
    if (llvm::Error e = positive(*peaks, dtype, c.peakFlops[dtype.str()]))
      return std::move(e);
  if (const llvm::json::Value *curves = o->get("gemm_curve")) {
    const llvm::json::Object *perDtype = curves->getAsObject();
    if (!perDtype)
      return fail("'gemm_curve' must be an object of [[flops, efficiency], "
                  "...] per dtype");
    for (const auto &[key, value] : *perDtype) {
      StringRef dtype = key;
      std::string where = ("'gemm_curve." + dtype + "'").str();
      if (!c.peakFlops.count(dtype.str()))
        return fail(where + " names no dtype of 'peak_flops' (fp32, bf16, "
                            "fp16)");
      const llvm::json::Array *points = value.getAsArray();
      if (!points || points->empty())
        return fail(where + " must be a non-empty array of [flops, "
                            "efficiency] points");
      GemmCurve &curve = c.gemmCurve[dtype.str()];
      for (const llvm::json::Value &point : *points) {
        const llvm::json::Array *pair = point.getAsArray();
        std::optional<double> flops, efficiency;
        if (pair && pair->size() == 2) {
          flops = (*pair)[0].getAsNumber();
          efficiency = (*pair)[1].getAsNumber();
        }
        if (!flops || !efficiency || !(*flops > 0) ||
            !(*efficiency > 0 && *efficiency <= 1))
          return fail(where + " has a point that is not [flops > 0, 0 < "
                              "efficiency <= 1]");
        if (!curve.empty() && !(*flops > curve.back().first))
          return fail(where + "'s points must be in increasing flops");
        curve.emplace_back(*flops, *efficiency);
      }
    }
  }
  for (auto [key, link] : {std::make_pair("intra_node", &c.intraNode),
                           std::make_pair("inter_node", &c.interNode)}) {
    const llvm::json::Object *l = o->getObject(key);
    if (!l)
      return fail(Twine("'") + key +
                  "' must be an object with bytes_per_s "
                  "and latency_s");
    auto ring = [&](const llvm::json::Object &from, const Twine &where,
                    RingFit &into) -> llvm::Error {
      if (llvm::Error e = positive(from, "bytes_per_s", into.bytesPerS))
        return e;
      std::optional<double> latency = from.getNumber("latency_s");
      if (!latency || *latency < 0)
        return fail("'" + where + ".latency_s' must be a number >= 0");
      into.latencyS = *latency;
      return llvm::Error::success();
    };
    RingFit all;
    if (llvm::Error e = ring(*l, key, all))
      return std::move(e);
    link->bytesPerS = all.bytesPerS;
    link->latencyS = all.latencyS;
    for (auto [half, into] :
         {std::make_pair("reduce_scatter", &link->reduceScatter),
          std::make_pair("all_gather", &link->allGather)}) {
      const llvm::json::Value *fit = l->get(half);
      if (!fit)
        continue;
      const llvm::json::Object *h = fit->getAsObject();
      if (!h)
        return fail(Twine("'") + key + "." + half +
                    "' must be an object with bytes_per_s and latency_s");
      if (llvm::Error e = ring(*h, Twine(key) + "." + half, into->emplace()))
        return std::move(e);
    }
  }
  return c;
}
