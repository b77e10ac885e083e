//===- CudaEmuTest.cpp - The CUDA kernels on the host, against the CPU ----===//
//
// Every launcher of runtime/backends/cuda/kernels, converted by convert.py
// and run under the emulator (Emulator.h), against the CPU backend's kernel
// table, the reference the project trusts, for f32, bf16 and f16 storage.
// Shapes are small and odd: C = 37, T = 7 or 37, 3 heads, sizes that are
// not multiples of a warp or a block, grids of several blocks, ignored
// targets, padded vocabularies, null gradients and gradients that
// accumulate onto nonzero values; and empty tensors, which must launch
// nothing. Every test runs twice, with the threads of a block scheduled up
// from thread 0 and down from the last. The GEMMs of Matmul.cu run on a
// naive stand-in for cuBLASLt (Blas.h); its bias column sum needs none. The
// last suite checks the emulator itself: its conversions (Float16.h's)
// against the formats' definitions, its intrinsics, and that it reports the
// misuse it claims to.
//
// Tolerances. Both sides compute in fp32 and round once to the storage
// type; they differ by fp32 roundings only: glibc's expf and tanhf against
// the CPU's polynomials (each within 2 ulp), other summation orders
// (blocks, warps, chunks against OpenMP chunks and OpenBLAS).
//  - fp32 results: 1e-5 relative.
//  - 16-bit results: 2 ulps of the storage type. The fp32 values behind a
//    stored result agree to a few fp32 ulps, so one rounding puts the
//    results at most one storage ulp apart where the two straddle a
//    rounding boundary; the second ulp is margin for results summed from
//    many terms (attention's probability-weighted values, dalpha's dot
//    products), where the terms' fp32 differences add up.
//  - Everywhere, also 1e-5 of the largest magnitude of the expected
//    tensor: a result that cancels (a gradient accumulated onto an
//    opposite value, a softmax gradient at the target) carries the absolute
//    fp32 error of its terms, not a relative one.
//  - The training attention in 16-bit storage, which rounds its scores,
//    probabilities and their gradients to the storage type for its GEMMs
//    where the CPU keeps them in fp32: also 2 ulps of the storage type at
//    the largest magnitude of the expected tensor (close_attention).
// Exact where nothing is summed or both sides do the same arithmetic:
// fills, casts, copies, dropout (the kept values and above all the masks)
// and the loss outputs.
//
//===----------------------------------------------------------------------===//

#include "test/cuda_emu/Emulator.h"

#include "runtime/backend/Backend.h"
#include "runtime/backends/cuda/MemoryTally.h"
#include "runtime/backends/cuda/kernels/Common.cuh"
#include "runtime/util/Float16.h"
#include "runtime/util/GlobalIndex.h"
#include "runtime/util/Philox.h"
#include "test/cuda_emu/Blas.h"
#include "test/runtime/TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace tpc;
// CMakeLists.txt defines `cuda` to `cuda_emu`: these are the emulated
// launchers, apart from the device code a CUDA build links too.
namespace gpu = tpc::cuda;
using gpu::from_float;
using gpu::to_float;

// What each kernel test runs with: a storage type, and the threads of a
// block started up from thread 0 or down from the last (tpc_emu::Schedule),
// since a warp that runs ahead of the others past a missing barrier shows
// in one order or the other. Global and short, because gtest and ctest name
// the tests by them (Attention.Self<bf16_descending>).
template <class Storage, tpc_emu::Schedule S> struct Case {
  using T = Storage;
  static constexpr tpc_emu::Schedule kSchedule = S;
};
struct f32 : Case<float, tpc_emu::Schedule::Ascending> {};
struct bf16 : Case<__nv_bfloat16, tpc_emu::Schedule::Ascending> {};
struct f16 : Case<__half, tpc_emu::Schedule::Ascending> {};
struct f32_descending : Case<float, tpc_emu::Schedule::Descending> {};
struct bf16_descending : Case<__nv_bfloat16, tpc_emu::Schedule::Descending> {};
struct f16_descending : Case<__half, tpc_emu::Schedule::Descending> {};

namespace {

//===----------------------------------------------------------------------===//
// Buffers and comparisons
//===----------------------------------------------------------------------===//

/// The arguments printed one after another.
template <class... A> std::string str(const A &...a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}

constexpr unsigned char kGuardByte = 0x5c;

/// Device memory: n elements of E between guard elements whose bytes must
/// keep their pattern, so that a kernel writing past either end fails the
/// test when the buffer goes.
template <class E> class Buf {
public:
  static constexpr size_t kGuard = 64;

  explicit Buf(size_t n = 0) : n_(n), v_(n + 2 * kGuard) {
    std::memset(static_cast<void *>(v_.data()), kGuardByte, kGuard * sizeof(E));
    std::memset(static_cast<void *>(data() + n), kGuardByte,
                kGuard * sizeof(E));
  }
  Buf(const Buf &) = default;
  Buf &operator=(const Buf &) = default;
  ~Buf() { check_guards(); }

  E *data() { return v_.data() + kGuard; }
  const E *data() const { return v_.data() + kGuard; }
  size_t size() const { return n_; }
  E &operator[](size_t i) { return data()[i]; }
  const E &operator[](size_t i) const { return data()[i]; }

  void check_guards() const {
    const auto *b = reinterpret_cast<const unsigned char *>(v_.data());
    const size_t guard = kGuard * sizeof(E), end = (kGuard + n_) * sizeof(E);
    for (size_t i = 0; i < guard; ++i)
      if (b[i] != kGuardByte || b[end + i] != kGuardByte) {
        ADD_FAILURE() << "a kernel wrote outside a buffer of " << n_
                      << " elements ("
                      << (b[i] != kGuardByte ? "before" : "after") << " it)";
        return;
      }
  }

private:
  size_t n_;
  std::vector<E> v_;
};

template <class E> Buf<E> stored(const std::vector<float> &x) {
  Buf<E> b(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    b[i] = from_float<E>(x[i]);
  return b;
}

template <class E> std::vector<float> widened(const Buf<E> &b) {
  std::vector<float> x(b.size());
  for (size_t i = 0; i < b.size(); ++i)
    x[i] = to_float(b[i]);
  return x;
}

template <class E> Buf<E> filled(size_t n, float v) {
  return stored<E>(std::vector<float>(n, v));
}

/// The spacing of storage type t's values at x.
double ulp(ElementType t, float x) {
  const int mant = t == ElementType::BF16 ? 7 : t == ElementType::F16 ? 10 : 23;
  const int emin = t == ElementType::F16 ? -14 : -126;
  int e;
  std::frexp(x, &e);
  return std::ldexp(1.0, std::max(e - 1, emin) - mant);
}

/// got ~ want as the banner says, for results stored as `t`, and within
/// `wide` ulps of `wide_type` at the tensor's largest magnitude.
void expect_close(const std::vector<float> &got, const std::vector<float> &want,
                  ElementType t, const std::string &what, double wide = 0.0,
                  ElementType wide_type = ElementType::F32) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0.0;
  for (float w : want)
    if (std::isfinite(w))
      scale = std::max(scale, double(std::fabs(w)));
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < got.size(); ++i) {
    const float g = got[i], w = want[i];
    if (g == w || (std::isnan(g) && std::isnan(w)))
      continue;
    const double tol =
        (t == ElementType::F32 ? 1e-5 * std::fabs(w) : 2.0 * ulp(t, w)) +
        1e-5 * scale + (wide > 0.0 ? wide * ulp(wide_type, float(scale)) : 0.0);
    if (std::fabs(double(g) - double(w)) <= tol)
      continue;
    if (bad++ < 5)
      first << "\n  [" << i << "] " << g << ", expected " << w << " (tolerance "
            << tol << ")";
  }
  EXPECT_EQ(bad, 0u) << what << " (" << element_type_name(t) << "): " << bad
                     << " of " << got.size() << " elements differ"
                     << first.str();
}

template <class E>
void expect_close(const Buf<E> &got, const Buf<E> &want, ElementType t,
                  const std::string &what, double wide = 0.0,
                  ElementType wide_type = ElementType::F32) {
  expect_close(widened(got), widened(want), t, what, wide, wide_type);
}

/// Bit for bit, any NaN matching any NaN.
template <class E>
void expect_same(const Buf<E> &got, const Buf<E> &want,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(E)) == 0)
      continue;
    const float g = to_float(got[i]), w = to_float(want[i]);
    if (std::isnan(g) && std::isnan(w))
      continue;
    if (bad++ < 5)
      first << "\n  [" << i << "] " << g << ", expected " << w;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size()
                     << " elements differ" << first.str();
}

//===----------------------------------------------------------------------===//
// The fixture: a storage type and a schedule, the CPU's table and an
// emulated launch
//===----------------------------------------------------------------------===//

template <class P> class CudaEmu : public testing::Test {
public:
  using T = typename P::T;
  static constexpr ElementType kType = gpu::element_type_of<T>();

protected:
  void SetUp() override {
    tpc_emu::set_schedule(P::kSchedule);
    backend_ = make_backend("cpu");
    cpu_ = backend_->kernels(kType);
    ASSERT_NE(cpu_, nullptr);
    l.scratch = &scratch;
    l.blas = &blas;
    l.sm_count = 2; // grids of a few blocks, as on a small device
  }

  void TearDown() override {
    cudaError_t err = cudaGetLastError();
    EXPECT_EQ(err, cudaSuccess)
        << "a launch failed unchecked: " << cudaGetErrorString(err);
    const std::string host = tpc_emu::take_host_errors();
    EXPECT_TRUE(host.empty()) << host;
    tpc_emu::set_schedule(tpc_emu::Schedule::Ascending);
  }

public:
  const Kernels &cpu() const { return *cpu_; }

  Buf<T> rnd(size_t n, uint32_t seed, float scale = 1.0f) const {
    return stored<T>(test::random_vector(n, seed, scale));
  }
  Buf<float> rndf(size_t n, uint32_t seed, float scale = 1.0f) const {
    return stored<float>(test::random_vector(n, seed, scale));
  }

  /// Results of the storage type, and fp32 ones.
  void close(const Buf<T> &got, const Buf<T> &want,
             const std::string &what) const {
    expect_close(got, want, kType, what);
  }
  void close32(const Buf<float> &got, const Buf<float> &want,
               const std::string &what) const {
    expect_close(got, want, ElementType::F32, what);
  }
  /// Results of the training attention's GEMMs, which in 16-bit storage
  /// round the scores, probabilities and their gradients to the storage
  /// type (as llm.c does) where the CPU keeps them in fp32: each result
  /// sums terms that carry a storage rounding, so it is also allowed
  /// kAttentionUlps ulps of the storage type at the tensor's largest
  /// magnitude. `att`: the fp32 probabilities, from rounded scores.
  static constexpr double kAttentionUlps = 2.0;
  void close_attention(const Buf<T> &got, const Buf<T> &want,
                       const std::string &what) const {
    expect_close(got, want, kType, what, wide(), kType);
  }
  void close_attention32(const Buf<float> &got, const Buf<float> &want,
                         const std::string &what) const {
    expect_close(got, want, ElementType::F32, what, wide(), kType);
  }
  static double wide() {
    return kType == ElementType::F32 ? 0.0 : kAttentionUlps;
  }

  gpu::Scratch scratch{nullptr};
  gpu::Blas blas;
  gpu::Launch l;

private:
  std::unique_ptr<Backend> backend_;
  const Kernels *cpu_ = nullptr;
};

using Cases = testing::Types<f32, bf16, f16, f32_descending, bf16_descending,
                             f16_descending>;

#define TPC_EMU_SUITE(Suite)                                                   \
  template <class T> class Suite : public CudaEmu<T> {};                       \
  TYPED_TEST_SUITE(Suite, Cases)

// Locals for a test body.
#define TPC_EMU_LOCALS                                                         \
  using T = typename TypeParam::T;                                             \
  [[maybe_unused]] auto &l = this->l;                                          \
  [[maybe_unused]] const Kernels &cpu = this->cpu();                           \
  [[maybe_unused]] constexpr ElementType kType = CudaEmu<TypeParam>::kType

