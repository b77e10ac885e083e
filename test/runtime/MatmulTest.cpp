//===- MatmulTest.cpp - GEMMs and linear layers ---------------------------===//

#include "runtime/backends/cpu/kernels/Kernels.h"

#include "TestUtil.h"

using namespace tpc;
using namespace tpc::cpu;
using namespace tpc::test;

namespace {
const int N = 7, C = 12, OC = 13;

/// Element (i, j) of op(X) for a row-major X with leading dimension ld.
float at(const float *X, bool trans, int i, int j, int ld) {
  return trans ? X[j * ld + i] : X[i * ld + j];
}
} // namespace

TEST(Matmul, GemmAllTransposes) {
  const int M = 5, Nn = 7, K = 3;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      auto A = random_vector(M * K, 1), B = random_vector(K * Nn, 2);
      auto Cm = random_vector(M * Nn, 3);
      int lda = ta ? M : K, ldb = tb ? K : Nn;
      std::vector<float> expect(M * Nn);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < Nn; ++j) {
          double s = 0;
          for (int k = 0; k < K; ++k)
            s += at(A.data(), ta, i, k, lda) * at(B.data(), tb, k, j, ldb);
          expect[i * Nn + j] = float(0.5 * s + 2.0 * Cm[i * Nn + j]);
        }
      gemm(ta, tb, M, Nn, K, 0.5f, A.data(), lda, B.data(), ldb, 2.0f,
           Cm.data(), Nn);
      expect_close(Cm, expect, 1e-5f, 1e-5f,
                   "trans_a=" + std::to_string(ta) +
                       " trans_b=" + std::to_string(tb));
    }
}

TEST(Matmul, StridedBatched) {
  const int M = 3, Nn = 5, K = 4, batch = 3;
  auto A = random_vector(batch * M * K, 4),
       B = random_vector(batch * K * Nn, 5);
  std::vector<float> Cm(batch * M * Nn, 0.0f), expect(batch * M * Nn);
  for (int b = 0; b < batch; ++b)
    gemm(false, true, M, Nn, K, 1.0f, A.data() + b * M * K, K,
         B.data() + b * K * Nn, K, 0.0f, expect.data() + b * M * Nn, Nn);
  gemm_strided_batched(false, true, M, Nn, K, 1.0f, A.data(), K, M * K,
                       B.data(), K, K * Nn, 0.0f, Cm.data(), Nn, M * Nn, batch);
  expect_close(Cm, expect, 0, 0);
}

TEST(Matmul, ForwardMatchesReference) {
  auto x = random_vector(N * C, 6), w = random_vector(C * OC, 7),
       b = random_vector(OC, 8);
  std::vector<float> out(N * OC), outnb(N * OC), expect(N * OC);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o) {
      double s = 0;
      for (int c = 0; c < C; ++c)
        s += double(x[n * C + c]) * w[c * OC + o];
      expect[n * OC + o] = float(s);
    }
  matmul_forward(outnb.data(), x.data(), w.data(), nullptr, N, C, OC);
  expect_close(outnb, expect, 1e-5f, 1e-5f, "no bias");
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < OC; ++o)
      expect[n * OC + o] += b[o];
  matmul_forward(out.data(), x.data(), w.data(), b.data(), N, C, OC);
  expect_close(out, expect, 1e-5f, 1e-5f, "bias");

  // The transposed-weight variant with weight^T gives the same result.
  std::vector<float> wt(OC * C), outt(N * OC);
  for (int c = 0; c < C; ++c)
    for (int o = 0; o < OC; ++o)
      wt[o * C + c] = w[c * OC + o];
  matmul_nt_forward(outt.data(), x.data(), wt.data(), b.data(), N, C, OC);
  expect_close(outt, expect, 1e-5f, 1e-5f, "transposed weight");
}

static void check_backward(bool transposed) {
  auto x = random_vector(N * C, 9), w = random_vector(C * OC, 10),
       b = random_vector(OC, 11), dy = random_vector(N * OC, 12);
  std::vector<float> out(N * OC);
  auto fwd = transposed ? matmul_nt_forward : matmul_forward;
  auto bwd = transposed ? matmul_nt_backward : matmul_backward;
  auto objective = [&] {
    fwd(out.data(), x.data(), w.data(), b.data(), N, C, OC);
    return weighted(out, dy);
  };
  std::vector<float> dx(N * C, 1.0f), dw(C * OC, 1.0f), db(OC, 1.0f);
  bwd(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), N, C, OC,
      true);
  for (auto *g : {&dx, &dw, &db})
    for (float &v : *g)
      v -= 1.0f; // backward accumulates onto the ones
  std::string tag = transposed ? "nt " : "";
  expect_grad_close(dx, numeric_grad(x, objective), 1e-3, tag + "dinp");
  expect_grad_close(dw, numeric_grad(w, objective), 1e-3, tag + "dweight");
  expect_grad_close(db, numeric_grad(b, objective), 1e-3, tag + "dbias");

  // Written (beta 0): dinp and dweight are what adding onto zeros gives,
  // without reading them (NaN here); dbias still adds.
  std::vector<float> zx(N * C, 0.0f), zw(C * OC, 0.0f), zb(OC, 0.0f);
  std::vector<float> nx(N * C, NAN), nw(C * OC, NAN), nb(OC, 0.0f);
  bwd(zx.data(), zw.data(), zb.data(), dy.data(), x.data(), w.data(), N, C, OC,
      true);
  bwd(nx.data(), nw.data(), nb.data(), dy.data(), x.data(), w.data(), N, C, OC,
      false);
  EXPECT_EQ(nx, zx) << tag << "written dinp";
  EXPECT_EQ(nw, zw) << tag << "written dweight";
  EXPECT_EQ(nb, zb) << tag << "dbias";

  // Null gradients are skipped.
  bwd(nullptr, nullptr, db.data(), dy.data(), x.data(), w.data(), N, C, OC,
      true);
}

TEST(Matmul, BackwardMatchesFiniteDifferences) { check_backward(false); }
TEST(Matmul, TransposedBackwardMatchesFiniteDifferences) {
  check_backward(true);
}
