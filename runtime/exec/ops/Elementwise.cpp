//===- Elementwise.cpp - gelu, tanh, swiglu, dropout, add, scale, ... ----===//

#include "runtime/exec/ops/Op.h"

#include <algorithm>

namespace tpc {
namespace {

Thunk gelu(OpContext &c) {
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0));
  if (c.flag("exact"))
    return [&k, out, x, n](const RunOptions &) {
      k.gelu_exact_forward(out, x, n);
    };
  return [&k, out, x, n](const RunOptions &) { k.gelu_forward(out, x, n); };
}

Thunk gelu_grad(OpContext &c) {
  c.expect_shape(c.shape(c.in(1)), c.shape(c.in(0)), "the input");
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  void *dx = c.ptr(c.out(0)), *d = c.ptr(c.in(0)), *x = c.ptr(c.in(1));
  size_t n = c.elements(c.in(0));
  // The result is a new value: written, not added to zeros.
  if (c.flag("exact"))
    return [&k, dx, d, x, n](const RunOptions &) {
      k.gelu_exact_backward(dx, x, d, n, /*accumulate=*/false);
    };
  return [&k, dx, d, x, n](const RunOptions &) {
    k.gelu_backward(dx, x, d, n, /*accumulate=*/false);
  };
}

Thunk tanh(OpContext &c) {
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0));
  return [&k, out, x, n](const RunOptions &) { k.tanh_forward(out, x, n); };
}

// dx = dout * (1 - y^2) from the forward's result y.
Thunk tanh_grad(OpContext &c) {
  c.expect_shape(c.shape(c.in(1)), c.shape(c.in(0)), "the result");
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  void *dx = c.ptr(c.out(0)), *d = c.ptr(c.in(0)), *y = c.ptr(c.in(1));
  size_t n = c.elements(c.in(0));
  return [&k, dx, d, y, n](const RunOptions &) {
    k.tanh_backward(dx, y, d, n, /*accumulate=*/false);
  };
}

// out = silu(gate) * up.
Thunk swiglu(OpContext &c) {
  c.expect_shape(c.shape(c.in(1)), c.shape(c.in(0)), "up");
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *g = c.ptr(c.in(0)), *u = c.ptr(c.in(1));
  size_t n = c.elements(c.in(0));
  return [&k, out, g, u, n](const RunOptions &) {
    k.swiglu_forward(out, g, u, n);
  };
}

Thunk swiglu_grad(OpContext &c) {
  c.expect_shape(c.shape(c.in(1)), c.shape(c.in(0)), "gate");
  c.expect_shape(c.shape(c.in(2)), c.shape(c.in(0)), "up");
  c.expect_result_like(0, 0);
  c.expect_result_like(1, 0);
  const Kernels &k = c.kernels();
  Device *dev = &c.s.device;
  void *dg = c.ptr(c.out(0)), *du = c.ptr(c.out(1)), *d = c.ptr(c.in(0)),
       *g = c.ptr(c.in(1)), *u = c.ptr(c.in(2));
  size_t n = c.elements(c.in(0)), bytes = c.bytes(c.out(0));
  return [&k, dev, dg, du, d, g, u, n, bytes](const RunOptions &) {
    dev->zero(dg, bytes);
    dev->zero(du, bytes);
    k.swiglu_backward(dg, du, d, g, u, n);
  };
}

/// The dropout index map of an activation of this rank: its data-parallel
/// rank's sequences and, for a per_rank stream, its tensor-parallel slice.
GlobalIndexMap dropout_map(OpContext &c, int tensor, bool per_rank) {
  std::vector<int64_t> global = c.shape(tensor);
  GlobalIndexMap map;
  int tp = c.s.comm.tp_size();
  if (per_rank && c.find("layout")) {
    const program::Layout &layout = c.layout("layout");
    if (layout.kind() == program::Layout::SPLIT) {
      if (layout.dim() < 0 || layout.dim() >= int64_t(global.size()))
        throw c.error("layout dimension " + std::to_string(layout.dim()) +
                      " is outside " + shape_string(global));
      global[layout.dim()] *= tp;
      map = GlobalIndexMap(
          global,
          SliceSpec::split(global, int(layout.dim()), c.s.comm.tp_rank(), tp,
                           std::max<int64_t>(1, layout.blocks())));
    }
  }
  // Data-parallel ranks hold consecutive sequences of the global batch
  // along the outermost dimension.
  uint64_t n = 1;
  for (int64_t d : global)
    n *= uint64_t(d);
  map.base = uint64_t(c.s.comm.dp_rank()) * n;
  return map;
}

