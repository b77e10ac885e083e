//===- Calibrate.cpp - tpc-plan calibrate: a cluster file of this machine -===//
//
// tpc-run measures (runtime/run/CalibrateCommand.cpp); this file launches
// it and turns its figures into the fields of a cluster file: the peak of a
// dtype is the best GEMM rate measured, and the curve is every measured
// GEMM's rate against that peak.
//
//===----------------------------------------------------------------------===//

#include "tools/tpc-plan/Calibrate.h"

#include "compiler/Cluster.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace {
int fail(const Twine &message) {
  WithColor::error(errs(), "tpc-plan") << message << "\n";
  return 1;
}

/// The tpc-run beside this tpc-plan, else the one on PATH.
std::string findTpcRun() {
  std::string self = sys::fs::getMainExecutable(nullptr, nullptr);
  if (!self.empty()) {
    SmallString<256> sibling(sys::path::parent_path(self));
    sys::path::append(sibling, "tpc-run");
    if (sys::fs::can_execute(sibling))
      return std::string(sibling);
  }
  if (ErrorOr<std::string> onPath = sys::findProgramByName("tpc-run"))
    return *onPath;
  return "";
}

/// A measured link, {"latency_s": ..., "bytes_per_s": ...}, of `from`.
std::optional<tpc::Link> linkOf(const json::Object &from, StringRef key) {
  const json::Object *l = from.getObject(key);
  if (!l)
    return std::nullopt;
  std::optional<double> latency = l->getNumber("latency_s"),
                        bandwidth = l->getNumber("bytes_per_s");
  if (!latency || !bandwidth || !(*bandwidth > 0))
    return std::nullopt;
  return tpc::Link{*bandwidth, *latency};
}
} // namespace

CLI::App *tpc::addCalibrateCommand(CLI::App &app, CalibrateOptions &options) {
  CLI::App *sub = app.add_subcommand(
      "calibrate",
      "Measure this machine with `mpirun -np R tpc-run calibrate --json` "
      "(GEMM rates by shape per dtype, memory bandwidth, all-reduce, "
      "reduce-scatter, all-gather and send/recv) and write a cluster file "
      "for `tpc-plan time --cluster`");
  sub->add_option("-o,--output", options.output, "The cluster file to write")
      ->required();
  sub->add_option("--ranks", options.ranks,
                  "Ranks on this machine, as the layouts to plan will run "
                  "(devices_per_node; the collectives need 2 or more)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--threads", options.threads,
                  "Threads per rank, as the runs to plan will use (default: "
                  "tpc-run's, the cores shared by the ranks)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--tpc-run", options.tpcRun,
                  "The tpc-run to measure with (default: the one beside "
                  "tpc-plan, else on PATH)");
  sub->add_option("--mpirun", options.mpirun,
                  "The MPI launcher of --ranks 2 or more")
      ->capture_default_str();
  sub->add_option("--backend", options.backend,
                  "tpc-run's backend: cpu, or cuda in a build with it")
      ->capture_default_str();
  sub->add_flag("--quick", options.quick,
                "A few shapes and sizes, one timed call each: a smoke run, "
                "not figures to plan with");
  return sub;
}