//===----------------------------------------------------------------------===//
// Elementwise.cu
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Elementwise);

// Four blocks of 256, the last one partial.
constexpr size_t kN = 1000;

TYPED_TEST(Elementwise, Fill) {
  TPC_EMU_LOCALS;
  // 0.3 rounds in every type, 70000 overflows f16, 1e-8 is below its
  // subnormals.
  for (float value : {0.3f, -2.5f, 70000.0f, 1e-8f, 0.0f}) {
    Buf<T> got(kN), want(kN);
    gpu::fill<T>(l, got.data(), value, kN);
    cpu.fill(want.data(), value, kN);
    expect_same(got, want, str("fill ", value));
  }
  gpu::fill<T>(l, nullptr, 1.0f, 0); // empty: no launch
}

TYPED_TEST(Elementwise, Cast) {
  TPC_EMU_LOCALS;
  std::vector<float> x = test::random_vector(kN, 11, 10.0f);
  // Ties, the edges of f16's range and subnormals, and the specials.
  const float specials[] = {
      1.0f + 0x1p-8f, 1.0f + 0x3p-8f, 1.0f + 0x1p-11f, 65504.0f,
      65519.0f,       65520.0f,       -1e6f,           0x1p-24f,
      0x1p-25f,       0x3p-26f,       1e-30f,          0.0f,
      -0.0f,          INFINITY,       -INFINITY,       NAN};
  std::copy(std::begin(specials), std::end(specials), x.begin());
  const Buf<T> in = stored<T>(x);
  for (ElementType to : kFloatElementTypes) {
    const size_t bytes = kN * element_size(to);
    Buf<unsigned char> got(bytes), want(bytes);
    gpu::cast<T>(l, got.data(), to, in.data(), kN);
    cpu.cast(want.data(), to, in.data(), kN);
    size_t bad = 0;
    for (size_t i = 0; i < kN; ++i) {
      const unsigned char *g = got.data() + i * element_size(to);
      const unsigned char *w = want.data() + i * element_size(to);
      if (std::memcmp(g, w, element_size(to)) == 0)
        continue;
      uint16_t gh, wh;
      std::memcpy(&gh, g, 2);
      std::memcpy(&wh, w, 2);
      const bool both_nan =
          to == ElementType::BF16
              ? std::isnan(bf16_to_f32(gh)) && std::isnan(bf16_to_f32(wh))
              : std::isnan(f16_to_f32(gh)) && std::isnan(f16_to_f32(wh));
      if (to != ElementType::F32 && both_nan)
        continue;
      ADD_FAILURE() << "cast to " << element_type_name(to) << ": element " << i
                    << " (" << to_float(in[i]) << ") differs";
      if (++bad == 5)
        break;
    }
  }
  Buf<float> out(kN);
  EXPECT_THROW(gpu::cast<T>(l, out.data(), ElementType::I32, in.data(), kN),
               std::invalid_argument);
  EXPECT_THROW(cpu.cast(out.data(), ElementType::I32, in.data(), kN),
               std::invalid_argument);
}

TYPED_TEST(Elementwise, ResidualAndScale) {
  TPC_EMU_LOCALS;
  const Buf<T> a = this->rnd(kN, 1), b = this->rnd(kN, 2);
  Buf<T> got = a, want = a; // out aliases a
  gpu::residual_forward<T>(l, got.data(), got.data(), b.data(), kN);
  cpu.residual_forward(want.data(), want.data(), b.data(), kN);
  this->close(got, want, "residual_forward");

  Buf<T> sgot(kN), swant(kN);
  gpu::scale_forward<T>(l, sgot.data(), a.data(), 0.37f, kN);
  cpu.scale_forward(swant.data(), a.data(), 0.37f, kN);
  this->close(sgot, swant, "scale_forward");
}

TYPED_TEST(Elementwise, Gelu) {
  TPC_EMU_LOCALS;
  const Buf<T> x = this->rnd(kN, 3, 3.0f), dout = this->rnd(kN, 4);
  Buf<T> got(kN), want(kN);
  gpu::gelu_forward<T>(l, got.data(), x.data(), kN);
  cpu.gelu_forward(want.data(), x.data(), kN);
  this->close(got, want, "gelu_forward");

  Buf<T> dgot = this->rnd(kN, 5), dwant = dgot; // accumulates
  gpu::gelu_backward<T>(l, dgot.data(), x.data(), dout.data(), kN);
  cpu.gelu_backward(dwant.data(), x.data(), dout.data(), kN, true);
  this->close(dgot, dwant, "gelu_backward");
  gpu::gelu_backward<T>(l, nullptr, x.data(), dout.data(), kN);
}

TYPED_TEST(Elementwise, GeluExact) {
  TPC_EMU_LOCALS;
  const Buf<T> x = this->rnd(kN, 33, 4.0f), dout = this->rnd(kN, 34);
  Buf<T> got(kN), want(kN);
  gpu::gelu_exact_forward<T>(l, got.data(), x.data(), kN);
  cpu.gelu_exact_forward(want.data(), x.data(), kN);
  this->close(got, want, "gelu_exact_forward");

  Buf<T> dgot = this->rnd(kN, 35), dwant = dgot; // accumulates
  gpu::gelu_exact_backward<T>(l, dgot.data(), x.data(), dout.data(), kN);
  cpu.gelu_exact_backward(dwant.data(), x.data(), dout.data(), kN, true);
  this->close(dgot, dwant, "gelu_exact_backward");
  gpu::gelu_exact_backward<T>(l, nullptr, x.data(), dout.data(), kN);
}

TYPED_TEST(Elementwise, Tanh) {
  TPC_EMU_LOCALS;
  Buf<T> x = this->rnd(kN, 36, 3.0f);
  // Saturated inputs: exactly 1 or -1, and a zero gradient.
  const float far[] = {12.0f, -12.0f, 1e4f, -1e4f, INFINITY, -INFINITY};
  for (size_t i = 0; i < std::size(far); ++i)
    x[i] = from_float<T>(far[i]);
  const Buf<T> dout = this->rnd(kN, 37);
  Buf<T> got(kN), want(kN);
  gpu::tanh_forward<T>(l, got.data(), x.data(), kN);
  cpu.tanh_forward(want.data(), x.data(), kN);
  this->close(got, want, "tanh_forward");

  // Both from the CPU's output, so that only the backward kernels differ.
  for (bool accumulate : {true, false}) {
    Buf<T> dgot = this->rnd(kN, 38), dwant = dgot;
    gpu::tanh_backward<T>(l, dgot.data(), want.data(), dout.data(), kN,
                          accumulate);
    cpu.tanh_backward(dwant.data(), want.data(), dout.data(), kN, accumulate);
    this->close(dgot, dwant, str("tanh_backward, accumulate ", accumulate));
  }
  gpu::tanh_backward<T>(l, nullptr, x.data(), dout.data(), kN, true);
}

TYPED_TEST(Elementwise, SwiGLU) {
  TPC_EMU_LOCALS;
  // Gates far below zero too, where the sigmoid is tiny.
  const Buf<T> gate = this->rnd(kN, 6, 6.0f), up = this->rnd(kN, 7),
               dout = this->rnd(kN, 8);
  Buf<T> got(kN), want(kN);
  gpu::swiglu_forward<T>(l, got.data(), gate.data(), up.data(), kN);
  cpu.swiglu_forward(want.data(), gate.data(), up.data(), kN);
  this->close(got, want, "swiglu_forward");

  for (int which : {3, 1, 2, 0}) { // bit 0: dgate, bit 1: dup
    Buf<T> dg = this->rnd(kN, 9), du = this->rnd(kN, 10);
    Buf<T> dg_want = dg, du_want = du;
    gpu::swiglu_backward<T>(l, which & 1 ? dg.data() : nullptr,
                            which & 2 ? du.data() : nullptr, dout.data(),
                            gate.data(), up.data(), kN);
    cpu.swiglu_backward(which & 1 ? dg_want.data() : nullptr,
                        which & 2 ? du_want.data() : nullptr, dout.data(),
                        gate.data(), up.data(), kN);
    const std::string what = str("swiglu_backward ", which);
    this->close(dg, dg_want, what + " dgate");
    this->close(du, du_want, what + " dup");
  }
}

TYPED_TEST(Elementwise, WeightedSum) {
  TPC_EMU_LOCALS;
  // Enough elements for 8 blocks of dalpha partials (sm_count 2).
  const size_t n = 3000;
  const int k = 3;
  std::vector<Buf<T>> xs;
  for (int j = 0; j < k; ++j)
    xs.push_back(this->rnd(n, 20 + j));
  const Buf<T> alpha = this->rnd(k, 24), dout = this->rnd(n, 25);
  const T *xp[k] = {xs[0].data(), xs[1].data(), xs[2].data()};
  const void *xv[k] = {xp[0], xp[1], xp[2]};

  Buf<T> got(n), want(n);
  gpu::weighted_sum_forward<T>(l, got.data(), xp, alpha.data(), k, n);
  cpu.weighted_sum_forward(want.data(), xv, alpha.data(), k, n);
  this->close(got, want, "weighted_sum_forward");
  Buf<T> got0 = filled<T>(n, 3.0f), want0 = got0; // no summands: zeros
  gpu::weighted_sum_forward<T>(l, got0.data(), xp, alpha.data(), 0, n);
  cpu.weighted_sum_forward(want0.data(), xv, alpha.data(), 0, n);
  expect_same(got0, want0, "weighted_sum_forward of none");

  // dxs[1] null; everything accumulates onto nonzero values.
  Buf<T> dx0 = this->rnd(n, 26), dx2 = this->rnd(n, 27);
  Buf<T> dalpha = this->rnd(k, 28);
  Buf<T> dx0_want = dx0, dx2_want = dx2, dalpha_want = dalpha;
  T *dxp[k] = {dx0.data(), nullptr, dx2.data()};
  void *dxv[k] = {dx0_want.data(), nullptr, dx2_want.data()};
  gpu::weighted_sum_backward<T>(l, dxp, dalpha.data(), dout.data(), xp,
                                alpha.data(), k, n);
  cpu.weighted_sum_backward(dxv, dalpha_want.data(), dout.data(), xv,
                            alpha.data(), k, n);
  this->close(dx0, dx0_want, "weighted_sum_backward dx0");
  this->close(dx2, dx2_want, "weighted_sum_backward dx2");
  this->close(dalpha, dalpha_want, "weighted_sum_backward dalpha");

  // No dxs at all (the CPU takes an array of nulls), and no dalpha.
  Buf<T> da = this->rnd(k, 29), da_want = da;
  void *none[k] = {nullptr, nullptr, nullptr};
  gpu::weighted_sum_backward<T>(l, nullptr, da.data(), dout.data(), xp,
                                alpha.data(), k, n);
  cpu.weighted_sum_backward(none, da_want.data(), dout.data(), xv, alpha.data(),
                            k, n);
  this->close(da, da_want, "weighted_sum_backward dalpha only");
  Buf<T> dx_only = this->rnd(n, 30), dx_only_want = dx_only;
  T *one[k] = {nullptr, dx_only.data(), nullptr};
  void *one_want[k] = {nullptr, dx_only_want.data(), nullptr};
  gpu::weighted_sum_backward<T>(l, one, nullptr, dout.data(), xp, alpha.data(),
                                k, n);
  cpu.weighted_sum_backward(one_want, nullptr, dout.data(), xv, alpha.data(), k,
                            n);
  this->close(dx_only, dx_only_want, "weighted_sum_backward dx only");

  // The CUDA backend passes the summands by value: at most 16.
  std::vector<const T *> many(17, xp[0]);
  EXPECT_THROW(gpu::weighted_sum_forward<T>(l, got.data(), many.data(),
                                            alpha.data(), 17, n),
               std::invalid_argument);
}

