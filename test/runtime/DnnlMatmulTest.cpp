//===- DnnlMatmulTest.cpp - fp32 and bf16 GEMMs through oneDNN ------------===//
//
// The oneDNN GEMMs against references in double computed from the same
// inputs. bf16 inputs are exact in fp32 and so are their products, so the
// only errors are those of fp32 summation and of rounding the result to
// bf16 once. An element whose exact value is r, with s the sum of the
// magnitudes of its terms (|alpha a_k b_k| and |beta c|), may be off by
//   acc = (K + 2) * 2^-24 * s     (fp32 sums of K + 1 terms, and alpha)
// before rounding, and rounding to nearest adds at most half a bf16 ulp,
// 2^-8 of the magnitude:  |got - r| <= 2^-8 * (|r| + acc) + acc.
// fp32 inputs: each product rounds too (one more 2^-24 s), and the result
// is not rounded again (half an fp32 ulp, 2^-24, bounds the last step).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#include "runtime/util/Float16.h"

#include "TestUtil.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {

/// The element types, as the tests see them.
struct Bf16 {
  using type = uint16_t;
  static constexpr DnnlGemm::Type kind = DnnlGemm::Type::BF16;
  static constexpr int kRoundBits = 8; // half an ulp: 2^-8 of the value
  static constexpr int kExtraTerms = 0;
  static float load(type h) { return bf16_to_f32(h); }
  static type store(float f) { return f32_to_bf16(f); }
  static type nan() { return 0x7fc0; }
};
struct F32 {
  using type = float;
  static constexpr DnnlGemm::Type kind = DnnlGemm::Type::F32;
  static constexpr int kRoundBits = 24;
  static constexpr int kExtraTerms = 1; // the rounded products
  static float load(type f) { return f; }
  static type store(float f) { return f; }
  static type nan() { return std::numeric_limits<float>::quiet_NaN(); }
};

/// n random values (standard normal, rounded to T).
template <class T>
std::vector<typename T::type> random_values(size_t n, uint32_t seed) {
  std::vector<float> f = random_vector(n, seed);
  std::vector<typename T::type> h(n);
  for (size_t i = 0; i < n; ++i)
    h[i] = T::store(f[i]);
  return h;
}
std::vector<uint16_t> random_bf16(size_t n, uint32_t seed) {
  return random_values<Bf16>(n, seed);
}

template <class T>
float at(const std::vector<typename T::type> &X, bool trans, int i, int j,
         int ld) {
  return T::load(trans ? X[size_t(j) * ld + i] : X[size_t(i) * ld + j]);
}

/// The bound of the file comment for an exact value r and term magnitude s.
template <class T> double tolerance(double r, double s, int K) {
  double acc = (K + 2 + T::kExtraTerms) * std::ldexp(s, -24);
  return std::ldexp(std::fabs(r) + acc, -T::kRoundBits) + acc;
}

struct Shape {
  int M, N, K;
  int pad_a, pad_b, pad_c; // leading dimensions beyond the stored width
};

/// C = alpha op(A) op(B) + beta C through oneDNN, checked element by
/// element; the padding between rows of C must stay as it was.
template <class T>
void check_gemm(DnnlGemm &g, bool ta, bool tb, const Shape &s, float alpha,
                float beta, uint32_t seed) {
  std::string what =
      "M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
      " K=" + std::to_string(s.K) + " trans_a=" + std::to_string(ta) +
      " trans_b=" + std::to_string(tb) + " alpha=" + std::to_string(alpha) +
      " beta=" + std::to_string(beta);
  int lda = (ta ? s.M : s.K) + s.pad_a, ldb = (tb ? s.K : s.N) + s.pad_b,
      ldc = s.N + s.pad_c;
  auto A = random_values<T>(size_t(ta ? s.K : s.M) * lda, seed);
  auto B = random_values<T>(size_t(tb ? s.N : s.K) * ldb, seed + 1);
  auto C = random_values<T>(size_t(s.M) * ldc, seed + 2);
  if (beta == 0.0f) // C must not be read
    for (int i = 0; i < s.M; ++i)
      for (int j = 0; j < s.N; ++j)
        C[size_t(i) * ldc + j] = T::nan();
  auto before = C;

  ASSERT_TRUE(g.gemm(ta, tb, s.M, s.N, s.K, alpha, A.data(), lda, B.data(), ldb,
                     beta, C.data(), ldc))
      << what << ": oneDNN declined ("
      << g.implementation(ta, tb, s.M, s.N, s.K, alpha, lda, ldb, beta, ldc)
      << ")";

  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < ldc; ++j) {
      size_t idx = size_t(i) * ldc + j;
      if (j >= s.N) {
        ASSERT_EQ(std::memcmp(&C[idx], &before[idx], sizeof(C[idx])), 0)
            << what << ": padding written at (" << i << ", " << j << ")";
        continue;
      }
      double sum = 0, mag = 0;
      for (int k = 0; k < s.K; ++k) {
        double p = double(at<T>(A, ta, i, k, lda)) * at<T>(B, tb, k, j, ldb);
        sum += p;
        mag += std::fabs(p);
      }
      double old = beta == 0.0f ? 0.0 : T::load(before[idx]);
      double want = alpha * sum + beta * old;
      double tol = tolerance<T>(
          want, std::fabs(alpha) * mag + std::fabs(beta * old), s.K);
      double got = T::load(C[idx]);
      ASSERT_LE(std::fabs(got - want), tol)
          << what << ": (" << i << ", " << j << ") is " << got << ", expected "
          << want;
    }
}

} // namespace

