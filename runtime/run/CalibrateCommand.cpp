//===- CalibrateCommand.cpp - tpc-run calibrate: this machine's figures ---===//
//
// What the planner's device model needs of the machine tpc runs on,
// measured through the backend's own kernel tables and collectives, so that
// the figures are those of the kernels a program runs: the GEMM rate per
// dtype over shapes from small to large, the memory bandwidth of a
// memory-bound kernel and, under mpirun with two ranks or more, the times
// of all-reduces, reduce-scatters, all-gathers and send/recv at several
// sizes, each fitted to latency + bytes / bandwidth (an MPI library runs
// each collective by its own algorithm, so the three rings need not move a
// byte at the same rate). Every rank measures at once (a training step keeps
// them all busy) and a figure is the slowest rank's. `tpc-plan calibrate` turns
// the JSON form into a cluster file.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/backend/Collectives.h"
#include "runtime/backends/cpu/Threads.h"
#include "runtime/run/Command.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tpc {

namespace {

/// What one rank measures; the figures are the slowest rank's.
struct GemmPoint {
  int m, n, k;
  double seconds;
  double flops() const { return 2.0 * double(m) * n * k; }
};
struct SizePoint {
  double bytes, seconds;
};
/// seconds = latency + bytes / bytes_per_s over a set of points.
struct LinkFit {
  double latency = 0, bytes_per_s = 0;
};

class Calibration {
public:
  Calibration(Comm &comm, Backend &backend, bool quick)
      : comm_(comm), backend_(backend), reps_(quick ? 1 : kReps),
        min_sample_(quick ? 0 : kMinSample), quick_(quick) {}

  static constexpr int kReps = 7;
  static constexpr double kMinSample = 0.02; // seconds

  /// The median over reps_ samples of the seconds of one call of each of
  /// `fns`, the slowest rank's. A sample times as many calls as last
  /// kMinSample together, so that a call of microseconds and one of tens of
  /// milliseconds are exposed alike to the other processes of a shared
  /// machine (the median of single short calls would leave out every
  /// preempted one, where a long call always has its share). The samples
  /// take turns, one of each fn per round, so that a slow stretch falls on
  /// all of them alike; every rank starts each sample together. With
  /// `repeat`, each sample first makes one untimed call: a collective of a
  /// training step repeats the call before it, where the turns would
  /// otherwise time each size after another (an MPI library's temporary
  /// buffer of another size, returned to the system and faulted in again).
  std::vector<double> time(const std::vector<std::function<void()>> &fns,
                           bool repeat = false) {
    std::vector<double> once(fns.size());
    for (size_t i = 0; i < fns.size(); ++i) {
      fns[i](); // warm-up: caches, a library's plan for the shape
      backend_.synchronize();
      once[i] = seconds_of(fns[i], 1);
    }
    // Every rank makes the same calls, which collectives need.
    comm_.all_reduce(once.data(), once.size(), ReduceOp::Max, Group::World);
    std::vector<int> calls(fns.size());
    for (size_t i = 0; i < fns.size(); ++i)
      calls[i] = int(std::clamp(std::ceil(min_sample_ / once[i]), 1.0, 1e6));
    std::vector<std::vector<double>> t(fns.size());
    for (int r = 0; r < reps_; ++r)
      for (size_t i = 0; i < fns.size(); ++i)
        t[i].push_back(seconds_of(fns[i], calls[i], repeat) / calls[i]);
    std::vector<double> medians;
    for (std::vector<double> &each : t) {
      std::nth_element(each.begin(), each.begin() + each.size() / 2,
                       each.end());
      medians.push_back(each[each.size() / 2]);
    }
    comm_.all_reduce(medians.data(), medians.size(), ReduceOp::Max,
                     Group::World);
    return medians;
  }

