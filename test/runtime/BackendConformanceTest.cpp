//===- BackendConformanceTest.cpp - Every backend against naive loops -----===//
//
// One suite, instantiated for every backend this build has (backend_names())
// and for f32 and bf16 storage: each kernel of the backend's table runs on
// odd, non-divisible shapes and is compared with a naive reference computed
// in double from the values as stored. Backward kernels are compared with
// central differences of the naive forward. A new backend is covered by
// registering it in make_backend.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/util/Float16.h"

#include "TestUtil.h"

#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

using namespace tpc;
using namespace tpc::test;

namespace {

struct Case {
  std::string backend;
  ElementType type;
  CpuGemm gemm = CpuGemm::Auto; // the CPU backend's GEMM library
};

const char *gemm_name(CpuGemm g) {
  return g == CpuGemm::OneDnn     ? "onednn"
         : g == CpuGemm::OpenBlas ? "openblas"
                                  : "auto";
}

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.backend << " " << element_type_name(c.type);
  if (c.backend == "cpu")
    *os << " " << gemm_name(c.gemm);
}

std::string case_name(const testing::TestParamInfo<Case> &info) {
  std::string name =
      info.param.backend + "_" + element_type_name(info.param.type);
  if (info.param.backend == "cpu")
    name += std::string("_") + gemm_name(info.param.gemm);
  return name;
}

using Ref = std::vector<double>;

/// `v` rounded to the floating-point type `to`, as a float.
float rounded(ElementType to, float v) {
  switch (to) {
  case ElementType::BF16:
    return bf16_to_f32(f32_to_bf16(v));
  case ElementType::F16:
    return f16_to_f32(f32_to_f16(v));
  default:
    return v;
  }
}

class Conformance : public testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    BackendOptions options;
    options.cpu_gemm = GetParam().gemm;
    try {
      be_ = make_backend(GetParam().backend, options);
    } catch (const BackendUnavailable &e) {
      GTEST_SKIP() << e.what();
    } catch (const std::invalid_argument &e) {
      // --cpu-gemm onednn in a build without oneDNN.
      GTEST_SKIP() << e.what();
    }
    k_ = be_->kernels(GetParam().type);
    ASSERT_NE(k_, nullptr);
    ASSERT_EQ(k_->dtype(), GetParam().type);
  }
  void TearDown() override {
    if (!be_)
      return;
    for (void *p : owned_)
      be_->free(p);
  }

  ElementType type() const { return GetParam().type; }
  bool f32() const { return type() == ElementType::F32; }

  /// The value `x` becomes when stored.
  float stored(float x) const { return rounded(type(), x); }
  /// Random values as stored, and their copy in double.
  std::vector<float> values(size_t n, uint32_t seed, float scale = 1.0f) {
    std::vector<float> v = random_vector(n, seed, scale);
    for (float &x : v)
      x = stored(x);
    return v;
  }
  static Ref wide(const std::vector<float> &v) {
    return Ref(v.begin(), v.end());
  }

  void *alloc(size_t bytes) {
    void *p = be_->alloc(bytes);
    be_->zero(p, bytes);
    owned_.push_back(p);
    return p;
  }
  /// A device tensor of the storage type holding `v`.
  void *tensor(const std::vector<float> &v) {
    void *p = alloc(std::max<size_t>(v.size(), 1) * element_size(type()));
    write(p, v);
    return p;
  }
  void write(void *p, const std::vector<float> &v) {
    if (f32()) {
      be_->copy_host_to_device(p, v.data(), v.size() * 4);
      return;
    }
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i)
      h[i] = type() == ElementType::BF16 ? f32_to_bf16(v[i]) : f32_to_f16(v[i]);
    be_->copy_host_to_device(p, h.data(), h.size() * 2);
  }
  std::vector<float> read(const void *p, size_t n) {
    std::vector<float> v(n);
    be_->synchronize();
    if (f32()) {
      be_->copy_device_to_host(v.data(), p, n * 4);
      return v;
    }
    std::vector<uint16_t> h(n);
    be_->copy_device_to_host(h.data(), p, n * 2);
    for (size_t i = 0; i < n; ++i)
      v[i] = type() == ElementType::BF16 ? bf16_to_f32(h[i]) : f16_to_f32(h[i]);
    return v;
  }
  /// fp32 device buffers (statistics, losses, optimizer state).
  float *floats(const std::vector<float> &v) {
    auto *p = static_cast<float *>(alloc(std::max<size_t>(v.size(), 1) * 4));
    be_->copy_host_to_device(p, v.data(), v.size() * 4);
    return p;
  }
  std::vector<float> read_floats(const float *p, size_t n) {
    std::vector<float> v(n);
    be_->synchronize();
    be_->copy_device_to_host(v.data(), p, n * 4);
    return v;
  }
  template <typename T> T *scalar(T value) {
    auto *p = static_cast<T *>(alloc(sizeof(T)));
    be_->copy_host_to_device(p, &value, sizeof(T));
    return p;
  }
  int *ints(const std::vector<int> &v) {
    auto *p = static_cast<int *>(alloc(std::max<size_t>(v.size(), 1) * 4));
    be_->copy_host_to_device(p, v.data(), v.size() * 4);
    return p;
  }

  /// fp32 accumulates to round-off; a stored result adds one rounding.
  double rtol() const { return f32() ? 2e-4 : 1.6e-2; }
  void expect_near(const std::vector<float> &got, const Ref &want,
                   const std::string &what, double scale = 1.0) {
    ASSERT_EQ(got.size(), want.size()) << what;
    double magnitude = 0.0;
    for (double w : want)
      magnitude = std::max(magnitude, std::fabs(w));
    for (size_t i = 0; i < got.size(); ++i) {
      double tol = rtol() * (scale * 0.05 * magnitude + std::fabs(want[i])) +
                   (f32() ? 1e-5 : 1e-3);
      if (!(std::fabs(got[i] - want[i]) <= tol)) {
        ADD_FAILURE() << what << " [" << element_type_name(type())
                      << "]: element " << i << " is " << got[i] << ", expected "
                      << want[i] << " (tolerance " << tol << ")";
        return;
      }
    }
  }

  /// d/dx of sum(dout * f(x)) by central differences, in double.
  static Ref numeric_grad(Ref x, const Ref &dout,
                          const std::function<Ref(const Ref &)> &f) {
    Ref g(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      double h = 1e-5 * std::max(1.0, std::fabs(x[i])), keep = x[i];
      x[i] = keep + h;
      Ref up = f(x);
      x[i] = keep - h;
      Ref down = f(x);
      x[i] = keep;
      double s = 0.0;
      for (size_t j = 0; j < up.size(); ++j)
        s += dout[j] * (up[j] - down[j]);
      g[i] = s / (2 * h);
    }
    return g;
  }

  std::unique_ptr<Backend> be_;
  const Kernels *k_ = nullptr;
  std::vector<void *> owned_;
};

//===----------------------------------------------------------------------===//
// Naive references
//===----------------------------------------------------------------------===//

