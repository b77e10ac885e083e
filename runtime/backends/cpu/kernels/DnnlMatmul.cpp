//===- DnnlMatmul.cpp - fp32 and bf16 GEMMs through oneDNN ----------------===//
//
// Row-major operands are described to oneDNN by their strides, so a
// transposed operand or a leading dimension wider than the matrix costs no
// copy. beta becomes a sum post-op and alpha an output scale: oneDNN applies
// both to the fp32 accumulator and converts to bf16 once, when it stores.
//
// A bf16 GEMM deeper than kMaxDepth runs as several shallower ones summed
// into an fp32 accumulator, rounded to bf16 once at the end (see
// kMaxDepth). A written bf16 weight gradient (C,OC) = inp^T . dout runs on
// oneDNN's inner-product backward-weights primitive (matmul_backward).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/util/Float16.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tpc::cpu {
namespace {

using dnnl::memory;

/// Everything a primitive is specialised for. oneDNN splits the work for the
/// thread count it sees at creation, so that is part of the key too.
struct Key {
  bool trans_a = false, trans_b = false, bias = false;
  bool f32_dst = false; // a depth chunk's dense fp32 accumulator
  /// An inner product's weight gradient (weight_gradient_entry), not a
  /// matmul.
  bool weight_gradient = false;
  int M = 0, N = 0, K = 0, lda = 0, ldb = 0, ldc = 0;
  uint32_t alpha = 0, beta = 0; // bit patterns
  int threads = 0;

  auto fields() const {
    return std::tie(trans_a, trans_b, bias, f32_dst, weight_gradient, M, N, K,
                    lda, ldb, ldc, alpha, beta, threads);
  }
  bool operator<(const Key &o) const { return fields() < o.fields(); }
};

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
float value(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

Key make_key(bool trans_a, bool trans_b, bool bias, int M, int N, int K,
             float alpha, int lda, int ldb, float beta, int ldc) {
  Key k;
  k.trans_a = trans_a;
  k.trans_b = trans_b;
  k.bias = bias;
  k.M = M;
  k.N = N;
  k.K = K;
  k.lda = lda;
  k.ldb = ldb;
  k.ldc = ldc;
  k.alpha = bits(alpha);
  k.beta = bits(beta);
  k.threads = omp_get_max_threads();
  return k;
}

/// A (rows, cols) matrix stored row-major with leading dimension ld, or its
/// transpose (stored (cols, rows)).
memory::desc matrix(memory::data_type type, int rows, int cols, int ld,
                    bool trans) {
  memory::dims strides = trans ? memory::dims{1, ld} : memory::dims{ld, 1};
  return memory::desc({rows, cols}, type, strides);
}

struct Entry {
  std::string impl;
  bool usable = false;
  dnnl::primitive prim; // a matmul, or an inner product's weight gradient
  bool weight_gradient = false;
  memory::desc a, b, c, bias;
};

/// How a call runs: one primitive, or `chunks` depth chunks of `depth`
/// (the last one shallower) through `first`, `middle` and `last`.
struct Plan {
  const Entry *whole = nullptr;
  int chunks = 0, depth = 0;
  const Entry *first = nullptr, *middle = nullptr, *last = nullptr;
  bool usable() const {
    return whole ? whole->usable
                 : first && first->usable && (!middle || middle->usable) &&
                       last->usable;
  }
};

} // namespace

/// oneDNN 2.6's bf16 matmul slows down by about half when K is large: the
/// tied output layer's input gradient, (B*T, V) . (V, C) with V = 50304,
/// ran at 630-820 GFLOP/s on two AMX cores where the same product in four
/// chunks of K = 12576 summed in fp32 ran at 1290 (1024 x 768 results; one
/// thread at V = 25152, tp = 2's slice: 420 against 720). Chunks of 2048 to
/// 32768 all did about as well. Shallower products are left alone.
constexpr int kMaxDepth = 16384;

/// A program has a few dozen GEMM shapes. Should a caller keep bringing new
/// ones, the cache starts over rather than grow without bound.
constexpr size_t kMaxPrimitives = 256;

struct DnnlGemm::Impl {
  explicit Impl(Type t)
      : type(t), data_type(t == Type::F32 ? memory::data_type::f32
                                          : memory::data_type::bf16) {}
  Type type;
  memory::data_type data_type;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::map<Key, Entry> cache;
  std::mutex mutex;
  /// The fp32 sums of a call split by depth (M*N floats, kept).
  std::vector<float> acc;