  /// GEMMs of m n k from 2^15 to 2^30 in the forward pass's layout: n = k
  /// and m (the rows, a batch's tokens) up to 4 times that.
  std::vector<GemmPoint> gemms(ElementType dtype) {
    const Kernels &kt = *backend_.kernels(dtype);
    std::vector<GemmPoint> points;
    std::vector<std::function<void()>> calls;
    std::vector<std::unique_ptr<Buffer>> buffers;
    for (int e = 15; e <= 30; e += quick_ ? 5 : 1) {
      int nk = 1 << (e / 3), m = 1 << (e - 2 * (e / 3));
      size_t a = size_t(m) * nk, b = size_t(nk) * nk, c = size_t(m) * nk;
      void *A = buffer(buffers, a * element_size(dtype));
      void *B = buffer(buffers, b * element_size(dtype));
      void *C = buffer(buffers, c * element_size(dtype));
      kt.fill(A, 0.25f, a);
      kt.fill(B, -0.5f, b);
      points.push_back({m, nk, nk, 0});
      calls.push_back([&kt, m, nk, A, B, C] {
        kt.gemm(false, false, m, nk, nk, 1.0f, A, nk, B, nk, 0.0f, C, nk);
      });
    }
    std::vector<double> seconds = time(calls);
    for (size_t i = 0; i < points.size(); ++i)
      points[i].seconds = seconds[i];
    return points;
  }

  /// out = a + b over f32 tensors well past the caches: 3 n x 4 bytes.
  SizePoint bandwidth() {
    const Kernels &kt = *backend_.kernels(ElementType::F32);
    size_t n = size_t(1) << (quick_ ? 22 : 25), bytes = n * sizeof(float);
    Buffer a(backend_, bytes), b(backend_, bytes), out(backend_, bytes);
    kt.fill(a.ptr, 1.0f, n);
    kt.fill(b.ptr, 2.0f, n);
    double s =
        time({[&] { kt.residual_forward(out.ptr, a.ptr, b.ptr, n); }})[0];
    return {3.0 * double(bytes), s};
  }

  /// In-place f32 all-reduces over the world.
  std::vector<SizePoint> all_reduces(Collectives &coll) {
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<std::function<void()>> calls;
    for (size_t bytes : sizes()) {
      void *data = buffer(buffers, bytes);
      backend_.zero(data, bytes);
      calls.push_back([&coll, data, bytes] {
        coll.all_reduce(data, bytes / sizeof(float), ElementType::F32,
                        ReduceOp::Sum, Group::World);
      });
    }
    return points_of(time(calls, true), 1.0);
  }

  /// f32 reduce-scatters over the world of tensors of sizes() bytes, each
  /// rank receiving its 1/g of the sum.
  std::vector<SizePoint> reduce_scatters(Collectives &coll) {
    return halves(coll, true);
  }
  /// f32 all-gathers over the world into tensors of sizes() bytes, each
  /// rank giving its 1/g.
  std::vector<SizePoint> all_gathers(Collectives &coll) {
    return halves(coll, false);
  }

  /// One message's time from rank 0 to rank 1: half a round trip.
  std::vector<SizePoint> messages(Collectives &coll) {
    const int rank = comm_.world_rank();
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<std::function<void()>> calls;
    for (size_t bytes : sizes()) {
      void *data = buffer(buffers, bytes);
      backend_.zero(data, bytes);
      calls.push_back([&coll, rank, data, bytes] {
        if (rank == 0) {
          coll.send(data, bytes, 1, Group::World, 0);
          coll.wait_recv(coll.start_recv(data, bytes, 1, Group::World, 1));
        } else if (rank == 1) {
          coll.wait_recv(coll.start_recv(data, bytes, 0, Group::World, 0));
          coll.send(data, bytes, 0, Group::World, 1);
        }
      });
    }
    return points_of(time(calls, true), 0.5);
  }

private:
  /// Seconds of `calls` calls of fn, started with every rank.
  double seconds_of(const std::function<void()> &fn, int calls,
                    bool repeat = false) {
    if (repeat)
      fn();
    comm_.barrier();
    auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c)
      fn();
    backend_.synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  }

  /// A device buffer freed when it goes.
  struct Buffer {
    Buffer(Backend &backend, size_t bytes)
        : backend(backend), ptr(backend.alloc(bytes)) {}
    ~Buffer() { backend.free(ptr); }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
    Backend &backend;
    void *ptr;
  };
  void *buffer(std::vector<std::unique_ptr<Buffer>> &into, size_t bytes) {
    into.push_back(std::make_unique<Buffer>(backend_, bytes));
    return into.back()->ptr;
  }