Ref layernorm_ref(const Ref &x, const Ref &w, const Ref &b, int N, int C) {
  Ref out(x.size());
  for (int n = 0; n < N; ++n) {
    double mean = 0, var = 0;
    for (int c = 0; c < C; ++c)
      mean += x[n * C + c];
    mean /= C;
    for (int c = 0; c < C; ++c)
      var += (x[n * C + c] - mean) * (x[n * C + c] - mean);
    double rstd = 1.0 / std::sqrt(var / C + 1e-5);
    for (int c = 0; c < C; ++c)
      out[n * C + c] = (x[n * C + c] - mean) * rstd * w[c] + b[c];
  }
  return out;
}

Ref rmsnorm_ref(const Ref &x, const Ref &w, int N, int C, double eps) {
  Ref out(x.size());
  for (int n = 0; n < N; ++n) {
    double ss = 0;
    for (int c = 0; c < C; ++c)
      ss += x[n * C + c] * x[n * C + c];
    double rstd = 1.0 / std::sqrt(ss / C + eps);
    for (int c = 0; c < C; ++c)
      out[n * C + c] = x[n * C + c] * rstd * w[c];
  }
  return out;
}

Ref swiglu_ref(const Ref &gate, const Ref &up) {
  Ref out(gate.size());
  for (size_t i = 0; i < gate.size(); ++i)
    out[i] = gate[i] / (1 + std::exp(-gate[i])) * up[i];
  return out;
}

Ref gelu_ref(const Ref &x) {
  Ref out(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    out[i] = 0.5 * x[i] *
             (1 + std::tanh(std::sqrt(2 / M_PI) *
                            (x[i] + 0.044715 * x[i] * x[i] * x[i])));
  return out;
}

/// Attention over q (row stride qs), k and v (row stride kvs) of B sequences
/// of T positions, NH heads of HS; keys s in [lo(t), hi(t)).
Ref attention_ref(const Ref &q, int qs, const Ref &k, const Ref &v, int kvs,
                  int B, int T, int NH, int HS, bool strictly_earlier) {
  int C = NH * HS;
  Ref out(size_t(B) * T * C, 0.0);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h)
      for (int t = 0; t < T; ++t) {
        int hi = strictly_earlier ? t : t + 1;
        if (hi == 0)
          continue;
        std::vector<double> p(hi);
        double m = -1e300, sum = 0;
        for (int s = 0; s < hi; ++s) {
          double dot = 0;
          for (int i = 0; i < HS; ++i)
            dot += q[(b * T + t) * qs + h * HS + i] *
                   k[(b * T + s) * kvs + h * HS + i];
          p[s] = dot / std::sqrt(double(HS));
          m = std::max(m, p[s]);
        }
        for (int s = 0; s < hi; ++s)
          sum += (p[s] = std::exp(p[s] - m));
        for (int s = 0; s < hi; ++s)
          for (int i = 0; i < HS; ++i)
            out[(b * T + t) * C + h * HS + i] +=
                p[s] / sum * v[(b * T + s) * kvs + h * HS + i];
      }
  return out;
}

Ref self_attention_ref(const Ref &qkv, int B, int T, int NH, int HS) {
  int C = NH * HS;
  Ref q(qkv.size()), k(qkv.size()), v(qkv.size());
  for (size_t r = 0; r < size_t(B) * T; ++r)
    for (int c = 0; c < C; ++c) {
      q[r * 3 * C + c] = qkv[r * 3 * C + c];
      k[r * 3 * C + c] = qkv[r * 3 * C + C + c];
      v[r * 3 * C + c] = qkv[r * 3 * C + 2 * C + c];
    }
  return attention_ref(q, 3 * C, k, v, 3 * C, B, T, NH, HS, false);
}

Ref cross_attention_ref(const Ref &q, const Ref &kv, int B, int T, int NH,
                        int HS) {
  int C = NH * HS;
  Ref k(kv.size()), v(kv.size());
  for (size_t r = 0; r < size_t(B) * T; ++r)
    for (int c = 0; c < C; ++c) {
      k[r * 2 * C + c] = kv[r * 2 * C + c];
      v[r * 2 * C + c] = kv[r * 2 * C + C + c];
    }
  return attention_ref(q, C, k, v, 2 * C, B, T, NH, HS, true);
}

/// x (B,T,heads*HS) with each head's leading R = dims (0: HS) dimensions
/// rotated by position t (Hugging Face's rotate_half), in double.
Ref rope_ref(const Ref &x, int B, int T, int heads, int HS, double theta,
             int dims) {
  Ref out(x);
  const int R = dims ? dims : HS, half = R / 2;
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < heads; ++h) {
        size_t row = (size_t(b) * T + t) * heads * HS + h * HS;
        for (int i = 0; i < half; ++i) {
          double a = t * std::pow(theta, -2.0 * i / R);
          double c = std::cos(a), s = std::sin(a);
          out[row + i] = x[row + i] * c - x[row + i + half] * s;
          out[row + i + half] = x[row + i + half] * c + x[row + i] * s;
        }
      }
  return out;
}

/// Causal grouped-query attention: q (B,T,NH*HS), k, v (B,T,KVH*HS); q and
/// k rotated first.
Ref gqa_attention_ref(const Ref &q, const Ref &k, const Ref &v, int B, int T,
                      int NH, int KVH, int HS, double theta, int dims) {
  const int C = NH * HS, Ckv = KVH * HS, group = NH / KVH;
  Ref qr = rope_ref(q, B, T, NH, HS, theta, dims),
      kr = rope_ref(k, B, T, KVH, HS, theta, dims);
  // Each query head's keys and values, as multi-head attention reads them.
  Ref ke(size_t(B) * T * C), ve(size_t(B) * T * C);
  for (size_t r = 0; r < size_t(B) * T; ++r)
    for (int h = 0; h < NH; ++h)
      for (int i = 0; i < HS; ++i) {
        ke[r * C + h * HS + i] = kr[r * Ckv + (h / group) * HS + i];
        ve[r * C + h * HS + i] = v[r * Ckv + (h / group) * HS + i];
      }
  return attention_ref(qr, C, ke, ve, C, B, T, NH, HS, false);
}

/// Row losses of logits (N, Vp) over the first V columns; ignored rows 0.
Ref cross_entropy_ref(const Ref &logits, const std::vector<int> &targets, int V,
                      int Vp, int ignore) {
  Ref loss(targets.size(), 0.0);
  for (size_t n = 0; n < targets.size(); ++n) {
    if (targets[n] == ignore)
      continue;
    double m = -1e300, s = 0;
    for (int v = 0; v < V; ++v)
      m = std::max(m, logits[n * Vp + v]);
    for (int v = 0; v < V; ++v)
      s += std::exp(logits[n * Vp + v] - m);
    loss[n] = std::log(s) + m - logits[n * Vp + targets[n]];
  }
  return loss;
}

//===----------------------------------------------------------------------===//
// Fills, GEMM, linear layers
//===----------------------------------------------------------------------===//