TYPED_TEST(Elementwise, Dropout) {
  TPC_EMU_LOCALS;
  DropoutParams d;
  d.p = 0.3f;
  d.seed = 1234;
  d.step = 7;
  d.key = fnv1a64("blocks.3.dropout");
  // The whole tensor, and rank 1's half of a split one inside a larger
  // data-parallel batch.
  GlobalIndexMap sliced({6, 50}, SliceSpec::split({6, 50}, 1, 1, 2));
  sliced.base = 4096;
  struct Case {
    const char *name;
    size_t n;
    GlobalIndexMap map;
  } cases[] = {{"identity", kN, GlobalIndexMap()}, {"sliced", 150, sliced}};
  for (const Case &c : cases) {
    const Buf<T> x = this->rnd(c.n, 31);
    Buf<T> got = filled<T>(c.n, 9.0f), want = got;
    gpu::dropout_forward<T>(l, got.data(), x.data(), c.n, d, c.map);
    cpu.dropout_forward(want.data(), x.data(), c.n, d, c.map);
    // The same mask (x has no zeros) and the same kept values.
    expect_same(got, want, std::string("dropout_forward ") + c.name);
    size_t dropped = 0;
    for (size_t i = 0; i < c.n; ++i)
      dropped += to_float(got[i]) == 0.0f;
    EXPECT_GT(dropped, c.n / 5) << c.name;
    EXPECT_LT(dropped, c.n * 2 / 5) << c.name;
  }
  DropoutParams off = d;
  off.p = 0.0f;
  const Buf<T> x = this->rnd(kN, 32);
  Buf<T> got(kN);
  gpu::dropout_forward<T>(l, got.data(), x.data(), kN, off, GlobalIndexMap());
  expect_same(got, x, "dropout_forward at p 0");
  off.p = 1.0f;
  EXPECT_THROW(gpu::dropout_forward<T>(l, got.data(), x.data(), kN, off,
                                       GlobalIndexMap()),
               std::invalid_argument);
}

TYPED_TEST(Elementwise, Accumulate) {
  TPC_EMU_LOCALS;
  const Buf<T> x = this->rnd(kN, 33);
  Buf<float> g32 = this->rndf(kN, 34), g32_want = g32;
  gpu::accumulate<T>(l, g32.data(), ElementType::F32, x.data(), kN);
  cpu.accumulate(g32_want.data(), ElementType::F32, x.data(), kN);
  this->close32(g32, g32_want, "accumulate into f32");
  Buf<T> g = this->rnd(kN, 35), g_want = g;
  gpu::accumulate<T>(l, g.data(), kType, x.data(), kN);
  cpu.accumulate(g_want.data(), kType, x.data(), kN);
  this->close(g, g_want, "accumulate into the storage type");
  const ElementType other =
      kType == ElementType::BF16 ? ElementType::F16 : ElementType::BF16;
  EXPECT_THROW(gpu::accumulate<T>(l, g.data(), other, x.data(), kN),
               std::invalid_argument);
  EXPECT_THROW(cpu.accumulate(g.data(), other, x.data(), kN),
               std::invalid_argument);
}

//===----------------------------------------------------------------------===//
// Embedding.cu
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Embedding);

constexpr int kB = 2, kT = 7, kC = 37;

/// Ids of a vocabulary of 11 with repeats.
Buf<int> token_ids() {
  const int ids[kB * kT] = {0, 3, 4, 4, 10, 7, 3, 5, 7, 7, 9, 1, 3, 6};
  Buf<int> b(kB * kT);
  std::copy(std::begin(ids), std::end(ids), b.data());
  return b;
}

TYPED_TEST(Embedding, Token) {
  TPC_EMU_LOCALS;
  const Buf<int> ids = token_ids();
  const size_t rows = size_t(kB) * kT;
  // The whole vocabulary, and rank 1's rows [3, 8) of a split one.
  for (auto [vstart, vlocal] : {std::pair{0, 11}, std::pair{3, 5}}) {
    const std::string what =
        str(" of rows [", vstart, ", ", vstart + vlocal, ")");
    const Buf<T> wte = this->rnd(size_t(vlocal) * kC, 40);
    Buf<T> got = filled<T>(rows * kC, 7.0f), want = got;
    gpu::embedding_forward<T>(l, got.data(), ids.data(), wte.data(), kB, kT, kC,
                              vstart, vlocal);
    cpu.embedding_forward(want.data(), ids.data(), wte.data(), kB, kT, kC,
                          vstart, vlocal);
    expect_same(got, want, "embedding_forward" + what);

    const Buf<T> dout = this->rnd(rows * kC, 41);
    Buf<T> dwte = this->rnd(size_t(vlocal) * kC, 42), dwte_want = dwte;
    gpu::embedding_backward<T>(l, dwte.data(), dout.data(), ids.data(), kB, kT,
                               kC, vstart, vlocal);
    cpu.embedding_backward(dwte_want.data(), dout.data(), ids.data(), kB, kT,
                           kC, vstart, vlocal);
    this->close(dwte, dwte_want, "embedding_backward" + what);
  }
  gpu::embedding_backward<T>(l, nullptr, nullptr, ids.data(), kB, kT, kC, 0,
                             11);
}

// A large vocabulary of which a batch touches a few rows, many times each:
// the rows no token names stay as they were, and the scratch depends on the
// tokens only, never on the vocabulary.
TYPED_TEST(Embedding, FewRowsOfALargeVocabulary) {
  TPC_EMU_LOCALS;
  constexpr int kBatch = 3, kSeq = 37, V = 20000;
  Buf<int> ids(size_t(kBatch) * kSeq);
  const int few[] = {V - 1, 7, 12345, 7, 9999, 10000, 0, 7};
  for (size_t n = 0; n < ids.size(); ++n)
    ids[n] = few[(n * n + 3 * n) % std::size(few)];
  Buf<int> same(size_t(kBatch) * kSeq); // one id for every token
  for (size_t n = 0; n < same.size(); ++n)
    same[n] = 10001;
  const size_t rows = size_t(kBatch) * kSeq;
  const Buf<T> dout = this->rnd(rows * kC, 47);
  // The whole vocabulary, the second half of it split off, and a slice of
  // 40 rows that the same tokens touch no more of.
  size_t scratch[3] = {};
  const std::pair<int, int> splits[] = {{0, V}, {V / 2, V / 2}, {10000, 40}};
  for (int i = 0; i < 3; ++i) {
    auto [vstart, vlocal] = splits[i];
    for (const Buf<int> *tokens : {&ids, &same}) {
      const std::string what =
          str("embedding_backward of rows [", vstart, ", ", vstart + vlocal,
              tokens == &same ? "), every token the same id" : ")");
      Buf<T> dwte = this->rnd(size_t(vlocal) * kC, 48), dwte_want = dwte;
      gpu::Scratch fresh(nullptr);
      gpu::Launch lf = l;
      lf.scratch = &fresh;
      gpu::embedding_backward<T>(lf, dwte.data(), dout.data(), tokens->data(),
                                 kBatch, kSeq, kC, vstart, vlocal);
      cpu.embedding_backward(dwte_want.data(), dout.data(), tokens->data(),
                             kBatch, kSeq, kC, vstart, vlocal);
      this->close(dwte, dwte_want, what);
      if (tokens == &ids)
        scratch[i] = tpc_emu::largest_scratch_request(fresh);
    }
  }
  EXPECT_EQ(scratch[0], scratch[1]) << "the scratch grew with the vocabulary";
  EXPECT_EQ(scratch[0], scratch[2]) << "the scratch grew with the vocabulary";
  // The fp32 sums of the tokens' rows and small tables: far below the
  // vocabulary's fp32 table.
  EXPECT_LE(scratch[0],
            rows * kC * sizeof(float) + 16 * rows * sizeof(int) + 2048);
}

TYPED_TEST(Embedding, Position) {
  TPC_EMU_LOCALS;
  const size_t rows = size_t(kB) * kT;
  const Buf<T> wpe = this->rnd(size_t(kT + 5) * kC, 43);
  Buf<int> offset(1);
  offset[0] = 5;
  for (const int *off : {static_cast<const int *>(nullptr),
                         static_cast<const int *>(offset.data())}) {
    Buf<T> got = this->rnd(rows * kC, 44), want = got; // out aliases inp
    gpu::position_embedding_forward<T>(l, got.data(), got.data(), wpe.data(),
                                       off, kB, kT, kC);
    cpu.position_embedding_forward(want.data(), want.data(), wpe.data(), off,
                                   kB, kT, kC);
    this->close(got, want,
                std::string("position_embedding_forward, offset ") +
                    (off ? "5" : "null"));
  }
  for (int B : {kB, 3}) {
    const Buf<T> dout = this->rnd(size_t(B) * kT * kC, 45);
    Buf<T> dwpe = this->rnd(size_t(kT) * kC, 46), dwpe_want = dwpe;
    gpu::position_embedding_backward<T>(l, dwpe.data(), dout.data(), B, kT, kC);
    cpu.position_embedding_backward(dwpe_want.data(), dout.data(), B, kT, kC);
    this->close(dwpe, dwpe_want, str("position_embedding_backward, B ", B));
  }
}

//===----------------------------------------------------------------------===//
// Norm.cu
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Norm);

// 8 rows per block: 19 rows are three blocks; 300 channels two column tiles
// of the parameter gradients.
const std::pair<int, int> kNormShapes[] = {{19, kC}, {5, 300}};

TYPED_TEST(Norm, LayerNorm) {
  TPC_EMU_LOCALS;
  for (auto [N, C] : kNormShapes) {
    const std::string shape = str(" N ", N, " C ", C);
    const size_t n = size_t(N) * C;
    // A mean far from zero against the spread: the two-pass variance.
    std::vector<float> xv = test::random_vector(n, 50, 2.0f);
    for (float &v : xv)
      v += 3.0f;
    const Buf<T> x = stored<T>(xv), w = this->rnd(C, 51), b = this->rnd(C, 52);
    Buf<T> out(n), out_want(n);
    Buf<float> mean(N), rstd(N), mean_want(N), rstd_want(N);
    // BERT's epsilon: the kernels take the caller's.
    gpu::layernorm_forward<T>(l, out.data(), mean.data(), rstd.data(), x.data(),
                              w.data(), b.data(), N, C, 1e-12f);
    cpu.layernorm_forward(out_want.data(), mean_want.data(), rstd_want.data(),
                          x.data(), w.data(), b.data(), N, C, 1e-12f);
    this->close(out, out_want, "layernorm_forward out" + shape);
    this->close32(mean, mean_want, "layernorm_forward mean" + shape);
    this->close32(rstd, rstd_want, "layernorm_forward rstd" + shape);
    Buf<T> inplace = x; // out aliases inp, statistics not wanted
    gpu::layernorm_forward<T>(l, inplace.data(), nullptr, nullptr,
                              inplace.data(), w.data(), b.data(), N, C, 1e-12f);
    this->close(inplace, out_want, "layernorm_forward in place" + shape);

    const Buf<T> dout = this->rnd(n, 53);
    for (int which : {7, 2, 5, 4, 0}) { // bits: dinp, dweight, dbias
      Buf<T> dx = this->rnd(n, 54), dw = this->rnd(C, 55),
             db = this->rnd(C, 56);
      Buf<T> dx_want = dx, dw_want = dw, db_want = db;
      auto pick = [which](Buf<T> &buf, int bit) {
        return which & bit ? buf.data() : nullptr;
      };
      gpu::layernorm_backward<T>(l, pick(dx, 1), pick(dw, 2), pick(db, 4),
                                 dout.data(), x.data(), w.data(),
                                 mean_want.data(), rstd_want.data(), N, C);
      cpu.layernorm_backward(pick(dx_want, 1), pick(dw_want, 2),
                             pick(db_want, 4), dout.data(), x.data(), w.data(),
                             mean_want.data(), rstd_want.data(), N, C);
      const std::string what = str("layernorm_backward ", which, shape);
      this->close(dx, dx_want, what + " dinp");
      this->close(dw, dw_want, what + " dweight");
      this->close(db, db_want, what + " dbias");
    }
  }
}

