//===- CpuBackendTest.cpp - The Backend interface on the CPU --------------===//

#include "runtime/backends/cpu/CpuBackend.h"
#include "runtime/backend/Backend.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/util/Philox.h"

#include "TestUtil.h"

#include <algorithm>

using namespace tpc;
using namespace tpc::test;

namespace {

/// A device buffer of floats or ints, freed by the backend.
template <typename T> struct DeviceBuffer {
  Backend &be;
  size_t n;
  T *ptr;
  DeviceBuffer(Backend &be, size_t n)
      : be(be), n(n), ptr(static_cast<T *>(be.alloc(n * sizeof(T)))) {}
  ~DeviceBuffer() { be.free(ptr); }
  void upload(const std::vector<T> &v) {
    be.copy_host_to_device(ptr, v.data(), n * sizeof(T));
  }
  std::vector<T> download() {
    std::vector<T> v(n);
    be.synchronize();
    be.copy_device_to_host(v.data(), ptr, n * sizeof(T));
    return v;
  }
};

} // namespace

TEST(CpuBackend, MemoryRoundTrip) {
  auto be = make_backend("cpu");
  EXPECT_EQ(be->name(), "cpu");
  DeviceBuffer<float> a(*be, 13), b(*be, 13);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.ptr) % 64, 0u);
  auto v = random_vector(13, 1);
  a.upload(v);
  be->copy_device_to_device(b.ptr, a.ptr, 13 * sizeof(float));
  EXPECT_EQ(b.download(), v);
  be->zero(b.ptr, 13 * sizeof(float));
  EXPECT_EQ(b.download(), std::vector<float>(13, 0.0f));
  EXPECT_THROW(make_backend("tpu"), std::invalid_argument);
}

// --cpu-gemm: each table's GEMMs run on the library asked for; auto sends
// bf16 to oneDNN and fp32 to OpenBLAS exactly when OpenBLAS runs AVX-512
// kernels.
TEST(CpuBackend, GemmLibraryFollowsTheChoice) {
  auto starts = [](const std::string &s, const std::string &prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
  };
  CpuBackend openblas(CpuGemm::OpenBlas);
  for (ElementType t : kFloatElementTypes)
    EXPECT_TRUE(starts(openblas.gemm_library(t), "OpenBLAS "))
        << openblas.gemm_library(t);
  std::unique_ptr<CpuBackend> onednn;
  try {
    onednn = std::make_unique<CpuBackend>(CpuGemm::OneDnn);
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("libdnnl-dev"), std::string::npos);
    GTEST_SKIP() << "no oneDNN in this build";
  }
  EXPECT_TRUE(starts(onednn->gemm_library(ElementType::F32), "oneDNN "));
  EXPECT_TRUE(starts(onednn->gemm_library(ElementType::BF16), "oneDNN "));
  EXPECT_TRUE(starts(onednn->gemm_library(ElementType::F16), "OpenBLAS "));
  CpuBackend automatic(CpuGemm::Auto);
  // With OpenBLAS's AVX-512 kernels, fp32 on OpenBLAS but for the GEMMs of
  // fewer than 32 rows (decoding's).
  EXPECT_EQ(automatic.gemm_library(ElementType::F32),
            cpu::openblas_runs_avx512()
                ? openblas.gemm_library(ElementType::F32) +
                      "; below 32 rows on " +
                      onednn->gemm_library(ElementType::F32)
                : onednn->gemm_library(ElementType::F32));
  EXPECT_EQ(automatic.gemm_library(ElementType::BF16),
            onednn->gemm_library(ElementType::BF16));
  EXPECT_NE(
      CpuBackend::describe(CpuGemm::Auto).find("cpu gemms    bf16 on oneDNN"),
      std::string::npos);
}

// Blocks of several MiB are zeroed and copied by every thread, in pieces:
// every byte, the tail after the last whole piece included; a copy between
// overlapping ranges still moves the bytes as memmove does; a cast to the
// table's own type copies the bits.
TEST(CpuBackend, LargeBlocksZeroCopyAndCast) {
  auto be = make_backend("cpu");
  const size_t n = (size_t(9) << 20) / sizeof(float) + 77;
  DeviceBuffer<float> a(*be, n), b(*be, n);
  auto v = random_vector(n, 3);
  a.upload(v);
  be->copy_device_to_device(b.ptr, a.ptr, n * sizeof(float));
  EXPECT_EQ(b.download(), v);
  be->zero(b.ptr, n * sizeof(float));
  EXPECT_EQ(b.download(), std::vector<float>(n, 0.0f));

  // a[0, n - 5) moved up by 5 elements.
  be->copy_device_to_device(a.ptr + 5, a.ptr, (n - 5) * sizeof(float));
  std::vector<float> moved = v;
  std::copy(v.begin(), v.end() - 5, moved.begin() + 5);
  EXPECT_EQ(a.download(), moved);

  // bf16 to bf16: 2n bf16 values in the bytes of n floats.
  a.upload(v);
  be->kernels(ElementType::BF16)->cast(b.ptr, ElementType::BF16, a.ptr, 2 * n);
  EXPECT_EQ(b.download(), v);
}

