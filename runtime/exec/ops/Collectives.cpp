//===- Collectives.cpp - f, g, all_reduce, gathers, gradient buckets ------===//
//
// Collectives are issued in program order on device buffers; the backend's
// Collectives order them with the compute stream, so no op waits for the
// device before one.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/ops/Op.h"

#include <algorithm>
#include <chrono>

namespace tpc {
namespace {

// f: identity forward (its all-reduce is in the backward pass).
Thunk f(OpContext &c) {
  c.group();
  c.expect_result_like(0, 0);
  Device *dev = &c.s.device;
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t bytes = c.bytes(c.in(0));
  return [dev, out, x, bytes](const RunOptions &) {
    if (out != x)
      dev->copy_device_to_device(out, x, bytes);
  };
}

Thunk reduce(OpContext &c, ReduceOp op) {
  Group group = c.group();
  c.expect_result_like(0, 0);
  ExecState *s = &c.s;
  void *out = c.ptr(c.out(0)), *x = c.ptr(c.in(0));
  size_t bytes = c.bytes(c.in(0)), n = c.elements(c.out(0));
  ElementType dtype = c.dtype(c.out(0));
  return [s, out, x, bytes, n, dtype, op, group](const RunOptions &) {
    if (out != x)
      s->device.copy_device_to_device(out, x, bytes);
    s->collectives->all_reduce(out, n, dtype, op, group);
  };
}

// g: all-reduce (sum) forward.
Thunk g(OpContext &c) { return reduce(c, ReduceOp::Sum); }

Thunk all_reduce(OpContext &c) {
  // The loader accepted only the schema's keywords.
  bool sum = c.string("reduce") == enums::reduce_kind::kSum;
  return reduce(c, sum ? ReduceOp::Sum : ReduceOp::Max);
}

// Concatenates the group's tensors along `dim`.
Thunk gather_along(OpContext &c, int64_t dim, Group group);

Thunk all_gather(OpContext &c) {
  return gather_along(c, c.integer("dim"), c.group());
}

/// The all-gather of operand 0 along `dim` into result 0.
Thunk gather_along(OpContext &c, int64_t dim, Group group) {
  auto in = c.shape(c.in(0));
  if (dim < 0 || dim >= int64_t(in.size()))
    throw c.error("dim " + std::to_string(dim) + " is outside " +
                  shape_string(in));
  int parts = c.s.comm.size(group);
  std::vector<int64_t> want = in;
  want[dim] *= parts;
  c.expect_shape(c.shape(c.out(0)), want, "the result");
  size_t n = c.elements(c.in(0));
  ElementType dtype = c.dtype(c.in(0));
  size_t esize = element_size(dtype);
  c.s.reserve(0, n * parts * esize);
  uint64_t outer = 1, chunk = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= uint64_t(in[d]);
  for (size_t d = dim; d < in.size(); ++d)
    chunk *= uint64_t(in[d]);
  ExecState *s = &c.s;
  char *out = static_cast<char *>(c.ptr(c.out(0)));
  const void *x = c.ptr(c.in(0));
  return [s, out, x, n, dtype, esize, parts, outer, chunk,
          group](const RunOptions &) {
    char *gathered = reinterpret_cast<char *>(s->scratch(0));
    s->collectives->all_gather(x, gathered, n, dtype, group);
    for (uint64_t o = 0; o < outer; ++o)
      for (int r = 0; r < parts; ++r)
        s->device.copy_device_to_device(
            out + ((o * parts + r) * chunk) * esize,
            gathered + (uint64_t(r) * n + o * chunk) * esize, chunk * esize);
  };
}

/// A sequence-parallel move between [B, T, ...] and this rank's
/// [B, T / tp, ...]: `whole` and `part` are the operand and the result in
/// either order. Positions [r * T / tp, (r + 1) * T / tp) of each of the
/// `batch` rows are rank r's, a block of `block` bytes.
struct SequenceSplit {
  uint64_t batch = 1, block = 0;
  int parts = 1;
};

/// Checks the shapes of a move between `whole` and `part`.
SequenceSplit sequence_split(OpContext &c, int whole, int part) {
  auto full = c.shape(whole), mine = c.shape(part);
  if (full.size() < 2)
    throw c.error("moves a tensor along its sequence (dimension 1), not " +
                  shape_string(full));
  int parts = c.s.comm.tp_size();
  std::vector<int64_t> want = full;
  if (want[1] % parts != 0)
    throw c.error("cannot split a sequence of " + std::to_string(want[1]) +
                  " positions over tp = " + std::to_string(parts));
  want[1] /= parts;
  c.expect_shape(mine, want, part == c.out(0) ? "the result" : "the operand");
  if (c.dtype(whole) != c.dtype(part))
    throw c.error("changes the element type");
  SequenceSplit split;
  split.batch = uint64_t(full[0]);
  split.parts = parts;
  split.block = c.bytes(part) / std::max<uint64_t>(1, split.batch);
  return split;
}

// seq_scatter: this rank's positions of the input, summed over tp with
// `reduce` (a reduce-scatter), else taken from the whole input it holds.
Thunk seq_scatter(OpContext &c) {
  SequenceSplit split = sequence_split(c, c.in(0), c.out(0));
  bool reduce = c.flag("reduce");
  ExecState *s = &c.s;
  char *out = static_cast<char *>(c.ptr(c.out(0)));
  const char *x = static_cast<const char *>(c.ptr(c.in(0)));
  ElementType dtype = c.dtype(c.in(0));
  uint64_t n = c.elements(c.out(0));
  int rank = c.s.comm.tp_rank();
  if (reduce)
    c.s.reserve(0, c.bytes(c.in(0)));
  return [s, split, reduce, out, x, dtype, n, rank](const RunOptions &) {
    uint64_t stride = split.block * uint64_t(split.parts);
    if (!reduce) {
      for (uint64_t b = 0; b < split.batch; ++b)
        s->device.copy_device_to_device(out + b * split.block,
                                        x + b * stride + rank * split.block,
                                        split.block);
      return;
    }
    // Rank-major: rank r's positions of every batch row, then r + 1's.
    char *packed = reinterpret_cast<char *>(s->scratch(0));
    for (int r = 0; r < split.parts; ++r)
      for (uint64_t b = 0; b < split.batch; ++b)
        s->device.copy_device_to_device(
            packed + (uint64_t(r) * split.batch + b) * split.block,
            x + b * stride + r * split.block, split.block);
    s->collectives->reduce_scatter(packed, out, n, dtype, Group::TP);
  };
}

// seq_gather: every rank's positions, whole on every rank (an all-gather
// along the sequence); `reduce_grad` only changes the backward.
Thunk seq_gather(OpContext &c) {
  sequence_split(c, c.out(0), c.in(0));
  return gather_along(c, 1, Group::TP);
}

/// Adds the wall time of its scope to `seconds`.
class Stopwatch {
public:
  explicit Stopwatch(double &seconds)
      : seconds_(seconds), start_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() {
    seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
  }

private:
  double &seconds_;
  std::chrono::steady_clock::time_point start_;
};

/// The contiguous gradient span of a bucket_all_reduce's parameters.
struct Span {
  std::vector<int> params;
  void *data;
  size_t n;
  ElementType type;
};

Span all_reduce_span(OpContext &c) {
  Span span;
  for (const std::string &name : split_name_list(c.string("params"))) {
    auto it = c.s.param_index.find(name);
    if (it == c.s.param_index.end())
      throw c.error("names '" + name + "', which is not a parameter");
    span.params.push_back(it->second);
  }
  std::vector<int> &params = span.params;
  std::sort(params.begin(), params.end());
  for (size_t i = 1; i < params.size(); ++i)
    if (params[i] != params[i - 1] + 1)
      throw c.error("lists parameters that are not consecutive in the "
                    "program, so their gradients are not one span");
  if (!c.s.grads)
    throw c.error("the program has no gradient buffers");
  ElementType type = c.s.grad_types[params.front()];
  for (int p : params)
    if (c.s.grad_types[p] != type)
      throw c.error("lists gradients of " +
                    std::string(element_type_name(type)) + " and " +
                    element_type_name(c.s.grad_types[p]) +
                    ", which are not one span of one type");
  size_t begin = c.s.grad_byte_offsets[params.front()];
  size_t end = c.s.grad_byte_offsets[params.back()] +
               c.s.slices[params.back()].local_elements() * element_size(type);
  span.data = static_cast<char *>(c.s.grads) + begin;
  span.n = (end - begin) / element_size(type);
  span.type = type;
  return span;
}

// One all-reduce over the contiguous span of consecutive parameters, or the
// end of the one train_step started.
Thunk bucket_all_reduce(OpContext &c) {
  Group group = c.group();
  Span span = all_reduce_span(c);
  ExecState *s = &c.s;
  bool *started = &c.s.reductions_started[{c.fn.name(), c.index}];
  return [s, span, group, started](const RunOptions &) {
    Stopwatch watch(s->reduction_seconds);
    if (*started) {
      s->collectives->wait_started();
      *started = false;
      ++s->reductions_overlapped;
      return;
    }
    s->collectives->all_reduce(span.data, span.n, span.type, ReduceOp::Sum,
                               group);
  };
}

/// The bucket of the distributed optimizer's partition that a bucket op
/// names (ExecState::partition() read them from the reduce-scatters).
const ExecState::Bucket &partition_bucket(OpContext &c) {
  if (c.group() != Group::DP)
    throw c.error("works over group " + c.string("group") +
                  "; the distributed optimizer's shards are over dp");
  std::vector<std::string> names = split_name_list(c.string("params"));
  int bucket = -2;
  for (const std::string &name : names) {
    auto it = c.s.param_index.find(name);
    if (it == c.s.param_index.end())
      throw c.error("names '" + name + "', which is not a parameter");
    int of = c.s.partitioned() ? c.s.bucket_of[it->second] : -1;
    if (of < 0)
      throw c.error("names '" + name +
                    "', which no bucket_reduce_scatter of the program "
                    "partitions");
    if (bucket != -2 && of != bucket)
      throw c.error("mixes parameters of two buckets of the partition");
    bucket = of;
  }
  const ExecState::Bucket &b = c.s.buckets.at(size_t(std::max(bucket, 0)));
  if (bucket < 0 || int(names.size()) != b.last - b.first + 1)
    throw c.error("lists other parameters than the bucket_reduce_scatter of "
                  "its bucket");
  return b;
}

/// What a bucket_reduce_scatter moves: its bucket's padded gradient span
/// and where this rank's summed shard lands.
struct Scatter {
  ExecState::Bucket bucket;
  char *span;
  void *mine;
  ElementType type;
};

Scatter scatter_of(OpContext &c) {
  const ExecState::Bucket &b = partition_bucket(c);
  if (!c.s.grads)
    throw c.error("the program has no gradient buffers");
  return {b, static_cast<char *>(c.s.grad(b.first)),
          c.s.shard_sums.at(size_t(&b - c.s.buckets.data())),
          c.s.grad_types[b.first]};
}

// The distributed optimizer's reduction: this rank's shard of the bucket
// gets the sum over dp, the rest of the span zero (the norm's sum of
// squares then counts each element on one rank). Or the end of the
// reduce-scatter train_step started.
Thunk bucket_reduce_scatter(OpContext &c) {
  Scatter r = scatter_of(c);
  size_t shard = r.bucket.shard * element_size(r.type);
  int dp = c.s.comm.dp_size(), rank = c.s.comm.dp_rank();
  ExecState *s = &c.s;
  bool *started = &c.s.reductions_started[{c.fn.name(), c.index}];
  return [s, r, shard, dp, rank, started](const RunOptions &) {
    {
      Stopwatch watch(s->reduction_seconds);
      if (*started) {
        s->collectives->wait_started();
        *started = false;
        ++s->reductions_overlapped;
      } else {
        s->collectives->reduce_scatter(r.span, r.mine, r.bucket.shard, r.type,
                                       Group::DP);
      }
    }
    s->device.zero(r.span, size_t(rank) * shard);
    s->device.copy_device_to_device(r.span + size_t(rank) * shard, r.mine,
                                    shard);
    s->device.zero(r.span + size_t(rank + 1) * shard,
                   size_t(dp - rank - 1) * shard);
  };
}

// After the partitioned updates: every rank's owned elements of the
// bucket's parameters (the copies functions read) to every rank.
Thunk bucket_all_gather(OpContext &c) {
  const ExecState::Bucket &b = partition_bucket(c);
  const program::Program &program = c.s.program;
  ElementType type = c.dtype(program.parameters(b.first).tensor());
  size_t esize = element_size(type);
  struct Piece {
    char *tensor;
    size_t offset, elements, begin, end; // in the bucket; owned in the slice
  };
  std::vector<Piece> pieces;
  for (int i = b.first; i <= b.last; ++i) {
    int tensor = program.parameters(i).tensor();
    if (c.dtype(tensor) != type)
      throw c.error("gathers parameters of " +
                    std::string(element_type_name(type)) + " and " +
                    element_type_name(c.dtype(tensor)) +
                    ", which one collective cannot move");
    auto [begin, end] = c.s.owned(i);
    pieces.push_back({static_cast<char *>(c.ptr(tensor)), c.s.bucket_offsets[i],
                      c.s.slices[i].local_elements(), begin, end});
  }
  int dp = c.s.comm.dp_size();
  size_t first = size_t(c.s.comm.dp_rank()) * b.shard;
  c.s.reserve(0, b.shard * esize);
  c.s.reserve(1, b.shard * size_t(dp) * esize);
  ExecState *s = &c.s;
  return [s, pieces, first, b, type, esize](const RunOptions &) {
    char *mine = reinterpret_cast<char *>(s->scratch(0));
    char *all = reinterpret_cast<char *>(s->scratch(1));
    for (const Piece &p : pieces)
      if (p.end > p.begin)
        s->device.copy_device_to_device(
            mine + (p.offset + p.begin - first) * esize,
            p.tensor + p.begin * esize, (p.end - p.begin) * esize);
    {
      Stopwatch watch(s->reduction_seconds);
      s->collectives->all_gather(mine, all, b.shard, type, Group::DP);
    }
    for (const Piece &p : pieces)
      s->device.copy_device_to_device(p.tensor, all + p.offset * esize,
                                      p.elements * esize);
  };
}

} // namespace

bool is_bucket_reduction(const std::string &op) {
  return op == op::kBucketAllReduce || op == op::kBucketReduceScatter;
}

BucketReduction bucket_reduction_start(OpContext &c) {
  ExecState *s = &c.s;
  bool *started = &c.s.reductions_started[{c.fn.name(), c.index}];
  BucketReduction r;
  if (c.inst.op() == op::kBucketAllReduce) {
    Group group = c.group();
    Span span = all_reduce_span(c);
    r.params = span.params;
    r.start = [s, span, group, started](const RunOptions &o) {
      if (!o.last_micro_batch)
        return;
      s->collectives->start_all_reduce(span.data, span.n, span.type,
                                       ReduceOp::Sum, group);
      *started = true;
    };
    return r;
  }
  if (c.inst.op() != op::kBucketReduceScatter)
    throw c.error("is not a gradient bucket reduction");
  Scatter scatter = scatter_of(c);
  for (int i = scatter.bucket.first; i <= scatter.bucket.last; ++i)
    r.params.push_back(i);
  r.start = [s, scatter, started](const RunOptions &o) {
    if (!o.last_micro_batch)
      return;
    s->collectives->start_reduce_scatter(scatter.span, scatter.mine,
                                         scatter.bucket.shard, scatter.type,
                                         Group::DP);
    *started = true;
  };
  return r;
}

// A pipeline chunk's messages: the stage's schedule posts each receive
// into the recv's result and sends each send's input once the function has
// run (run/PipelineRun.cpp), so inside the function they do nothing.
Thunk recv(OpContext &) {
  return [](const RunOptions &) {};
}

Thunk send(OpContext &) {
  return [](const RunOptions &) {};
}

void register_collective_ops(OpRegistry &r) {
  r.add(op::kRecv, recv);
  r.add(op::kSend, send);
  r.add(op::kF, f);
  r.add(op::kG, g);
  r.add(op::kAllReduce, all_reduce);
  r.add(op::kAllGather, all_gather);
  r.add(op::kSeqScatter, seq_scatter);
  r.add(op::kSeqGather, seq_gather);
  r.add(op::kBucketAllReduce, bucket_all_reduce);
  r.add(op::kBucketReduceScatter, bucket_reduce_scatter);
  r.add(op::kBucketAllGather, bucket_all_gather);
}

} // namespace tpc
