//===- CudaBackendTest.cpp - The CUDA backend's device and GEMMs ----------===//
//
// Without a GPU (CI) the backend must refuse to start with a message that
// names the cause and the fix; the tests that need a device skip and say
// why. On a GPU: memory, copies, stream order through events, and the
// cuBLASLt GEMMs against the CPU backend for every storage type,
// transposition and the bias epilogue. The kernels' other calls are in
// BackendConformanceTest, which runs every backend this build has.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/util/Float16.h"

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

using namespace tpc;
using namespace tpc::test;

namespace {

/// The CUDA backend, or null with the reason it cannot run here.
std::unique_ptr<Backend> cuda_backend(std::string &why,
                                      const BackendOptions &o = {}) {
  try {
    return make_backend("cuda", o);
  } catch (const BackendUnavailable &e) {
    why = e.what();
    return nullptr;
  }
}

#define REQUIRE_GPU(be)                                                        \
  std::string why_;                                                            \
  auto be = cuda_backend(why_);                                                \
  if (!be)                                                                     \
  GTEST_SKIP() << why_

std::vector<uint16_t> to_16(ElementType t, const std::vector<float> &v) {
  std::vector<uint16_t> h(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    h[i] = t == ElementType::BF16 ? f32_to_bf16(v[i]) : f32_to_f16(v[i]);
  return h;
}

std::vector<float> from_16(ElementType t, const std::vector<uint16_t> &h) {
  std::vector<float> v(h.size());
  for (size_t i = 0; i < h.size(); ++i)
    v[i] = t == ElementType::BF16 ? bf16_to_f32(h[i]) : f16_to_f32(h[i]);
  return v;
}

/// n elements of type t on `be`, holding v (rounded to t).
void *upload(Backend &be, ElementType t, const std::vector<float> &v) {
  size_t bytes = v.size() * element_size(t);
  void *p = be.alloc(bytes ? bytes : 4);
  if (t == ElementType::F32)
    be.copy_host_to_device(p, v.data(), bytes);
  else
    be.copy_host_to_device(p, to_16(t, v).data(), bytes);
  return p;
}

std::vector<float> download(Backend &be, ElementType t, const void *p,
                            size_t n) {
  be.synchronize();
  if (t == ElementType::F32) {
    std::vector<float> v(n);
    be.copy_device_to_host(v.data(), p, n * 4);
    return v;
  }
  std::vector<uint16_t> h(n);
  be.copy_device_to_host(h.data(), p, n * 2);
  return from_16(t, h);
}

} // namespace

TEST(CudaBackend, IsListedAndRefusesClearlyWithoutADevice) {
  std::vector<std::string> names = backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "cuda"), names.end());
  std::string why;
  auto be = cuda_backend(why);
  std::string info = describe_backend("cuda");
  if (be) {
    EXPECT_EQ(be->name(), "cuda");
    EXPECT_NE(info.find("cuda: device"), std::string::npos) << info;
    EXPECT_NE(info.find("MiB"), std::string::npos) << info;
    return;
  }
  EXPECT_NE(why.find("the CUDA backend cannot run here"), std::string::npos)
      << why;
  EXPECT_NE(why.find("--backend cpu"), std::string::npos) << why;
  EXPECT_NE(info.find("cuda: no device"), std::string::npos) << info;
}

TEST(CudaBackend, RefusesADeviceThatDoesNotExist) {
  std::string why;
  BackendOptions o;
  o.device = 4096;
  auto be = cuda_backend(why, o);
  ASSERT_EQ(be, nullptr);
  // With a GPU the message names the device and the valid range; without
  // one, that there is none.
  EXPECT_NE(why.find("cannot run here"), std::string::npos) << why;
}

TEST(CudaBackend, MemoryCopiesAndStreamOrder) {
  REQUIRE_GPU(be);
  const size_t n = 1000003;
  auto v = random_vector(n, 7);
  void *a = upload(*be, ElementType::F32, v);
  void *b = be->alloc(n * 4);
  // Ordered on the compute stream: zero, copy, then read.
  be->zero(b, n * 4);
  be->copy_device_to_device(b, a, n * 4);
  EXPECT_EQ(download(*be, ElementType::F32, b, n), v);
  // Work on the collective stream that waits for an event on compute sees
  // compute's result.
  Device &d = be->device();
  Event e = d.create_event();
  be->zero(b, n * 4);
  d.record(e, Stream::Compute);
  d.wait(Stream::Collective, e);
  d.synchronize();
  EXPECT_EQ(download(*be, ElementType::F32, b, 3),
            std::vector<float>(3, 0.0f));
  d.destroy_event(e);
  be->free(a);
  be->free(b);
}