TEST_P(Conformance, FillAndGemm) {
  void *f = tensor(std::vector<float>(37, 0.0f));
  k_->fill(f, 0.75f, 37);
  expect_near(read(f, 37), Ref(37, 0.75), "fill");

  const int M = 5, N = 7, K = 9;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      auto a = values(M * K, 1), b = values(K * N, 2), c = values(M * N, 3);
      void *A = tensor(a), *Bp = tensor(b), *Cp = tensor(c);
      int lda = ta ? M : K, ldb = tb ? K : N;
      k_->gemm(ta, tb, M, N, K, 0.5f, A, lda, Bp, ldb, 2.0f, Cp, N);
      Ref want(M * N);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double s = 0;
          for (int l = 0; l < K; ++l)
            s += double(ta ? a[l * M + i] : a[i * K + l]) *
                 (tb ? b[j * K + l] : b[l * N + j]);
          want[i * N + j] = 0.5 * s + 2.0 * c[i * N + j];
        }
      expect_near(read(Cp, M * N), want,
                  std::string("gemm ") + (ta ? "T" : "N") + (tb ? "T" : "N"));
    }
}

TEST_P(Conformance, MatmulForwardAndBackward) {
  const int N = 7, C = 13, OC = 11;
  for (bool transposed : {false, true}) {
    auto x = values(N * C, 4), w = values(C * OC, 5), b = values(OC, 6),
         d = values(N * OC, 7);
    void *X = tensor(x), *W = tensor(w), *Bp = tensor(b), *D = tensor(d);
    void *out = tensor(std::vector<float>(N * OC, 0.0f));
    // W[c][o]: (C,OC) row-major, or (OC,C) when transposed.
    auto wat = [&](int c, int o) {
      return double(transposed ? w[o * C + c] : w[c * OC + o]);
    };
    k_->matmul_forward(out, X, W, Bp, N, C, OC, transposed);
    Ref want(N * OC);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o) {
        double s = b[o];
        for (int c = 0; c < C; ++c)
          s += x[n * C + c] * wat(c, o);
        want[n * OC + o] = s;
      }
    expect_near(read(out, N * OC), want, "matmul_forward");

    // Backward accumulates: start the gradients from ones.
    void *dx = tensor(std::vector<float>(N * C, 1.0f));
    void *dw = tensor(std::vector<float>(C * OC, 1.0f));
    void *db = tensor(std::vector<float>(OC, 1.0f));
    k_->matmul_backward(dx, dw, db, D, X, W, N, C, OC, transposed, true);
    Ref wdx(N * C, 1.0), wdw(C * OC, 1.0), wdb(OC, 1.0);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < OC; ++o) {
        wdb[o] += d[n * OC + o];
        for (int c = 0; c < C; ++c) {
          wdx[n * C + c] += d[n * OC + o] * wat(c, o);
          wdw[transposed ? o * C + c : c * OC + o] +=
              double(x[n * C + c]) * d[n * OC + o];
        }
      }
    expect_near(read(dx, N * C), wdx, "matmul_backward dinp");
    expect_near(read(dw, C * OC), wdw, "matmul_backward dweight");
    expect_near(read(db, OC), wdb, "matmul_backward dbias");

    // Written, the gradients are what accumulating onto zeros gives,
    // whatever the results held (NaN here).
    std::vector<void *> added, written;
    for (size_t size : {size_t(N) * C, size_t(C) * OC, size_t(OC)}) {
      added.push_back(tensor(std::vector<float>(size, 0.0f)));
      written.push_back(tensor(
          std::vector<float>(size, std::numeric_limits<float>::quiet_NaN())));
    }
    k_->matmul_backward(added[0], added[1], added[2], D, X, W, N, C, OC,
                        transposed, true);
    k_->matmul_backward(written[0], written[1], written[2], D, X, W, N, C, OC,
                        transposed, false);
    int i = 0;
    for (size_t size : {size_t(N) * C, size_t(C) * OC, size_t(OC)}) {
      EXPECT_EQ(read(written[i], size), read(added[i], size))
          << "matmul_backward written, result " << i;
      ++i;
    }

    // The halves that linear_input_grad and linear_weight_grad request, each
    // without the operand it does not read, give the whole call's results.
    std::vector<void *> halves;
    for (size_t size : {size_t(N) * C, size_t(C) * OC, size_t(OC)})
      halves.push_back(tensor(
          std::vector<float>(size, std::numeric_limits<float>::quiet_NaN())));
    k_->matmul_backward(halves[0], nullptr, nullptr, D, nullptr, W, N, C, OC,
                        transposed, false);
    k_->matmul_backward(nullptr, halves[1], halves[2], D, X, nullptr, N, C, OC,
                        transposed, false);
    i = 0;
    for (size_t size : {size_t(N) * C, size_t(C) * OC, size_t(OC)}) {
      EXPECT_EQ(read(halves[i], size), read(written[i], size))
          << "matmul_backward by halves, result " << i;
      ++i;
    }
  }
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

TEST_P(Conformance, LayerNorm) {
  const int N = 7, C = 13;
  auto x = values(N * C, 8, 2.0f), w = values(C, 9), b = values(C, 10),
       d = values(N * C, 11);
  void *X = tensor(x), *W = tensor(w), *Bp = tensor(b), *D = tensor(d);
  void *out = tensor(std::vector<float>(N * C, 0.0f));
  float *mean = floats(std::vector<float>(N)),
        *rstd = floats(std::vector<float>(N));
  k_->layernorm_forward(out, mean, rstd, X, W, Bp, N, C, 1e-5f);
  expect_near(read(out, N * C), layernorm_ref(wide(x), wide(w), wide(b), N, C),
              "layernorm_forward");

  void *dx = tensor(std::vector<float>(N * C, 0.0f));
  void *dw = tensor(std::vector<float>(C, 0.0f));
  void *db = tensor(std::vector<float>(C, 0.0f));
  k_->layernorm_backward(dx, dw, db, D, X, W, mean, rstd, N, C);
  Ref rx = wide(x), rw = wide(w), rb = wide(b), rd = wide(d);
  expect_near(
      read(dx, N * C),
      numeric_grad(
          rx, rd, [&](const Ref &v) { return layernorm_ref(v, rw, rb, N, C); }),
      "layernorm_backward dinp");
  expect_near(
      read(dw, C),
      numeric_grad(
          rw, rd, [&](const Ref &v) { return layernorm_ref(rx, v, rb, N, C); }),
      "layernorm_backward dweight", 4.0);
  expect_near(
      read(db, C),
      numeric_grad(
          rb, rd, [&](const Ref &v) { return layernorm_ref(rx, rw, v, N, C); }),
      "layernorm_backward dbias", 4.0);
}