TYPED_TEST(Norm, RMSNorm) {
  TPC_EMU_LOCALS;
  const float eps = 1e-6f;
  for (auto [N, C] : kNormShapes) {
    const std::string shape = str(" N ", N, " C ", C);
    const size_t n = size_t(N) * C;
    const Buf<T> x = this->rnd(n, 60, 2.0f), w = this->rnd(C, 61);
    Buf<T> out(n), out_want(n);
    Buf<float> rstd(N), rstd_want(N);
    gpu::rmsnorm_forward<T>(l, out.data(), rstd.data(), x.data(), w.data(), N,
                            C, eps);
    cpu.rmsnorm_forward(out_want.data(), rstd_want.data(), x.data(), w.data(),
                        N, C, eps);
    this->close(out, out_want, "rmsnorm_forward out" + shape);
    this->close32(rstd, rstd_want, "rmsnorm_forward rstd" + shape);

    const Buf<T> dout = this->rnd(n, 62);
    for (int which : {3, 1, 2, 0}) { // bits: dinp, dweight
      Buf<T> dx = this->rnd(n, 63), dw = this->rnd(C, 64);
      Buf<T> dx_want = dx, dw_want = dw;
      gpu::rmsnorm_backward<T>(l, which & 1 ? dx.data() : nullptr,
                               which & 2 ? dw.data() : nullptr, dout.data(),
                               x.data(), w.data(), rstd_want.data(), N, C);
      cpu.rmsnorm_backward(which & 1 ? dx_want.data() : nullptr,
                           which & 2 ? dw_want.data() : nullptr, dout.data(),
                           x.data(), w.data(), rstd_want.data(), N, C);
      const std::string what = str("rmsnorm_backward ", which, shape);
      this->close(dx, dx_want, what + " dinp");
      this->close(dw, dw_want, what + " dweight");
    }
  }
}

//===----------------------------------------------------------------------===//
// Loss.cu
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Loss);

struct CeCase {
  int V, Vp, ignore;
  std::vector<int> targets;
};

/// n targets in [0, V), every fifth one ignored.
std::vector<int> many_targets(int n, int V, int ignore) {
  std::vector<int> t(n);
  for (int i = 0; i < n; ++i)
    t[i] = i % 5 == 4 ? ignore : (i * 7919) % V;
  return t;
}

// Padded columns; an ignored row; a vocabulary of 3001 that takes a row
// block's 512 threads twice through its unrolled loop; 40 rows, which the
// totals' single block spreads over two warps (a warp that runs ahead into
// the second of its reductions could overwrite the other's partial).
const CeCase kCeCases[] = {
    {13, 16, -1, {1, 12, -1, 0, 5, 5, 7}},
    {3001, 3008, -100, {0, 3000, -100, 1234, 2047}},
    {13, 16, -1, many_targets(40, 13, -1)},
};

TYPED_TEST(Loss, CrossEntropy) {
  TPC_EMU_LOCALS;
  for (const CeCase &c : kCeCases) {
    const int N = int(c.targets.size());
    const std::string shape = str(" V ", c.V, ", N ", N);
    Buf<int> targets(N);
    std::copy(c.targets.begin(), c.targets.end(), targets.data());
    const Buf<T> logits = this->rnd(size_t(N) * c.Vp, 70, 4.0f);

    Buf<float> losses = filled<float>(N, -7.0f), losses_want = losses;
    Buf<float> totals(2), totals_want(2);
    totals[0] = totals_want[0] = 1.0f;
    totals[1] = totals_want[1] = 2.0f;
    gpu::crossentropy_forward<T>(l, losses.data(), totals.data(), logits.data(),
                                 targets.data(), N, c.V, c.Vp, c.ignore);
    cpu.crossentropy_forward(losses_want.data(), totals_want.data(),
                             logits.data(), targets.data(), N, c.V, c.Vp,
                             c.ignore, nullptr);
    this->close32(losses, losses_want, "crossentropy_forward losses" + shape);
    this->close32(totals, totals_want, "crossentropy_forward totals" + shape);
    // Without per-row losses (the rows go through scratch).
    Buf<float> totals2(2);
    gpu::crossentropy_forward<T>(l, nullptr, totals2.data(), logits.data(),
                                 targets.data(), N, c.V, c.Vp, c.ignore);
    totals_want[0] -= 1.0f;
    totals_want[1] -= 2.0f;
    this->close32(totals2, totals_want,
                  "crossentropy_forward totals, no losses" + shape);

    Buf<float> dloss(1);
    dloss[0] = 0.37f;
    Buf<T> d = filled<T>(size_t(N) * c.Vp, 9.0f), d_want = d;
    gpu::crossentropy_backward<T>(l, d.data(), logits.data(), targets.data(), N,
                                  c.V, c.Vp, dloss.data(), c.ignore);
    cpu.crossentropy_backward(d_want.data(), logits.data(), targets.data(), N,
                              c.V, c.Vp, dloss.data(), c.ignore, nullptr);
    this->close(d, d_want, "crossentropy_backward" + shape);
    Buf<T> inplace = logits; // dlogits is logits
    gpu::crossentropy_backward<T>(l, inplace.data(), inplace.data(),
                                  targets.data(), N, c.V, c.Vp, dloss.data(),
                                  c.ignore);
    this->close(inplace, d_want, "crossentropy_backward in place" + shape);
  }
}

struct VpCase {
  int V, Vl, ranks, ignore;
  std::vector<int> targets;
};

// Vocabularies split over ranks: the last rank's columns partly padding,
// or (4 ranks of 4 over 10) all of them.
const VpCase kVpCases[] = {
    {10, 4, 3, 3, {1, 9, 3, 0, 5, 8, 7}},
    {10, 4, 4, -1, {1, 9, 3, 0, -1, 8, 7}},
    {3001, 752, 4, -100, {0, 3000, -100, 1234, 2255}},
    {10, 4, 3, -1, many_targets(40, 10, -1)}, // two warps, as above
};

TYPED_TEST(Loss, VocabParallel) {
  TPC_EMU_LOCALS;
  for (const VpCase &c : kVpCases) {
    const int N = int(c.targets.size()), Vl = c.Vl, R = c.ranks;
    const std::string shape = str(" V ", c.V, " over ", R, ", N ", N);
    Buf<int> targets(N);
    std::copy(c.targets.begin(), c.targets.end(), targets.data());
    std::vector<Buf<T>> shard;
    for (int r = 0; r < R; ++r)
      shard.push_back(this->rnd(size_t(N) * Vl, 80 + r, 4.0f));

    // Each phase from the same inputs on both sides; the reductions
    // between them are the CPU's.
    Buf<float> gmax = filled<float>(N, -INFINITY);
    for (int r = 0; r < R; ++r) {
      Buf<float> m = filled<float>(N, 3.0f), m_want = m;
      gpu::vocab_parallel_ce_max<T>(l, m.data(), shard[r].data(), N, Vl, r * Vl,
                                    c.V);
      cpu.vocab_parallel_ce_max(m_want.data(), shard[r].data(), N, Vl, r * Vl,
                                c.V);
      expect_same(m, m_want, str("vocab_parallel_ce_max rank ", r, shape));
      for (int n = 0; n < N; ++n)
        gmax[n] = std::max(gmax[n], m_want[n]);
    }
    Buf<float> gsum(N), gtarget(N);
    for (int r = 0; r < R; ++r) {
      Buf<float> s = filled<float>(N, 3.0f), t = s, s_want = s, t_want = s;
      gpu::vocab_parallel_ce_sumexp<T>(l, s.data(), t.data(), shard[r].data(),
                                       targets.data(), gmax.data(), N, Vl,
                                       r * Vl, c.V, c.ignore);
      cpu.vocab_parallel_ce_sumexp(s_want.data(), t_want.data(),
                                   shard[r].data(), targets.data(), gmax.data(),
                                   N, Vl, r * Vl, c.V, c.ignore);
      const std::string rank = str(" rank ", r, shape);
      this->close32(s, s_want, "vocab_parallel_ce_sumexp sumexp" + rank);
      expect_same(t, t_want, "vocab_parallel_ce_sumexp target_logit" + rank);
      for (int n = 0; n < N; ++n) {
        gsum[n] += s_want[n];
        gtarget[n] += t_want[n];
      }
    }
    Buf<float> losses = filled<float>(N, 5.0f), losses_want = losses;
    Buf<float> totals = filled<float>(2, 0.5f), totals_want = totals;
    gpu::vocab_parallel_ce_loss(l, losses.data(), totals.data(), gsum.data(),
                                gtarget.data(), gmax.data(), targets.data(), N,
                                c.ignore);
    cpu.vocab_parallel_ce_loss(losses_want.data(), totals_want.data(),
                               gsum.data(), gtarget.data(), gmax.data(),
                               targets.data(), N, c.ignore);
    this->close32(losses, losses_want, "vocab_parallel_ce_loss losses" + shape);
    this->close32(totals, totals_want, "vocab_parallel_ce_loss totals" + shape);
    gpu::vocab_parallel_ce_loss(l, nullptr, totals.data(), gsum.data(),
                                gtarget.data(), gmax.data(), targets.data(), N,
                                c.ignore);

    Buf<float> dloss(1);
    dloss[0] = 1.7f;
    for (int r = 0; r < R; ++r) {
      Buf<T> d = filled<T>(size_t(N) * Vl, 4.0f), d_want = d;
      gpu::vocab_parallel_ce_backward<T>(
          l, d.data(), shard[r].data(), targets.data(), gmax.data(),
          gsum.data(), N, Vl, r * Vl, c.V, dloss.data(), c.ignore);
      cpu.vocab_parallel_ce_backward(
          d_want.data(), shard[r].data(), targets.data(), gmax.data(),
          gsum.data(), N, Vl, r * Vl, c.V, dloss.data(), c.ignore);
      const std::string rank = str(" rank ", r, shape);
      this->close(d, d_want, "vocab_parallel_ce_backward" + rank);
      Buf<T> inplace = shard[r];
      gpu::vocab_parallel_ce_backward<T>(
          l, inplace.data(), inplace.data(), targets.data(), gmax.data(),
          gsum.data(), N, Vl, r * Vl, c.V, dloss.data(), c.ignore);
      this->close(inplace, d_want,
                  "vocab_parallel_ce_backward in place" + rank);
    }
  }
}

TYPED_TEST(Loss, Outputs) {
  auto &l = this->l;
  const Kernels &cpu = this->cpu();
  Buf<float> totals(2), loss(1), loss_want(1);
  totals[0] = 12.625f;
  totals[1] = 6.9999995f;
  Buf<int32_t> count(1), count_want(1);
  gpu::loss_outputs(l, loss.data(), count.data(), totals.data());
  cpu.loss_outputs(loss_want.data(), count_want.data(), totals.data());
  expect_same(loss, loss_want, "loss_outputs loss");
  EXPECT_EQ(count[0], count_want[0]);
}

//===----------------------------------------------------------------------===//
// Optimizer.cu
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Optimizer);

// Four blocks; and more than the 16 blocks of a wave (sm_count 2), which
// loop over the rest.
constexpr size_t kOptSizes[] = {1001, 70001};

