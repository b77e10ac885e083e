//===- DnnlMatmul.cpp - fp32 and bf16 GEMMs through oneDNN ----------------===//
//
// Row-major operands are described to oneDNN by their strides, so a
// transposed operand or a leading dimension wider than the matrix costs no
// copy. beta becomes a sum post-op and alpha an output scale: oneDNN applies
// both to the fp32 accumulator and converts to bf16 once, when it stores.
//
// A bf16 GEMM deeper than kMaxDepth runs as several shallower ones summed
// into an fp32 accumulator, rounded to bf16 once at the end (see
// kMaxDepth). A GEMM with op(A) transposed, as a weight gradient's, runs
// on copies of its operands (bf16) or of B (fp32) reordered into the
// layouts oneDNN's kernels prefer, in row chunks when its result is tall
// (see kMaxRows).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#include "runtime/backends/cpu/HostMemory.h"
#include "runtime/backends/cpu/kernels/ColumnSum.h"
#include "runtime/util/Float16.h"

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
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
  /// Operands reordered into the layouts the primitive picks
  /// (packed_entry).
  bool packed = false;
  int M = 0, N = 0, K = 0, lda = 0, ldb = 0, ldc = 0;
  uint32_t alpha = 0, beta = 0; // bit patterns
  int threads = 0;

  auto fields() const {
    return std::tie(trans_a, trans_b, bias, f32_dst, packed, M, N, K, lda, ldb,
                    ldc, alpha, beta, threads);
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

/// alpha as an output scale and beta as a sum post-op: oneDNN applies both
/// to the fp32 accumulator before it stores.
dnnl::primitive_attr scale_and_sum(const Key &k) {
  dnnl::primitive_attr attr;
  if (value(k.alpha) != 1.0f)
    attr.set_output_scales(0, {value(k.alpha)});
  if (value(k.beta) != 0.0f) {
    dnnl::post_ops ops;
    ops.append_sum(value(k.beta));
    attr.set_post_ops(ops);
  }
  return attr;
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
  dnnl::matmul prim;
  memory::desc a, b, c, bias; // the caller's layouts
  /// A packed entry's: the layouts prim reads, and the reorders into them
  /// from a and b (empty handles where the two agree).
  memory::desc a_packed, b_packed;
  dnnl::reorder to_a, to_b;
};

/// How a call runs: one primitive (whole), or `chunks` depth chunks of
/// `size` through `first`, `middle` and `last`, summed; or, packed, `chunks`
/// chunks of `size` result rows through `first` and `last` (the last chunk
/// shallower or shorter).
struct Plan {
  const Entry *whole = nullptr;
  bool row_chunks = false;
  int chunks = 0, size = 0;
  const Entry *first = nullptr, *middle = nullptr, *last = nullptr;
  bool usable() const {
    return whole ? whole->usable
                 : first && first->usable && (!middle || middle->usable) &&
                       last->usable;
  }
};

/// Grow-only host memory (host_alloc) for reordered operands.
class Scratch {
public:
  void *get(size_t bytes) {
    if (bytes > size_) {
      buf_.reset(host_alloc(bytes));
      size_ = bytes;
    }
    return buf_.get();
  }

private:
  std::unique_ptr<void, void (*)(void *)> buf_{nullptr, std::free};
  size_t size_ = 0;
};

} // namespace

/// oneDNN 2.6's bf16 matmul slows down by about half when K is large: the
/// tied output layer's input gradient, (B*T, V) . (V, C) with V = 50304,
/// ran at 630-820 GFLOP/s on two AMX cores where the same product in four
/// chunks of K = 12576 summed in fp32 ran at 1290 (1024 x 768 results; one
/// thread at V = 25152, tp = 2's slice: 420 against 720). Chunks of 2048 to
/// 32768 all did about as well. Shallower products are left alone.
constexpr int kMaxDepth = 16384;