TEST_P(Conformance, RmsNorm) {
  const int N = 7, C = 13;
  const float eps = 1e-6f;
  auto x = values(N * C, 80, 2.0f), w = values(C, 81), d = values(N * C, 82);
  void *X = tensor(x), *W = tensor(w), *D = tensor(d);
  void *out = tensor(std::vector<float>(N * C, 0.0f));
  float *rstd = floats(std::vector<float>(N));
  k_->rmsnorm_forward(out, rstd, X, W, N, C, eps);
  Ref rx = wide(x), rw = wide(w), rd = wide(d);
  expect_near(read(out, N * C), rmsnorm_ref(rx, rw, N, C, eps),
              "rmsnorm_forward");
  Ref want_rstd(N);
  for (int n = 0; n < N; ++n) {
    double ss = 0;
    for (int c = 0; c < C; ++c)
      ss += rx[n * C + c] * rx[n * C + c];
    want_rstd[n] = 1.0 / std::sqrt(ss / C + eps);
  }
  // Statistics are fp32 whatever the storage type.
  std::vector<float> got_rstd = read_floats(rstd, N);
  for (int n = 0; n < N; ++n)
    EXPECT_NEAR(got_rstd[n], want_rstd[n], 1e-5 * want_rstd[n]);

  void *dx = tensor(std::vector<float>(N * C, 0.0f));
  void *dw = tensor(std::vector<float>(C, 0.0f));
  k_->rmsnorm_backward(dx, dw, D, X, W, rstd, N, C);
  expect_near(
      read(dx, N * C),
      numeric_grad(rx, rd,
                   [&](const Ref &v) { return rmsnorm_ref(v, rw, N, C, eps); }),
      "rmsnorm_backward dinp");
  expect_near(
      read(dw, C),
      numeric_grad(rw, rd,
                   [&](const Ref &v) { return rmsnorm_ref(rx, v, N, C, eps); }),
      "rmsnorm_backward dweight", 4.0);
}

TEST_P(Conformance, SwiGlu) {
  const size_t n = 1001;
  auto g = values(n, 83, 3.0f), u = values(n, 84), d = values(n, 85);
  void *G = tensor(g), *U = tensor(u), *D = tensor(d);
  void *out = tensor(std::vector<float>(n, 0.0f));
  Ref rg = wide(g), ru = wide(u), rd = wide(d);
  k_->swiglu_forward(out, G, U, n);
  expect_near(read(out, n), swiglu_ref(rg, ru), "swiglu_forward");
  void *dg = tensor(std::vector<float>(n, 0.0f));
  void *du = tensor(std::vector<float>(n, 0.0f));
  k_->swiglu_backward(dg, du, D, G, U, n);
  Ref wdg(n), wdu(n);
  for (size_t i = 0; i < n; ++i) {
    double sg = 1 / (1 + std::exp(-rg[i]));
    wdg[i] = rd[i] * ru[i] * sg * (1 + rg[i] * (1 - sg));
    wdu[i] = rd[i] * rg[i] * sg;
  }
  expect_near(read(dg, n), wdg, "swiglu_backward dgate");
  expect_near(read(du, n), wdu, "swiglu_backward dup");
}

TEST_P(Conformance, Embeddings) {
  // A vocabulary-parallel slice: rows [4, 9) of 11; other ids give zeros.
  const int B = 3, T = 5, C = 7, vstart = 4, vlocal = 5;
  std::vector<int> ids = {0, 4, 5, 8, 9, 10, 6, 6, 4, 1, 7, 8, 2, 5, 5};
  auto wte = values(vlocal * C, 12), d = values(B * T * C, 13);
  void *Wt = tensor(wte), *D = tensor(d);
  int *I = ints(ids);
  void *out = tensor(std::vector<float>(B * T * C, 0.0f));
  k_->embedding_forward(out, I, Wt, B, T, C, vstart, vlocal);
  Ref want(B * T * C, 0.0), wdw(vlocal * C, 0.0);
  for (int r = 0; r < B * T; ++r) {
    int row = ids[r] - vstart;
    if (row < 0 || row >= vlocal)
      continue;
    for (int c = 0; c < C; ++c) {
      want[r * C + c] = wte[row * C + c];
      wdw[row * C + c] += d[r * C + c];
    }
  }
  expect_near(read(out, B * T * C), want, "embedding_forward");
  void *dw = tensor(std::vector<float>(vlocal * C, 0.0f));
  k_->embedding_backward(dw, D, I, B, T, C, vstart, vlocal);
  expect_near(read(dw, vlocal * C), wdw, "embedding_backward");

  // Positions: out = inp + wpe[offset + t], the offset on the device.
  const int P = 9, offset = 3;
  auto wpe = values(P * C, 14), x = values(B * T * C, 15);
  void *Wp = tensor(wpe), *X = tensor(x);
  void *pout = tensor(std::vector<float>(B * T * C, 0.0f));
  k_->position_embedding_forward(pout, X, Wp, scalar<int>(offset), B, T, C);
  Ref pw(B * T * C);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c)
        pw[(b * T + t) * C + c] =
            double(x[(b * T + t) * C + c]) + wpe[(offset + t) * C + c];
  expect_near(read(pout, B * T * C), pw, "position_embedding_forward");
  void *dwp = tensor(std::vector<float>(P * C, 0.0f));
  k_->position_embedding_backward(dwp, D, B, T, C);
  Ref pdw(P * C, 0.0);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t)
      for (int c = 0; c < C; ++c)
        pdw[t * C + c] += d[(b * T + t) * C + c];
  expect_near(read(dwp, P * C), pdw, "position_embedding_backward");
}

TEST_P(Conformance, Elementwise) {
  const size_t n = 1001;
  auto x = values(n, 16, 2.0f), y = values(n, 17), d = values(n, 18);
  void *X = tensor(x), *Y = tensor(y), *D = tensor(d);
  void *out = tensor(std::vector<float>(n, 0.0f));
  Ref rx = wide(x), rd = wide(d);

  k_->gelu_forward(out, X, n);
  expect_near(read(out, n), gelu_ref(rx), "gelu_forward");
  // Accumulated onto 0.5, then written over it: the same gradient.
  void *dx = tensor(std::vector<float>(n, 0.5f));
  k_->gelu_backward(dx, X, D, n, /*accumulate=*/true);
  Ref gd(n), gd_half(n);
  for (size_t i = 0; i < n; ++i) {
    Ref one = {rx[i]}, dd = {rd[i]};
    gd[i] = numeric_grad(one, dd, gelu_ref)[0];
    gd_half[i] = 0.5 + gd[i];
  }
  expect_near(read(dx, n), gd_half, "gelu_backward accumulating");
  k_->gelu_backward(dx, X, D, n, /*accumulate=*/false);
  expect_near(read(dx, n), gd, "gelu_backward writing");

  k_->residual_forward(out, X, Y, n);
  Ref sum(n), scaled(n);
  for (size_t i = 0; i < n; ++i) {
    sum[i] = double(x[i]) + y[i];
    scaled[i] = -0.375 * x[i];
  }
  expect_near(read(out, n), sum, "residual_forward");
  k_->scale_forward(out, X, -0.375f, n);
  expect_near(read(out, n), scaled, "scale_forward");

  // A gradient buffer of f32 or of the storage type takes a gradient of the
  // storage type; any other buffer type is refused.
  float *g = floats(std::vector<float>(n, 0.5f));
  k_->accumulate(g, ElementType::F32, Y, n);
  Ref acc(n);
  for (size_t i = 0; i < n; ++i)
    acc[i] = 0.5 + y[i];
  expect_near(read_floats(g, n), acc, "accumulate into f32");
  void *gs = tensor(std::vector<float>(n, 0.5f));
  k_->accumulate(gs, type(), Y, n);
  expect_near(read(gs, n), acc, "accumulate into the storage type");
  ElementType other =
      type() == ElementType::BF16 ? ElementType::F16 : ElementType::BF16;
  EXPECT_THROW(k_->accumulate(gs, other, Y, n), std::invalid_argument);
}

