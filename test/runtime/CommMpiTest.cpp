//===- CommMpiTest.cpp - The job's collectives on every element type -----===//
//
// Runs under mpirun with 3 ranks (ctest's comm_mpi; not a power of two, so
// that MPI combines partial results in more than one order). Every rank runs
// every test; a failure on any rank fails the job.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/backend/Collectives.h"
#include "runtime/comm/Comm.h"
#include "runtime/util/Float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace tpc;

namespace {

Comm *job = nullptr;

uint16_t to16(ElementType t, float v) {
  return t == ElementType::BF16 ? f32_to_bf16(v) : f32_to_f16(v);
}
float from16(ElementType t, uint16_t h) {
  return t == ElementType::BF16 ? bf16_to_f32(h) : f16_to_f32(h);
}

class Comm16 : public testing::TestWithParam<ElementType> {};

// Small integers are exact in both types, and so are their sums and
// maxima: whatever order MPI combines them in, the result is exact.
TEST_P(Comm16, SumsAndMaximaOfExactValues) {
  ElementType t = GetParam();
  int r = job->world_rank(), size = job->world_size();
  const size_t n = 1000;
  std::vector<uint16_t> sum(n), max(n);
  for (size_t i = 0; i < n; ++i) {
    sum[i] = to16(t, float(int(i % 13) - 6 + r));
    max[i] = to16(t, float((int(i) * 7 + r * 5) % 17));
  }
  job->all_reduce(sum.data(), n, t, ReduceOp::Sum, Group::World);
  job->all_reduce(max.data(), n, t, ReduceOp::Max, Group::World);
  for (size_t i = 0; i < n; ++i) {
    float want_sum = 0.0f, want_max = -1.0f;
    for (int q = 0; q < size; ++q) {
      want_sum += float(int(i % 13) - 6 + q);
      want_max = std::max(want_max, float((int(i) * 7 + q * 5) % 17));
    }
    ASSERT_EQ(from16(t, sum[i]), want_sum) << "element " << i;
    ASSERT_EQ(from16(t, max[i]), want_max) << "element " << i;
  }
}

// A sum that the type cannot hold exactly stays within the rounding of each
// combination (one unit in the last place of the partial sum) of the exact
// sum.
TEST_P(Comm16, InexactSumsStayClose) {
  ElementType t = GetParam();
  int size = job->world_size();
  float ulp = t == ElementType::BF16 ? 1.0f / 128 : 1.0f / 1024;
  float mine = from16(t, to16(t, 1.0f + 0.75f * ulp * job->world_rank()));
  uint16_t x = to16(t, mine);
  job->all_reduce(&x, 1, t, ReduceOp::Sum, Group::World);
  double exact = 0.0;
  for (int q = 0; q < size; ++q)
    exact += from16(t, to16(t, 1.0f + 0.75f * ulp * q));
  // Values near `size` have an ulp of 2 or 4 times the one at 1.
  EXPECT_NEAR(from16(t, x), exact, (size - 1) * 4 * ulp);
}

// f16's largest value is 65504: a sum beyond it is infinite, as NCCL's.
TEST(Comm16Range, F16SumOverflowsToInfinity) {
  uint16_t x = f32_to_f16(65504.0f);
  job->all_reduce(&x, 1, ElementType::F16, ReduceOp::Sum, Group::World);
  EXPECT_TRUE(std::isinf(f16_to_f32(x)));
  uint16_t y = f32_to_bf16(65504.0f);
  job->all_reduce(&y, 1, ElementType::BF16, ReduceOp::Sum, Group::World);
  EXPECT_FALSE(std::isinf(bf16_to_f32(y)));
}

// A gather moves the bits of every rank's slice.
TEST_P(Comm16, AllGatherIsExact) {
  ElementType t = GetParam();
  int r = job->world_rank(), size = job->world_size();
  const size_t n = 257;
  std::vector<uint16_t> mine(n), all(n * size);
  for (size_t i = 0; i < n; ++i)
    mine[i] = uint16_t(i * 131 + r * 7919);
  job->all_gather(mine.data(), all.data(), n, t, Group::World);
  for (int q = 0; q < size; ++q)
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(all[q * n + i], uint16_t(i * 131 + q * 7919));
}

// The CPU backend's collectives on device buffers take every element type.
TEST_P(Comm16, CpuBackendCollectives) {
  ElementType t = GetParam();
  std::unique_ptr<Backend> backend = make_backend("cpu");
  std::unique_ptr<Collectives> collectives = make_collectives(*backend, *job);
  std::vector<uint16_t> x(5, to16(t, 0.5f));
  collectives->all_reduce(x.data(), x.size(), t, ReduceOp::Sum, Group::World);
  for (uint16_t v : x)
    EXPECT_EQ(from16(t, v), 0.5f * job->world_size());
}

INSTANTIATE_TEST_SUITE_P(
    Types, Comm16, testing::Values(ElementType::BF16, ElementType::F16),
    [](const testing::TestParamInfo<ElementType> &info) {
      return std::string(element_type_name(info.param));
    });

TEST(CommTypes, F32AndI32AndDouble) {
  int size = job->world_size();
  float f = 1.5f;
  int32_t i = 2;
  double d = 0.25;
  job->all_reduce(&f, 1, ReduceOp::Sum, Group::World);
  job->all_reduce(&i, 1, ReduceOp::Max, Group::World);
  job->all_reduce(&d, 1, ReduceOp::Sum, Group::World);
  EXPECT_EQ(f, 1.5f * size);
  EXPECT_EQ(i, 2);
  EXPECT_EQ(d, 0.25 * size);
}

} // namespace

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  Comm comm(&argc, &argv);
  if (comm.world_size() < 2) {
    std::fprintf(stderr, "run under mpirun with 2 or more ranks\n");
    return 1;
  }
  comm.make_groups(comm.world_size(), 1);
  job = &comm;
  return RUN_ALL_TESTS();
}
