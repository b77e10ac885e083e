//===- GemmPeak.cpp - OpenBLAS sgemm against oneDNN's fp32 and bf16 GEMMs -===//
//
// tpc-bench-gemm times, in one run and on the same threads, the GEMMs of a
// GPT-2 124M training step (B*T = 1024 rows, C = 768, the tied output layer
// over V = 50257) four ways:
//   - OpenBLAS sgemm on fp32 operands (the f32 kernel table without oneDNN),
//   - oneDNN's fp32 matmul on the same operands (the f32 table with it),
//   - the bf16 table without oneDNN: bf16 operands widened to fp32, sgemm,
//     the result rounded back,
//   - oneDNN's bf16 matmul on the bf16 operands (the bf16 table with it).
// Forward GEMMs write (beta 0), backward ones accumulate (beta 1), with the
// transposes the backward pass uses. The three take turns, one call each,
// so that a change of load on the machine hits them alike; each figure is
// the best of its timed calls after one warm-up call. Before timing, every
// oneDNN result is compared with sgemm's on the same bf16-valued inputs.
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/util/Float16.h"
#ifdef TPC_HAVE_DNNL
#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#endif

#include "tools/common/Cli.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace tpc;

namespace {

struct Gemm {
  std::string name;
  bool trans_a, trans_b;
  int M, N, K;
  float beta;
  int per_step; // calls in one training step
};

/// The training step's GEMMs for rows = B*T, hidden C, vocabulary V and
/// `layers` blocks; weights are (in, out), the output layer reads wte (V, C).
std::vector<Gemm> step_gemms(int rows, int C, int V, int layers) {
  struct Linear {
    const char *name;
    int in, out;
  };
  const Linear linears[] = {{"qkv", C, 3 * C},
                            {"attn proj", C, C},
                            {"fc", C, 4 * C},
                            {"fc proj", 4 * C, C}};
  std::vector<Gemm> g;
  for (const Linear &l : linears) {
    std::string n = l.name;
    g.push_back(
        {n + " forward", false, false, rows, l.out, l.in, 0.0f, layers});
    g.push_back({n + " dinp", false, true, rows, l.in, l.out, 1.0f, layers});
    g.push_back({n + " dweight", true, false, l.in, l.out, rows, 1.0f, layers});
  }
  g.push_back({"lm head forward", false, true, rows, V, C, 0.0f, 1});
  g.push_back({"lm head dinp", false, false, rows, C, V, 1.0f, 1});
  g.push_back({"lm head dweight", true, false, V, C, rows, 1.0f, 1});
  return g;
}

/// Best seconds per call of each f: one warm-up call each, then rounds of
/// one call each until every f has had min_time and min_reps calls. Taking
/// turns spreads a change of load on the machine over all of them.
std::vector<double> best_times(const std::vector<std::function<void()>> &fs,
                               double min_time, int min_reps) {
  using clock = std::chrono::steady_clock;
  for (const auto &f : fs)
    f();
  std::vector<double> best(fs.size(), 1e30), total(fs.size(), 0.0);
  for (int rep = 0;; ++rep) {
    bool done = rep >= min_reps;
    for (double t : total)
      done = done && t >= min_time;
    if (done)
      return best;
    for (size_t i = 0; i < fs.size(); ++i) {
      auto t0 = clock::now();
      fs[i]();
      double s = std::chrono::duration<double>(clock::now() - t0).count();
      best[i] = std::min(best[i], s);
      total[i] += s;
    }
  }
}

/// The operands of one GEMM, bf16-valued, in fp32 and bf16.
struct Operands {
  int lda, ldb, ldc;
  std::vector<float> a, b, c;
  std::vector<uint16_t> ha, hb, hc;

  explicit Operands(const Gemm &g) {
    lda = g.trans_a ? g.M : g.K;
    ldb = g.trans_b ? g.K : g.N;
    ldc = g.N;
    std::mt19937 gen(uint32_t(g.M * 31 + g.N * 7 + g.K));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    auto fill = [&](std::vector<float> &f, std::vector<uint16_t> &h, size_t n) {
      f.resize(n);
      h.resize(n);
      for (size_t i = 0; i < n; ++i) {
        h[i] = f32_to_bf16(dist(gen));
        f[i] = bf16_to_f32(h[i]);
      }
    };
    fill(a, ha, size_t(g.M) * g.K);
    fill(b, hb, size_t(g.K) * g.N);
    fill(c, hc, size_t(g.M) * g.N);
  }
};

/// What the bf16 table does without oneDNN: widen, sgemm, round back.
void widened_gemm(const Gemm &g, Operands &o, std::vector<float> &wa,
                  std::vector<float> &wb, std::vector<float> &wc) {
  auto widen = [](std::vector<float> &dst, const std::vector<uint16_t> &src) {
    size_t n = src.size();
    dst.resize(n);
#pragma omp parallel for if (n > 65536)
    for (size_t i = 0; i < n; ++i)
      dst[i] = bf16_to_f32(src[i]);
  };
  widen(wa, o.ha);
  widen(wb, o.hb);
  if (g.beta != 0.0f)
    widen(wc, o.hc);
  else
    wc.assign(o.hc.size(), 0.0f);
  cpu::gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, wa.data(), o.lda,
            wb.data(), o.ldb, g.beta, wc.data(), o.ldc);
  size_t n = wc.size();
#pragma omp parallel for if (n > 65536)
  for (size_t i = 0; i < n; ++i)
    o.hc[i] = f32_to_bf16(wc[i]);
}