TEST(CpuBackend, LossTotalsAccumulateOverMicroBatches) {
  auto be = make_backend("cpu");
  const int N = 7, V = 13, Vp = 16;
  DeviceBuffer<float> logits(*be, N * Vp), totals(*be, 2);
  DeviceBuffer<int> targets(*be, N);
  logits.upload(random_vector(N * Vp, 2));
  targets.upload({1, 2, -1, 12, 0, 5, 5});
  be->zero(totals.ptr, 2 * sizeof(float));
  const Kernels &k = *be->kernels(ElementType::F32);
  for (int micro = 0; micro < 2; ++micro)
    k.crossentropy_forward(nullptr, totals.ptr, logits.ptr, targets.ptr, N, V,
                           Vp, cpu::kIgnoreIndex, nullptr);
  auto host_logits = logits.download();
  auto host_targets = targets.download();
  LossSum one = cpu::crossentropy_forward(nullptr, host_logits.data(),
                                          host_targets.data(), N, V, Vp);
  auto t = totals.download();
  EXPECT_NEAR(t[0], 2 * one.sum, 1e-4);
  EXPECT_EQ(t[1], 2.0f * 6);
}

// A tied-embedding bigram model trained through the interface alone:
// embedding -> layernorm -> tied logits -> cross-entropy -> AdamW. The loss
// starts at the uniform-guess loss log(V) and must at least halve (tied
// weights limit how far a bigram rule can be fit).
TEST(CpuBackend, TinyModelTrains) {
  auto be = make_backend("cpu");
  const int B = 2, T = 7, C = 12, V = 13, N = B * T;
  std::vector<int> ids(N), tg(N);
  for (int i = 0; i < N; ++i) {
    ids[i] = (i * 5) % V;
    tg[i] = (ids[i] * 3 + 1) % V; // a deterministic bigram rule
  }
  std::vector<float> wte_init(V * C);
  init_normal(wte_init.data(), {V, C}, SliceSpec::whole(), 1, "wte.weight",
              0.0f, 0.02f);

  DeviceBuffer<int> d_ids(*be, N), d_tg(*be, N);
  d_ids.upload(ids);
  d_tg.upload(tg);
  DeviceBuffer<float> wte(*be, V * C), dwte(*be, V * C), m(*be, V * C),
      v(*be, V * C), lnw(*be, C), lnb(*be, C), dlnw(*be, C), dlnb(*be, C),
      mw(*be, C), vw(*be, C), mb(*be, C), vb(*be, C), x(*be, N * C),
      y(*be, N * C), dx(*be, N * C), dy(*be, N * C), mean(*be, N), rstd(*be, N),
      logits(*be, N * V), dlogits(*be, N * V), totals(*be, 2), sq(*be, 1),
      stats(*be, 2 * N);
  wte.upload(wte_init);
  lnw.upload(std::vector<float>(C, 1.0f));
  for (auto *buf : {&m, &v, &mw, &vw, &mb, &vb, &lnb})
    be->zero(buf->ptr, buf->n * sizeof(float));

  const Kernels &k = *be->kernels(ElementType::F32);
  // The per-step scalars live on the device.
  DeviceBuffer<float> lr(*be, 1), one(*be, 1), dloss(*be, 1);
  DeviceBuffer<int64_t> t_step(*be, 1);
  lr.upload({0.05f});
  one.upload({1.0f});
  OptimizerScalars scalars{lr.ptr, one.ptr, t_step.ptr};

  float first = 0, last = 0;
  for (int step = 1; step <= 60; ++step) {
    k.embedding_forward(x.ptr, d_ids.ptr, wte.ptr, B, T, C, 0, V);
    k.layernorm_forward(y.ptr, mean.ptr, rstd.ptr, x.ptr, lnw.ptr, lnb.ptr, N,
                        C, 1e-5f);
    k.matmul_forward(logits.ptr, y.ptr, wte.ptr, nullptr, N, C, V, true);
    be->zero(totals.ptr, 2 * sizeof(float));
    k.crossentropy_forward(nullptr, totals.ptr, logits.ptr, d_tg.ptr, N, V, V,
                           cpu::kIgnoreIndex, stats.ptr);
    auto t = totals.download();
    float loss = t[0] / t[1];
    if (step == 1)
      first = loss;
    last = loss;

    for (auto *g : {&dwte, &dlnw, &dlnb, &dx, &dy})
      be->zero(g->ptr, g->n * sizeof(float));
    dloss.upload({1.0f / t[1]});
    k.crossentropy_backward(dlogits.ptr, logits.ptr, d_tg.ptr, N, V, V,
                            dloss.ptr, cpu::kIgnoreIndex, stats.ptr);
    k.matmul_backward(dy.ptr, dwte.ptr, nullptr, dlogits.ptr, y.ptr, wte.ptr, N,
                      C, V, true, true);
    k.layernorm_backward(dx.ptr, dlnw.ptr, dlnb.ptr, dy.ptr, x.ptr, lnw.ptr,
                         mean.ptr, rstd.ptr, N, C);
    k.embedding_backward(dwte.ptr, dx.ptr, d_ids.ptr, B, T, C, 0, V);
    be->zero(sq.ptr, sizeof(float));
    k.sum_of_squares(sq.ptr, dwte.ptr, V * C);
    ASSERT_GT(sq.download()[0], 0.0f);

    AdamWParams p;
    t_step.upload({step});
    k.adamw_update(wte.ptr, dwte.ptr, m.ptr, v.ptr, V * C, p, scalars, {});
    k.adamw_update(lnw.ptr, dlnw.ptr, mw.ptr, vw.ptr, C, p, scalars, {});
    k.adamw_update(lnb.ptr, dlnb.ptr, mb.ptr, vb.ptr, C, p, scalars, {});
  }
  EXPECT_NEAR(first, std::log(float(V)), 0.1f);
  EXPECT_LT(last, 0.5f * first) << "first " << first << " last " << last;
}