  /// The primitive for k, created on first use. Call with mutex held;
  /// entries stay put until the next begin().
  const Entry &entry(const Key &k);
  /// Starts a call: makes room in the cache. Call with mutex held.
  void begin() {
    if (cache.size() >= kMaxPrimitives)
      cache.clear();
  }
  void run(const Entry &e, const void *A, const void *B, const void *bias,
           void *C);
  /// The primitives for k, split by depth where kMaxDepth says so. Call
  /// with mutex held.
  Plan plan(const Key &k);
  void weight_gradient_entry(const Key &k, Entry &e);
  /// Runs a usable plan for k. Call with mutex held.
  void run(const Plan &p, const Key &k, const void *A, const void *B, void *C);
};

/// The inner product's weight gradient for k (M = C inputs, N = OC
/// outputs, K = rows): diff_weights (C,OC) = src (K,C)^T . diff_dst (K,OC),
/// written; dense operands (oneDNN's `io` weights are our (C,OC)).
void DnnlGemm::Impl::weight_gradient_entry(const Key &k, Entry &e) {
  e.weight_gradient = true;
  if (k.M <= 0 || k.N <= 0 || k.K <= 0)
    return;
  using tag = memory::format_tag;
  const memory::data_type bf16 = memory::data_type::bf16;
  try {
    e.a = memory::desc({k.K, k.M}, bf16, tag::nc);
    e.b = memory::desc({k.K, k.N}, bf16, tag::nc);
    e.c = memory::desc({k.N, k.M}, bf16, tag::io);
    dnnl::inner_product_forward::primitive_desc hint(
        dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training,
                                          e.a, e.c, e.b),
        engine);
    dnnl::inner_product_backward_weights::primitive_desc pd(
        dnnl::inner_product_backward_weights::desc(e.a, e.c, e.b), engine,
        hint);
    e.impl = pd.impl_info_str();
    e.usable = e.impl.rfind("ref", 0) != 0;
    if (e.usable)
      e.prim = dnnl::inner_product_backward_weights(pd);
  } catch (const dnnl::error &err) {
    e.impl = std::string("none (") + err.what() + ")";
    e.usable = false;
  }
}

const Entry &DnnlGemm::Impl::entry(const Key &k) {
  auto it = cache.find(k);
  if (it != cache.end())
    return it->second;
  Entry e;
  // Degenerate shapes and alpha = 0 are left to the caller's BLAS, which
  // defines them (C = beta * C).
  if (k.weight_gradient) {
    weight_gradient_entry(k, e);
  } else if (k.M > 0 && k.N > 0 && k.K > 0 && value(k.alpha) != 0.0f) {
    try {
      e.a = matrix(data_type, k.M, k.K, k.lda, k.trans_a);
      e.b = matrix(data_type, k.K, k.N, k.ldb, k.trans_b);
      e.c = matrix(k.f32_dst ? memory::data_type::f32 : data_type, k.M, k.N,
                   k.ldc, false);
      dnnl::primitive_attr attr;
      if (value(k.alpha) != 1.0f)
        attr.set_output_scales(0, {value(k.alpha)});
      if (value(k.beta) != 0.0f) {
        dnnl::post_ops ops;
        ops.append_sum(value(k.beta));
        attr.set_post_ops(ops);
      }
      dnnl::matmul::desc desc = [&] {
        if (!k.bias)
          return dnnl::matmul::desc(e.a, e.b, e.c);
        e.bias = memory::desc({1, k.N}, data_type, memory::dims{k.N, 1});
        return dnnl::matmul::desc(e.a, e.b, e.bias, e.c);
      }();
      dnnl::matmul::primitive_desc pd(desc, attr, engine,
                                      /*allow_empty=*/true);
      if (pd) {
        e.impl = pd.impl_info_str();
        // A reference implementation is many times slower than OpenBLAS
        // (on bf16 widened to fp32).
        e.usable = e.impl.rfind("ref", 0) != 0;
        if (e.usable)
          e.prim = dnnl::matmul(pd);
      }
    } catch (const dnnl::error &err) {
      e.impl = std::string("none (") + err.what() + ")";
      e.usable = false;
    }
  }
  if (e.impl.empty())
    e.impl = "none";
  return cache.emplace(k, std::move(e)).first->second;
}

