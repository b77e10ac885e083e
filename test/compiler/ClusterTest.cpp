//===- ClusterTest.cpp - The cluster file and its GEMM curve --------------===//
//
// The efficiency curve's interpolation (linear in log FLOPs, clamped at the
// ends) against hand-computed values, the GEMM time the step-time model
// takes from it, readCluster's errors for a bad curve, and a link's
// reduce-scatter and all-gather fits.
//
//===----------------------------------------------------------------------===//

#include "compiler/Cluster.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

using namespace tpc;

namespace {

const GemmCurve kCurve = {{1e3, 0.1}, {1e5, 0.5}, {1e7, 0.9}};

TEST(GemmCurve, InterpolatesInLogFlops) {
  EXPECT_DOUBLE_EQ(interpolateGemmCurve(kCurve, 1e3), 0.1);
  EXPECT_DOUBLE_EQ(interpolateGemmCurve(kCurve, 1e5), 0.5);
  EXPECT_DOUBLE_EQ(interpolateGemmCurve(kCurve, 1e7), 0.9);
  // Halfway in log FLOPs between 1e3 and 1e5, and between 1e5 and 1e7.
  EXPECT_NEAR(interpolateGemmCurve(kCurve, 1e4), 0.3, 1e-12);
  EXPECT_NEAR(interpolateGemmCurve(kCurve, 1e6), 0.7, 1e-12);
  // A quarter of the way: 10^3.5.
  EXPECT_NEAR(interpolateGemmCurve(kCurve, 3162.2776601683795), 0.2, 1e-12);
}

TEST(GemmCurve, ClampsAtTheEnds) {
  EXPECT_DOUBLE_EQ(interpolateGemmCurve(kCurve, 1), 0.1);
  EXPECT_DOUBLE_EQ(interpolateGemmCurve(kCurve, 1e12), 0.9);
  EXPECT_DOUBLE_EQ(interpolateGemmCurve({{1e6, 0.4}}, 1e2), 0.4);
  EXPECT_DOUBLE_EQ(interpolateGemmCurve({{1e6, 0.4}}, 1e9), 0.4);
}

TEST(GemmCurve, TimesAGemmFromItsFlops) {
  Cluster c;
  c.peakFlops = {{"fp32", 1e9}, {"bf16", 4e9}};
  c.gemmEfficiency = 0.5;
  c.gemmCurve["fp32"] = kCurve;
  // 1e4 FLOPs at 0.3 of 1e9 FLOP/s.
  EXPECT_NEAR(c.gemmSeconds("fp32", 1e4), 1e4 / 0.3e9, 1e-15);
  // Two GEMMs of 1e4 FLOPs each run at the efficiency of one.
  EXPECT_NEAR(c.gemmSeconds("fp32", 2e4, 2), 2e4 / 0.3e9, 1e-15);
  // bf16 has no curve: the single efficiency.
  EXPECT_DOUBLE_EQ(c.gemmEfficiencyAt("bf16", 1e4), 0.5);
  EXPECT_NEAR(c.gemmSeconds("bf16", 1e4), 1e4 / 2e9, 1e-15);
  EXPECT_EQ(c.gemmSeconds("fp32", 0), 0);
}

const char *kIntraNode = R"({"bytes_per_s": 1e9, "latency_s": 1e-6})";

/// A cluster file whose "gemm_curve" is `curve` and "intra_node" `intra`,
/// read back.
llvm::Expected<Cluster> readWithCurve(const std::string &curve,
                                      const std::string &intra = kIntraNode) {
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("cluster", "json", path))
    return llvm::errorCodeToError(ec);
  llvm::FileRemover remove(path);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << R"({"name": "test", "devices_per_node": 2, "memory_bytes": 1e9,
      "peak_flops": {"fp32": 1e11, "bf16": 2e11, "fp16": 2e11},
      "hbm_bytes_per_s": 1e10, "gemm_efficiency": 0.8,
      "inter_node": {"bytes_per_s": 1e9, "latency_s": 1e-6},
      "intra_node": )"
       << intra;
    if (!curve.empty())
      os << R"(, "gemm_curve": )" << curve;
    os << "}\n";
  }
  return readCluster(path);
}

std::string errorOf(const std::string &curve) {
  llvm::Expected<Cluster> c = readWithCurve(curve);
  if (c)
    return "";
  return llvm::toString(c.takeError());
}

