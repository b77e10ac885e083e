//===- CpuBackend.cpp - Backend on OpenMP threads and OpenBLAS ------------===//

#include "runtime/backends/cpu/CpuBackend.h"
#include "runtime/backend/KernelChecks.h"
#include "runtime/backends/cpu/HostMemory.h"
#include "runtime/backends/cpu/kernels/Kernels.h"
#include "runtime/backends/cpu/kernels/Storage.h"
#include "runtime/backends/cpu/kernels/VecMath.h"
#ifdef TPC_HAVE_DNNL
#include "runtime/backends/cpu/kernels/DnnlMatmul.h"
#endif
#include "runtime/util/Float16.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace tpc {

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

namespace {

/// Runs f(offset, length) over [0, bytes) in blocks on the OpenMP threads
/// when the block is large: one core alone does not reach the memory's
/// bandwidth, and the other threads would only wait for it.
template <class F> void in_blocks(size_t bytes, F f) {
  constexpr size_t kBlock = size_t(1) << 20;
  const size_t blocks = (bytes + kBlock - 1) / kBlock;
  if (blocks < 4)
    return f(size_t(0), bytes);
#pragma omp parallel for schedule(static)
  for (size_t b = 0; b < blocks; ++b)
    f(b * kBlock, std::min(kBlock, bytes - b * kBlock));
}

/// memcpy of ranges that do not overlap, in blocks (in_blocks).
void copy_in_blocks(void *dst, const void *src, size_t bytes) {
  auto *d = static_cast<char *>(dst);
  const auto *from = static_cast<const char *>(src);
  in_blocks(bytes,
            [&](size_t at, size_t n) { std::memcpy(d + at, from + at, n); });
}

/// memset to zero, in blocks (in_blocks).
void zero_in_blocks(void *dst, size_t bytes) {
  auto *d = static_cast<char *>(dst);
  in_blocks(bytes, [&](size_t at, size_t n) { std::memset(d + at, 0, n); });
}

} // namespace

void *CpuDevice::alloc(size_t bytes) { return cpu::host_alloc(bytes); }

void CpuDevice::free(void *ptr) { std::free(ptr); }