TYPED_TEST(Optimizer, SumOfSquaresAndNorm) {
  TPC_EMU_LOCALS;
  for (size_t n : kOptSizes) {
    const std::string size = str(" n ", n);
    const Buf<T> g = this->rnd(n, 90, 2.0f);
    Buf<float> sq = filled<float>(1, 1.5f), sq_want = sq;
    gpu::sum_of_squares<T>(l, sq.data(), g.data(), n);
    cpu.sum_of_squares(sq_want.data(), g.data(), n);
    this->close32(sq, sq_want, "sum_of_squares" + size);

    Buf<float> inv = filled<float>(1, 0.25f);
    // Clipping, not clipping, no clipping at all.
    for (float max_norm : {1.0f, 1e6f, 0.0f}) {
      Buf<float> norm(1), scale(1), norm_want(1), scale_want(1);
      gpu::grad_norm(l, norm.data(), scale.data(), sq_want.data(), inv.data(),
                     max_norm);
      cpu.grad_norm(norm_want.data(), scale_want.data(), sq_want.data(),
                    inv.data(), max_norm);
      const std::string what = str(" max_norm ", max_norm, size);
      this->close32(norm, norm_want, "grad_norm norm" + what);
      this->close32(scale, scale_want, "grad_norm scale" + what);
    }
  }
  // An overflowed gradient: the norm is not finite, the scale NaN.
  Buf<float> sq = filled<float>(1, INFINITY), inv = filled<float>(1, 1.0f);
  Buf<float> norm(1), scale(1), norm_want(1), scale_want(1);
  gpu::grad_norm(l, norm.data(), scale.data(), sq.data(), inv.data(), 1.0f);
  cpu.grad_norm(norm_want.data(), scale_want.data(), sq.data(), inv.data(),
                1.0f);
  expect_same(norm, norm_want, "grad_norm of an overflow: norm");
  EXPECT_TRUE(std::isnan(scale[0]) && std::isnan(scale_want[0]));
}

TYPED_TEST(Optimizer, AdamW) {
  TPC_EMU_LOCALS;
  for (size_t n : kOptSizes) {
    const std::string size = str(" n ", n);
    const Buf<T> g = this->rnd(n, 91);
    Buf<float> w = this->rndf(n, 92), m(n), v(n);
    Buf<float> w_want = w, m_want = m, v_want = v;
    AdamWParams p;
    p.beta1 = 0.8f;
    p.beta2 = 0.9f;
    p.eps = 1e-6f;
    p.weight_decay = 0.1f;
    Buf<float> lr = filled<float>(1, 0.01f), gs = filled<float>(1, 0.5f);
    Buf<int64_t> step(1);
    for (int64_t t = 1; t <= 3; ++t) {
      step[0] = t;
      gpu::adamw_update<T>(l, w.data(), g.data(), m.data(), v.data(), n, p,
                           {lr.data(), gs.data(), step.data()});
      cpu.adamw_update(w_want.data(), g.data(), m_want.data(), v_want.data(), n,
                       p, {lr.data(), gs.data(), step.data()}, {});
      const std::string what = str(" step ", t, size);
      this->close32(w, w_want, "adamw_update param" + what);
      this->close32(m, m_want, "adamw_update m" + what);
      this->close32(v, v_want, "adamw_update v" + what);
    }
    // A skipped step writes nothing.
    gs[0] = INFINITY;
    const Buf<float> w0 = w, m0 = m, v0 = v;
    gpu::adamw_update<T>(l, w.data(), g.data(), m.data(), v.data(), n, p,
                         {lr.data(), gs.data(), step.data()});
    expect_same(w, w0, "adamw_update skipped: param" + size);
    expect_same(m, m0, "adamw_update skipped: m" + size);
    expect_same(v, v0, "adamw_update skipped: v" + size);
  }
}

TYPED_TEST(Optimizer, SGD) {
  TPC_EMU_LOCALS;
  for (size_t n : kOptSizes) {
    const std::string size = str(" n ", n);
    const Buf<T> g = this->rnd(n, 93);
    Buf<float> lr = filled<float>(1, 0.01f), gs = filled<float>(1, 0.5f);
    Buf<int64_t> step(1);
    for (float momentum : {0.9f, 0.0f}) {
      SgdParams p;
      p.momentum = momentum;
      p.weight_decay = 0.01f;
      Buf<float> w = this->rndf(n, 94), w_want = w;
      Buf<float> mom = this->rndf(n, 95), mom_want = mom;
      float *buf = momentum ? mom.data() : nullptr;
      float *buf_want = momentum ? mom_want.data() : nullptr;
      for (int t = 0; t < 2; ++t) {
        gpu::sgd_update<T>(l, w.data(), g.data(), buf, n, p,
                           {lr.data(), gs.data(), step.data()});
        cpu.sgd_update(w_want.data(), g.data(), buf_want, n, p,
                       {lr.data(), gs.data(), step.data()}, {});
      }
      const std::string what = str(" momentum ", momentum, size);
      this->close32(w, w_want, "sgd_update param" + what);
      this->close32(mom, mom_want, "sgd_update momentum" + what);
    }
    SgdParams p;
    p.momentum = 0.9f;
    Buf<float> w = this->rndf(n, 96), mom = this->rndf(n, 97);
    const Buf<float> w0 = w, mom0 = mom;
    gs[0] = NAN;
    gpu::sgd_update<T>(l, w.data(), g.data(), mom.data(), n, p,
                       {lr.data(), gs.data(), step.data()});
    expect_same(w, w0, "sgd_update skipped: param" + size);
    expect_same(mom, mom0, "sgd_update skipped: momentum" + size);
  }
}

//===----------------------------------------------------------------------===//
// Matmul.cu
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Matmul);

TYPED_TEST(Matmul, BiasGradient) {
  TPC_EMU_LOCALS;
  // Two column blocks of 32; 100 rows make four chunks of 25.
  const int C = 5, OC = 45;
  for (int N : {kC, 100}) {
    for (bool transposed : {false, true}) {
      const Buf<T> dout = this->rnd(size_t(N) * OC, 100);
      const Buf<T> inp = this->rnd(size_t(N) * C, 101),
                   w = this->rnd(size_t(C) * OC, 102);
      Buf<T> db = this->rnd(OC, 103), db_want = db;
      gpu::matmul_backward<T>(l, nullptr, nullptr, db.data(), dout.data(),
                              inp.data(), w.data(), N, C, OC, transposed);
      cpu.matmul_backward(nullptr, nullptr, db_want.data(), dout.data(),
                          inp.data(), w.data(), N, C, OC, transposed, true);
      this->close(db, db_want,
                  str("matmul_backward dbias, N ", N,
                      transposed ? ", transposed" : ""));
    }
  }
  EXPECT_EQ(this->blas.calls + this->blas.declined, 0)
      << "the bias gradient went through cuBLASLt";
}

// Wide biases (a vocabulary's) have column blocks enough for the device:
// whole columns per block, added to dbias with no scratch. Narrow ones sum
// chunks of rows into partials bounded by the device, not by the width.
TYPED_TEST(Matmul, BiasGradientScratch) {
  TPC_EMU_LOCALS;
  const int C = 3;
  for (int OC : {45, 300, 1000}) {
    for (int N : {kC, 100}) {
      const Buf<T> dout = this->rnd(size_t(N) * OC, 104);
      const Buf<T> inp = this->rnd(size_t(N) * C, 105),
                   w = this->rnd(size_t(C) * OC, 106);
      Buf<T> db = this->rnd(OC, 107), db_want = db;
      gpu::Scratch fresh(nullptr);
      gpu::Launch lf = l;
      lf.scratch = &fresh;
      gpu::matmul_backward<T>(lf, nullptr, nullptr, db.data(), dout.data(),
                              inp.data(), w.data(), N, C, OC, false);
      cpu.matmul_backward(nullptr, nullptr, db_want.data(), dout.data(),
                          inp.data(), w.data(), N, C, OC, false, true);
      const std::string what = str("matmul_backward dbias, N ", N, ", OC ", OC);
      this->close(db, db_want, what);
      // 4 blocks per multiprocessor of 32 columns each, at most.
      const size_t bound = size_t(4 * l.sm_count) * 32 * sizeof(float);
      const size_t used = tpc_emu::largest_scratch_request(fresh);
      if (OC >= 4 * l.sm_count * 32)
        EXPECT_EQ(used, 0u) << what;
      else
        EXPECT_LE(used, bound) << what;
    }
  }
}

// The rest of Matmul.cu around the GEMMs, on the host stand-in (Blas.h):
// which GEMMs the launchers ask for, and the bias fallback's kernel.
TYPED_TEST(Matmul, AroundTheGemms) {
  TPC_EMU_LOCALS;
  const int N = 11, C = kC, OC = 19;
  const Buf<T> inp = this->rnd(size_t(N) * C, 104),
               w = this->rnd(size_t(C) * OC, 105), bias = this->rnd(OC, 106),
               dout = this->rnd(size_t(N) * OC, 107);
  for (bool transposed : {false, true})
    for (int mode : {0, 1, 2}) { // no bias, the epilogue, the fallback
      this->blas.bias_epilogue = mode != 2;
      const T *b = mode ? bias.data() : nullptr;
      Buf<T> out = filled<T>(size_t(N) * OC, 5.0f), out_want = out;
      gpu::matmul_forward<T>(l, out.data(), inp.data(), w.data(), b, N, C, OC,
                             transposed);
      cpu.matmul_forward(out_want.data(), inp.data(), w.data(), b, N, C, OC,
                         transposed);
      this->close(out, out_want,
                  "matmul_forward" +
                      std::string(transposed ? " transposed" : "") +
                      (mode == 0   ? ", no bias"
                       : mode == 1 ? ", bias epilogue"
                                   : ", bias without the epilogue"));
    }
  EXPECT_EQ(this->blas.declined, 2);
  this->blas.bias_epilogue = true;

  for (bool transposed : {false, true}) {
    Buf<T> dx = this->rnd(size_t(N) * C, 108),
           dw = this->rnd(size_t(C) * OC, 109), db = this->rnd(OC, 110);
    Buf<T> dx_want = dx, dw_want = dw, db_want = db;
    gpu::matmul_backward<T>(l, dx.data(), dw.data(), db.data(), dout.data(),
                            inp.data(), w.data(), N, C, OC, transposed);
    cpu.matmul_backward(dx_want.data(), dw_want.data(), db_want.data(),
                        dout.data(), inp.data(), w.data(), N, C, OC, transposed,
                        true);
    const std::string what =
        std::string("matmul_backward") + (transposed ? " transposed" : "");
    this->close(dx, dx_want, what + " dinp");
    this->close(dw, dw_want, what + " dweight");
    this->close(db, db_want, what + " dbias");
  }

  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int M = 7, Nn = 9, K = 5;
      const Buf<T> A = this->rnd(size_t(M) * K, 111),
                   B = this->rnd(size_t(K) * Nn, 112);
      Buf<T> Cm = this->rnd(size_t(M) * Nn, 113), C_want = Cm;
      const int lda = ta ? M : K, ldb = tb ? K : Nn;
      gpu::gemm<T>(l, ta, tb, M, Nn, K, 0.5f, A.data(), lda, B.data(), ldb,
                   1.0f, Cm.data(), Nn);
      cpu.gemm(ta, tb, M, Nn, K, 0.5f, A.data(), lda, B.data(), ldb, 1.0f,
               C_want.data(), Nn);
      this->close(Cm, C_want,
                  std::string("gemm") + (ta ? " A^T" : "") +
                      (tb ? " B^T" : ""));
    }
}

//===----------------------------------------------------------------------===//
// Attention.cu
//===----------------------------------------------------------------------===//

#ifdef TPC_EMU_HAVE_ATTENTION

TPC_EMU_SUITE(Attention);

AttentionConfig attention(int B, int T, int NH, int HS,
                          AttentionMask mask = AttentionMask::Causal,
                          int window = 0) {
  AttentionConfig cfg;
  cfg.B = B;
  cfg.T = T;
  cfg.NH = NH;
  cfg.HS = HS;
  cfg.mask = mask;
  cfg.window = window;
  return cfg;
}

AttentionConfig with_dropout(AttentionConfig cfg, float p) {
  cfg.dropout.p = p;
  cfg.dropout.seed = 99;
  cfg.dropout.step = 3;
  cfg.dropout.key = fnv1a64("blocks.1.attn.dropout");
  return cfg;
}

AttentionConfig with_rope(AttentionConfig cfg, int dims) {
  cfg.rope.theta = 10000.0;
  cfg.rope.dims = dims;
  return cfg;
}