void DnnlGemm::Impl::run(const Entry &e, const void *A, const void *B,
                         const void *bias, void *C) {
  // oneDNN takes non-const handles; it does not write its inputs.
  if (e.weight_gradient) {
    e.prim.execute(
        stream,
        {{DNNL_ARG_SRC, memory(e.a, engine, const_cast<void *>(A))},
         {DNNL_ARG_DIFF_DST, memory(e.b, engine, const_cast<void *>(B))},
         {DNNL_ARG_DIFF_WEIGHTS, memory(e.c, engine, C)}});
    stream.wait();
    return;
  }
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, memory(e.a, engine, const_cast<void *>(A))},
      {DNNL_ARG_WEIGHTS, memory(e.b, engine, const_cast<void *>(B))},
      {DNNL_ARG_DST, memory(e.c, engine, C)}};
  if (bias)
    args.emplace(DNNL_ARG_BIAS,
                 memory(e.bias, engine, const_cast<void *>(bias)));
  e.prim.execute(stream, args);
  stream.wait();
}

Plan DnnlGemm::Impl::plan(const Key &k) {
  Plan p;
  if (type != Type::BF16 || k.bias || k.K <= kMaxDepth) {
    p.whole = &entry(k);
    return p;
  }
  p.chunks = (k.K + kMaxDepth - 1) / kMaxDepth;
  p.depth = (k.K + p.chunks - 1) / p.chunks;
  // Chunks write a dense (M,N) fp32 accumulator; the first one adds beta
  // times the old values, which the accumulator starts from, and the others
  // add to it. std::map entries stay put while others are added.
  auto chunk = [&](int depth, float beta) {
    Key c = k;
    c.K = depth;
    c.f32_dst = true;
    c.ldc = k.N;
    c.beta = bits(beta);
    return &entry(c);
  };
  p.first = chunk(p.depth, value(k.beta));
  if (p.chunks > 2)
    p.middle = chunk(p.depth, 1.0f);
  p.last = chunk(k.K - (p.chunks - 1) * p.depth, 1.0f);
  return p;
}

void DnnlGemm::Impl::run(const Plan &p, const Key &k, const void *A,
                         const void *B, void *C) {
  if (p.whole) {
    run(*p.whole, A, B, nullptr, C);
    return;
  }
  const size_t M = size_t(k.M), N = size_t(k.N), ldc = size_t(k.ldc);
  if (acc.size() < M * N)
    acc.resize(M * N);
  float *sums = acc.data();
  auto *c = static_cast<uint16_t *>(C);
  if (value(k.beta) != 0.0f) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < M; ++i)
      for (size_t j = 0; j < N; ++j)
        sums[i * N + j] = bf16_to_f32(c[i * ldc + j]);
  }
  const auto *a = static_cast<const uint16_t *>(A);
  const auto *b = static_cast<const uint16_t *>(B);
  for (int i = 0; i < p.chunks; ++i) {
    const size_t k0 = size_t(i) * p.depth;
    // Where chunk i's first column of op(A) and first row of op(B) start.
    const uint16_t *ai = a + (k.trans_a ? k0 * k.lda : k0);
    const uint16_t *bi = b + (k.trans_b ? k0 : k0 * k.ldb);
    const Entry &e = i == 0              ? *p.first
                     : i == p.chunks - 1 ? *p.last
                                         : *p.middle;
    run(e, ai, bi, nullptr, sums);
  }
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < M; ++i)
    for (size_t j = 0; j < N; ++j)
      c[i * ldc + j] = f32_to_bf16(sums[i * N + j]);
}

DnnlGemm::DnnlGemm(Type type) : impl_(std::make_unique<Impl>(type)) {}
DnnlGemm::~DnnlGemm() = default;

bool DnnlGemm::gemm(bool trans_a, bool trans_b, int M, int N, int K,
                    float alpha, const void *A, int lda, const void *B, int ldb,
                    float beta, void *C, int ldc) {
  Key k =
      make_key(trans_a, trans_b, false, M, N, K, alpha, lda, ldb, beta, ldc);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->begin();
  const Plan p = impl_->plan(k);
  if (!p.usable())
    return false;
  impl_->run(p, k, A, B, C);
  return true;
}

bool DnnlGemm::matmul_forward(void *out, const void *inp, const void *weight,
                              const void *bias, int N, int C, int OC,
                              bool transposed) {
  Key k = make_key(false, transposed, bias != nullptr, N, OC, C, 1.0f, C,
                   transposed ? C : OC, 0.0f, OC);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->begin();
  const Entry &e = impl_->entry(k);
  if (!e.usable)
    return false;
  impl_->run(e, inp, weight, bias, out);
  return true;
}