  /// The ring halves; a point's bytes are the whole tensor's, as an
  /// all-reduce's are.
  std::vector<SizePoint> halves(Collectives &coll, bool scatter) {
    const size_t g = size_t(comm_.world_size());
    std::vector<std::unique_ptr<Buffer>> buffers;
    std::vector<std::function<void()>> calls;
    std::vector<double> whole;
    for (size_t bytes : sizes()) {
      size_t n = std::max<size_t>(1, bytes / sizeof(float) / g);
      void *all = buffer(buffers, n * g * sizeof(float));
      void *part = buffer(buffers, n * sizeof(float));
      backend_.zero(all, n * g * sizeof(float));
      backend_.zero(part, n * sizeof(float));
      whole.push_back(double(n * g * sizeof(float)));
      calls.push_back([&coll, scatter, all, part, n] {
        if (scatter)
          coll.reduce_scatter(all, part, n, ElementType::F32, Group::World);
        else
          coll.all_gather(part, all, n, ElementType::F32, Group::World);
      });
    }
    std::vector<double> seconds = time(calls, true);
    std::vector<SizePoint> points;
    for (size_t i = 0; i < seconds.size(); ++i)
      points.push_back({whole[i], seconds[i]});
    return points;
  }

  /// Message sizes from 4 KiB to 64 MiB.
  std::vector<size_t> sizes() const {
    std::vector<size_t> s;
    for (int e = 12; e <= 26; e += quick_ ? 7 : 2)
      s.push_back(size_t(1) << e);
    return s;
  }
  std::vector<SizePoint> points_of(const std::vector<double> &seconds,
                                   double scale) const {
    std::vector<size_t> bytes = sizes();
    std::vector<SizePoint> points;
    for (size_t i = 0; i < bytes.size(); ++i)
      points.push_back({double(bytes[i]), scale * seconds[i]});
    return points;
  }

  Comm &comm_;
  Backend &backend_;
  int reps_;
  double min_sample_;
  bool quick_;
};

/// Least squares of seconds = a + b * scale * bytes, each point weighted by
/// 1 / seconds^2 so that the small messages set the latency and the large
/// ones the bandwidth; a negative a is taken as 0. The latency is a /
/// `steps`, the bandwidth 1 / b.
LinkFit fit(const std::vector<SizePoint> &points, double scale, double steps) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const SizePoint &p : points) {
    double w = 1.0 / (p.seconds * p.seconds), x = scale * p.bytes;
    sw += w;
    sx += w * x;
    sy += w * p.seconds;
    sxx += w * x * x;
    sxy += w * x * p.seconds;
  }
  double det = sw * sxx - sx * sx;
  double a = det > 0 ? (sxx * sy - sx * sxy) / det : 0;
  double b = det > 0 ? (sw * sxy - sx * sy) / det : 0;
  if (a < 0 || !(b > 0)) {
    a = 0;
    b = sxy / sxx;
  }
  return {a / steps, b > 0 ? 1.0 / b : 0};
}

const char *dtype_key(ElementType dtype) {
  switch (dtype) {
  case ElementType::F32:
    return "fp32";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F16:
    return "fp16";
  case ElementType::I32:
    break;
  }
  return "i32";
}

double host_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0;
}

void print_points(const char *key, const std::vector<SizePoint> &points,
                  const LinkFit &f, bool last) {
  std::printf("  \"%s\": {\"latency_s\": %.6g, \"bytes_per_s\": %.6g, "
              "\"points\": [",
              key, f.latency, f.bytes_per_s);
  for (size_t i = 0; i < points.size(); ++i)
    std::printf("%s[%.0f, %.6g]", i ? ", " : "", points[i].bytes,
                points[i].seconds);
  std::printf("]}%s\n", last ? "" : ",");
}

} // namespace

void add_calibrate_flags(CLI::App &app, CommandOptions &opt) {
  app.add_flag("--json", opt.json,
               "Print one JSON object (what `tpc-plan calibrate` reads)");
  app.add_flag("--quick", opt.quick,
               "A few shapes and sizes, one timed call each: a smoke run");
}