/// Heads [offset, offset + NH) of `global` and sequences from `batch` on,
/// as a tensor-parallel, data-parallel rank holds them.
AttentionConfig on_rank(AttentionConfig cfg, int offset, int global,
                        int batch) {
  cfg.head_offset = offset;
  cfg.nh_global = global;
  cfg.batch_offset = batch;
  return cfg;
}

std::string describe(const AttentionConfig &cfg) {
  static const char *masks[] = {"causal", "bidirectional", "strictly earlier"};
  std::ostringstream os;
  os << " (B " << cfg.B << ", T " << cfg.T << ", NH " << cfg.NH << ", KVH "
     << cfg.kv_heads() << ", HS " << cfg.HS << ", " << masks[int(cfg.mask)];
  if (cfg.window)
    os << ", window " << cfg.window;
  if (cfg.dropout.p > 0.0f)
    os << ", dropout " << cfg.dropout.p;
  if (cfg.rope.theta > 0.0)
    os << ", rope dims " << cfg.rope.dims;
  if (cfg.nh_global)
    os << ", heads from " << cfg.head_offset << " of " << cfg.nh_global;
  if (cfg.kv_replicated)
    os << ", KV replicated";
  if (cfg.key_lengths) {
    os << ", key lengths";
    for (int b = 0; b < cfg.B; ++b)
      os << " " << cfg.key_lengths[b];
  }
  os << ")";
  return os.str();
}

size_t probabilities(const AttentionConfig &cfg) {
  return size_t(cfg.B) * cfg.NH * cfg.T * cfg.T;
}

/// Rows [t, t + 1) of each sequence of x (B, T, width).
template <class E>
Buf<E> row_of(const Buf<E> &x, int B, int T, size_t width, int t) {
  Buf<E> r(size_t(B) * width);
  for (int b = 0; b < B; ++b)
    std::copy(x.data() + (size_t(b) * T + t) * width,
              x.data() + (size_t(b) * T + t + 1) * width,
              r.data() + size_t(b) * width);
  return r;
}

// T = 37: two query tiles of 32, the second partial. HS = 5: an odd head;
// HS = 36: lanes own two columns of a head.
TYPED_TEST(Attention, Self) {
  TPC_EMU_LOCALS;
  const AttentionConfig cases[] = {
      attention(2, 37, 3, 5),
      with_dropout(attention(1, 7, 3, 36, AttentionMask::Bidirectional, 3),
                   0.25f),
      on_rank(
          with_rope(with_dropout(
                        attention(2, 37, 3, 8, AttentionMask::Causal, 5), 0.1f),
                    0),
          1, 5, 3),
  };
  uint32_t seed = 200;
  for (const AttentionConfig &cfg : cases) {
    const std::string what = describe(cfg);
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C());
    const Buf<T> qkv = this->rnd(rows * 3 * C, seed++);
    Buf<T> out = filled<T>(rows * C, 3.0f), out_want = out;
    Buf<float> att = filled<float>(probabilities(cfg), 5.0f), att_want = att;
    gpu::attention_forward<T>(l, out.data(), att.data(), qkv.data(), cfg);
    cpu.attention_forward(out_want.data(), att_want.data(), qkv.data(), cfg);
    this->close_attention(out, out_want, "attention_forward out" + what);
    this->close_attention32(att, att_want, "attention_forward att" + what);

    // The backward from the same probabilities (the CPU's) on both sides.
    const Buf<T> dout = this->rnd(rows * C, seed++);
    Buf<T> dqkv = this->rnd(rows * 3 * C, seed++), dqkv_want = dqkv;
    gpu::attention_backward<T>(l, dqkv.data(), dout.data(), qkv.data(),
                               att_want.data(), cfg);
    cpu.attention_backward(dqkv_want.data(), dout.data(), qkv.data(),
                           att_want.data(), cfg);
    this->close_attention(dqkv, dqkv_want, "attention_backward dqkv" + what);
    gpu::attention_backward<T>(l, nullptr, dout.data(), qkv.data(),
                               att_want.data(), cfg);

    // Without saved probabilities: both sides recompute them.
    Buf<T> dqkv_re = this->rnd(rows * 3 * C, seed), dqkv_re_want = dqkv_re;
    gpu::attention_backward<T>(l, dqkv_re.data(), dout.data(), qkv.data(),
                               nullptr, cfg);
    cpu.attention_backward(dqkv_re_want.data(), dout.data(), qkv.data(),
                           nullptr, cfg);
    this->close_attention(dqkv_re, dqkv_re_want,
                          "attention_backward, recomputed, dqkv" + what);
  }
  // Grouped heads need the gqa_ kernels, on both backends.
  AttentionConfig grouped = attention(1, 7, 4, 6);
  grouped.KVH = 2;
  Buf<T> qkv = this->rnd(size_t(7) * 3 * 24, 1), out(size_t(7) * 24);
  Buf<float> att(probabilities(grouped));
  EXPECT_THROW(
      gpu::attention_forward<T>(l, out.data(), att.data(), qkv.data(), grouped),
      std::invalid_argument);
  EXPECT_THROW(
      cpu.attention_forward(out.data(), att.data(), qkv.data(), grouped),
      std::invalid_argument);
}

TYPED_TEST(Attention, Cross) {
  TPC_EMU_LOCALS;
  const AttentionConfig cases[] = {
      attention(2, 37, 3, 6),
      with_dropout(
          with_rope(attention(2, 37, 3, 6, AttentionMask::Causal, 4), 4), 0.2f),
  };
  uint32_t seed = 300;
  for (const AttentionConfig &cfg : cases) {
    const std::string what = describe(cfg);
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C());
    const Buf<T> q = this->rnd(rows * C, seed++),
                 kv = this->rnd(rows * 2 * C, seed++);
    Buf<T> out = filled<T>(rows * C, 3.0f), out_want = out;
    Buf<float> att = filled<float>(probabilities(cfg), 5.0f), att_want = att;
    gpu::cross_attention_forward<T>(l, out.data(), att.data(), q.data(),
                                    kv.data(), cfg);
    cpu.cross_attention_forward(out_want.data(), att_want.data(), q.data(),
                                kv.data(), cfg);
    this->close_attention(out, out_want, "cross_attention_forward out" + what);
    this->close_attention32(att, att_want,
                            "cross_attention_forward att" + what);

    const Buf<T> dout = this->rnd(rows * C, seed++);
    // With the CPU's probabilities, then with none: both sides recompute.
    for (int which : {3, 1, 2, 3 | 4}) { // bits: dq, dkv, recompute
      Buf<T> dq = this->rnd(rows * C, seed),
             dkv = this->rnd(rows * 2 * C, seed + 1);
      Buf<T> dq_want = dq, dkv_want = dkv;
      const float *saved = which & 4 ? nullptr : att_want.data();
      gpu::cross_attention_backward<T>(
          l, which & 1 ? dq.data() : nullptr, which & 2 ? dkv.data() : nullptr,
          dout.data(), q.data(), kv.data(), saved, cfg);
      cpu.cross_attention_backward(which & 1 ? dq_want.data() : nullptr,
                                   which & 2 ? dkv_want.data() : nullptr,
                                   dout.data(), q.data(), kv.data(), saved,
                                   cfg);
      const std::string grads = str(" ", which, what);
      this->close_attention(dq, dq_want, "cross_attention_backward dq" + grads);
      this->close_attention(dkv, dkv_want,
                            "cross_attention_backward dkv" + grads);
    }
    seed += 2;
  }
}

TYPED_TEST(Attention, GroupedQuery) {
  TPC_EMU_LOCALS;
  AttentionConfig gqa =
      with_rope(attention(2, 37, 4, 6, AttentionMask::Causal, 6), 4);
  gqa.KVH = 2;
  AttentionConfig mqa = with_dropout(
      with_rope(attention(1, 37, 3, 8, AttentionMask::Bidirectional, 4), 0),
      0.2f);
  mqa.KVH = 1;
  // Tensor parallelism over more ranks than KV heads: this rank holds query
  // heads 2 and 3 of 4 and both KV heads.
  AttentionConfig replicated = on_rank(attention(2, 7, 2, 6), 2, 4, 0);
  replicated.KVH = 2;
  replicated.kv_replicated = true;
  // BERT's key padding mask: a sequence without real keys (its outputs are
  // zero) and one whose keys from 23 on are padding, bidirectional with
  // dropout; and, causal, one length past T and one of 5.
  Buf<int> lengths(4);
  lengths[0] = 0;
  lengths[1] = 23;
  lengths[2] = 40;
  lengths[3] = 5;
  AttentionConfig padded =
      with_dropout(attention(2, 37, 4, 6, AttentionMask::Bidirectional), 0.1f);
  padded.KVH = 2;
  padded.key_lengths = lengths.data();
  AttentionConfig padded_causal = with_rope(attention(2, 37, 2, 6), 0);
  padded_causal.KVH = 2;
  padded_causal.key_lengths = lengths.data() + 2;
  uint32_t seed = 400;
  for (const AttentionConfig &cfg :
       {gqa, mqa, replicated, padded, padded_causal}) {
    const std::string what = describe(cfg);
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C()),
                 Ckv = size_t(cfg.C_kv());
    const Buf<T> q = this->rnd(rows * C, seed++),
                 k = this->rnd(rows * Ckv, seed++),
                 v = this->rnd(rows * Ckv, seed++);
    Buf<T> out = filled<T>(rows * C, 3.0f), out_want = out;
    Buf<float> att = filled<float>(probabilities(cfg), 5.0f), att_want = att;
    gpu::gqa_attention_forward<T>(l, out.data(), att.data(), q.data(), k.data(),
                                  v.data(), cfg);
    cpu.gqa_attention_forward(out_want.data(), att_want.data(), q.data(),
                              k.data(), v.data(), cfg);
    this->close_attention(out, out_want, "gqa_attention_forward out" + what);
    this->close_attention32(att, att_want, "gqa_attention_forward att" + what);

    const Buf<T> dout = this->rnd(rows * C, seed++);
    // With the CPU's probabilities, then with none: both sides recompute.
    for (int which : {7, 6, 1, 7 | 8, 4 | 8}) { // bits: dq, dk, dv, recompute
      Buf<T> dq = this->rnd(rows * C, seed),
             dk = this->rnd(rows * Ckv, seed + 1),
             dv = this->rnd(rows * Ckv, seed + 2);
      Buf<T> dq_want = dq, dk_want = dk, dv_want = dv;
      auto pick = [which](Buf<T> &b, int bit) {
        return which & bit ? b.data() : nullptr;
      };
      const float *saved = which & 8 ? nullptr : att_want.data();
      gpu::gqa_attention_backward<T>(l, pick(dq, 1), pick(dk, 2), pick(dv, 4),
                                     dout.data(), q.data(), k.data(), v.data(),
                                     saved, cfg);
      cpu.gqa_attention_backward(pick(dq_want, 1), pick(dk_want, 2),
                                 pick(dv_want, 4), dout.data(), q.data(),
                                 k.data(), v.data(), saved, cfg);
      const std::string grads = str(" ", which, what);
      this->close_attention(dq, dq_want, "gqa_attention_backward dq" + grads);
      this->close_attention(dk, dk_want, "gqa_attention_backward dk" + grads);
      this->close_attention(dv, dv_want, "gqa_attention_backward dv" + grads);
    }
    seed += 3;
  }
}