template <class T> void check_all_transposes_and_betas() {
  DnnlGemm g(T::kind);
  const Shape shapes[] = {
      {37, 45, 70, 5, 3, 7},   // nothing a multiple of a vector
      {64, 96, 768, 0, 0, 0},  // dense, K split into blocks
      {33, 65, 1000, 1, 2, 3}, // long K with padding
      {8, 24, 1, 0, 0, 0},     // bias broadcast: ones (N,1) . bias (1,C)
      {1, 24, 50, 0, 0, 0},    // column sums: ones (1,N) . x (N,C)
      {9, 20, 40000, 1, 2, 3}, // bf16: summed over depth chunks
      {9000, 24, 40, 1, 2, 3}, // with op(A) transposed: row chunks
  };
  uint32_t seed = 10;
  for (const Shape &s : shapes)
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float beta : {0.0f, 1.0f}) {
          check_gemm<T>(g, ta, tb, s, 1.0f, beta, seed += 3);
          if (::testing::Test::HasFatalFailure())
            return;
        }
  // alpha and beta other than 0 and 1, also on reordered operands.
  check_gemm<T>(g, false, true, shapes[0], 0.5f, -2.0f, 99);
  check_gemm<T>(g, true, false, shapes[0], 0.5f, -2.0f, 98);
}

TEST(DnnlMatmul, GemmAllTransposesAndBetas) {
  check_all_transposes_and_betas<Bf16>();
}
TEST(DnnlMatmul, Fp32GemmAllTransposesAndBetas) {
  check_all_transposes_and_betas<F32>();
}

// The product and the old value are summed in fp32 and rounded once: rounding
// the product to bf16 first would land on a tie and round the other way.
// Dense operands and a padded C take different oneDNN kernels (brgemm and
// its jit gemm on this machine's CPU). At K = 40000 the two terms fall into
// the first and the last depth chunk, which must not be rounded apart.
TEST(DnnlMatmul, AccumulatesIntoBf16RoundingOnce) {
  DnnlGemm g(DnnlGemm::Type::BF16);
  const int M = 16, N = 32;
  for (int K : {32, 40000})
    for (int pad : {0, 3})
      for (bool ta : {false, true})
        for (bool tb : {false, true}) {
          const int ldc = N + pad, last = K - 1;
          // Every row of op(A) is 1 at k = 0 and k = K-1, 0 elsewhere, and
          // every column of op(B) 2^-8 at k = 0 and 2^-17 at k = K-1: the
          // product is 2^-8 + 2^-17, which bf16 rounds to 2^-8; 1 + 2^-8 is
          // halfway between bf16's 1 and 1 + 2^-7.
          std::vector<uint16_t> A(size_t(M) * K, 0), B(size_t(K) * N, 0),
              C(M * ldc);
          for (int i = 0; i < M; ++i)
            for (int k : {0, last})
              (ta ? A[size_t(k) * M + i] : A[size_t(i) * K + k]) =
                  f32_to_bf16(1.0f);
          for (int j = 0; j < N; ++j) {
            (tb ? B[size_t(j) * K] : B[j]) = f32_to_bf16(std::ldexp(1.0f, -8));
            (tb ? B[size_t(j) * K + last] : B[size_t(last) * N + j]) =
                f32_to_bf16(std::ldexp(1.0f, -17));
          }
          std::fill(C.begin(), C.end(), f32_to_bf16(1.0f));
          ASSERT_TRUE(g.gemm(ta, tb, M, N, K, 1.0f, A.data(), ta ? M : K,
                             B.data(), tb ? K : N, 1.0f, C.data(), ldc));
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j)
              ASSERT_EQ(bf16_to_f32(C[i * ldc + j]),
                        1.0f + std::ldexp(1.0f, -7))
                  << "K=" << K << " trans_a=" << ta << " trans_b=" << tb
                  << " ldc=" << ldc << " ("
                  << g.implementation(ta, tb, M, N, K, 1.0f, ta ? M : K,
                                      tb ? K : N, 1.0f, ldc)
                  << ")";
        }
}