// Every table converts into every floating-point type exactly as the scalar
// rounding does (nearest, ties to even; beyond f16's range, infinity).
TEST_P(Conformance, Cast) {
  std::vector<float> x = values(301, 31, 3.0f);
  for (float e : {1.0001f, 1e-8f, 65536e-8f, 70000.0f, -65520.0f, 65519.0f,
                  0.0f, -0.0f, 3.0e38f, 1.00390625f, 1.01171875f})
    x.push_back(stored(e));
  const size_t n = x.size();
  void *X = tensor(x);
  for (ElementType to : kFloatElementTypes) {
    size_t size = element_size(to);
    void *out = alloc(n * size);
    k_->cast(out, to, X, n);
    be_->synchronize();
    std::vector<float> got(n);
    if (to == ElementType::F32) {
      be_->copy_device_to_host(got.data(), out, n * 4);
    } else {
      std::vector<uint16_t> h(n);
      be_->copy_device_to_host(h.data(), out, n * 2);
      for (size_t i = 0; i < n; ++i)
        got[i] = to == ElementType::BF16 ? bf16_to_f32(h[i]) : f16_to_f32(h[i]);
    }
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], rounded(to, x[i]))
          << element_type_name(type()) << " " << x[i] << " to "
          << element_type_name(to) << ", element " << i;
  }
}

// The reasons for an f32 master copy and for loss scaling (Micikevicius et
// al. 2018), through the f32 table's cast.
TEST_P(Conformance, CastShowsWhyMasterWeightsAndLossScaling) {
  if (!f32())
    GTEST_SKIP() << "the examples start from f32 values";
  auto to = [&](ElementType t, float v) {
    void *in = tensor({v});
    void *out = alloc(4);
    k_->cast(out, t, in, 1);
    be_->synchronize();
    if (t == ElementType::F32) {
      float f;
      be_->copy_device_to_host(&f, out, 4);
      return f;
    }
    uint16_t h;
    be_->copy_device_to_host(&h, out, 2);
    return t == ElementType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
  };
  // An update of 1e-4 to a weight of 1 survives in f32, not in f16.
  EXPECT_NE(to(ElementType::F32, 1.0f + 0.0001f), 1.0f);
  EXPECT_EQ(to(ElementType::F16, 1.0f + 0.0001f), 1.0f);
  // A gradient of 1e-8 underflows to zero in f16 but survives scaled by 2^16.
  EXPECT_EQ(to(ElementType::F16, 1e-8f), 0.0f);
  float scaled = to(ElementType::F16, 1e-8f * 65536.0f);
  EXPECT_NEAR(scaled / 65536.0f, 1e-8f, 1e-8f / 1024);
  // bf16 keeps f32's range: no underflow, but only 8 bits of precision.
  EXPECT_NEAR(to(ElementType::BF16, 1e-8f), 1e-8f, 1e-8f / 128);
  // Ties go to even: 1 + 2^-8 is halfway between bf16's 1 and 1 + 2^-7.
  EXPECT_EQ(to(ElementType::BF16, 1.00390625f), 1.0f);
  EXPECT_EQ(to(ElementType::BF16, 1.01171875f), 1.015625f);
  // f16's largest value is 65504; from 65520 on, infinity.
  EXPECT_EQ(to(ElementType::F16, 65519.0f), 65504.0f);
  EXPECT_TRUE(std::isinf(to(ElementType::F16, 65520.0f)));
}

TEST_P(Conformance, WeightedSum) {
  const int k = 3;
  const size_t n = 257;
  std::vector<std::vector<float>> xs;
  std::vector<const void *> ptrs;
  for (int i = 0; i < k; ++i) {
    xs.push_back(values(n, 20 + i));
    ptrs.push_back(tensor(xs.back()));
  }
  auto alpha = values(k, 19), d = values(n, 23);
  void *A = tensor(alpha), *D = tensor(d);
  void *out = tensor(std::vector<float>(n, 0.0f));
  k_->weighted_sum_forward(out, ptrs.data(), A, k, n);
  Ref want(n, 0.0), wda(k, 0.0);
  std::vector<Ref> wdx(k, Ref(n));
  for (int i = 0; i < k; ++i)
    for (size_t j = 0; j < n; ++j) {
      want[j] += double(alpha[i]) * xs[i][j];
      wda[i] += double(d[j]) * xs[i][j];
      wdx[i][j] = double(alpha[i]) * d[j];
    }
  expect_near(read(out, n), want, "weighted_sum_forward");
  std::vector<void *> dxs;
  for (int i = 0; i < k; ++i)
    dxs.push_back(tensor(std::vector<float>(n, 0.0f)));
  void *da = tensor(std::vector<float>(k, 0.0f));
  k_->weighted_sum_backward(dxs.data(), da, D, ptrs.data(), A, k, n);
  expect_near(read(da, k), wda, "weighted_sum_backward dalpha", 4.0);
  for (int i = 0; i < k; ++i)
    expect_near(read(dxs[i], n), wdx[i], "weighted_sum_backward dx");
}