// Values that are one-hot by key (v[s] = e_s) make out[t][s] the kept,
// scaled probability of key s: zero exactly where dropout dropped it.
TYPED_TEST(Attention, ProbabilityDropoutMask) {
  TPC_EMU_LOCALS;
  const AttentionConfig cfg =
      on_rank(with_dropout(attention(2, 7, 3, 8), 0.3f), 1, 5, 2);
  const int B = cfg.B, Tq = cfg.T, NH = cfg.NH, HS = cfg.HS;
  const size_t C = size_t(cfg.C()), rows = size_t(B) * Tq;
  std::vector<float> x = test::random_vector(rows * 3 * C, 500);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < C; ++c)
      x[r * 3 * C + 2 * C + c] = int(c % HS) == int(r % Tq) ? 1.0f : 0.0f;
  const Buf<T> qkv = stored<T>(x);
  Buf<T> out(rows * C), out_want(rows * C);
  Buf<float> att(probabilities(cfg)), att_want(probabilities(cfg));
  gpu::attention_forward<T>(l, out.data(), att.data(), qkv.data(), cfg);
  cpu.attention_forward(out_want.data(), att_want.data(), qkv.data(), cfg);
  size_t dropped = 0, kept = 0, differ = 0;
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < Tq; ++t)
      for (int h = 0; h < NH; ++h)
        for (int s = 0; s <= t; ++s) { // the keys of query t
          const size_t i = (size_t(b) * Tq + t) * C + size_t(h) * HS + s;
          const bool g = to_float(out[i]) == 0.0f,
                     w = to_float(out_want[i]) == 0.0f;
          differ += g != w;
          (w ? dropped : kept) += 1;
        }
  EXPECT_EQ(differ, 0u) << "probability dropout masks differ" << describe(cfg);
  EXPECT_GT(dropped, 0u);
  EXPECT_GT(kept, dropped);
  this->close_attention(out, out_want,
                        "attention_forward, one-hot values" + describe(cfg));
}

// The training calls' scratch in the storage type: the forward's holds the
// head-major q, k, v and output and the (B,NH,T,T) probabilities; the
// backward's adds dout, the gradient of the scores (B,NH,T,T) and the fp32
// head-major gradients. T = 64 against C = 8, so that the (B,NH,T,T)
// tensors dominate.
TYPED_TEST(Attention, ScratchInStorageType) {
  TPC_EMU_LOCALS;
  const AttentionConfig cfg = with_dropout(attention(1, 64, 2, 4), 0.1f);
  const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C());
  const Buf<T> qkv = this->rnd(rows * 3 * C, 700),
               dout = this->rnd(rows * C, 701);
  Buf<T> out(rows * C), dqkv = this->rnd(rows * 3 * C, 702);
  size_t used[2] = {};
  for (int backward : {0, 1}) {
    gpu::Scratch fresh(nullptr);
    gpu::Launch lf = l;
    lf.scratch = &fresh;
    if (backward)
      gpu::attention_backward<T>(lf, dqkv.data(), dout.data(), qkv.data(),
                                 nullptr, cfg);
    else
      gpu::attention_forward<T>(lf, out.data(), nullptr, qkv.data(), cfg);
    used[backward] = tpc_emu::largest_scratch_request(fresh);
  }
  const size_t scores = gpu::region<T>(probabilities(cfg)),
               head = gpu::region<T>(rows * C),
               head32 = gpu::region<float>(rows * C);
  EXPECT_EQ(used[0], scores + 4 * head);
  EXPECT_EQ(used[1], 2 * scores + 4 * head + 3 * head32);
}

/// Decoding position after position against the CPU's decoding and, in
/// fp32, against the training forward's rows; then the caches. In 16-bit
/// storage the two paths differ by more than a rounding of the output: the
/// forward rounds its scores and probabilities to the storage type for its
/// GEMMs, decoding keeps them in fp32 (and with RoPE the cache holds the
/// rotated keys rounded, on the CPU too). The CPU's decoding is the
/// reference there.
template <class P, class Decode, class CpuDecode>
void expect_decoding(CudaEmu<P> &test, const AttentionConfig &cfg,
                     const Buf<typename P::T> &forward_out, size_t C,
                     size_t Ckv, int capacity, Decode decode,
                     CpuDecode cpu_decode, const std::string &what) {
  using T = typename P::T;
  const int B = cfg.B, steps = cfg.T;
  const bool fp32 = CudaEmu<P>::kType == ElementType::F32;
  const size_t cache = size_t(B) * capacity * Ckv;
  Buf<T> kc = test.rnd(cache, 600), vc = test.rnd(cache, 601);
  Buf<T> kc_want = kc, vc_want = vc;
  Buf<int> pos(1);
  for (int p = 0; p < steps; ++p) {
    pos[0] = p;
    Buf<T> o = filled<T>(size_t(B) * C, 3.0f), o_want = o;
    decode(o.data(), kc.data(), vc.data(), pos.data(), p);
    cpu_decode(o_want.data(), kc_want.data(), vc_want.data(), pos.data(), p);
    const std::string at = str(" at ", p, what);
    test.close(o, o_want, "against the CPU" + at);
    if (fp32)
      test.close(o, row_of(forward_out, B, steps, C, p),
                 "against the forward" + at);
  }
  test.close(kc, kc_want, "the key cache" + what);
  test.close(vc, vc_want, "the value cache" + what);
}

TYPED_TEST(Attention, DecodeSelf) {
  TPC_EMU_LOCALS;
  const int capacity = 9;
  for (const AttentionConfig &cfg :
       {attention(2, 7, 3, 8),
        with_rope(attention(2, 7, 3, 8, AttentionMask::Causal, 4), 0)}) {
    const std::string what = describe(cfg);
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C());
    const Buf<T> qkv = this->rnd(rows * 3 * C, 610);
    Buf<T> out(rows * C);
    Buf<float> att(probabilities(cfg));
    gpu::attention_forward<T>(l, out.data(), att.data(), qkv.data(), cfg);
    auto rows_at = [&](int p) { return row_of(qkv, cfg.B, cfg.T, 3 * C, p); };
    expect_decoding(
        *this, cfg, out, C, C, capacity,
        [&](T *o, T *kc, T *vc, const int *pos, int p) {
          gpu::decode_attention_forward<T>(l, o, kc, vc, rows_at(p).data(), pos,
                                           capacity, cfg);
        },
        [&](T *o, T *kc, T *vc, const int *pos, int p) {
          cpu.decode_attention_forward(o, kc, vc, rows_at(p).data(), pos,
                                       capacity, cfg);
        },
        ", decode_attention_forward" + what);
  }
}

TYPED_TEST(Attention, DecodeCross) {
  TPC_EMU_LOCALS;
  const int capacity = 8;
  for (const AttentionConfig &cfg :
       {attention(2, 7, 3, 6),
        with_rope(attention(2, 7, 3, 6, AttentionMask::Causal, 3), 4)}) {
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C());
    const Buf<T> q = this->rnd(rows * C, 620),
                 kv = this->rnd(rows * 2 * C, 621);
    Buf<T> out(rows * C);
    Buf<float> att(probabilities(cfg));
    gpu::cross_attention_forward<T>(l, out.data(), att.data(), q.data(),
                                    kv.data(), cfg);
    for (bool lagged : {false, true}) {
      // Lagged: the call at p brings position p - 1's keys and values.
      auto kv_at = [&](int p) {
        return row_of(kv, cfg.B, cfg.T, 2 * C, lagged ? std::max(p - 1, 0) : p);
      };
      auto q_at = [&](int p) { return row_of(q, cfg.B, cfg.T, C, p); };
      expect_decoding(
          *this, cfg, out, C, C, capacity,
          [&](T *o, T *kc, T *vc, const int *pos, int p) {
            gpu::decode_cross_attention_forward<T>(l, o, kc, vc, q_at(p).data(),
                                                   kv_at(p).data(), pos,
                                                   capacity, cfg, lagged);
          },
          [&](T *o, T *kc, T *vc, const int *pos, int p) {
            cpu.decode_cross_attention_forward(o, kc, vc, q_at(p).data(),
                                               kv_at(p).data(), pos, capacity,
                                               cfg, lagged);
          },
          std::string(", decode_cross_attention_forward") +
              (lagged ? " lagged" : "") + describe(cfg));
    }
  }
}

TYPED_TEST(Attention, DecodeGroupedQuery) {
  TPC_EMU_LOCALS;
  const int capacity = 10;
  AttentionConfig plain = attention(2, 7, 4, 6);
  plain.KVH = 2;
  AttentionConfig rope =
      with_rope(attention(2, 7, 4, 6, AttentionMask::Causal, 3), 4);
  rope.KVH = 2;
  for (const AttentionConfig &cfg : {plain, rope}) {
    const size_t rows = size_t(cfg.B) * cfg.T, C = size_t(cfg.C()),
                 Ckv = size_t(cfg.C_kv());
    const Buf<T> q = this->rnd(rows * C, 630), k = this->rnd(rows * Ckv, 631),
                 v = this->rnd(rows * Ckv, 632);
    Buf<T> out(rows * C);
    Buf<float> att(probabilities(cfg));
    gpu::gqa_attention_forward<T>(l, out.data(), att.data(), q.data(), k.data(),
                                  v.data(), cfg);
    auto at = [&](const Buf<T> &x, size_t width, int p) {
      return row_of(x, cfg.B, cfg.T, width, p);
    };
    expect_decoding(
        *this, cfg, out, C, Ckv, capacity,
        [&](T *o, T *kc, T *vc, const int *pos, int p) {
          gpu::decode_gqa_attention_forward<T>(
              l, o, kc, vc, at(q, C, p).data(), at(k, Ckv, p).data(),
              at(v, Ckv, p).data(), pos, capacity, cfg);
        },
        [&](T *o, T *kc, T *vc, const int *pos, int p) {
          cpu.decode_gqa_attention_forward(
              o, kc, vc, at(q, C, p).data(), at(k, Ckv, p).data(),
              at(v, Ckv, p).data(), pos, capacity, cfg);
        },
        ", decode_gqa_attention_forward" + describe(cfg));
  }
}

#endif // TPC_EMU_HAVE_ATTENTION

//===----------------------------------------------------------------------===//
// Empty tensors
//===----------------------------------------------------------------------===//

TPC_EMU_SUITE(Empty);

// Kernels.h: a launcher returns at once for an empty tensor. A grid of no
// blocks would fail the launch (cudaErrorInvalidConfiguration), which
// TPC_CUDA_LAUNCH_CHECK turns into an exception. Pointers are null: none
// may be read.
TYPED_TEST(Empty, LaunchNothing) {
  TPC_EMU_LOCALS;
  T *x = nullptr;
  float *f = nullptr;
  const int *ids = nullptr;
  gpu::fill<T>(l, x, 1.0f, 0);
  gpu::cast<T>(l, nullptr, ElementType::BF16, x, 0);
  gpu::residual_forward<T>(l, x, x, x, 0);
  gpu::scale_forward<T>(l, x, x, 2.0f, 0);
  gpu::gelu_forward<T>(l, x, x, 0);
  gpu::gelu_backward<T>(l, x, x, x, 0);
  gpu::gelu_exact_forward<T>(l, x, x, 0);
  gpu::gelu_exact_backward<T>(l, x, x, x, 0);
  gpu::tanh_forward<T>(l, x, x, 0);
  gpu::tanh_backward<T>(l, x, x, x, 0, true);
  gpu::swiglu_forward<T>(l, x, x, x, 0);
  gpu::swiglu_backward<T>(l, x, x, x, x, x, 0);
  gpu::weighted_sum_forward<T>(l, x, nullptr, x, 2, 0);
  gpu::weighted_sum_backward<T>(l, nullptr, x, x, nullptr, x, 2, 0);
  gpu::dropout_forward<T>(l, x, x, 0, DropoutParams{}, GlobalIndexMap());
  gpu::accumulate<T>(l, f, ElementType::F32, x, 0);
  gpu::embedding_forward<T>(l, x, ids, x, 0, kT, kC, 0, 11);
  gpu::embedding_backward<T>(l, x, x, ids, 2, 0, kC, 0, 11);
  gpu::position_embedding_forward<T>(l, x, x, x, nullptr, 2, kT, 0);
  gpu::position_embedding_backward<T>(l, x, x, 0, kT, kC);
  gpu::layernorm_forward<T>(l, x, f, f, x, x, x, 0, kC);
  gpu::layernorm_backward<T>(l, x, x, x, x, x, x, f, f, 5, 0);
  gpu::rmsnorm_forward<T>(l, x, f, x, x, 0, kC, 1e-6f);
  gpu::rmsnorm_backward<T>(l, x, x, x, x, x, f, 0, kC);
  gpu::matmul_backward<T>(l, nullptr, nullptr, x, x, x, x, 0, kC, 19, false);
  gpu::crossentropy_forward<T>(l, f, f, x, ids, 0, 13, 16, -1);
  gpu::crossentropy_backward<T>(l, x, x, ids, 0, 13, 16, f, -1);
  gpu::vocab_parallel_ce_max<T>(l, f, x, 0, 4, 0, 10);
  gpu::vocab_parallel_ce_sumexp<T>(l, f, f, x, ids, f, 0, 4, 0, 10, -1);
  gpu::vocab_parallel_ce_loss(l, f, f, f, f, f, ids, 0, -1);
  gpu::vocab_parallel_ce_backward<T>(l, x, x, ids, f, f, 0, 4, 0, 10, f, -1);
  gpu::sum_of_squares<T>(l, f, x, 0);
  gpu::adamw_update<T>(l, f, x, f, f, 0, AdamWParams{}, {});
  gpu::sgd_update<T>(l, f, x, f, 0, SgdParams{}, {});
#ifdef TPC_EMU_HAVE_ATTENTION
  const AttentionConfig none = attention(0, 7, 3, 6);
  gpu::attention_forward<T>(l, x, f, x, none);
  gpu::attention_backward<T>(l, x, x, x, f, none);
  gpu::cross_attention_forward<T>(l, x, f, x, x, none);
  gpu::cross_attention_backward<T>(l, x, x, x, x, x, f, none);
  gpu::gqa_attention_forward<T>(l, x, f, x, x, x, none);
  gpu::gqa_attention_backward<T>(l, x, x, x, x, x, x, x, f, none);
  gpu::decode_attention_forward<T>(l, x, x, x, x, nullptr, 8, none);
  gpu::decode_cross_attention_forward<T>(l, x, x, x, x, x, nullptr, 8, none,
                                         true);
  gpu::decode_gqa_attention_forward<T>(l, x, x, x, x, x, x, nullptr, 8, none);
#endif
}