/// oneDNN 2.6's bf16 kernels (brgemm on AMX or VNNI) read both operands in
/// blocked layouts of their own. GPT-2 124M's layer weight gradients,
/// inp^T . dout with inp^T (C, B*T) a strided view, ran at 1010-1240
/// GFLOP/s in a training step on two AMX cores as oneDNN's inner-product
/// gradients (a little faster than as strided matmuls); as matmuls on
/// copies reordered into the layouts the primitive picks (format `any`),
/// 1470-1840, the reorders included. Taller results run in chunks of at
/// most kMaxRows rows, each reordering its slice of A and all reading one
/// copy of B, so that the copies stay a few MB: the tied output layer's
/// (V, C) = dout^T . inp, V = 50304, in 13 chunks of 3872 rows ran at 1550
/// against 1260 whole and strided. fp32 (oneDNN's AVX-512 brgemm, where
/// OpenBLAS is not the faster): B alone reordered, which was as fast as or
/// faster than both (tpc-bench-gemm, one run each on a machine 13% slower
/// the second time): the MLP's first weight gradient 167 -> 319 GFLOP/s,
/// the tied output layer's 232 -> 336, the others 308-349 against 354-368.
constexpr int kMaxRows = 4096;

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
  /// A packed call's reordered operands.
  Scratch packed_a, packed_b;
  /// A bf16 bias gradient's fp32 sums (OC floats, kept: no allocation per
  /// call once a width has been seen).
  std::vector<float> bias_sums;

  /// The primitive for k, created on first use. Call with mutex held;
  /// entries stay put until the next begin().
  const Entry &entry(const Key &k);
  /// Starts a call: makes room in the cache. Call with mutex held.
  void begin() {
    if (cache.size() >= kMaxPrimitives)
      cache.clear();
  }
  /// Runs e; a packed e reorders B only when reorder_b says so (B's copy
  /// is still in packed_b otherwise).
  void run(const Entry &e, const void *A, const void *B, const void *bias,
           void *C, bool reorder_b = true);
  /// The primitives for k: packed (in row chunks where kMaxRows says so)
  /// when op(A) is transposed, split by depth where kMaxDepth says so.
  /// Call with mutex held.
  Plan plan(const Key &k);
  void packed_entry(const Key &k, Entry &e);
  /// Runs a usable plan for k. Call with mutex held.
  void run(const Plan &p, const Key &k, const void *A, const void *B, void *C);
};

/// A matmul for k reading B, and A in bf16, in the layouts it picks, and
/// the reorders from the caller's layouts into them.
void DnnlGemm::Impl::packed_entry(const Key &k, Entry &e) {
  e.a = matrix(data_type, k.M, k.K, k.lda, k.trans_a);
  e.b = matrix(data_type, k.K, k.N, k.ldb, k.trans_b);
  e.c = matrix(data_type, k.M, k.N, k.ldc, false);
  const dnnl::primitive_attr attr = scale_and_sum(k);
  using tag = memory::format_tag;
  const memory::desc any_a({k.M, k.K}, data_type, tag::any),
      any_b({k.K, k.N}, data_type, tag::any);
  const memory::desc &a = type == Type::BF16 ? any_a : e.a;
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, any_b, e.c), attr,
                                  engine, /*allow_empty=*/true);
  if (!pd)
    return;
  e.impl = pd.impl_info_str();
  e.usable = e.impl.rfind("ref", 0) != 0;
  if (!e.usable)
    return;
  e.prim = dnnl::matmul(pd);
  e.a_packed = pd.src_desc();
  e.b_packed = pd.weights_desc();
  if (e.a_packed != e.a)
    e.to_a = dnnl::reorder(
        dnnl::reorder::primitive_desc(engine, e.a, engine, e.a_packed));
  if (e.b_packed != e.b)
    e.to_b = dnnl::reorder(
        dnnl::reorder::primitive_desc(engine, e.b, engine, e.b_packed));
  e.impl += " on reordered operands";
}