Thunk dropout(OpContext &c) {
  double p = c.real("p");
  // The loader accepted only the schema's keywords.
  bool per_rank = c.string("stream") == enums::rng_stream::kPerRank;
  c.expect_result_like(0, 0);
  GlobalIndexMap map = dropout_map(c, c.in(0), per_rank);
  uint64_t key = uint64_t(c.integer("key"));
  const Kernels &k = c.kernels();
  Device *dev = &c.s.device;
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0)), bytes = c.bytes(c.in(0));
  return [&k, dev, out, x, n, bytes, p, key, map](const RunOptions &o) {
    if (!o.training || p == 0.0) {
      if (out != x)
        dev->copy_device_to_device(out, x, bytes);
      return;
    }
    k.dropout_forward(out, x, n, DropoutParams{float(p), o.seed, o.step, key},
                      map);
  };
}

Thunk add(OpContext &c) {
  c.expect_shape(c.shape(c.in(1)), c.shape(c.in(0)), "the right operand");
  c.expect_result_like(0, 0);
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *a = c.ptr(c.in(0)), *b = c.ptr(c.in(1));
  size_t n = c.elements(c.in(0));
  return [&k, out, a, b, n](const RunOptions &) {
    k.residual_forward(out, a, b, n);
  };
}

Thunk scale(OpContext &c) {
  c.expect_result_like(0, 0);
  float factor = float(c.real("factor"));
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0));
  return [&k, out, x, n, factor](const RunOptions &) {
    k.scale_forward(out, x, factor, n);
  };
}

// out = x * factor, factor a device scalar of x's type: a weighted sum of
// one term.
Thunk scale_by(OpContext &c) {
  c.expect_result_like(0, 0);
  c.expect_shape(c.shape(c.in(1)), {}, "the factor");
  if (c.dtype(c.in(1)) != c.dtype(c.in(0)))
    throw c.error("takes a factor of another element type than its input");
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0)), *factor = c.ptr(c.in(1));
  size_t n = c.elements(c.in(0));
  return [&k, out, x, factor, n](const RunOptions &) {
    const void *xs[1] = {x};
    k.weighted_sum_forward(out, xs, factor, 1, n);
  };
}

/// Where tpc.select_position's rows lie: `whole` [B, T, H] and `one`
/// [B, 1, H] of the same element type; row b of `one` is bytes [b * row,
/// (b + 1) * row), and of `whole` at b * stride + at.
struct SelectedRows {
  size_t row, rows, stride, at;
  SelectedRows(OpContext &c, int whole, int one) {
    std::vector<int64_t> shape = c.shape(whole);
    if (shape.size() != 3)
      throw c.error("takes a sequence that is not [B, T, H]");
    c.expect_shape(c.shape(one), {shape[0], 1, shape[2]}, "the position");
    int64_t position = c.integer("position");
    if (position < 0 || position >= shape[1])
      throw c.error("selects position " + std::to_string(position) + " of " +
                    std::to_string(shape[1]));
    rows = size_t(shape[0]);
    row = c.bytes(one) / rows;
    stride = row * size_t(shape[1]);
    at = row * size_t(position);
  }
};

// [B, 1, H] = x[:, position, :] of x [B, T, H]: B row copies.
Thunk select_position(OpContext &c) {
  SelectedRows r(c, c.in(0), c.out(0));
  Device *dev = &c.s.device;
  auto *out = static_cast<char *>(c.ptr(c.out(0)));
  auto *x = static_cast<const char *>(c.ptr(c.in(0)));
  return [dev, out, x, r](const RunOptions &) {
    for (size_t b = 0; b < r.rows; ++b)
      dev->copy_device_to_device(out + b * r.row, x + b * r.stride + r.at,
                                 r.row);
  };
}

// dx [B, T, H]: zeros but dout [B, 1, H] at the position.
Thunk select_position_grad(OpContext &c) {
  SelectedRows r(c, c.out(0), c.in(0));
  Device *dev = &c.s.device;
  auto *dx = static_cast<char *>(c.ptr(c.out(0)));
  auto *d = static_cast<const char *>(c.ptr(c.in(0)));
  size_t bytes = c.bytes(c.out(0));
  return [dev, dx, d, r, bytes](const RunOptions &) {
    dev->zero(dx, bytes);
    for (size_t b = 0; b < r.rows; ++b)
      dev->copy_device_to_device(dx + b * r.stride + r.at, d + b * r.row,
                                 r.row);
  };
}