// Deep bf16 products run in depth chunks; fp32 ones and shallow ones in one
// primitive.
TEST(DnnlMatmul, DeepBf16ProductsRunInDepthChunks) {
  DnnlGemm bf16(DnnlGemm::Type::BF16), f32(DnnlGemm::Type::F32);
  auto impl = [](DnnlGemm &g, int K) {
    return g.implementation(false, false, 1024, 768, K, 1.0f, K, 768, 0.0f,
                            768);
  };
  EXPECT_NE(impl(bf16, 50304).find(" in 4 chunks of K <= 12576"),
            std::string::npos)
      << impl(bf16, 50304);
  EXPECT_NE(impl(bf16, 25152).find(" in 2 chunks of K <= 12576"),
            std::string::npos)
      << impl(bf16, 25152);
  EXPECT_EQ(impl(bf16, 16384).find("chunks"), std::string::npos)
      << impl(bf16, 16384);
  EXPECT_EQ(impl(f32, 50304).find("chunks"), std::string::npos)
      << impl(f32, 50304);
}

// Products with op(A) transposed (weight gradients) run on reordered
// operands, taller ones in row chunks of equal height: GPT-2's tied output
// layer (50304, 768) = dout^T . inp in 13 of 3872 rows (the last 3840).
// Products with op(A) as stored do not.
TEST(DnnlMatmul, TransposedProductsRunOnReorderedOperands) {
  DnnlGemm bf16(DnnlGemm::Type::BF16), f32(DnnlGemm::Type::F32);
  auto impl = [](DnnlGemm &g, bool ta, int M) {
    return g.implementation(ta, false, M, 768, 1024, 1.0f, ta ? M : 1024, 768,
                            1.0f, 768);
  };
  for (DnnlGemm *g : {&bf16, &f32}) {
    const std::string tall = impl(*g, true, 50304);
    EXPECT_NE(tall.find(" on reordered operands in 13 chunks of M <= 3872"),
              std::string::npos)
        << tall;
    const std::string layer = impl(*g, true, 3072);
    EXPECT_NE(layer.find(" on reordered operands"), std::string::npos) << layer;
    EXPECT_EQ(layer.find("chunks"), std::string::npos) << layer;
    EXPECT_EQ(impl(*g, false, 3072).find("reordered"), std::string::npos)
        << impl(*g, false, 3072);
  }
}