int tpc::runCalibrate(const CalibrateOptions &options) {
  std::string tpcRun = options.tpcRun.empty() ? findTpcRun() : options.tpcRun;
  if (tpcRun.empty() || !sys::fs::can_execute(tpcRun))
    return fail("calibrate needs tpc-run: build it beside tpc-plan, put it "
                "on PATH or give --tpc-run PATH");
  std::vector<std::string> args;
  if (options.ranks > 1) {
    ErrorOr<std::string> mpirun = sys::findProgramByName(options.mpirun);
    if (!mpirun)
      return fail("calibrate --ranks " + Twine(options.ranks) + " needs " +
                  options.mpirun +
                  " (openmpi-bin), or --mpirun PATH, or --ranks 1");
    args = {*mpirun, "-np", std::to_string(options.ranks)};
  }
  args.insert(args.end(), {tpcRun, "--backend", options.backend});
  if (options.threads > 0)
    args.insert(args.end(), {"--threads", std::to_string(options.threads)});
  args.insert(args.end(), {"calibrate", "--json"});
  if (options.quick)
    args.push_back("--quick");

  SmallString<128> out, err;
  for (auto [path, suffix] :
       {std::make_pair(&out, "out"), std::make_pair(&err, "err")})
    if (std::error_code ec =
            sys::fs::createTemporaryFile("tpc-calibrate", suffix, *path))
      return fail("cannot create a temporary file: " + ec.message());
  FileRemover removeOut(out), removeErr(err);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out),
                                          StringRef(err)};
  SmallVector<StringRef> argv(args.begin(), args.end());
  std::string launchError;
  int status = sys::ExecuteAndWait(args.front(), argv, std::nullopt, redirects,
                                   0, 0, &launchError);
  std::string command = join(args, " ");
  ErrorOr<std::unique_ptr<MemoryBuffer>> stdoutText =
      MemoryBuffer::getFile(out);
  ErrorOr<std::unique_ptr<MemoryBuffer>> stderrText =
      MemoryBuffer::getFile(err);
  if (status != 0 || !stdoutText)
    return fail("`" + command + "` failed" +
                (launchError.empty() ? "" : " (" + launchError + ")") +
                (stderrText ? ":\n" + (*stderrText)->getBuffer() : ""));
  Expected<json::Value> parsed = json::parse((*stdoutText)->getBuffer());
  if (!parsed)
    return fail("`" + command + "` printed no JSON object (" +
                toString(parsed.takeError()) + ")");
  const json::Object *m = parsed->getAsObject();
  const json::Object *gemms = m ? m->getObject("gemm") : nullptr;
  const json::Object *memory = m ? m->getObject("memory") : nullptr;
  std::optional<double> bandwidth =
      memory ? memory->getNumber("bytes_per_s") : std::nullopt;
  std::optional<double> ram =
      m ? m->getNumber("host_memory_bytes") : std::nullopt;
  if (!gemms || !bandwidth || !ram)
    return fail("`" + command +
                "` printed JSON without gemm, memory and "
                "host_memory_bytes; is " +
                tpcRun + " of this build?");

  // Per dtype: the peak, the best rate measured, and each GEMM's fraction
  // of it.
  std::map<std::string, double> peaks;
  std::map<std::string, tpc::GemmCurve> curves;
  for (StringRef dtype : {"fp32", "bf16", "fp16"}) {
    const json::Array *points = gemms->getArray(dtype);
    if (!points || points->empty())
      return fail("the " + options.backend + " backend measured no " + dtype +
                  " GEMM; a cluster file needs fp32, bf16 and fp16 peaks");
    std::vector<std::pair<double, double>> rates;
    for (const json::Value &p : *points) {
      const json::Object *o = p.getAsObject();
      std::optional<double> flops = o ? o->getNumber("flops") : std::nullopt;
      std::optional<double> seconds =
          o ? o->getNumber("seconds") : std::nullopt;
      if (flops && seconds && *flops > 0 && *seconds > 0)
        rates.emplace_back(*flops, *flops / *seconds);
    }
    if (rates.empty())
      return fail("no " + dtype + " GEMM was timed");
    double peak = 0;
    for (auto [flops, rate] : rates)
      peak = std::max(peak, rate);
    peaks[dtype.str()] = peak;
    for (auto [flops, rate] : rates)
      curves[dtype.str()].emplace_back(flops, rate / peak);
  }

  const int64_t ranks = options.ranks;
  std::optional<tpc::Link> link = linkOf(*m, "all_reduce");
  std::optional<tpc::Link> message = linkOf(*m, "send_recv");
  // The library's reduce-scatters and all-gathers, each by its own fit.
  if (link) {
    if (std::optional<tpc::Link> scatter = linkOf(*m, "reduce_scatter"))
      link->reduceScatter = scatter->allReduceFit();
    if (std::optional<tpc::Link> gather = linkOf(*m, "all_gather"))
      link->allGather = gather->allReduceFit();
  }
  if (ranks > 1 && !link)
    return fail("`" + command +
                "` printed no all-reduce fit with a positive bandwidth");
  // One rank measures no collective; a copy between two ranks of one host
  // goes through its memory.
  tpc::Link intra = link.value_or(tpc::Link{*bandwidth, 0});
  std::string linkSource =
      link ? formatv("intra_node is the fit of all-reduces over the {0} ranks "
                     "to a ring (latency per ring step, bytes per second), "
                     "and its reduce_scatter and all_gather the fits of "
                     "those collectives to half a ring each",
                     ranks)
                 .str()
           : std::string("intra_node is the memory bandwidth with no latency, "
                         "since one rank measures no collective");
  const int64_t reps = m->getInteger("reps").value_or(1);
  std::string source = formatv(
      "Measured by tpc-plan calibrate (`{0}`){1}: peak_flops is the best GEMM "
      "rate measured per dtype and gemm_curve each measured GEMM's fraction "
      "of it by its FLOPs (the median of {2} call{3} taking turns with the "
      "other shapes, the slowest rank's); "
      "hbm_bytes_per_s is a rank's bandwidth in the f32 a + b kernel with "
      "every rank running it; {4}; inter_node is the same as intra_node, "
      "since one machine has no link between nodes; memory_bytes is the "
      "host's memory divided by the ranks.",
      command, options.quick ? " with --quick, a smoke run" : "", reps,
      reps == 1 ? "" : "s", linkSource);

  std::string error;
  std::unique_ptr<ToolOutputFile> file =
      mlir::openOutputFile(options.output, &error);
  if (!file)
    return fail(error);
  {
    std::string backend = options.backend;
    json::OStream j(file->os(), 2);
    auto writeFit = [&](const tpc::RingFit &f) {
      j.attribute("bytes_per_s", f.bytesPerS);
      j.attribute("latency_s", f.latencyS);
    };
    auto writeLink = [&](const tpc::Link &l) {
      j.object([&] {
        writeFit(l.allReduceFit());
        for (auto [key, fit] :
             {std::make_pair("reduce_scatter", &l.reduceScatter),
              std::make_pair("all_gather", &l.allGather)})
          if (*fit)
            j.attributeObject(key, [&] { writeFit(**fit); });
      });
    };
    j.object([&] {
      j.attribute("name", formatv("this machine: {0} backend, {1} rank{2} "
                                  "(tpc-plan calibrate)",
                                  backend, ranks, ranks == 1 ? "" : "s")
                              .str());
      j.attribute("source", source);
      j.attribute("devices_per_node", ranks);
      j.attribute("memory_bytes", int64_t(*ram / double(ranks)));
      j.attributeObject("peak_flops", [&] {
        for (const auto &[dtype, peak] : peaks)
          j.attribute(dtype, peak);
      });
      j.attribute("hbm_bytes_per_s", *bandwidth);
      // Used for a dtype without a curve: the largest GEMM's.
      j.attribute("gemm_efficiency", curves["fp32"].back().second);
      j.attributeObject("gemm_curve", [&] {
        for (const auto &[dtype, curve] : curves)
          j.attributeArray(dtype, [&] {
            for (auto [flops, efficiency] : curve)
              j.rawValue(
                  formatv("[{0:F0}, {1}]", flops, format("%.4g", efficiency))
                      .str());
          });
      });
      j.attributeBegin("intra_node");
      writeLink(intra);
      j.attributeEnd();
      j.attributeBegin("inter_node");
      writeLink(intra);
      j.attributeEnd();
      if (message) {
        j.attributeBegin("send_recv");
        writeLink(*message);
        j.attributeEnd();
      }
    });
    file->os() << "\n";
  }
  file->keep();
  file.reset(); // closed, so that it reads back
  // What was written must read back.
  Expected<tpc::Cluster> check = tpc::readCluster(options.output);
  if (!check)
    return fail(toString(check.takeError()));
  outs() << formatv("wrote {0}: fp32 {1:F1}, bf16 {2:F1}, fp16 {3:F1} "
                    "GFLOP/s peak, {4:F1} GB/s memory, link {5:F2} GB/s + "
                    "{6:F1} us",
                    options.output, peaks["fp32"] / 1e9, peaks["bf16"] / 1e9,
                    peaks["fp16"] / 1e9, *bandwidth / 1e9,
                    intra.bytesPerS / 1e9, 1e6 * intra.latencyS);
  for (auto [what, fit] :
       {std::make_pair("reduce-scatter", &intra.reduceScatter),
        std::make_pair("all-gather", &intra.allGather)})
    if (*fit)
      outs() << formatv(", {0} {1:F2} GB/s + {2:F1} us", what,
                        (*fit)->bytesPerS / 1e9, 1e6 * (*fit)->latencyS);
  outs() << "\n";
  return 0;
}