//===----------------------------------------------------------------------===//
// The emulator itself
//===----------------------------------------------------------------------===//

/// The formats' definitions, written apart from runtime/util/Float16.h:
/// |a| (finite) rounded to a binary format with `mant` stored mantissa bits
/// and normal exponents [emin, emax], to nearest, ties to even (the current
/// rounding mode), overflowing to infinity; the format's bits without the
/// sign.
uint16_t round_magnitude(float a, int mant, int emin, int emax) {
  const uint32_t inf = uint32_t(emax - emin + 2) << mant;
  if (a == 0.0f)
    return 0;
  int e;
  std::frexp(a, &e);
  e = std::max(e - 1, emin); // a = m 2^e, m in [1, 2) (or below, subnormal)
  // a in units of the format's ulp at e; scaling by a power of two is exact.
  uint32_t q = uint32_t(std::nearbyint(std::ldexp(a, mant - e)));
  if (q == (2u << mant)) { // rounded up into the next binade
    ++e;
    q >>= 1;
  }
  if (e > emax)
    return uint16_t(inf);
  if (q < (1u << mant)) // subnormal
    return uint16_t(q);
  return uint16_t((uint32_t(e - emin + 1) << mant) | (q - (1u << mant)));
}

/// x's bits in a format; a NaN as Float16.h keeps it (quiet, with bf16's
/// payload), which the device does not promise.
uint16_t reference_bits(float x, ElementType t) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  const bool bf = t == ElementType::BF16;
  if (std::isnan(x))
    return bf ? uint16_t((bits >> 16) | 0x40) : uint16_t(sign | 0x7e00);
  if (std::isinf(x))
    return sign | (bf ? 0x7f80 : 0x7c00);
  return sign | (bf ? round_magnitude(std::fabs(x), 7, -126, 127)
                    : round_magnitude(std::fabs(x), 10, -14, 15));
}

/// A 16-bit value widened by the definitions: exact.
float reference_float(uint16_t h, ElementType t) {
  if (t == ElementType::BF16) {
    const uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float a;
  if (e == 0x1f) {
    const uint32_t bits = 0x7f800000u | (uint32_t(m) << 13);
    std::memcpy(&a, &bits, 4);
  } else if (e == 0) {
    a = std::ldexp(float(m), -24);
  } else {
    a = std::ldexp(float(1024 + m), e - 25);
  }
  return (h & 0x8000) ? -a : a;
}

TEST(Emulator, ConversionsFollowTheFormats) {
  // The storage types convert with the runtime's Float16.h; here against
  // the formats' definitions. Every 16-bit value widens exactly.
  for (uint32_t h = 0; h < 65536; ++h) {
    __nv_bfloat16 b;
    __half f;
    b.__x = f.__x = uint16_t(h);
    const float a = __bfloat162float(b), c = __half2float(f);
    const float a_want = reference_float(uint16_t(h), ElementType::BF16),
                c_want = reference_float(uint16_t(h), ElementType::F16);
    ASSERT_TRUE(std::memcmp(&a, &a_want, 4) == 0) << "bf16 " << h;
    ASSERT_TRUE(std::memcmp(&c, &c_want, 4) == 0) << "f16 " << h;
  }
  // Rounding: every value, the midpoints between neighbours and the floats
  // next to them (ties to even, carries into the exponent, overflow,
  // subnormals), and random bit patterns, NaNs among them.
  std::vector<float> xs;
  for (uint32_t h = 0; h < 65536; ++h)
    for (ElementType t : {ElementType::BF16, ElementType::F16}) {
      const float v = reference_float(uint16_t(h), t);
      if (!std::isfinite(v))
        continue;
      xs.push_back(v);
      const float next = reference_float(uint16_t(h + 1), t);
      const float mid = float((double(v) + double(next)) / 2.0);
      xs.push_back(mid);
      xs.push_back(std::nextafter(mid, INFINITY));
      xs.push_back(std::nextafter(mid, -INFINITY));
    }
  std::mt19937 gen(7);
  for (int i = 0; i < 1000000; ++i) {
    const uint32_t bits = gen();
    float f;
    std::memcpy(&f, &bits, 4);
    xs.push_back(f);
  }
  for (float x : xs) {
    ASSERT_EQ(__float2bfloat16_rn(x).__x, reference_bits(x, ElementType::BF16))
        << x;
    ASSERT_EQ(__float2half_rn(x).__x, reference_bits(x, ElementType::F16)) << x;
  }
}

/// One block of `threads` running f in every thread; the launch's error.
template <class F>
cudaError_t run_block(unsigned threads, F f, size_t shmem = 0) {
  tpc_emu::launch("test kernel", f, dim3(1), dim3(threads), shmem)();
  return cudaGetLastError();
}

TEST(Emulator, Shuffles) {
  std::vector<int> xor_, down, up, idx, ballot;
  xor_.assign(64, -1);
  down = up = idx = ballot = xor_;
  ASSERT_EQ(run_block(64,
                      [&] {
                        const int t = int(threadIdx.x);
                        xor_[t] = __shfl_xor_sync(0xffffffffu, t, 5);
                        down[t] = __shfl_down_sync(0xffffffffu, t, 3, 16);
                        up[t] = __shfl_up_sync(0xffffffffu, t, 2);
                        idx[t] = __shfl_sync(0xffffffffu, t, 7, 8);
                        ballot[t] = int(__ballot_sync(0xffffffffu, t % 3 == 0));
                      }),
            cudaSuccess);
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32, warp = t - lane;
    EXPECT_EQ(xor_[t], warp + (lane ^ 5));
    EXPECT_EQ(down[t],
              lane % 16 + 3 < 16 ? t + 3 : t); // own value past the segment
    EXPECT_EQ(up[t], lane < 2 ? t : t - 2);
    EXPECT_EQ(idx[t], warp + (lane & ~7) + 7);
    uint32_t want = 0;
    for (int l = 0; l < 32; ++l)
      want |= uint32_t((warp + l) % 3 == 0) << l;
    EXPECT_EQ(uint32_t(ballot[t]), want);
  }
}

TEST(Emulator, ReportsMisuse) {
  // Half a warp shuffles while the other half waits at the block barrier.
  cudaError_t err = run_block(32, [] {
    if (threadIdx.x < 16)
      (void)__shfl_xor_sync(0xffffffffu, 1.0f, 1);
    else
      __syncthreads();
  });
  EXPECT_EQ(err, cudaErrorLaunchFailure);
  EXPECT_NE(std::string(cudaGetErrorString(err)).find("deadlock"),
            std::string::npos)
      << cudaGetErrorString(err);

  // A full-warp reduction in a block of 48: warp 1 has 16 lanes.
  err = run_block(48, [] { (void)gpu::warp_sum(1.0f); });
  EXPECT_EQ(err, cudaErrorLaunchFailure);
  EXPECT_NE(std::string(cudaGetErrorString(err)).find("do not exist"),
            std::string::npos)
      << cudaGetErrorString(err);

  // A lane returns while its warp waits for it.
  err = run_block(32, [] {
    if (threadIdx.x != 3)
      (void)__shfl_down_sync(0xffffffffu, 1, 1);
  });
  EXPECT_EQ(err, cudaErrorLaunchFailure);
  EXPECT_NE(std::string(cudaGetErrorString(err)).find("returned"),
            std::string::npos)
      << cudaGetErrorString(err);

  EXPECT_EQ(run_block(2048, [] {}), cudaErrorInvalidConfiguration);
  EXPECT_EQ(run_block(
                32, [] {}, size_t(64) << 10),
            cudaErrorInvalidValue);
}

TEST(Emulator, SharedMemoryIsPerBlockAndPoisoned) {
  // Thread t writes slot t and reads slot t + 1 with no barrier between:
  // thread t runs before thread t + 1 writes, and reads the poison.
  std::vector<float> seen(64);
  ASSERT_EQ(run_block(64,
                      [&] {
                        static char tag;
                        float(&s)[64] = *tpc_emu::block_shared<float[64]>(&tag);
                        const unsigned t = threadIdx.x;
                        s[t] = float(t);
                        seen[t] = s[(t + 1) % 64];
                      }),
            cudaSuccess);
  EXPECT_TRUE(std::isnan(seen[0])) << seen[0];
  EXPECT_EQ(seen[63], 0.0f);
  // With the barrier, every read sees its neighbour's value.
  ASSERT_EQ(run_block(64,
                      [&] {
                        static char tag;
                        float(&s)[64] = *tpc_emu::block_shared<float[64]>(&tag);
                        const unsigned t = threadIdx.x;
                        s[t] = float(t);
                        __syncthreads();
                        seen[t] = s[(t + 1) % 64];
                      }),
            cudaSuccess);
  for (unsigned t = 0; t < 64; ++t)
    EXPECT_EQ(seen[t], float((t + 1) % 64));
}

// The backend's memory figure counts the scratch as it grows: a buffer
// replaced by a larger one no longer counts.
TEST(Emulator, ScratchCountsInItsTally) {
  gpu::MemoryTally tally;
  {
    gpu::Scratch scratch(nullptr, &tally);
    scratch.get(1000);
    const size_t first = tally.in_use();
    EXPECT_GE(first, 1000u);
    scratch.get(10);
    EXPECT_EQ(tally.in_use(), first);
    scratch.get(5000);
    EXPECT_GE(tally.in_use(), 5000u);
    EXPECT_EQ(tally.peak(), tally.in_use());
  }
  EXPECT_EQ(tally.in_use(), 0u);
  EXPECT_GE(tally.peak(), 5000u);
}

TEST(Emulator, ScratchOverrun) {
  gpu::Scratch scratch(nullptr);
  auto *p = static_cast<unsigned char *>(scratch.get(100));
  p[100] = 1; // one byte past the request
  scratch.get(10);
  const std::string errors = tpc_emu::take_host_errors();
  EXPECT_NE(errors.find("past the 100 bytes"), std::string::npos) << errors;
}

} // namespace