// A conversion between floating-point storage types, by the input's table.
Thunk cast(OpContext &c) {
  c.expect_shape(c.shape(c.out(0)), c.shape(c.in(0)), "the result");
  ElementType from = c.dtype(c.in(0)), to = c.dtype(c.out(0));
  if (from == ElementType::I32 || to == ElementType::I32)
    throw c.error("converts floating-point tensors only, not " +
                  std::string(element_type_name(from)) + " to " +
                  element_type_name(to));
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t n = c.elements(c.in(0));
  return [&k, out, to, x, n](const RunOptions &) { k.cast(out, to, x, n); };
}

// out = sum_i alpha[i] * x_i.
Thunk weighted_sum(OpContext &c) {
  int k_ = c.num_inputs() - 1;
  c.expect_shape(c.shape(c.in(0)), {k_}, "alpha");
  std::vector<const void *> xs;
  for (int i = 1; i <= k_; ++i) {
    c.expect_shape(c.shape(c.in(i)), c.shape(c.in(1)), "a combined input");
    xs.push_back(c.ptr(c.in(i)));
  }
  c.expect_result_like(0, 1);
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0)), *alpha = c.ptr(c.in(0));
  size_t n = c.elements(c.in(1));
  return [&k, out, alpha, xs, k_, n](const RunOptions &) {
    k.weighted_sum_forward(out, xs.data(), alpha, k_, n);
  };
}

// (dalpha, dx_1..dx_k) of sum_i alpha[i] * x_i.
Thunk weighted_sum_grad(OpContext &c) {
  int k_ = c.num_inputs() - 2;
  if (c.num_outputs() != k_ + 1)
    throw c.error("has " + std::to_string(c.num_outputs()) +
                  " results, expected " + std::to_string(k_ + 1));
  c.expect_shape(c.shape(c.in(1)), {k_}, "alpha");
  std::vector<const void *> xs;
  std::vector<void *> dxs;
  std::vector<std::pair<void *, size_t>> zeroed;
  for (int i = 0; i < k_; ++i) {
    c.expect_shape(c.shape(c.in(2 + i)), c.shape(c.in(0)), "a combined input");
    xs.push_back(c.ptr(c.in(2 + i)));
    c.expect_result_like(1 + i, 2 + i);
    dxs.push_back(c.ptr(c.out(1 + i)));
  }
  c.expect_result_like(0, 1);
  for (int i = 0; i <= k_; ++i)
    zeroed.push_back({c.ptr(c.out(i)), c.bytes(c.out(i))});
  const Kernels &k = c.kernels();
  Device *dev = &c.s.device;
  void *dalpha = c.ptr(c.out(0)), *d = c.ptr(c.in(0)), *alpha = c.ptr(c.in(1));
  size_t n = c.elements(c.in(0));
  return
      [&k, dev, zeroed, xs, dxs, dalpha, d, alpha, k_, n](const RunOptions &) {
        for (auto [p, bytes] : zeroed)
          dev->zero(p, bytes);
        k.weighted_sum_backward(dxs.data(), dalpha, d, xs.data(), alpha, k_, n);
      };
}

Thunk fill(OpContext &c) {
  float value = float(c.real("value"));
  const Kernels &k = c.kernels();
  void *out = c.ptr(c.out(0));
  size_t n = c.elements(c.out(0));
  return [&k, out, value, n](const RunOptions &) { k.fill(out, value, n); };
}

} // namespace

void register_elementwise_ops(OpRegistry &r) {
  r.add(op::kGelu, gelu);
  r.add(op::kGeluGrad, gelu_grad);
  r.add(op::kTanh, tanh);
  r.add(op::kTanhGrad, tanh_grad);
  r.add(op::kSwiglu, swiglu);
  r.add(op::kSwigluGrad, swiglu_grad);
  r.add(op::kDropout, dropout);
  r.add(op::kAdd, add);
  r.add(op::kScale, scale);
  r.add(op::kScaleBy, scale_by);
  r.add(op::kSelectPosition, select_position);
  r.add(op::kSelectPositionGrad, select_position_grad);
  r.add(op::kCast, cast);
  r.add(op::kWeightedSum, weighted_sum);
  r.add(op::kWeightedSumGrad, weighted_sum_grad);
  r.add(op::kFill, fill);
}

} // namespace tpc