TEST_P(Conformance, DropoutMasksDependOnIndicesOnly) {
  const size_t n = 1001;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = stored(1.0f + 0.001f * float(i));
  void *X = tensor(x);
  void *out = tensor(std::vector<float>(n, 0.0f));
  DropoutParams p{0.5f, 7, 3, 11};
  k_->dropout_forward(out, X, n, p, GlobalIndexMap());
  std::vector<float> got = read(out, n);
  // The fp32 table's mask is the reference: every table keeps the same
  // elements and scales them by 1/(1-p).
  const Kernels &f32_table = *be_->kernels(ElementType::F32);
  std::vector<float> xf(x);
  auto *Xf = floats(xf);
  float *of = floats(std::vector<float>(n, 0.0f));
  f32_table.dropout_forward(of, Xf, n, p, GlobalIndexMap());
  std::vector<float> ref = read_floats(of, n);
  size_t kept = 0;
  Ref want(n);
  for (size_t i = 0; i < n; ++i) {
    kept += ref[i] != 0.0f;
    want[i] = ref[i] != 0.0f ? 2.0 * x[i] : 0.0;
  }
  EXPECT_GT(kept, n * 4 / 10);
  EXPECT_LT(kept, n * 6 / 10);
  expect_near(got, want, "dropout_forward");
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

AttentionConfig config(int B, int T, int NH, int HS, AttentionMask mask) {
  AttentionConfig cfg;
  cfg.B = B;
  cfg.T = T;
  cfg.NH = NH;
  cfg.HS = HS;
  cfg.mask = mask;
  return cfg;
}

TEST_P(Conformance, SelfAttention) {
  const int B = 2, T = 5, NH = 3, HS = 4, C = NH * HS;
  auto qkv = values(B * T * 3 * C, 30), d = values(B * T * C, 31);
  void *Q = tensor(qkv), *D = tensor(d);
  void *out = tensor(std::vector<float>(B * T * C, 0.0f));
  float *att = floats(std::vector<float>(B * NH * T * T));
  AttentionConfig cfg = config(B, T, NH, HS, AttentionMask::Causal);
  k_->attention_forward(out, att, Q, cfg);
  Ref rq = wide(qkv);
  expect_near(read(out, B * T * C), self_attention_ref(rq, B, T, NH, HS),
              "attention_forward");
  void *dq = tensor(std::vector<float>(B * T * 3 * C, 0.0f));
  k_->attention_backward(dq, D, Q, att, cfg);
  expect_near(read(dq, B * T * 3 * C),
              numeric_grad(rq, wide(d),
                           [&](const Ref &v) {
                             return self_attention_ref(v, B, T, NH, HS);
                           }),
              "attention_backward");
}

TEST_P(Conformance, CrossAttention) {
  const int B = 2, T = 5, NH = 3, HS = 4, C = NH * HS;
  auto q = values(B * T * C, 32), kv = values(B * T * 2 * C, 33),
       d = values(B * T * C, 34);
  void *Q = tensor(q), *KV = tensor(kv), *D = tensor(d);
  void *out = tensor(std::vector<float>(B * T * C, 0.0f));
  float *att = floats(std::vector<float>(B * NH * T * T));
  AttentionConfig cfg = config(B, T, NH, HS, AttentionMask::StrictlyEarlier);
  k_->cross_attention_forward(out, att, Q, KV, cfg);
  Ref rq = wide(q), rkv = wide(kv);
  expect_near(read(out, B * T * C), cross_attention_ref(rq, rkv, B, T, NH, HS),
              "cross_attention_forward");
  void *dq = tensor(std::vector<float>(B * T * C, 0.0f));
  void *dkv = tensor(std::vector<float>(B * T * 2 * C, 0.0f));
  k_->cross_attention_backward(dq, dkv, D, Q, KV, att, cfg);
  expect_near(read(dq, B * T * C),
              numeric_grad(rq, wide(d),
                           [&](const Ref &v) {
                             return cross_attention_ref(v, rkv, B, T, NH, HS);
                           }),
              "cross_attention_backward dq");
  expect_near(read(dkv, B * T * 2 * C),
              numeric_grad(rkv, wide(d),
                           [&](const Ref &v) {
                             return cross_attention_ref(rq, v, B, T, NH, HS);
                           }),
              "cross_attention_backward dkv");
}

// Decoding one position at a time, the position on the device, gives the
// rows of the full causal attention.
TEST_P(Conformance, DecodeAttention) {
  const int B = 2, T = 5, NH = 3, HS = 4, C = NH * HS, capacity = 7;
  auto qkv = values(B * T * 3 * C, 35);
  Ref want = self_attention_ref(wide(qkv), B, T, NH, HS);
  size_t cache = size_t(B) * capacity * C;
  void *kc = tensor(std::vector<float>(cache, 0.0f));
  void *vc = tensor(std::vector<float>(cache, 0.0f));
  int *pos = scalar<int>(0);
  AttentionConfig cfg = config(B, 1, NH, HS, AttentionMask::Causal);
  for (int t = 0; t < T; ++t) {
    std::vector<float> row(B * 3 * C);
    Ref rw(B * C);
    for (int b = 0; b < B; ++b) {
      for (int c = 0; c < 3 * C; ++c)
        row[b * 3 * C + c] = qkv[(b * T + t) * 3 * C + c];
      for (int c = 0; c < C; ++c)
        rw[b * C + c] = want[(b * T + t) * C + c];
    }
    be_->copy_host_to_device(pos, &t, sizeof(int));
    void *out = tensor(std::vector<float>(B * C, 0.0f));
    k_->decode_attention_forward(out, kc, vc, tensor(row), pos, capacity, cfg);
    expect_near(read(out, B * C), rw,
                "decode_attention_forward at " + std::to_string(t));
  }
}

// Grouped-query attention with RoPE on half of each head (4 query heads over
// 2 KV heads), against the reference that rotates in double.
TEST_P(Conformance, GqaAttention) {
  const int B = 2, T = 5, NH = 4, KVH = 2, HS = 4, C = NH * HS, Ckv = KVH * HS,
            dims = 2;
  const double theta = 10000.0;
  auto q = values(B * T * C, 90), k = values(B * T * Ckv, 91),
       v = values(B * T * Ckv, 92), d = values(B * T * C, 93);
  void *Q = tensor(q), *K = tensor(k), *V = tensor(v), *D = tensor(d);
  void *out = tensor(std::vector<float>(B * T * C, 0.0f));
  float *att = floats(std::vector<float>(B * NH * T * T));
  AttentionConfig cfg = config(B, T, NH, HS, AttentionMask::Causal);
  cfg.KVH = KVH;
  cfg.rope = {theta, dims};
  k_->gqa_attention_forward(out, att, Q, K, V, cfg);
  Ref rq = wide(q), rk = wide(k), rv = wide(v), rd = wide(d);
  auto ref = [&](const Ref &q_, const Ref &k_, const Ref &v_) {
    return gqa_attention_ref(q_, k_, v_, B, T, NH, KVH, HS, theta, dims);
  };
  expect_near(read(out, B * T * C), ref(rq, rk, rv), "gqa_attention_forward");

  void *dq = tensor(std::vector<float>(B * T * C, 0.0f));
  void *dk = tensor(std::vector<float>(B * T * Ckv, 0.0f));
  void *dv = tensor(std::vector<float>(B * T * Ckv, 0.0f));
  k_->gqa_attention_backward(dq, dk, dv, D, Q, K, V, att, cfg);
  expect_near(
      read(dq, B * T * C),
      numeric_grad(rq, rd, [&](const Ref &x) { return ref(x, rk, rv); }),
      "gqa_attention_backward dq");
  expect_near(
      read(dk, B * T * Ckv),
      numeric_grad(rk, rd, [&](const Ref &x) { return ref(rq, x, rv); }),
      "gqa_attention_backward dk");
  expect_near(
      read(dv, B * T * Ckv),
      numeric_grad(rv, rd, [&](const Ref &x) { return ref(rq, rk, x); }),
      "gqa_attention_backward dv");
}

// Decoding grouped-query attention with RoPE, the position on the device,
// gives the rows of the full causal attention.
TEST_P(Conformance, DecodeGqaAttention) {
  const int B = 2, T = 5, NH = 4, KVH = 2, HS = 4, C = NH * HS, Ckv = KVH * HS,
            capacity = 7;
  const double theta = 10000.0;
  auto q = values(B * T * C, 94), k = values(B * T * Ckv, 95),
       v = values(B * T * Ckv, 96);
  Ref want =
      gqa_attention_ref(wide(q), wide(k), wide(v), B, T, NH, KVH, HS, theta, 0);
  size_t cache = size_t(B) * capacity * Ckv;
  void *kc = tensor(std::vector<float>(cache, 0.0f));
  void *vc = tensor(std::vector<float>(cache, 0.0f));
  int *pos = scalar<int>(0);
  AttentionConfig cfg = config(B, 1, NH, HS, AttentionMask::Causal);
  cfg.KVH = KVH;
  cfg.rope = {theta, 0};
  for (int t = 0; t < T; ++t) {
    std::vector<float> qr(B * C), kr(B * Ckv), vr(B * Ckv);
    Ref rw(B * C);
    for (int b = 0; b < B; ++b) {
      for (int c = 0; c < C; ++c) {
        qr[b * C + c] = q[(b * T + t) * C + c];
        rw[b * C + c] = want[(b * T + t) * C + c];
      }
      for (int c = 0; c < Ckv; ++c) {
        kr[b * Ckv + c] = k[(b * T + t) * Ckv + c];
        vr[b * Ckv + c] = v[(b * T + t) * Ckv + c];
      }
    }
    be_->copy_host_to_device(pos, &t, sizeof(int));
    void *out = tensor(std::vector<float>(B * C, 0.0f));
    k_->decode_gqa_attention_forward(out, kc, vc, tensor(qr), tensor(kr),
                                     tensor(vr), pos, capacity, cfg);
    expect_near(read(out, B * C), rw,
                "decode_gqa_attention_forward at " + std::to_string(t));
  }
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

TEST_P(Conformance, CrossEntropy) {
  // 13 classes in 16 padded columns; row 2 is ignored.
  const int N = 7, V = 13, Vp = 16, ignore = -1;
  std::vector<int> targets = {1, 12, -1, 0, 5, 5, 7};
  auto logits = values(N * Vp, 40, 2.0f);
  void *L = tensor(logits);
  int *Tg = ints(targets);
  float *losses = floats(std::vector<float>(N)), *totals = floats({1.0f, 2.0f});
  float *stats = floats(std::vector<float>(2 * N, 0.0f));
  k_->crossentropy_forward(losses, totals, L, Tg, N, V, Vp, ignore, stats);
  Ref rows = cross_entropy_ref(wide(logits), targets, V, Vp, ignore);
  double sum = 0;
  for (double r : rows)
    sum += r;
  expect_near(read_floats(losses, N), rows, "crossentropy_forward losses");
  expect_near(read_floats(totals, 2), {1.0 + sum, 2.0 + 6}, "totals", 4.0);

  float *loss = floats({0.0f});
  auto *count = static_cast<int32_t *>(alloc(4));
  k_->loss_outputs(loss, count, totals);
  int32_t c = 0;
  be_->copy_device_to_host(&c, count, 4);
  EXPECT_EQ(c, 8);
  expect_near(read_floats(loss, 1), {1.0 + sum}, "loss_outputs", 4.0);

  void *dl = tensor(std::vector<float>(N * Vp, 9.0f));
  float *half = scalar<float>(0.5f);
  k_->crossentropy_backward(dl, L, Tg, N, V, Vp, half, ignore, nullptr);
  Ref want(N * Vp, 0.0);
  for (int n = 0; n < N; ++n) {
    if (targets[n] == ignore)
      continue;
    double m = -1e300, s = 0;
    for (int v = 0; v < V; ++v)
      m = std::max(m, double(logits[n * Vp + v]));
    for (int v = 0; v < V; ++v)
      s += std::exp(logits[n * Vp + v] - m);
    for (int v = 0; v < V; ++v)
      want[n * Vp + v] = 0.5 * std::exp(logits[n * Vp + v] - m) / s;
    want[n * Vp + targets[n]] -= 0.5;
  }
  expect_near(read(dl, N * Vp), want, "crossentropy_backward");

  // With the forward's statistics the backward gives the same bits, also
  // in place (dlogits is logits).
  void *dl2 = tensor(std::vector<float>(N * Vp, 9.0f));
  k_->crossentropy_backward(dl2, L, Tg, N, V, Vp, half, ignore, stats);
  EXPECT_EQ(read(dl2, N * Vp), read(dl, N * Vp))
      << "crossentropy_backward with the forward's stats";
  void *inplace = tensor(logits);
  k_->crossentropy_backward(inplace, inplace, Tg, N, V, Vp, half, ignore,
                            stats);
  EXPECT_EQ(read(inplace, N * Vp), read(dl, N * Vp))
      << "crossentropy_backward in place with the forward's stats";
}

// On one rank the vocabulary-parallel phases give the plain loss.
TEST_P(Conformance, VocabParallelCrossEntropy) {
  const int N = 7, V = 13, Vl = 16, ignore = 3;
  std::vector<int> targets = {1, 12, 3, 0, 5, 5, 7};
  auto logits = values(N * Vl, 41, 2.0f);
  void *L = tensor(logits);
  int *Tg = ints(targets);
  float *row_max = floats(std::vector<float>(N)),
        *sums = floats(std::vector<float>(2 * N)),
        *losses = floats(std::vector<float>(N)), *totals = floats({0.0f, 0.0f});
  k_->vocab_parallel_ce_max(row_max, L, N, Vl, 0, V);
  k_->vocab_parallel_ce_sumexp(sums, sums + N, L, Tg, row_max, N, Vl, 0, V,
                               ignore);
  k_->vocab_parallel_ce_loss(losses, totals, sums, sums + N, row_max, Tg, N,
                             ignore);
  expect_near(read_floats(losses, N),
              cross_entropy_ref(wide(logits), targets, V, Vl, ignore),
              "vocab_parallel_ce_loss");
  void *dl = tensor(std::vector<float>(N * Vl, 0.0f));
  k_->vocab_parallel_ce_backward(dl, L, Tg, row_max, sums, N, Vl, 0, V,
                                 scalar<float>(1.0f), ignore);
  Ref rl = wide(logits);
  Ref want = numeric_grad(rl, Ref(N, 1.0), [&](const Ref &v) {
    return cross_entropy_ref(v, targets, V, Vl, ignore);
  });
  expect_near(read(dl, N * Vl), want, "vocab_parallel_ce_backward");
}

//===----------------------------------------------------------------------===//
// Optimizer
//===----------------------------------------------------------------------===//

// Gradients of the storage type update f32 parameters (the master copy).
TEST_P(Conformance, NormsAndUpdates) {
  const size_t n = 301;
  auto grad = values(n, 50), w = random_vector(n, 51);
  void *G = tensor(grad);
  float *sq = floats({1.0f});
  k_->sum_of_squares(sq, G, n);
  double ss = 1.0;
  for (float g : grad)
    ss += double(g) * g;
  expect_near(read_floats(sq, 1), {ss}, "sum_of_squares");

  float *norm = floats({0.0f}), *scale = floats({0.0f});
  k_->grad_norm(norm, scale, sq, scalar<float>(0.25f), 1.0f);
  double nv = 0.25 * std::sqrt(ss);
  expect_near(read_floats(norm, 1), {nv}, "grad_norm norm");
  expect_near(read_floats(scale, 1), {0.25 * std::min(1.0, 1.0 / (nv + 1e-6))},
              "grad_norm scale");

  // Two AdamW steps with the scalars on the device.
  AdamWParams p;
  p.beta1 = 0.8f;
  p.beta2 = 0.9f;
  p.eps = 1e-6f;
  p.weight_decay = 0.1f;
  float *lr = scalar<float>(0.01f), *gs = scalar<float>(0.5f);
  auto *step = scalar<int64_t>(1);
  OptimizerScalars s{lr, gs, step};
  float *W = floats(w);
  float *m = floats(std::vector<float>(n, 0.0f)),
        *v = floats(std::vector<float>(n, 0.0f));
  Ref rw = wide(w), rm(n, 0.0), rv(n, 0.0);
  for (int64_t t = 1; t <= 2; ++t) {
    be_->copy_host_to_device(step, &t, sizeof(t));
    k_->adamw_update(W, G, m, v, n, p, s, {});
    std::vector<float> now = read_floats(W, n);
    for (size_t i = 0; i < n; ++i) {
      double g = 0.5 * grad[i];
      rm[i] = 0.8 * rm[i] + 0.2 * g;
      rv[i] = 0.9 * rv[i] + 0.1 * g * g;
      double mh = rm[i] / (1 - std::pow(0.8, t)),
             vh = rv[i] / (1 - std::pow(0.9, t));
      rw[i] -= 0.01 * (mh / (std::sqrt(vh) + 1e-6) + 0.1 * rw[i]);
    }
    expect_near(now, rw, "adamw_update step " + std::to_string(t));
    rw = wide(now); // each step starts from the stored weights
  }

  SgdParams q;
  q.momentum = 0.9f;
  q.weight_decay = 0.01f;
  float *W2 = floats(w);
  float *mom = floats(std::vector<float>(n, 0.0f));
  Ref r2 = wide(w), rmom(n, 0.0);
  for (int t = 0; t < 2; ++t) {
    k_->sgd_update(W2, G, mom, n, q, s, {});
    std::vector<float> now = read_floats(W2, n);
    for (size_t i = 0; i < n; ++i) {
      double g = 0.5 * grad[i] + 0.01 * r2[i] + 0.9 * rmom[i];
      rmom[i] = g;
      r2[i] -= 0.01 * g;
    }
    expect_near(now, r2, "sgd_update");
    r2 = wide(now);
  }
}

// Dynamic loss scaling: a gradient that overflowed (inf, or NaN from inf -
// inf) makes the norm non-finite and the scale NaN, and both updates then
// leave the weights and their state bit for bit as they were.
TEST_P(Conformance, OverflowSkipsTheUpdate) {
  const size_t n = 67;
  for (float bad : {std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()}) {
    std::vector<float> grad = values(n, 60);
    grad[17] = bad;
    void *G = tensor(grad);
    float *sq = floats({0.0f});
    k_->sum_of_squares(sq, G, n);
    float *norm = floats({0.0f}), *scale = floats({0.0f});
    k_->grad_norm(norm, scale, sq, scalar<float>(0.25f), 1.0f);
    EXPECT_FALSE(std::isfinite(read_floats(norm, 1)[0]));
    EXPECT_TRUE(std::isnan(read_floats(scale, 1)[0]));

    auto w = random_vector(n, 61), m0 = random_vector(n, 62),
         v0 = random_vector(n, 63);
    for (float &x : v0)
      x = std::fabs(x);
    float *W = floats(w), *m = floats(m0), *v = floats(v0);
    AdamWParams p;
    OptimizerScalars s{scalar<float>(0.01f), scale, scalar<int64_t>(3)};
    // The working copy holds the weights' rounding, and still does after.
    void *working = alloc(n * 2);
    be_->kernels(ElementType::F32)->cast(working, ElementType::BF16, W, n);
    std::vector<uint16_t> before(n);
    be_->synchronize();
    be_->copy_device_to_host(before.data(), working, n * 2);
    k_->adamw_update(W, G, m, v, n, p, s, {working, ElementType::BF16});
    EXPECT_EQ(read_floats(W, n), w) << "adamw_update wrote the weights";
    EXPECT_EQ(read_floats(m, n), m0) << "adamw_update wrote m";
    EXPECT_EQ(read_floats(v, n), v0) << "adamw_update wrote v";
    SgdParams q;
    q.momentum = 0.9f;
    k_->sgd_update(W, G, m, n, q, s, {working, ElementType::BF16});
    EXPECT_EQ(read_floats(W, n), w) << "sgd_update wrote the weights";
    EXPECT_EQ(read_floats(m, n), m0) << "sgd_update wrote the momentum";
    std::vector<uint16_t> after(n);
    be_->synchronize();
    be_->copy_device_to_host(after.data(), working, n * 2);
    EXPECT_EQ(after, before) << "a skipped update changed the working copy";
  }
}

// A 16-bit parameter's working copy is rounded from its f32 master by the
// update itself: it must equal, bit for bit, the f32 table's cast of the
// master the update wrote (what the runtime did in a separate pass before).
TEST_P(Conformance, UpdatesRoundIntoTheWorkingCopy) {
  const size_t n = 40000; // more than one parallel chunk, and a tail
  auto grad = values(n, 70);
  void *G = tensor(grad);
  const Kernels *f32 = be_->kernels(ElementType::F32);
  OptimizerScalars s{scalar<float>(0.01f), scalar<float>(0.5f),
                     scalar<int64_t>(2)};
  for (ElementType to : {ElementType::BF16, ElementType::F16}) {
    std::string what = std::string(" into ") + element_type_name(to);
    auto check = [&](const float *W, const void *working,
                     const std::string &update) {
      void *want = alloc(n * 2);
      f32->cast(want, to, W, n);
      std::vector<uint16_t> got(n), cast(n);
      be_->synchronize();
      be_->copy_device_to_host(got.data(), working, n * 2);
      be_->copy_device_to_host(cast.data(), want, n * 2);
      size_t differ = 0;
      for (size_t i = 0; i < n; ++i)
        differ += got[i] != cast[i];
      EXPECT_EQ(differ, 0u) << update << what << ": of " << n << " elements";
    };
    AdamWParams p;
    p.weight_decay = 0.1f;
    float *W = floats(random_vector(n, 71));
    std::vector<float> v0 = random_vector(n, 73);
    for (float &x : v0)
      x = x * x;
    float *m = floats(random_vector(n, 72)), *v = floats(v0);
    void *working = alloc(n * 2);
    k_->adamw_update(W, G, m, v, n, p, s, {working, to});
    check(W, working, "adamw_update");

    SgdParams q;
    q.momentum = 0.9f;
    float *W2 = floats(random_vector(n, 74));
    float *mom = floats(std::vector<float>(n, 0.0f));
    void *working2 = alloc(n * 2);
    k_->sgd_update(W2, G, mom, n, q, s, {working2, to});
    check(W2, working2, "sgd_update");
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const std::string &name : backend_names())
    for (ElementType t : kFloatElementTypes) {
      if (name != "cpu") {
        cases.push_back({name, t});
        continue;
      }
      // Each library the fp32 and bf16 GEMMs can run on; 16-bit f16 widens
      // for OpenBLAS under either.
      cases.push_back({name, t, CpuGemm::OpenBlas});
      if (t != ElementType::F16)
        cases.push_back({name, t, CpuGemm::OneDnn});
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, Conformance,
                         testing::ValuesIn(all_cases()), case_name);

} // namespace