bool DnnlGemm::matmul_backward(void *dinp, void *dweight, void *dbias,
                               const void *dout, const void *inp,
                               const void *weight, int N, int C, int OC,
                               bool transposed, bool accumulate) {
  // Both GEMMs are looked up before either runs: a caller that falls back
  // must find its gradients untouched.
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->begin();
  // Written results: beta 0, no sum post-op, C not read.
  const float beta = accumulate ? 1.0f : 0.0f;
  // (N,C) += dout (N,OC) . weight^T, or . weight (OC,C) when transposed.
  const Key kx = make_key(false, !transposed, false, N, C, OC, 1.0f, OC,
                          transposed ? C : OC, beta, C);
  // (C,OC) += inp^T . dout, or (OC,C) += dout^T . inp when transposed.
  const Key kw =
      transposed
          ? make_key(true, false, false, OC, C, N, 1.0f, OC, C, beta, C)
          : make_key(true, false, false, C, OC, N, 1.0f, C, OC, beta, OC);
  Plan dx, dw;
  if (dinp && !(dx = impl_->plan(kx)).usable())
    return false;
  if (dweight && impl_->type == Type::BF16 && !transposed && !accumulate) {
    // A written bf16 weight gradient runs faster as an inner product's
    // (oneDNN's JIT GEMM) than as a transposed matmul (its brgemm): GPT-2
    // 124M's layers 1.1-1.3x on two AMX cores, 1.2-1.5x on one. Not the
    // tied output layer's (transposed; slower there on one core).
    Key k = kw; // M = C, N = OC, K = N already
    k.weight_gradient = true;
    if (const Entry &e = impl_->entry(k); e.usable)
      dw.whole = &e;
  }
  if (dweight && !dw.whole && !(dw = impl_->plan(kw)).usable())
    return false;
  if (dinp)
    impl_->run(dx, kx, dout, weight, dinp);
  if (dweight) {
    if (transposed)
      impl_->run(dw, kw, dout, inp, dweight);
    else
      impl_->run(dw, kw, inp, dout, dweight);
  }
  if (dbias && impl_->type == Type::F32) {
    if (!accumulate)
      std::fill_n(static_cast<float *>(dbias), OC, 0.0f);
    column_sum_accumulate(static_cast<float *>(dbias),
                          static_cast<const float *>(dout), N, OC);
  } else if (dbias) {
    // Summed in fp32 from the old values and rounded once, as the fp32 path.
    auto *db = static_cast<uint16_t *>(dbias);
    const auto *d = static_cast<const uint16_t *>(dout);
    std::vector<float> acc(static_cast<size_t>(OC), 0.0f);
    for (int o = 0; o < OC && accumulate; ++o)
      acc[o] = bf16_to_f32(db[o]);
    column_reduce(acc.data(), N, OC,
                  [=](int n, int o) { return bf16_to_f32(d[size_t(n) * OC + o]); });
    for (int o = 0; o < OC; ++o)
      db[o] = f32_to_bf16(acc[o]);
  }
  return true;
}

std::string DnnlGemm::implementation(bool trans_a, bool trans_b, int M, int N,
                                     int K, float alpha, int lda, int ldb,
                                     float beta, int ldc) {
  Key k =
      make_key(trans_a, trans_b, false, M, N, K, alpha, lda, ldb, beta, ldc);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->begin();
  const Plan p = impl_->plan(k);
  if (p.whole)
    return p.whole->impl;
  return p.first->impl + " in " + std::to_string(p.chunks) +
         " chunks of K <= " + std::to_string(p.depth);
}

size_t DnnlGemm::cached_primitives() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->cache.size();
}

std::string DnnlGemm::library() {
  const dnnl_version_t *v = dnnl_version();
  std::string threads;
  switch (v->cpu_runtime) {
  case DNNL_RUNTIME_OMP:
    threads = "OpenMP threads";
    break;
  case DNNL_RUNTIME_SEQ:
    threads = "sequential";
    break;
  case DNNL_RUNTIME_TBB:
    threads = "TBB threads";
    break;
  case DNNL_RUNTIME_THREADPOOL:
    threads = "a user thread pool";
    break;
  default:
    threads = "CPU runtime " + std::to_string(v->cpu_runtime);
  }
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
         "." + std::to_string(v->patch) + ", " + threads;
}

} // namespace tpc::cpu