TEST(CudaBackend, OutOfMemoryIsBadAlloc) {
  REQUIRE_GPU(be);
  EXPECT_THROW(be->alloc(size_t(1) << 50), std::bad_alloc);
  // The failure is not sticky: the next allocation works.
  void *p = be->alloc(1024);
  EXPECT_NE(p, nullptr);
  be->free(p);
}

/// cuBLASLt against the CPU backend's GEMM, for each storage type, both
/// transpositions, padded leading dimensions, beta 0 and 1, and the bias
/// epilogue of matmul_forward with its backward.
TEST(CudaBackend, GemmsMatchTheCpu) {
  REQUIRE_GPU(be);
  auto cpu = make_backend("cpu");
  for (ElementType t : kFloatElementTypes) {
    const Kernels &kg = *be->kernels(t);
    const Kernels &kc = *cpu->kernels(t);
    // fp32 accumulation on both sides; the orders of the sums differ.
    double tol = t == ElementType::F32 ? 1e-5 : t == ElementType::BF16 ? 1e-2
                                                                       : 2e-3;
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float beta : {0.0f, 1.0f}) {
          const int M = 37, N = 53, K = 29;
          int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 2;
          auto A = random_vector(size_t(ta ? K : M) * lda, 1);
          auto B = random_vector(size_t(tb ? N : K) * ldb, 2);
          auto C = random_vector(size_t(M) * ldc, 3);
          void *a = upload(*be, t, A), *b = upload(*be, t, B),
               *c = upload(*be, t, C);
          void *ha = upload(*cpu, t, A), *hb = upload(*cpu, t, B),
               *hc = upload(*cpu, t, C);
          kg.gemm(ta, tb, M, N, K, 0.5f, a, lda, b, ldb, beta, c, ldc);
          kc.gemm(ta, tb, M, N, K, 0.5f, ha, lda, hb, ldb, beta, hc, ldc);
          auto got = download(*be, t, c, C.size());
          auto want = download(*cpu, t, hc, C.size());
          for (size_t i = 0; i < got.size(); ++i)
            ASSERT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i])))
                << element_type_name(t) << " ta " << ta << " tb " << tb
                << " beta " << beta << " at " << i;
          for (void *p : {a, b, c})
            be->free(p);
          for (void *p : {ha, hb, hc})
            cpu->free(p);
        }
    for (bool transposed : {false, true}) {
      const int Nr = 45, C = 31, OC = 67;
      auto x = random_vector(size_t(Nr) * C, 4), w = random_vector(
                                                     size_t(C) * OC, 5),
           bias = random_vector(OC, 6), dout = random_vector(
                                            size_t(Nr) * OC, 7),
           g0 = random_vector(size_t(C) * OC, 8);
      Backend *bes[2] = {be.get(), cpu.get()};
      std::vector<float> out[2], dw[2], db[2], dx[2];
      for (int s = 0; s < 2; ++s) {
        Backend &bk = *bes[s];
        const Kernels &k = *bk.kernels(t);
        void *X = upload(bk, t, x), *W = upload(bk, t, w),
             *Bi = upload(bk, t, bias), *D = upload(bk, t, dout),
             *O = upload(bk, t, std::vector<float>(size_t(Nr) * OC)),
             *DW = upload(bk, t, g0), *DB = upload(bk, t, bias),
             *DX = upload(bk, t, std::vector<float>(size_t(Nr) * C));
        k.matmul_forward(O, X, W, Bi, Nr, C, OC, transposed);
        k.matmul_backward(DX, DW, DB, D, X, W, Nr, C, OC, transposed, true);
        out[s] = download(bk, t, O, size_t(Nr) * OC);
        dw[s] = download(bk, t, DW, size_t(C) * OC);
        db[s] = download(bk, t, DB, OC);
        dx[s] = download(bk, t, DX, size_t(Nr) * C);
        for (void *p : {X, W, Bi, D, O, DW, DB, DX})
          bk.free(p);
      }
      auto near = [&](const std::vector<float> &g, const std::vector<float> &w,
                      const char *what) {
        ASSERT_EQ(g.size(), w.size());
        for (size_t i = 0; i < g.size(); ++i)
          ASSERT_NEAR(g[i], w[i], 4 * tol * (1.0 + std::fabs(w[i])))
              << what << " " << element_type_name(t) << " transposed "
              << transposed << " at " << i;
      };
      near(out[0], out[1], "matmul_forward");
      near(dw[0], dw[1], "dweight");
      near(db[0], db[1], "dbias");
      near(dx[0], dx[1], "dinp");
    }
  }
}