double gflops(const Gemm &g, double seconds) {
  return 2.0 * g.M * g.N * g.K / seconds * 1e-9;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int run(bool quick, double min_time, int min_reps) {
  std::vector<Gemm> gemms;
  std::string what;
  if (quick) {
    gemms = step_gemms(64, 48, 200, 2);
    what = "a 2-layer model, B*T=64, C=48, V=200";
  } else {
    gemms = step_gemms(1024, 768, 50257, 12);
    what = "GPT-2 124M, B*T=1024, C=768, V=50257, 12 layers";
  }
#ifdef TPC_HAVE_DNNL
  cpu::DnnlGemm dnnl(cpu::DnnlGemm::Type::BF16);
  cpu::DnnlGemm dnnl32(cpu::DnnlGemm::Type::F32);
  std::string library = cpu::DnnlGemm::library();
#else
  std::string library = "oneDNN: not in this build";
#endif
  std::printf("gemm_peak: the training-step GEMMs of %s; %d threads; %s\n",
              what.c_str(), omp_get_max_threads(), library.c_str());
  std::printf("GFLOP/s: best of at least %d timed calls (%.2g s) after a "
              "warm-up call, the kernels taking turns\n\n",
              min_reps, min_time);
  std::printf("| GEMM | op | M | N | K | sgemm f32 | oneDNN f32 | bf16 "
              "widened + sgemm | oneDNN bf16 | oneDNN bf16 / sgemm | oneDNN "
              "kernels (f32, bf16) |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");

  double step_sgemm = 0, step_widened = 0, step_dnnl = 0, step_dnnl32 = 0,
         step_flops = 0;
  bool dnnl_all = true, dnnl32_all = true;
  for (const Gemm &g : gemms) {
    Operands o(g);
    std::string op = std::string(g.trans_a ? "T" : "N") +
                     (g.trans_b ? "T" : "N") +
                     (g.beta != 0.0f ? ", C +=" : ", C =");
    std::vector<float> wa, wb, wc;
    std::vector<std::function<void()>> kernels = {
        [&] {
          cpu::gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, o.a.data(),
                    o.lda, o.b.data(), o.ldb, g.beta, o.c.data(), o.ldc);
        },
        [&] { widened_gemm(g, o, wa, wb, wc); }};
    std::string kernel = "-";
    // Which of kernels is which: -1 when absent.
    int i_dnnl32 = -1, i_dnnl = -1;
#ifdef TPC_HAVE_DNNL
    kernel = dnnl32.implementation(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f,
                                   o.lda, o.ldb, g.beta, o.ldc) +
             ", " +
             dnnl.implementation(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f,
                                 o.lda, o.ldb, g.beta, o.ldc);
    // The results against sgemm's on the same inputs, C = op(A) op(B).
    std::vector<float> want(o.c.size());
    cpu::gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, o.a.data(), o.lda,
              o.b.data(), o.ldb, 0.0f, want.data(), o.ldc);
    std::vector<float> c32(o.c.size());
    if (dnnl32.gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, o.a.data(),
                    o.lda, o.b.data(), o.ldb, 0.0f, c32.data(), o.ldc)) {
      // Both sum K fp32 products: they differ by the order of the sums.
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i)
        worst = std::max(worst, std::fabs(double(c32[i]) - want[i]) /
                                    std::sqrt(double(g.K)));
      if (worst > 1e-4) {
        std::fprintf(stderr,
                     "gemm_peak: %s: oneDNN's fp32 result is off by %.3g "
                     "from sgemm's\n",
                     g.name.c_str(), worst);
        return 1;
      }
      i_dnnl32 = int(kernels.size());
      kernels.push_back([&] {
        dnnl32.gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, o.a.data(),
                    o.lda, o.b.data(), o.ldb, g.beta, c32.data(), o.ldc);
      });
    }
    std::vector<uint16_t> hc = o.hc;
    if (dnnl.gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, o.ha.data(), o.lda,
                  o.hb.data(), o.ldb, 0.0f, hc.data(), o.ldc)) {
      // bf16 keeps 8 bits: a result is within 2^-8 of itself, and the
      // fp32 sums within far less of each other.
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        double err = std::fabs(bf16_to_f32(hc[i]) - want[i]) /
                     (std::fabs(want[i]) + 1e-3 * std::sqrt(double(g.K)));
        worst = std::max(worst, err);
      }
      if (worst > 1.0 / 128) {
        std::fprintf(stderr,
                     "gemm_peak: %s: oneDNN's result is off by %.3g "
                     "(relative) from sgemm's\n",
                     g.name.c_str(), worst);
        return 1;
      }
      i_dnnl = int(kernels.size());
      kernels.push_back([&] {
        dnnl.gemm(g.trans_a, g.trans_b, g.M, g.N, g.K, 1.0f, o.ha.data(), o.lda,
                  o.hb.data(), o.ldb, g.beta, hc.data(), o.ldc);
      });
    }