void CpuDevice::copy_host_to_device(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuDevice::copy_device_to_host(void *dst, const void *src, size_t bytes) {
  std::memcpy(dst, src, bytes);
}
void CpuDevice::copy_device_to_device(void *dst, const void *src,
                                      size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(dst),
             b = reinterpret_cast<uintptr_t>(src);
  if (a < b + bytes && b < a + bytes) {
    std::memmove(dst, src, bytes); // overlapping: in order, on one thread
    return;
  }
  copy_in_blocks(dst, src, bytes);
}
void CpuDevice::zero(void *ptr, size_t bytes) { zero_in_blocks(ptr, bytes); }

Event CpuDevice::create_event() {
  // Calls complete before they return: an event has nothing to mark, but a
  // caller may test it against null.
  static char marker;
  return &marker;
}

//===----------------------------------------------------------------------===//
// Kernel tables
//===----------------------------------------------------------------------===//

namespace {

using cpu::BF16Storage;
using cpu::F16Storage;
using cpu::F32Storage;
using cpu::kIsBF16;
using cpu::kIsF32;

/// An fp32 buffer of a widened view. Unlike a std::vector it does not
/// zero what it grows into: every view writes all of its elements first.
struct WideBuffer {
  struct Free {
    void operator()(float *p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data;
  size_t capacity = 0;
};

/// The fp32 buffers of the widened views below, kept for the next call: a
/// training step widens the same large tensors (the logits) every time, and
/// a fresh allocation of that size costs its page faults again on every
/// call, more than the kernel itself. One pool per thread; a view borrows
/// the smallest free buffer that holds it and gives it back when it ends.
class WidePool {
public:
  WideBuffer take(size_t n) {
    size_t best = free_.size();
    for (size_t i = 0; i < free_.size(); ++i)
      if (free_[i].capacity >= n &&
          (best == free_.size() || free_[i].capacity < free_[best].capacity))
        best = i;
    WideBuffer b;
    if (best < free_.size()) {
      b = std::move(free_[best]);
      free_.erase(free_.begin() + std::ptrdiff_t(best));
    } else if (!free_.empty()) {
      free_.pop_back(); // none is large enough: replace the newest
    }
    if (b.capacity < n) {
      b.data.reset(static_cast<float *>(cpu::host_alloc(n * sizeof(float))));
      b.capacity = n;
    }
    return b;
  }
  void give(WideBuffer b) {
    if (free_.size() < kMaxFree)
      free_.push_back(std::move(b));
  }

private:
  static constexpr size_t kMaxFree = 16;
  std::vector<WideBuffer> free_;
};

WidePool &wide_pool() {
  thread_local WidePool pool;
  return pool;
}

/// Elements per parallel task of the conversions.
constexpr size_t kConvertChunk = 65536;

TPC_VECTOR_CLONES
void widen_bf16_chunk(float *dst, const uint16_t *src, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    dst[i] = bf16_to_f32(src[i]);
}

TPC_VECTOR_CLONES
void narrow_bf16_chunk(uint16_t *dst, const float *src, size_t n) {
#pragma omp simd
  for (size_t i = 0; i < n; ++i)
    dst[i] = f32_to_bf16(src[i]);
}

/// dst (fp32) = src (storage type S), n elements.
template <class S> void widen(float *dst, const void *p, size_t n) {
  const auto *src = static_cast<const typename S::type *>(p);
  size_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
#pragma omp parallel for if (chunks > 1)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kConvertChunk, k = std::min(kConvertChunk, n - i);
    if constexpr (kIsBF16<S>)
      widen_bf16_chunk(dst + i, src + i, k);
    else
      for (size_t j = i; j < i + k; ++j)
        dst[j] = S::load(src[j]);
  }
}

/// dst (storage type S) = src (fp32) rounded, n elements.
template <class S> void narrow(void *p, const float *src, size_t n) {
  auto *dst = static_cast<typename S::type *>(p);
  size_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
#pragma omp parallel for if (chunks > 1)
  for (size_t c = 0; c < chunks; ++c) {
    size_t i = c * kConvertChunk, k = std::min(kConvertChunk, n - i);
    if constexpr (kIsBF16<S>)
      narrow_bf16_chunk(dst + i, src + i, k);
    else
      for (size_t j = i; j < i + k; ++j)
        dst[j] = S::store(src[j]);
  }
}

/// An fp32 view of n elements of storage type S: the tensor itself for
/// f32, a widened copy otherwise. Null stays null.
template <class S> class In {
public:
  In(const void *p, size_t n) {
    if constexpr (kIsF32<S>) {
      ptr_ = static_cast<const float *>(p);
    } else if (p) {
      buf_ = wide_pool().take(n);
      widen<S>(buf_.data.get(), p, n);
      ptr_ = buf_.data.get();
    }
  }
  ~In() {
    if (ptr_ && !kIsF32<S>)
      wide_pool().give(std::move(buf_));
  }
  In(const In &) = delete;
  In &operator=(const In &) = delete;
  operator const float *() const { return ptr_; }

private:
  const float *ptr_ = nullptr;
  WideBuffer buf_;
};

/// A writable fp32 view of n elements of storage type S, rounded back into
/// the tensor when it goes out of scope. `accumulates`: the kernel adds to
/// the tensor, so the view starts from its values.
template <class S> class Out {
public:
  Out(void *p, size_t n, bool accumulates) : dst_(p), n_(n) {
    if constexpr (kIsF32<S>) {
      ptr_ = static_cast<float *>(p);
    } else if (p) {
      buf_ = wide_pool().take(n);
      float *buf = buf_.data.get();
      if (accumulates)
        widen<S>(buf, p, n);
      else
        zero_in_blocks(buf, n * sizeof(float));
      ptr_ = buf;
    }
  }
  ~Out() {
    if constexpr (!kIsF32<S>) {
      if (!dst_)
        return;
      narrow<S>(dst_, buf_.data.get(), n_);
      wide_pool().give(std::move(buf_));
    }
  }
  Out(const Out &) = delete;
  Out &operator=(const Out &) = delete;
  operator float *() const { return ptr_; }

private:
  void *dst_;
  size_t n_;
  float *ptr_ = nullptr;
  WideBuffer buf_;
};

size_t sz(int64_t a) { return size_t(a); }

/// Result rows below which the f32 table keeps its GEMMs on oneDNN when
/// the rest go to OpenBLAS (CpuGemm::Auto with OpenBLAS on AVX-512).
constexpr int kSkinnyRows = 32;

template <class S> class CpuKernels final : public Kernels {
public:
  /// With `dnnl`, the GEMMs run on oneDNN where it has more than a
  /// reference kernel (f32 and bf16 tables only); with `skinny_only` too,
  /// only those of fewer than kSkinnyRows result rows.
  CpuKernels(bool dnnl, bool skinny_only) : skinny_only_(skinny_only) {
#ifdef TPC_HAVE_DNNL
    if (!dnnl)
      return;
    if constexpr (kIsF32<S>)
      dnnl_ = std::make_unique<cpu::DnnlGemm>(cpu::DnnlGemm::Type::F32);
    else if constexpr (kIsBF16<S>)
      dnnl_ = std::make_unique<cpu::DnnlGemm>(cpu::DnnlGemm::Type::BF16);
#else
    (void)dnnl;
#endif
  }

  ElementType dtype() const override { return S::dtype; }
  bool attention_recomputes() const override { return true; }

  void fill(void *out, float value, size_t n) const override {
    auto *o = static_cast<typename S::type *>(out);
    typename S::type v;
    if constexpr (kIsF32<S>)
      v = value;
    else
      v = S::store(value);
    for (size_t i = 0; i < n; ++i)
      o[i] = v;
  }

  void gemm(bool trans_a, bool trans_b, int M, int N, int K, float alpha,
            const void *A, int lda, const void *B, int ldb, float beta, void *C,
            int ldc) const override {
#ifdef TPC_HAVE_DNNL
    if (dnnl_ && takes(M) &&
        dnnl_->gemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C,
                    ldc))
      return;
#endif
    // Row-major extents of the stored operands.
    size_t a = sz(trans_a ? K : M) * lda, b = sz(trans_b ? N : K) * ldb,
           c = sz(M) * ldc;
    In<S> a_(A, a), b_(B, b);
    Out<S> c_(C, c, beta != 0.0f);
    cpu::gemm(trans_a, trans_b, M, N, K, alpha, a_, lda, b_, ldb, beta, c_,
              ldc);
  }

  void embedding_forward(void *out, const int *ids, const void *wte, int B,
                         int T, int C, int vstart, int vlocal) const override {
    cpu::embedding_forward<S>(typed(out), ids, typed(wte), B, T, C, vstart,
                              vlocal);
  }
  void embedding_backward(void *dwte, const void *dout, const int *ids, int B,
                          int T, int C, int vstart, int vlocal) const override {
    cpu::embedding_backward<S>(typed(dwte), typed(dout), ids, B, T, C, vstart,
                               vlocal);
  }
  void position_embedding_forward(void *out, const void *inp, const void *wpe,
                                  const int *offset, int B, int T,
                                  int C) const override {
    size_t first = offset ? sz(*offset) * C : 0;
    const auto *table = static_cast<const typename S::type *>(wpe) + first;
    In<S> x(inp, sz(B) * T * C), w(table, sz(T) * C);
    Out<S> o(out, sz(B) * T * C, false);
    cpu::position_embedding_forward(o, x, w, B, T, C);
  }
  void position_embedding_backward(void *dwpe, const void *dout, int B, int T,
                                   int C) const override {
    In<S> d(dout, sz(B) * T * C);
    Out<S> dw(dwpe, sz(T) * C, true);
    cpu::position_embedding_backward(dw, d, B, T, C);
  }

  void layernorm_forward(void *out, float *mean, float *rstd, const void *inp,
                         const void *weight, const void *bias, int N,
                         int C) const override {
    In<S> w(weight, C), b(bias, C);
    cpu::layernorm_forward<S>(typed(out), mean, rstd, typed(inp), w, b, N, C);
  }
  void layernorm_backward(void *dinp, void *dweight, void *dbias,
                          const void *dout, const void *inp, const void *weight,
                          const float *mean, const float *rstd, int N,
                          int C) const override {
    In<S> w(weight, C);
    Out<S> dw(dweight, C, true), db(dbias, C, true);
    cpu::layernorm_backward<S>(typed(dinp), dw, db, typed(dout), typed(inp), w,
                               mean, rstd, N, C);
  }
  void rmsnorm_forward(void *out, float *rstd, const void *inp,
                       const void *weight, int N, int C,
                       float eps) const override {
    In<S> w(weight, C);
    cpu::rmsnorm_forward<S>(typed(out), rstd, typed(inp), w, N, C, eps);
  }
  void rmsnorm_backward(void *dinp, void *dweight, const void *dout,
                        const void *inp, const void *weight, const float *rstd,
                        int N, int C) const override {
    In<S> w(weight, C);
    Out<S> dw(dweight, C, true);
    cpu::rmsnorm_backward<S>(typed(dinp), dw, typed(dout), typed(inp), w, rstd,
                             N, C);
  }

  void matmul_forward(void *out, const void *inp, const void *weight,
                      const void *bias, int N, int C, int OC,
                      bool transposed) const override {
#ifdef TPC_HAVE_DNNL
    if (dnnl_ && takes(N) &&
        dnnl_->matmul_forward(out, inp, weight, bias, N, C, OC, transposed))
      return;
#endif
    In<S> x(inp, sz(N) * C), w(weight, sz(C) * OC), b(bias, OC);
    Out<S> o(out, sz(N) * OC, false);
    if (transposed)
      cpu::matmul_nt_forward(o, x, w, b, N, C, OC);
    else
      cpu::matmul_forward(o, x, w, b, N, C, OC);
  }
  void matmul_backward(void *dinp, void *dweight, void *dbias, const void *dout,
                       const void *inp, const void *weight, int N, int C,
                       int OC, bool transposed,
                       bool accumulate) const override {
#ifdef TPC_HAVE_DNNL
    if (dnnl_ && takes(N) &&
        dnnl_->matmul_backward(dinp, dweight, dbias, dout, inp, weight, N, C,
                               OC, transposed, accumulate))
      return;
#endif
    In<S> d(dout, sz(N) * OC), x(inp, sz(N) * C), w(weight, sz(C) * OC);
    // Written f32 results are their own views and the GEMMs write them (beta
    // 0); the bias's column sums add to a zeroed one. The fp32 views of
    // 16-bit results start zeroed when the results are written.
    if (!accumulate && kIsF32<S> && dbias)
      zero_in_blocks(dbias, size_t(OC) * sizeof(float));
    Out<S> dx(dinp, sz(N) * C, accumulate), dw(dweight, sz(C) * OC, accumulate),
        db(dbias, OC, accumulate);
    bool add = accumulate || !kIsF32<S>;
    if (transposed)
      cpu::matmul_nt_backward(dx, dw, db, d, x, w, N, C, OC, add);
    else
      cpu::matmul_backward(dx, dw, db, d, x, w, N, C, OC, add);
  }

  void gelu_forward(void *out, const void *inp, size_t n) const override {
    cpu::gelu_forward<S>(typed(out), typed(inp), n);
  }
  void gelu_backward(void *dinp, const void *inp, const void *dout, size_t n,
                     bool accumulate) const override {
    cpu::gelu_backward<S>(typed(dinp), typed(inp), typed(dout), n, accumulate);
  }
  void swiglu_forward(void *out, const void *gate, const void *up,
                      size_t n) const override {
    cpu::swiglu_forward<S>(typed(out), typed(gate), typed(up), n);
  }
  void swiglu_backward(void *dgate, void *dup, const void *dout,
                       const void *gate, const void *up,
                       size_t n) const override {
    cpu::swiglu_backward<S>(typed(dgate), typed(dup), typed(dout), typed(gate),
                            typed(up), n);
  }
  void residual_forward(void *out, const void *a, const void *b,
                        size_t n) const override {
    cpu::residual_forward<S>(typed(out), typed(a), typed(b), n);
  }
  void cast(void *out, ElementType to, const void *inp,
            size_t n) const override {
    // To the same type, the bits as they are: the way through fp32 and
    // back is exact (a gradient's first micro-batch, bf16 to bf16).
    if (to == S::dtype) {
      if (out != inp)
        copy_in_blocks(out, inp, n * element_size(to));
      return;
    }
    if (to == ElementType::F32) {
      widen<S>(static_cast<float *>(out), inp, n);
      return;
    }
    In<S> x(inp, n);
    const float *src = x;
    switch (to) {
    case ElementType::BF16:
      narrow<BF16Storage>(out, src, n);
      return;
    case ElementType::F16:
      narrow<F16Storage>(out, src, n);
      return;
    case ElementType::F32:
    case ElementType::I32:
      break;
    }
    throw std::invalid_argument(std::string("cast to ") +
                                element_type_name(to) +
                                ": only floating-point types convert");
  }
  void scale_forward(void *out, const void *inp, float s,
                     size_t n) const override {
    In<S> x(inp, n);
    Out<S> o(out, n, false);
    cpu::scale_forward(o, x, s, n);
  }
  void weighted_sum_forward(void *out, const void *const *xs, const void *alpha,
                            int k, size_t n) const override {
    std::vector<std::unique_ptr<In<S>>> in;
    std::vector<const float *> ptrs;
    for (int i = 0; i < k; ++i) {
      in.push_back(std::make_unique<In<S>>(xs[i], n));
      ptrs.push_back(*in.back());
    }
    In<S> a(alpha, k);
    Out<S> o(out, n, false);
    cpu::weighted_sum_forward(o, ptrs.data(), a, k, n);
  }
  void weighted_sum_backward(void *const *dxs, void *dalpha, const void *dout,
                             const void *const *xs, const void *alpha, int k,
                             size_t n) const override {
    std::vector<std::unique_ptr<In<S>>> in;
    std::vector<std::unique_ptr<Out<S>>> out;
    std::vector<const float *> xp;
    std::vector<float *> dxp;
    for (int i = 0; i < k; ++i) {
      in.push_back(std::make_unique<In<S>>(xs[i], n));
      xp.push_back(*in.back());
      out.push_back(std::make_unique<Out<S>>(dxs[i], n, true));
      dxp.push_back(*out.back());
    }
    In<S> a(alpha, k), d(dout, n);
    Out<S> da(dalpha, k, true);
    cpu::weighted_sum_backward(dxp.data(), da, d, xp.data(), a, k, n);
  }
  void dropout_forward(void *out, const void *inp, size_t n,
                       const DropoutParams &d,
                       const GlobalIndexMap &map) const override {
    In<S> x(inp, n);
    Out<S> o(out, n, false);
    cpu::dropout_forward(o, nullptr, x, n, d, map);
  }

  // Attention reads 16-bit tensors as stored (Kernels.h) except with RoPE,
  // which rotates whole fp32 copies.
  static bool stored_as_is(const AttentionConfig &cfg) {
    return kIsF32<S> || !rope_on(cfg);
  }
  void attention_forward(void *out, float *att, const void *qkv,
                         const AttentionConfig &cfg) const override {
    if (stored_as_is(cfg))
      return cpu::attention_forward<S>(typed(out), att, typed(qkv), cfg);
    size_t rows = sz(cfg.B) * cfg.T;
    In<S> x(qkv, rows * 3 * cfg.C());
    Out<S> o(out, rows * cfg.C(), false);
    cpu::attention_forward(o, att, x, cfg);
  }
  void attention_backward(void *dqkv, const void *dout, const void *qkv,
                          const float *att,
                          const AttentionConfig &cfg) const override {
    if (stored_as_is(cfg))
      return cpu::attention_backward<S>(typed(dqkv), typed(dout), typed(qkv),
                                        att, cfg);
    size_t rows = sz(cfg.B) * cfg.T;
    In<S> d(dout, rows * cfg.C()), x(qkv, rows * 3 * cfg.C());
    Out<S> dx(dqkv, rows * 3 * cfg.C(), true);
    cpu::attention_backward(dx, d, x, att, cfg);
  }
  void cross_attention_forward(void *out, float *att, const void *q,
                               const void *kv,
                               const AttentionConfig &cfg) const override {
    if (stored_as_is(cfg))
      return cpu::cross_attention_forward<S>(typed(out), att, typed(q),
                                             typed(kv), cfg);
    size_t rows = sz(cfg.B) * cfg.T;
    In<S> q_(q, rows * cfg.C()), kv_(kv, rows * 2 * cfg.C());
    Out<S> o(out, rows * cfg.C(), false);
    cpu::cross_attention_forward(o, att, q_, kv_, cfg);
  }
  void cross_attention_backward(void *dq, void *dkv, const void *dout,
                                const void *q, const void *kv, const float *att,
                                const AttentionConfig &cfg) const override {
    if (stored_as_is(cfg))
      return cpu::cross_attention_backward<S>(
          typed(dq), typed(dkv), typed(dout), typed(q), typed(kv), att, cfg);
    size_t rows = sz(cfg.B) * cfg.T;
    In<S> d(dout, rows * cfg.C()), q_(q, rows * cfg.C()),
        kv_(kv, rows * 2 * cfg.C());
    Out<S> dq_(dq, rows * cfg.C(), true), dkv_(dkv, rows * 2 * cfg.C(), true);
    cpu::cross_attention_backward(dq_, dkv_, d, q_, kv_, att, cfg);
  }
  void decode_attention_forward(void *out, void *kcache, void *vcache,
                                const void *qkv, const int *pos, int capacity,
                                const AttentionConfig &cfg) const override {
    In<S> x(qkv, sz(cfg.B) * 3 * cfg.C());
    Out<S> o(out, sz(cfg.B) * cfg.C(), false);
    cpu::decode_attention_forward<S>(o, typed(kcache), typed(vcache), x, *pos,
                                     capacity, cfg);
  }
  void decode_cross_attention_forward(void *out, void *kcache, void *vcache,
                                      const void *q, const void *kv,
                                      const int *pos, int capacity,
                                      const AttentionConfig &cfg,
                                      bool lagged) const override {
    In<S> q_(q, sz(cfg.B) * cfg.C()), kv_(kv, sz(cfg.B) * 2 * cfg.C());
    Out<S> o(out, sz(cfg.B) * cfg.C(), false);
    cpu::decode_cross_attention_forward<S>(o, typed(kcache), typed(vcache), q_,
                                           kv_, *pos, capacity, cfg, lagged);
  }
  void gqa_attention_forward(void *out, float *att, const void *q,
                             const void *k, const void *v,
                             const AttentionConfig &cfg) const override {
    if (stored_as_is(cfg))
      return cpu::gqa_attention_forward<S>(typed(out), att, typed(q), typed(k),
                                           typed(v), cfg);
    size_t rows = sz(cfg.B) * cfg.T;
    In<S> q_(q, rows * cfg.C()), k_(k, rows * cfg.C_kv()),
        v_(v, rows * cfg.C_kv());
    Out<S> o(out, rows * cfg.C(), false);
    cpu::gqa_attention_forward(o, att, q_, k_, v_, cfg);
  }
  void gqa_attention_backward(void *dq, void *dk, void *dv, const void *dout,
                              const void *q, const void *k, const void *v,
                              const float *att,
                              const AttentionConfig &cfg) const override {
    if (stored_as_is(cfg))
      return cpu::gqa_attention_backward<S>(typed(dq), typed(dk), typed(dv),
                                            typed(dout), typed(q), typed(k),
                                            typed(v), att, cfg);
    size_t rows = sz(cfg.B) * cfg.T;
    In<S> d(dout, rows * cfg.C()), q_(q, rows * cfg.C()),
        k_(k, rows * cfg.C_kv()), v_(v, rows * cfg.C_kv());
    Out<S> dq_(dq, rows * cfg.C(), true), dk_(dk, rows * cfg.C_kv(), true),
        dv_(dv, rows * cfg.C_kv(), true);
    cpu::gqa_attention_backward(dq_, dk_, dv_, d, q_, k_, v_, att, cfg);
  }
  void decode_gqa_attention_forward(void *out, void *kcache, void *vcache,
                                    const void *q, const void *k, const void *v,
                                    const int *pos, int capacity,
                                    const AttentionConfig &cfg) const override {
    In<S> q_(q, sz(cfg.B) * cfg.C()), k_(k, sz(cfg.B) * cfg.C_kv()),
        v_(v, sz(cfg.B) * cfg.C_kv());
    Out<S> o(out, sz(cfg.B) * cfg.C(), false);
    cpu::decode_gqa_attention_forward<S>(o, typed(kcache), typed(vcache), q_,
                                         k_, v_, *pos, capacity, cfg);
  }

  void crossentropy_forward(float *losses, float *totals, const void *logits,
                            const int *targets, int N, int V, int Vp,
                            int ignore_index, float *stats) const override {
    LossSum r = cpu::crossentropy_forward<S>(losses, typed(logits), targets, N,
                                             V, Vp, ignore_index, stats);
    totals[0] += float(r.sum);
    totals[1] += float(r.count);
  }
  void crossentropy_backward(void *dlogits, const void *logits,
                             const int *targets, int N, int V, int Vp,
                             const float *dloss, int ignore_index,
                             const float *stats) const override {
    cpu::crossentropy_backward<S>(typed(dlogits), typed(logits), targets, N, V,
                                  Vp, *dloss, ignore_index, stats);
  }
  void vocab_parallel_ce_max(float *row_max, const void *logits, int N, int Vl,
                             int vstart, int V) const override {
    cpu::vocab_parallel_ce_max<S>(row_max, typed(logits), N, Vl, vstart, V);
  }
  void vocab_parallel_ce_sumexp(float *sumexp, float *target_logit,
                                const void *logits, const int *targets,
                                const float *row_max, int N, int Vl, int vstart,
                                int V, int ignore_index) const override {
    cpu::vocab_parallel_ce_sumexp<S>(sumexp, target_logit, typed(logits),
                                     targets, row_max, N, Vl, vstart, V,
                                     ignore_index);
  }
  void vocab_parallel_ce_loss(float *losses, float *totals, const float *sumexp,
                              const float *target_logit, const float *row_max,
                              const int *targets, int N,
                              int ignore_index) const override {
    LossSum r = cpu::vocab_parallel_ce_loss(losses, sumexp, target_logit,
                                            row_max, targets, N, ignore_index);
    totals[0] += float(r.sum);
    totals[1] += float(r.count);
  }
  void vocab_parallel_ce_backward(void *dlogits, const void *logits,
                                  const int *targets, const float *row_max,
                                  const float *sumexp, int N, int Vl,
                                  int vstart, int V, const float *dloss,
                                  int ignore_index) const override {
    cpu::vocab_parallel_ce_backward<S>(typed(dlogits), typed(logits), targets,
                                       row_max, sumexp, N, Vl, vstart, V,
                                       *dloss, ignore_index);
  }
  void loss_outputs(float *loss, int32_t *count,
                    const float *totals) const override {
    *loss = totals[0];
    *count = int32_t(std::lround(totals[1]));
  }

  void accumulate(void *grad, ElementType grad_type, const void *x,
                  size_t n) const override {
    if (grad_type == ElementType::F32) {
      In<S> x_(x, n);
      auto *g = static_cast<float *>(grad);
      cpu::residual_forward(g, g, x_, n);
      return;
    }
    if (grad_type != S::dtype)
      throw std::invalid_argument(
          std::string("accumulate: a gradient of ") +
          element_type_name(grad_type) + " does not take " +
          element_type_name(S::dtype) + " values; use f32 or " +
          element_type_name(S::dtype) + " gradients");
    cpu::residual_forward<S>(typed(grad), typed(grad), typed(x), n);
  }
  void sum_of_squares(float *out, const void *x, size_t n) const override {
    *out += float(cpu::sum_of_squares<S>(typed(x), n));
  }
  void grad_norm(float *norm, float *scale, const float *sum_sq,
                 const float *inv_count, float max_norm) const override {
    double inv = *inv_count;
    double value = inv * std::sqrt(double(*sum_sq));
    double coef = 1.0;
    if (max_norm > 0.0f)
      coef = std::min(1.0, double(max_norm) / (value + 1e-6));
    *norm = float(value);
    *scale = std::isfinite(value) ? float(inv * coef)
                                  : std::numeric_limits<float>::quiet_NaN();
  }
  void adamw_update(float *param, const void *grad, float *m, float *v,
                    size_t n, const AdamWParams &p, const OptimizerScalars &s,
                    const WorkingCopy &working) const override {
    if (!std::isfinite(*s.grad_scale))
      return;
    AdamWParams q = p;
    q.lr = *s.lr;
    q.grad_scale = *s.grad_scale;
    q.step = *s.step;
    cpu::adamw_update<S>(param, typed(grad), m, v, n, q, working);
  }
  void sgd_update(float *param, const void *grad, float *momentum_buf, size_t n,
                  const SgdParams &p, const OptimizerScalars &s,
                  const WorkingCopy &working) const override {
    if (!std::isfinite(*s.grad_scale))
      return;
    SgdParams q = p;
    q.lr = *s.lr;
    q.grad_scale = *s.grad_scale;
    cpu::sgd_update<S>(param, typed(grad), momentum_buf, n, q, working);
  }

private:
  using Elem = typename S::type;
  static const Elem *typed(const void *p) {
    return static_cast<const Elem *>(p);
  }
  static Elem *typed(void *p) { return static_cast<Elem *>(p); }

  /// Whether oneDNN takes a GEMM of `rows` result rows.
  bool takes(int rows) const { return !skinny_only_ || rows < kSkinnyRows; }
  bool skinny_only_;
#ifdef TPC_HAVE_DNNL
  // The fp32 and bf16 tables' GEMMs and their cached primitives; null in
  // the fp16 table. Calls fall back to OpenBLAS (on bf16 widened to fp32)
  // where oneDNN declines.
  std::unique_ptr<cpu::DnnlGemm> dnnl_;
#endif
};

} // namespace

namespace {

#ifdef TPC_HAVE_DNNL
constexpr bool kHaveDnnl = true;
#else
constexpr bool kHaveDnnl = false;
#endif

std::string dnnl_library() {
#ifdef TPC_HAVE_DNNL
  return cpu::DnnlGemm::library();
#else
  return "";
#endif
}

/// The kernel oneDNN picks for a 1024^3 GEMM of `type`, for `info`.
std::string dnnl_kernel([[maybe_unused]] ElementType type) {
#ifdef TPC_HAVE_DNNL
  cpu::DnnlGemm g(type == ElementType::BF16 ? cpu::DnnlGemm::Type::BF16
                                            : cpu::DnnlGemm::Type::F32);
  return g.implementation(false, false, 1024, 1024, 1024, 1.0f, 1024, 1024,
                          0.0f, 1024);
#else
  return "";
#endif
}

/// Whether the f32 (or bf16) table runs its GEMMs on oneDNN under `choice`.
bool dnnl_runs(CpuGemm choice) {
  return kHaveDnnl && choice != CpuGemm::OpenBlas;
}

/// Whether the f32 table keeps only its skinny GEMMs (fewer than
/// kSkinnyRows result rows: decoding's) on oneDNN under `choice`. fp32 GEMMs
/// of a GPT-2 124M step (tpc-bench-gemm, 2 threads): oneDNN's AVX-512
/// kernels at 1.6x OpenBLAS's AVX2 (Haswell) ones on an AMD Zen 4;
/// OpenBLAS's AVX-512 (SkylakeX) ones at 1.4x oneDNN's on an Intel Xeon with
/// AMX, where oneDNN falls to 130-150 GFLOP/s on the MLP's GEMMs. There
/// oneDNN still wins below 32 rows (1024 x 3072 x 768 at 4 rows: 2.3x;
/// decoding GPT-2 124M: 2.0x).
bool skinny_only(CpuGemm choice, ElementType dtype) {
  return dnnl_runs(choice) && choice == CpuGemm::Auto &&
         dtype == ElementType::F32 && cpu::openblas_runs_avx512();
}

} // namespace

CpuBackend::CpuBackend(CpuGemm gemm) : gemm_(gemm) {
  if (gemm == CpuGemm::OneDnn && !kHaveDnnl)
    throw std::invalid_argument(
        "--cpu-gemm onednn: this build has no oneDNN (install libdnnl-dev "
        "and ocl-icd-opencl-dev, then reconfigure and rebuild), or use "
        "--cpu-gemm auto or openblas");
  f32_ = std::make_unique<CpuKernels<F32Storage>>(
      dnnl_runs(gemm), skinny_only(gemm, ElementType::F32));
  bf16_ = std::make_unique<CpuKernels<BF16Storage>>(dnnl_runs(gemm), false);
  f16_ = std::make_unique<CpuKernels<F16Storage>>(false, false);
}

std::string CpuBackend::gemm_library(ElementType dtype) const {
  if (dtype != ElementType::F32 && dtype != ElementType::BF16)
    return cpu::openblas_library() + ", operands widened to fp32";
  if (skinny_only(gemm_, dtype))
    return cpu::openblas_library() + "; below " + std::to_string(kSkinnyRows) +
           " rows on " + dnnl_library();
  return dnnl_runs(gemm_) ? dnnl_library() : cpu::openblas_library();
}

std::string CpuBackend::describe(CpuGemm gemm) {
  CpuBackend backend(gemm);
  std::string text;
  for (ElementType t :
       {ElementType::F32, ElementType::BF16, ElementType::F16}) {
    text += std::string("cpu gemms    ") + element_type_name(t) + " on " +
            backend.gemm_library(t);
    if (t != ElementType::F16 && dnnl_runs(gemm) && !skinny_only(gemm, t))
      text += " (" + dnnl_kernel(t) + " at 1024^3)";
    text += "\n";
  }
  return text;
}

CpuBackend::~CpuBackend() = default;

const Kernels *CpuBackend::kernels(ElementType dtype) const {
  return table_for(dtype, f32_.get(), bf16_.get(), f16_.get());
}

} // namespace tpc