template <class T> void check_matmul_forward_and_backward() {
  DnnlGemm g(T::kind);
  const int N = 24, C = 40, OC = 56;
  for (bool transposed : {false, true}) {
    std::string what = transposed ? "transposed" : "plain";
    auto x = random_values<T>(N * C, 1), w = random_values<T>(C * OC, 2),
         b = random_values<T>(OC, 3), dout = random_values<T>(N * OC, 4);
    auto wt = [&](int c, int o) {
      return T::load(transposed ? w[o * C + c] : w[c * OC + o]);
    };

    std::vector<typename T::type> out(N * OC);
    ASSERT_TRUE(g.matmul_forward(out.data(), x.data(), w.data(), b.data(), N, C,
                                 OC, transposed));
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o) {
        double sum = T::load(b[o]), mag = std::fabs(sum);
        for (int c = 0; c < C; ++c) {
          double p = double(T::load(x[n * C + c])) * wt(c, o);
          sum += p;
          mag += std::fabs(p);
        }
        ASSERT_LE(std::fabs(T::load(out[n * OC + o]) - sum),
                  tolerance<T>(sum, mag, C))
            << what << " forward (" << n << ", " << o << ")";
      }

    auto dx = random_values<T>(N * C, 5), dw = random_values<T>(C * OC, 6),
         db = random_values<T>(OC, 7);
    auto dx0 = dx, dw0 = dw, db0 = db;
    ASSERT_TRUE(g.matmul_backward(dx.data(), dw.data(), db.data(), dout.data(),
                                  x.data(), w.data(), N, C, OC, transposed,
                                  true));
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c) {
        double old = T::load(dx0[n * C + c]), sum = old,
               mag = std::fabs(old);
        for (int o = 0; o < OC; ++o) {
          double p = double(T::load(dout[n * OC + o])) * wt(c, o);
          sum += p;
          mag += std::fabs(p);
        }
        ASSERT_LE(std::fabs(T::load(dx[n * C + c]) - sum),
                  tolerance<T>(sum, mag, OC))
            << what << " dinp (" << n << ", " << c << ")";
      }
    for (int c = 0; c < C; ++c)
      for (int o = 0; o < OC; ++o) {
        size_t idx = transposed ? size_t(o) * C + c : size_t(c) * OC + o;
        double old = T::load(dw0[idx]), sum = old, mag = std::fabs(old);
        for (int n = 0; n < N; ++n) {
          double p =
              double(T::load(x[n * C + c])) * T::load(dout[n * OC + o]);
          sum += p;
          mag += std::fabs(p);
        }
        ASSERT_LE(std::fabs(T::load(dw[idx]) - sum), tolerance<T>(sum, mag, N))
            << what << " dweight (" << c << ", " << o << ")";
      }
    for (int o = 0; o < OC; ++o) {
      double old = T::load(db0[o]), sum = old, mag = std::fabs(old);
      for (int n = 0; n < N; ++n) {
        sum += T::load(dout[n * OC + o]);
        mag += std::fabs(T::load(dout[n * OC + o]));
      }
      ASSERT_LE(std::fabs(T::load(db[o]) - sum), tolerance<T>(sum, mag, N))
          << what << " dbias " << o;
    }

    // Null gradients are skipped; the others still accumulate.
    auto dx2 = dx0;
    ASSERT_TRUE(g.matmul_backward(dx2.data(), nullptr, nullptr, dout.data(),
                                  x.data(), w.data(), N, C, OC, transposed,
                                  true));
    EXPECT_EQ(dx2, dx) << what;

    // Written (beta 0): what accumulating onto zeros gives, without reading
    // the results (NaN bits here).
    auto zero = [](auto v) {
      std::fill(v.begin(), v.end(), T::store(0.0f));
      return v;
    };
    auto nan = [](auto v) {
      std::fill(v.begin(), v.end(), T::nan());
      return v;
    };
    auto ax = zero(dx0), aw = zero(dw0), ab = zero(db0);
    auto wx = nan(dx0), ww = nan(dw0), wb = nan(db0);
    ASSERT_TRUE(g.matmul_backward(ax.data(), aw.data(), ab.data(), dout.data(),
                                  x.data(), w.data(), N, C, OC, transposed,
                                  true));
    ASSERT_TRUE(g.matmul_backward(wx.data(), ww.data(), wb.data(), dout.data(),
                                  x.data(), w.data(), N, C, OC, transposed,
                                  false));
    auto values = [](const auto &v) {
      std::vector<float> f;
      for (auto e : v)
        f.push_back(T::load(e));
      return f;
    };
    EXPECT_EQ(values(wx), values(ax)) << what << " written dinp";
    EXPECT_EQ(values(ww), values(aw)) << what << " written dweight";
    EXPECT_EQ(values(wb), values(ab)) << what << " written dbias";
  }
}

TEST(DnnlMatmul, MatmulForwardAndBackward) {
  check_matmul_forward_and_backward<Bf16>();
}
TEST(DnnlMatmul, Fp32MatmulForwardAndBackward) {
  check_matmul_forward_and_backward<F32>();
}

TEST(DnnlMatmul, PrimitivesAreCachedPerShape) {
  DnnlGemm g(DnnlGemm::Type::BF16);
  const int M = 16, N = 24, K = 32;
  auto A = random_bf16(M * K, 1), B = random_bf16(K * N, 2);
  std::vector<uint16_t> C(M * (N + 8));
  ASSERT_TRUE(g.gemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N,
                     0.0f, C.data(), N));
  EXPECT_EQ(g.cached_primitives(), 1u);
  ASSERT_TRUE(g.gemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N,
                     0.0f, C.data(), N));
  EXPECT_EQ(g.cached_primitives(), 1u);
  // Another leading dimension, another beta: other primitives.
  ASSERT_TRUE(g.gemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N,
                     0.0f, C.data(), N + 8));
  ASSERT_TRUE(g.gemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N,
                     1.0f, C.data(), N));
  EXPECT_EQ(g.cached_primitives(), 3u);
}

// What BLAS defines and oneDNN would not: the caller's fp32 path takes these.
TEST(DnnlMatmul, DeclinesDegenerateShapes) {
  DnnlGemm g(DnnlGemm::Type::BF16);
  std::vector<uint16_t> A(16, 0), B(16, 0), C(16, 0);
  EXPECT_FALSE(g.gemm(false, false, 4, 4, 0, 1.0f, A.data(), 1, B.data(), 4,
                      1.0f, C.data(), 4));
  EXPECT_FALSE(g.gemm(false, false, 4, 4, 4, 0.0f, A.data(), 4, B.data(), 4,
                      1.0f, C.data(), 4));
  EXPECT_FALSE(g.gemm(false, false, 0, 4, 4, 1.0f, A.data(), 4, B.data(), 4,
                      1.0f, C.data(), 4));
}