int calibrate_command(Comm &comm, const CommandOptions &opt) {
  const bool root = comm.world_rank() == 0;
  const int threads =
      opt.threads > 0 ? opt.threads : default_threads(comm.local_size());
  set_threads(threads);
  std::unique_ptr<Backend> backend =
      make_backend(opt.backend, {opt.device, opt.tf32, opt.cpu_gemm});
  Calibration cal(comm, *backend, opt.quick);

  std::vector<std::pair<ElementType, std::vector<GemmPoint>>> gemms;
  for (ElementType dtype :
       {ElementType::F32, ElementType::BF16, ElementType::F16})
    if (backend->kernels(dtype))
      gemms.emplace_back(dtype, cal.gemms(dtype));
  SizePoint memory = cal.bandwidth();
  std::vector<SizePoint> reduces, scatters, gathers, sends;
  LinkFit reduceFit, scatterFit, gatherFit, sendFit;
  const int g = comm.world_size();
  if (g > 1) {
    std::unique_ptr<Collectives> coll = make_collectives(*backend, comm);
    // A ring all-reduce sends 2 (g - 1) / g of the tensor in 2 (g - 1)
    // steps, as the step-time model counts it.
    reduces = cal.all_reduces(*coll);
    reduceFit = fit(reduces, 2.0 * (g - 1) / g, 2.0 * (g - 1));
    // A reduce-scatter or an all-gather, half of that ring.
    scatters = cal.reduce_scatters(*coll);
    scatterFit = fit(scatters, double(g - 1) / g, double(g - 1));
    gathers = cal.all_gathers(*coll);
    gatherFit = fit(gathers, double(g - 1) / g, double(g - 1));
    sends = cal.messages(*coll);
    sendFit = fit(sends, 1.0, 1.0);
  }
  if (!root)
    return 0;

  if (!opt.json) {
    std::printf("backend %s, %d rank%s x %d thread%s\n",
                backend->name().c_str(), g, g == 1 ? "" : "s", threads,
                threads == 1 ? "" : "s");
    for (const auto &[dtype, points] : gemms) {
      std::printf("%s GEMM (m x n x k: GFLOP/s)\n", dtype_key(dtype));
      for (const GemmPoint &p : points)
        std::printf("  %5d x %5d x %5d: %8.2f\n", p.m, p.n, p.k,
                    p.flops() / p.seconds / 1e9);
    }
    std::printf("memory bandwidth (f32 a + b, %.0f MiB moved): %.2f GB/s "
                "per rank\n",
                memory.bytes / 1048576.0, memory.bytes / memory.seconds / 1e9);
    if (g > 1) {
      std::printf("all-reduce over %d ranks: %.1f us per ring step, %.2f "
                  "GB/s\n",
                  g, 1e6 * reduceFit.latency, reduceFit.bytes_per_s / 1e9);
      std::printf("reduce-scatter: %.1f us per ring step, %.2f GB/s\n",
                  1e6 * scatterFit.latency, scatterFit.bytes_per_s / 1e9);
      std::printf("all-gather: %.1f us per ring step, %.2f GB/s\n",
                  1e6 * gatherFit.latency, gatherFit.bytes_per_s / 1e9);
      std::printf("send/recv: %.1f us, %.2f GB/s\n", 1e6 * sendFit.latency,
                  sendFit.bytes_per_s / 1e9);
    }
    return 0;
  }

  std::printf("{\n  \"backend\": \"%s\",\n  \"ranks\": %d,\n  \"threads\": "
              "%d,\n  \"host_memory_bytes\": %.0f,\n  \"reps\": %d,\n",
              backend->name().c_str(), g, threads, host_memory_bytes(),
              opt.quick ? 1 : Calibration::kReps);
  std::printf("  \"gemm\": {");
  for (size_t d = 0; d < gemms.size(); ++d) {
    std::printf("%s\n    \"%s\": [", d ? "," : "", dtype_key(gemms[d].first));
    const std::vector<GemmPoint> &points = gemms[d].second;
    for (size_t i = 0; i < points.size(); ++i)
      std::printf("%s\n      {\"m\": %d, \"n\": %d, \"k\": %d, \"flops\": "
                  "%.0f, \"seconds\": %.6g}",
                  i ? "," : "", points[i].m, points[i].n, points[i].k,
                  points[i].flops(), points[i].seconds);
    std::printf("]");
  }
  std::printf("},\n  \"memory\": {\"bytes\": %.0f, \"seconds\": %.6g, "
              "\"bytes_per_s\": %.6g}%s\n",
              memory.bytes, memory.seconds, memory.bytes / memory.seconds,
              g > 1 ? "," : "");
  if (g > 1) {
    print_points("all_reduce", reduces, reduceFit, false);
    print_points("reduce_scatter", scatters, scatterFit, false);
    print_points("all_gather", gathers, gatherFit, false);
    print_points("send_recv", sends, sendFit, true);
  }
  std::printf("}\n");
  return 0;
}

} // namespace tpc