#endif
    std::vector<double> t = best_times(kernels, min_time, min_reps);
    double t_sgemm = t[0], t_widened = t[1];
    std::optional<double> t_dnnl, t_dnnl32;
    if (i_dnnl >= 0)
      t_dnnl = t[size_t(i_dnnl)];
    if (i_dnnl32 >= 0)
      t_dnnl32 = t[size_t(i_dnnl32)];
    double flops = 2.0 * g.M * g.N * g.K * g.per_step;
    step_flops += flops;
    step_sgemm += t_sgemm * g.per_step;
    step_widened += t_widened * g.per_step;
    if (t_dnnl)
      step_dnnl += *t_dnnl * g.per_step;
    else
      dnnl_all = false;
    if (t_dnnl32)
      step_dnnl32 += *t_dnnl32 * g.per_step;
    else
      dnnl32_all = false;
    std::printf("| %s | %s | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n",
                g.name.c_str(), op.c_str(), g.M, g.N, g.K,
                fixed(gflops(g, t_sgemm), 1).c_str(),
                t_dnnl32 ? fixed(gflops(g, *t_dnnl32), 1).c_str() : "-",
                fixed(gflops(g, t_widened), 1).c_str(),
                t_dnnl ? fixed(gflops(g, *t_dnnl), 1).c_str() : "-",
                t_dnnl ? (fixed(t_sgemm / *t_dnnl, 2) + "x").c_str() : "-",
                kernel.c_str());
    std::fflush(stdout);
  }

  std::printf("\none step's GEMMs (%.4g GFLOP): sgemm f32 %.1f ms (%.1f "
              "GFLOP/s), bf16 widened + sgemm %.1f ms (%.1f GFLOP/s)",
              step_flops * 1e-9, step_sgemm * 1e3,
              step_flops / step_sgemm * 1e-9, step_widened * 1e3,
              step_flops / step_widened * 1e-9);
  if (dnnl32_all)
    std::printf(", oneDNN f32 %.1f ms (%.1f GFLOP/s)", step_dnnl32 * 1e3,
                step_flops / step_dnnl32 * 1e-9);
  if (dnnl_all)
    std::printf(", oneDNN bf16 %.1f ms (%.1f GFLOP/s)\n", step_dnnl * 1e3,
                step_flops / step_dnnl * 1e-9);
  else
    std::printf("\n");
  if (dnnl32_all)
    std::printf("ratio oneDNN f32 / sgemm f32: %.2fx\n",
                step_sgemm / step_dnnl32);
  if (dnnl_all) {
    std::printf("ratio oneDNN bf16 / sgemm f32: %.2fx\n",
                step_sgemm / step_dnnl);
    std::printf("ratio oneDNN bf16 / bf16 widened + sgemm: %.2fx\n",
                step_widened / step_dnnl);
  } else {
#ifdef TPC_HAVE_DNNL
    std::printf("ratio oneDNN bf16 / sgemm f32: - (oneDNN declined some "
                "GEMMs on this CPU)\n");
#else
    std::printf("ratio oneDNN bf16 / sgemm f32: - (built without oneDNN)\n");
#endif
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Times the GEMMs of a GPT-2 124M training step with OpenBLAS "
               "sgemm (fp32) and oneDNN's fp32 and bf16 matmuls, in one run."};
  cli::configure(app);
  bool quick = false;
  int threads = 0, min_reps = 3;
  double min_time = 0.5;
  app.add_flag("--quick", quick,
               "Tiny shapes and one timed call each: a smoke test, not a "
               "measurement");
  app.add_option("--threads", threads,
                 "OpenMP threads (default: OMP_NUM_THREADS or all cores)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-time", min_time,
                 "Seconds of timed calls per GEMM and kernel, at least")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--min-reps", min_reps,
                 "Timed calls per GEMM and kernel, at least")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  if (int status = cli::parse(app, argc, argv); status >= 0)
    return status;
  if (threads > 0)
    omp_set_num_threads(threads);
  if (quick) {
    min_time = 0;
    min_reps = 1;
  }
  return run(quick, min_time, min_reps);
}