TEST(ReadCluster, ReadsACurve) {
  llvm::Expected<Cluster> c =
      readWithCurve(R"({"fp32": [[1e3, 0.1], [1e5, 0.5], [1e7, 0.9]]})");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  ASSERT_EQ(c->gemmCurve.count("fp32"), 1u);
  EXPECT_EQ(c->gemmCurve.at("fp32"), kCurve);
  EXPECT_NEAR(c->gemmEfficiencyAt("fp32", 1e4), 0.3, 1e-12);
  // Without a curve of its own, bf16 keeps gemm_efficiency.
  EXPECT_DOUBLE_EQ(c->gemmEfficiencyAt("bf16", 1e4), 0.8);
}

TEST(ReadCluster, WithoutACurveKeepsTheEfficiency) {
  llvm::Expected<Cluster> c = readWithCurve("");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_TRUE(c->gemmCurve.empty());
  EXPECT_DOUBLE_EQ(c->gemmEfficiencyAt("fp32", 1e12), 0.8);
}

TEST(ReadCluster, ReadsCollectiveFits) {
  // A link without fits of its own times every collective as a ring of its
  // all-reduce's figures.
  llvm::Expected<Cluster> plain = readWithCurve("");
  ASSERT_TRUE(bool(plain)) << llvm::toString(plain.takeError());
  EXPECT_FALSE(plain->intraNode.reduceScatter);
  EXPECT_DOUBLE_EQ(plain->intraNode.allGatherFit().bytesPerS, 1e9);
  EXPECT_DOUBLE_EQ(plain->intraNode.reduceScatterFit().latencyS, 1e-6);
  llvm::Expected<Cluster> c =
      readWithCurve("", R"({"bytes_per_s": 1e9, "latency_s": 1e-6,
              "reduce_scatter": {"bytes_per_s": 2e8, "latency_s": 3e-6},
              "all_gather": {"bytes_per_s": 5e8, "latency_s": 0}})");
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_DOUBLE_EQ(c->intraNode.bytesPerS, 1e9);
  EXPECT_DOUBLE_EQ(c->intraNode.reduceScatterFit().bytesPerS, 2e8);
  EXPECT_DOUBLE_EQ(c->intraNode.reduceScatterFit().latencyS, 3e-6);
  EXPECT_DOUBLE_EQ(c->intraNode.allGatherFit().bytesPerS, 5e8);
  EXPECT_FALSE(c->interNode.allGather);
  llvm::Expected<Cluster> bad =
      readWithCurve("", R"({"bytes_per_s": 1e9, "latency_s": 1e-6,
              "all_gather": {"bytes_per_s": 5e8, "latency_s": -1}})");
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError())
                .find("'intra_node.all_gather.latency_s' must be a number >= "
                      "0"),
            std::string::npos);
  llvm::Expected<Cluster> notObject = readWithCurve(
      "", R"({"bytes_per_s": 1e9, "latency_s": 1e-6, "reduce_scatter": 1})");
  ASSERT_FALSE(bool(notObject));
  EXPECT_NE(llvm::toString(notObject.takeError())
                .find("'intra_node.reduce_scatter' must be an object"),
            std::string::npos);
}

TEST(ReadCluster, NamesABadCurve) {
  EXPECT_NE(errorOf("[1, 2]").find(
                "'gemm_curve' must be an object of [[flops, efficiency], "
                "...] per dtype"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"fp8": [[1e3, 0.5]]})")
                .find("'gemm_curve.fp8' names no dtype of 'peak_flops'"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"fp32": []})")
                .find("'gemm_curve.fp32' must be a non-empty array"),
            std::string::npos);
  for (const char *point : {"[0, 0.5]", "[1e3, 0]", "[1e3, 1.5]",
                            "[1e3, 0.5, 1]", "1e3", R"(["1e3", 0.5])"})
    EXPECT_NE(errorOf(std::string(R"({"fp32": [)") + point + "]}")
                  .find("'gemm_curve.fp32' has a point that is not [flops > "
                        "0, 0 < efficiency <= 1]"),
              std::string::npos)
        << point;
  std::string decreasing = errorOf(R"({"bf16": [[1e5, 0.5], [1e3, 0.1]]})");
  EXPECT_NE(decreasing.find("'gemm_curve.bf16''s points must be in "
                            "increasing flops"),
            std::string::npos)
      << decreasing;
  EXPECT_NE(decreasing.find("see compiler/clusters/*.json"), std::string::npos);
}

} // namespace
