//===- StepTimeTest.cpp - The step-time model against hand figures -------===//
//
// Ring collectives by the alpha-beta model, and predictStepTime on step
// profiles written by hand (no module): re-timing for another dp and link,
// the micro-batch size scaling compute, messages and activations, the
// distributed optimizer (its sharded updates, its reduce-scatters and
// all-gathers by their own fits and its copies through memory), the
// overlapped gradient reduction, self-attention as unfused kernels, and a
// pipeline's schedule simulated with its slots re-derived for another
// micro-batch count.
//
//===----------------------------------------------------------------------===//

#include "compiler/StepTime.h"
#include "dialects/tpc/TpcOps.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace tpc;

namespace {

Cluster cluster() {
  Cluster c;
  c.name = "hand";
  c.devicesPerNode = 8;
  c.memoryBytes = 1 << 30;
  c.peakFlops = {{"fp32", 1e3}, {"bf16", 1e3}, {"fp16", 1e3}};
  c.hbmBytesPerS = 1e30;
  c.intraNode = {100, 0};
  c.interNode = {10, 0};
  return c;
}

TEST(RingTraffic, AlphaBeta) {
  RingTraffic r;
  r.allReduceBytes = 1000;
  r.allReduces = 2;
  r.scatterBytes = 300;
  r.scatters = 1;
  r.gatherBytes = 200;
  r.gathers = 1;
  // Over 4 ranks: (2 x 3/4 x 1000 + 3/4 x 300 + 3/4 x 200) B at 100 B/s =
  // 18.75 s, and 3 hops per half, 2 halves per all-reduce: 3 x (2 x 2 + 1 +
  // 1) x 0.1 s.
  EXPECT_DOUBLE_EQ(r.seconds(4, Link{100, 0.1}), 18.75 + 1.8);
  EXPECT_DOUBLE_EQ(r.seconds(1, Link{100, 0.1}), 0);
  // A link that measured its reduce-scatters at 50 B/s + 1 s a step and its
  // all-gathers at 25 B/s: the all-reduces as before (15 s + 1.2 s), the
  // scatter 3/4 x 300 / 50 + 3 x 1, the gather 3/4 x 200 / 25 + 0.
  Link measured{100, 0.1, RingFit{50, 1}, RingFit{25, 0}};
  EXPECT_DOUBLE_EQ(r.seconds(4, measured), 15 + 1.2 + 4.5 + 3 + 6);
}

/// train_step: 2 s of compute and one tp all-reduce of 100 B per
/// micro-batch of 1; apply_step: 0.5 s, 0.4 s of it the parameters'
/// updates, and 4 buckets of 800 B of gradients and 800 B of parameters.
StepProfile flat() {
  StepProfile p;
  p.tp = 2;
  p.dp = 2;
  p.microBatch = 1;
  FunctionProfile step;
  step.compute = 2;
  step.groups[size_t(Group::tp)].allReduceBytes = 100;
  step.groups[size_t(Group::tp)].allReduces = 1;
  FunctionProfile apply;
  apply.compute = 0.5;
  apply.update = 0.4;
  apply.bucketGradientBytes = 800;
  apply.bucketParameterBytes = 800;
  apply.buckets = 4;
  p.forward = {step};
  p.apply = {apply};
  p.fixedBytes = {1000};
  p.shardableBytes = {1200};
  p.activationBytes = {300};
  p.modelFlopsPerToken = 10;
  return p;
}

CompileOptions layout(int64_t dp, int64_t microBatch, int64_t microBatches) {
  CompileOptions o;
  o.tp = 2;
  o.dp = dp;
  o.microBatch = microBatch;
  o.microBatches = microBatches;
  o.seq = 4;
  return o;
}

StepTime predict(const StepProfile &p, const CompileOptions &o,
                 StepModelOptions m = {}) {
  llvm::Expected<StepTime> t = predictStepTime(p, o, cluster(), m);
  EXPECT_TRUE(bool(t));
  if (!t) {
    llvm::consumeError(t.takeError());
    return {};
  }
  return *t;
}

TEST(StepTime, FlatMicroBatchesAndDp) {
  // Micro-batch 2: 4 s of compute and 200 B over tp (2 ranks, 100 B/s):
  // 2 s; three of them. The gradients over dp 2 inside a node: 800 / 100 =
  // 8 s; apply's own 0.5 s.
  StepTime t = predict(flat(), layout(2, 2, 3));
  EXPECT_DOUBLE_EQ(t.compute, 12);
  EXPECT_DOUBLE_EQ(t.tpComm, 6);
  EXPECT_DOUBLE_EQ(t.dpComm, 8);
  EXPECT_DOUBLE_EQ(t.optimizer, 0.5);
  EXPECT_DOUBLE_EQ(t.seconds, 26.5);
  EXPECT_EQ(t.memoryBytes, 1000 + 1200 + 2 * 300);
  EXPECT_DOUBLE_EQ(t.tokens, 3 * 2 * 4 * 2);
  EXPECT_EQ(t.devices, 4);
  // dp 8 spans 16 ranks: across nodes at 10 B/s, 2 x 7/8 x 800 / 10.
  EXPECT_DOUBLE_EQ(predict(flat(), layout(8, 2, 3)).dpComm, 140);
}

TEST(StepTime, DistributedOptimizer) {
  // A reduce-scatter of the gradients and an all-gather of the parameters,
  // half a ring each: 400 / 100 + 400 / 100 = 8 s; the updates (0.4 s) on
  // 1/dp of the parameters, the rest of apply (0.1 s) whole; the optimizer
  // states on 1/dp of the parameters.
  CompileOptions o = layout(2, 2, 3);
  o.distributedOptimizer = true;
  StepTime t = predict(flat(), o);
  EXPECT_DOUBLE_EQ(t.dpComm, 8);
  EXPECT_DOUBLE_EQ(t.optimizer, 0.1 + 0.2);
  EXPECT_DOUBLE_EQ(t.seconds, 26.3);
  EXPECT_EQ(t.memoryBytes, 1000 + 600 + 2 * 300);
  // The same from a profile compiled with it: the updates are read whole
  // either way.
  StepProfile zero = flat();
  zero.distributedOptimizer = true;
  EXPECT_DOUBLE_EQ(predict(zero, o).seconds, 26.3);
  // Without it, the whole update.
  EXPECT_DOUBLE_EQ(predict(zero, layout(2, 2, 3)).optimizer, 0.5);
}

TEST(StepTime, DistributedOptimizerCopiesAndFits) {
  // Memory at 100 B/s: after the reduce-scatter the gradients are written
  // and the shard read, 800 x 1.5 B; the parameters packed into a shard and
  // copied back, read and written, 2 x 800 x 1.5 B: 3600 B, 36 s. A link
  // whose reduce-scatters run at 50 B/s and all-gathers at 200 B/s: 400 /
  // 50 + 400 / 200 = 10 s.
  Cluster c = cluster();
  c.hbmBytesPerS = 100;
  c.intraNode.reduceScatter = RingFit{50, 0};
  c.intraNode.allGather = RingFit{200, 0};
  CompileOptions o = layout(2, 2, 3);
  o.distributedOptimizer = true;
  llvm::Expected<StepTime> t = predictStepTime(flat(), o, c);
  ASSERT_TRUE(bool(t));
  EXPECT_DOUBLE_EQ(t->dpComm, 10 + 36);
  // A plain all-reduce works in place and keeps the all-reduce's fit.
  llvm::Expected<StepTime> plain = predictStepTime(flat(), layout(2, 2, 3), c);
  ASSERT_TRUE(bool(plain));
  EXPECT_DOUBLE_EQ(plain->dpComm, 8);
}

TEST(StepTime, OverlappedGradientReduction) {
  // The last micro-batch's backward, two thirds of its 6 s, hides 4 s of
  // the 8 s reduction; the last of 4 buckets (2 s) could never hide.
  StepModelOptions overlap;
  overlap.overlapGradReduce = true;
  StepTime t = predict(flat(), layout(2, 2, 3), overlap);
  EXPECT_DOUBLE_EQ(t.dpComm, 4);
  EXPECT_DOUBLE_EQ(t.seconds, 22.5);
  // A backward longer than the reduction leaves the last bucket's share.
  StepProfile p = flat();
  p.forward[0].compute = 20;
  EXPECT_DOUBLE_EQ(predict(p, layout(2, 1, 1), overlap).dpComm, 2);
}

TEST(StepTime, UnfusedAttention) {
  // One sequence, 2 heads of 4 positions and head dim 2, 2-byte elements:
  // per kernel the scores are 2 x 4 x 4 x 2 = 64 B, the dropout mask 32 B,
  // a Q (K, V, O) 2 x 4 x 2 x 2 = 32 B, a product 2 x 2 x 16 x 2 = 128
  // FLOPs. At 100 B/s of memory every kernel is memory-bound: forward
  // S = QK^T (Q, K, S: 128 B), softmax (128 B), dropout (160 B), P_d V (128
  // B); backward dP_d and dV (128 B each), dropout (160 B), softmax (192
  // B), dQ and dK (128 B each).
  Cluster c = cluster();
  c.hbmBytesPerS = 100;
  EXPECT_DOUBLE_EQ(
      unfusedAttentionSeconds(1, 2, 4, 2, 2, true, false, c, "fp16"),
      1.28 + 1.28 + 1.6 + 1.28);
  EXPECT_DOUBLE_EQ(
      unfusedAttentionSeconds(1, 2, 4, 2, 2, true, true, c, "fp16"),
      4 * 1.28 + 1.6 + 1.92);
  // Without dropout its kernels go.
  EXPECT_DOUBLE_EQ(
      unfusedAttentionSeconds(1, 2, 4, 2, 2, false, false, c, "fp16"),
      3 * 1.28);
  // With memory free, only the products: 2 forward, 4 backward, 128 FLOPs
  // each at 1e3 FLOP/s.
  c.hbmBytesPerS = 1e30;
  EXPECT_DOUBLE_EQ(
      unfusedAttentionSeconds(1, 2, 4, 2, 2, true, false, c, "fp16"), 0.256);
  EXPECT_DOUBLE_EQ(
      unfusedAttentionSeconds(1, 2, 4, 2, 2, true, true, c, "fp16"), 0.512);
}

/// Two stages of one chunk each: F 1 s, B 1.5 s, W 0.5 s; apply 0.25 s;
/// compiled for one micro-batch (one slot per chunk) of 100 B.
StepProfile pipelined() {
  StepProfile p;
  p.pp = 2;
  FunctionProfile f, b, w, apply;
  f.compute = 1;
  b.compute = 1.5;
  w.compute = 0.5;
  apply.compute = 0.25;
  p.forward = {f, f};
  p.backwardInput = {b, b};
  p.backwardWeight = {w, w};
  p.apply = {apply, apply};
  p.fixedBytes = {1000, 1000};
  p.shardableBytes = {0, 0};
  p.activationBytes = {500, 300};
  p.slotBytes = {100, 100};
  p.slots = {1, 1};
  return p;
}

TEST(StepTime, PipelineSchedule) {
  CompileOptions o;
  o.pp = 2;
  o.microBatches = 4;
  o.seq = 4;
  StepTime t = predict(pipelined(), o);
  // 1F1B: (M - 1)(F + B + W) + P (F + B) + W = 3 x 3 + 2 x 2.5 + 0.5.
  EXPECT_DOUBLE_EQ(t.seconds, 14.5 + 0.25);
  EXPECT_DOUBLE_EQ(t.compute, 12);
  EXPECT_DOUBLE_EQ(t.bubble, 2.5);
  // Four micro-batches keep two in flight on the first stage: one more
  // slot of 100 B than compiled.
  EXPECT_EQ(t.memoryBytes, 1000 + 500 + 100);
  // An interleaved schedule needs virtual stages: an error, not a guess.
  o.schedule = "interleaved";
  llvm::Expected<StepTime> bad = predictStepTime(pipelined(), o, cluster());
  ASSERT_FALSE(bool(bad));
  EXPECT_FALSE(llvm::toString(bad.takeError()).empty());
}

} // namespace