const Entry &DnnlGemm::Impl::entry(const Key &k) {
  auto it = cache.find(k);
  if (it != cache.end())
    return it->second;
  Entry e;
  // Degenerate shapes and alpha = 0 are left to the caller's BLAS, which
  // defines them (C = beta * C).
  if (k.M > 0 && k.N > 0 && k.K > 0 && value(k.alpha) != 0.0f) {
    try {
      if (k.packed) {
        packed_entry(k, e);
        if (e.impl.empty())
          e.impl = "none";
        return cache.emplace(k, std::move(e)).first->second;
      }
      e.a = matrix(data_type, k.M, k.K, k.lda, k.trans_a);
      e.b = matrix(data_type, k.K, k.N, k.ldb, k.trans_b);
      e.c = matrix(k.f32_dst ? memory::data_type::f32 : data_type, k.M, k.N,
                   k.ldc, false);
      const dnnl::primitive_attr attr = scale_and_sum(k);
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
                         const void *bias, void *C, bool reorder_b) {
  // oneDNN takes non-const handles; it does not write its inputs.
  memory a(e.a, engine, const_cast<void *>(A)),
      b(e.b, engine, const_cast<void *>(B));
  if (e.to_a) {
    memory packed(e.a_packed, engine, packed_a.get(e.a_packed.get_size()));
    e.to_a.execute(stream, a, packed);
    a = packed;
  }
  if (e.to_b) {
    memory packed(e.b_packed, engine, packed_b.get(e.b_packed.get_size()));
    if (reorder_b)
      e.to_b.execute(stream, b, packed);
    b = packed;
  }
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, a},
                                       {DNNL_ARG_WEIGHTS, b},
                                       {DNNL_ARG_DST, memory(e.c, engine, C)}};
  if (bias)
    args.emplace(DNNL_ARG_BIAS,
                 memory(e.bias, engine, const_cast<void *>(bias)));
  e.prim.execute(stream, args);
  stream.wait();
}

Plan DnnlGemm::Impl::plan(const Key &k) {
  Plan p;
  if (k.trans_a && !k.trans_b && !k.bias && !k.f32_dst && k.K <= kMaxDepth) {
    // Row chunks of equal height, a multiple of 32 where there are several.
    p.row_chunks = true;
    p.chunks = (k.M + kMaxRows - 1) / kMaxRows;
    p.size =
        p.chunks == 1 ? k.M : ((k.M + p.chunks - 1) / p.chunks + 31) / 32 * 32;
    p.chunks = (k.M + p.size - 1) / p.size;
    Key c = k;
    c.packed = true;
    c.M = p.size;
    p.first = &entry(c);
    c.M = k.M - (p.chunks - 1) * p.size;
    p.last = &entry(c);
    return p;
  }
  if (type != Type::BF16 || k.bias || k.K <= kMaxDepth) {
    p.whole = &entry(k);
    return p;
  }
  p.chunks = (k.K + kMaxDepth - 1) / kMaxDepth;
  p.size = (k.K + p.chunks - 1) / p.chunks;
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
  p.first = chunk(p.size, value(k.beta));
  if (p.chunks > 2)
    p.middle = chunk(p.size, 1.0f);
  p.last = chunk(k.K - (p.chunks - 1) * p.size, 1.0f);
  return p;
}

void DnnlGemm::Impl::run(const Plan &p, const Key &k, const void *A,
                         const void *B, void *C) {
  if (p.whole) {
    run(*p.whole, A, B, nullptr, C);
    return;
  }
  if (p.row_chunks) {
    // op(A) is transposed: row r of op(A) is column r of A. B is reordered
    // once where the chunks read it in the same layout.
    const size_t bytes = type == Type::BF16 ? sizeof(uint16_t) : sizeof(float);
    const auto *a = static_cast<const char *>(A);
    auto *c = static_cast<char *>(C);
    const Entry *previous = nullptr;
    for (int i = 0; i < p.chunks; ++i) {
      const size_t r0 = size_t(i) * p.size;
      const Entry &e = i == p.chunks - 1 ? *p.last : *p.first;
      const bool reorder_b = !previous || previous->b_packed != e.b_packed;
      run(e, a + r0 * bytes, B, nullptr, c + r0 * size_t(k.ldc) * bytes,
          reorder_b);
      previous = &e;
    }
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
    const size_t k0 = size_t(i) * p.size;
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
  if (dweight && !(dw = impl_->plan(kw)).usable())
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
    std::vector<float> &acc = impl_->bias_sums;
    if (acc.size() < size_t(OC))
      acc.resize(size_t(OC));
    for (int o = 0; o < OC; ++o)
      acc[o] = accumulate ? bf16_to_f32(db[o]) : 0.0f;
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
  if (p.row_chunks)
    return p.chunks == 1 ? p.first->impl
                         : p.first->impl + " in " + std::to_string(p.chunks) +
                               " chunks of M <= " + std::to_string(p.size);
  return p.first->impl + " in " + std::to_string(p.chunks) +
         " chunks of K <= " + std::to_string(p.size);
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
