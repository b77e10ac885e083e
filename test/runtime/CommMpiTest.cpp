//===- CommMpiTest.cpp - The job's collectives on every element type -----===//
//
// Runs under mpirun with 3 ranks (ctest's comm_mpi; not a power of two, so
// that MPI combines partial results in more than one order). Every rank runs
// every test; a failure on any rank fails the job. With --stacks the job is
// laid out as a stack-parallel decoding job of 3 stacks x tp 1 (ctest's
// comm_mpi_stacks). With --pp it runs with 4 ranks, which the pipeline tests
// lay out again as tp 1 x dp 2 x pp 2, tp 2 x dp 1 x pp 2 and
// tp 1 x dp 1 x pp 4 (ctest's comm_mpi_pp).
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/backend/Collectives.h"
#include "runtime/comm/Comm.h"
#include "runtime/util/Float16.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tpc;

namespace {

Comm *job = nullptr;
bool pp_job = false;

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

INSTANTIATE_TEST_SUITE_P(Types, Comm16,
                         testing::Values(ElementType::BF16, ElementType::F16),
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

// Point-to-point messages around a ring: each tag keeps its own order, and
// a receiver may take the tags in another order than they were sent.
TEST(CommMessages, TagsKeepTheirOwnOrder) {
  int r = job->world_rank(), size = job->world_size();
  int next = (r + 1) % size, prev = (r + size - 1) % size;
  for (int i = 0; i < 3; ++i) {
    int32_t value = 100 * r + i;
    job->send(&value, sizeof(value), next, Group::World, 1);
  }
  std::vector<float> big(5000, float(r)); // beyond an eager message
  job->send(big.data(), big.size() * sizeof(float), next, Group::World, 2);
  std::vector<float> got(big.size());
  job->recv(got.data(), got.size() * sizeof(float), prev, Group::World, 2);
  for (float v : got)
    ASSERT_EQ(v, float(prev));
  for (int i = 0; i < 3; ++i) {
    int32_t value = -1;
    job->recv(&value, sizeof(value), prev, Group::World, 1);
    EXPECT_EQ(value, 100 * prev + i);
  }
}

TEST(CommMessages, RefusesAPeerOutsideTheGroup) {
  int32_t x = 0;
  EXPECT_THROW(job->send(&x, sizeof(x), job->world_size(), Group::World),
               std::invalid_argument);
  EXPECT_THROW(job->recv(&x, sizeof(x), job->world_rank(), Group::World),
               std::invalid_argument);
}

// The stack group of a stack-parallel job joins the ranks of one tp_rank
// across the stacks; its data-parallel group is each rank alone.
TEST(CommStacks, StackGroupCarriesMessagesBetweenStacks) {
  if (job->stack_size() == 1)
    GTEST_SKIP() << "the job is not laid out in stacks (run with --stacks)";
  int s = job->stack_rank(), p = job->stack_size();
  EXPECT_EQ(job->world_rank(), s * job->tp_size() + job->tp_rank());
  EXPECT_EQ(job->dp_size(), 1);
  EXPECT_EQ(job->size(Group::Stack), p);
  // Each stack's value flows down the stacks, as a final activation does.
  int32_t carried = s == 0 ? 7 : -1;
  if (s > 0)
    job->recv(&carried, sizeof(carried), s - 1, Group::Stack);
  if (s + 1 < p) {
    int32_t mine = carried + s;
    job->send(&mine, sizeof(mine), s + 1, Group::Stack);
  }
  int32_t want = 7;
  for (int t = 0; t + 1 < s; ++t)
    want += t + 1;
  EXPECT_EQ(carried, s == 0 ? 7 : want);
  float x = 1.0f;
  job->all_reduce(&x, 1, ReduceOp::Sum, Group::Stack);
  EXPECT_EQ(x, float(p));
  job->all_reduce(&x, 1, ReduceOp::Sum, Group::DP);
  EXPECT_EQ(x, float(p));
}

//===----------------------------------------------------------------------===//
// Pipeline-parallel layouts (--pp, 4 ranks)

struct Layout {
  int tp, dp, pp;
};

class CommPipeline : public testing::TestWithParam<Layout> {
protected:
  void SetUp() override {
    if (!pp_job)
      GTEST_SKIP() << "the job is not pipeline-parallel (run with --pp)";
    const Layout &l = GetParam();
    job->make_groups(l.tp, l.dp, 1, l.pp);
  }
};

/// World rank of the rank at (tp_rank, dp_rank, pp_rank), Megatron's order.
int world_rank_at(const Layout &l, int t, int d, int p) {
  return t + l.tp * (d + l.dp * p);
}

/// The world ranks that `group` should join for this rank, in group order.
std::vector<int32_t> want_members(const Layout &l, Group group) {
  int t = job->tp_rank(), d = job->dp_rank(), p = job->pp_rank();
  std::vector<int32_t> ranks;
  switch (group) {
  case Group::TP:
    for (int i = 0; i < l.tp; ++i)
      ranks.push_back(world_rank_at(l, i, d, p));
    break;
  case Group::DP:
    for (int i = 0; i < l.dp; ++i)
      ranks.push_back(world_rank_at(l, t, i, p));
    break;
  case Group::PP:
    for (int i = 0; i < l.pp; ++i)
      ranks.push_back(world_rank_at(l, t, d, i));
    break;
  case Group::Embedding:
    if (p == 0 || p == l.pp - 1) {
      ranks.push_back(world_rank_at(l, t, d, 0));
      ranks.push_back(world_rank_at(l, t, d, l.pp - 1));
    } else {
      ranks.push_back(job->world_rank());
    }
    break;
  case Group::Stack:
    ranks.push_back(job->world_rank());
    break;
  case Group::World:
    for (int r = 0; r < job->world_size(); ++r)
      ranks.push_back(r);
    break;
  }
  return ranks;
}

constexpr Group kAllGroups[] = {Group::World, Group::TP,        Group::DP,
                                Group::PP,    Group::Embedding, Group::Stack};

TEST_P(CommPipeline, RanksFollowMegatronsOrder) {
  const Layout &l = GetParam();
  int r = job->world_rank();
  EXPECT_EQ(job->tp_rank(), r % l.tp);
  EXPECT_EQ(job->dp_rank(), r / l.tp % l.dp);
  EXPECT_EQ(job->pp_rank(), r / (l.tp * l.dp));
  EXPECT_EQ(job->pp_size(), l.pp);
  EXPECT_EQ(job->rank(Group::PP), job->pp_rank());
  EXPECT_EQ(job->in_embedding_group(),
            job->pp_rank() == 0 || job->pp_rank() == l.pp - 1);
  EXPECT_STREQ(group_name(Group::PP), "pp");
  EXPECT_STREQ(group_name(Group::Embedding), "embedding");
}

// Each group gathers its members' world ranks, in the order of their rank
// in the group.
TEST_P(CommPipeline, GroupsJoinTheRightRanks) {
  const Layout &l = GetParam();
  for (Group g : kAllGroups) {
    std::vector<int32_t> want = want_members(l, g);
    ASSERT_EQ(job->size(g), int(want.size())) << group_name(g);
    auto me = std::find(want.begin(), want.end(), job->world_rank());
    ASSERT_NE(me, want.end()) << group_name(g);
    EXPECT_EQ(job->rank(g), int(me - want.begin())) << group_name(g);
    int32_t mine = job->world_rank();
    std::vector<int32_t> got(want.size(), -1);
    job->all_gather(&mine, got.data(), 1, ElementType::I32, g);
    EXPECT_EQ(got, want) << group_name(g);
  }
}

// A sum of one bit per world rank names exactly the ranks it combined.
TEST_P(CommPipeline, AllReduceSumsTheGroupsMembers) {
  const Layout &l = GetParam();
  for (Group g : kAllGroups) {
    int32_t bits = int32_t(1) << job->world_rank();
    job->all_reduce(&bits, 1, ReduceOp::Sum, g);
    int32_t want = 0;
    for (int32_t m : want_members(l, g))
      want |= int32_t(1) << m;
    EXPECT_EQ(bits, want) << group_name(g);
  }
}

/// The i-th element of message k from pipeline rank `from`.
int32_t message_value(int from, int k, size_t i) {
  return from * 1000000 + k * 100000 + int32_t(i % 1000);
}

/// The elements of message k: one far beyond an eager message.
size_t message_size(int k) { return k == 4 ? 60000 : size_t(3 + k); }

// Activations go down the pipeline and gradients up it, six messages each
// way on three tags, all in flight at once. Every receive is posted before
// the barrier after which the sends start; the receiver posts the tags in
// another order than they are sent, and waits in yet another.
template <class Messages> void exchange_with_neighbours(Messages &messages) {
  constexpr int kMessages = 6, kTags = 3;
  int p = job->pp_rank(), pp = job->pp_size();
  struct Posted {
    int from, k;
    std::vector<int32_t> data;
    RecvHandle handle;
  };
  std::vector<Posted> posted;
  for (int from : {p + 1, p - 1}) {
    if (from < 0 || from >= pp)
      continue;
    for (int tag = kTags - 1; tag >= 0; --tag)
      for (int k = tag; k < kMessages; k += kTags)
        posted.push_back(
            {from, k, std::vector<int32_t>(message_size(k), -1), RecvHandle{}});
  }
  for (Posted &m : posted)
    m.handle =
        messages.start_recv(m.data.data(), m.data.size() * sizeof(int32_t),
                            m.from, Group::PP, m.k % kTags);
  job->barrier(Group::World);
  for (int k = 0; k < kMessages; ++k)
    for (int to : {p + 1, p - 1}) {
      if (to < 0 || to >= pp)
        continue;
      std::vector<int32_t> data(message_size(k));
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = message_value(p, k, i);
      messages.send(data.data(), data.size() * sizeof(int32_t), to, Group::PP,
                    k % kTags);
    }
  for (auto m = posted.rbegin(); m != posted.rend(); ++m) {
    messages.wait_recv(m->handle);
    for (size_t i = 0; i < m->data.size(); ++i)
      ASSERT_EQ(m->data[i], message_value(m->from, m->k, i))
          << "message " << m->k << " from pipeline rank " << m->from
          << ", element " << i;
  }
  EXPECT_THROW(messages.wait_recv(posted.front().handle),
               std::invalid_argument);
}

TEST_P(CommPipeline, MessagesBetweenStagesOnTheJob) {
  exchange_with_neighbours(*job);
}

TEST_P(CommPipeline, MessagesBetweenStagesOnCpuBuffers) {
  std::unique_ptr<Backend> backend = make_backend("cpu");
  std::unique_ptr<Collectives> collectives = make_collectives(*backend, *job);
  exchange_with_neighbours(*collectives);
}

TEST_P(CommPipeline, RefusesAPeerOutsideTheGroup) {
  int32_t x = 0;
  EXPECT_THROW(job->start_recv(&x, sizeof(x), job->pp_rank(), Group::PP),
               std::invalid_argument);
  EXPECT_THROW(job->start_recv(&x, sizeof(x), job->pp_size(), Group::PP),
               std::invalid_argument);
  if (job->size(Group::Embedding) == 1) {
    EXPECT_THROW(job->send(&x, sizeof(x), 0, Group::Embedding),
                 std::invalid_argument);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, CommPipeline,
                         testing::Values(Layout{1, 2, 2}, Layout{2, 1, 2},
                                         Layout{1, 1, 4}),
                         [](const testing::TestParamInfo<Layout> &info) {
                           const Layout &l = info.param;
                           return "tp" + std::to_string(l.tp) + "_dp" +
                                  std::to_string(l.dp) + "_pp" +
                                  std::to_string(l.pp);
                         });

/// The message of make_groups(tp, dp, stacks, pp) on this job.
std::string layout_error(int tp, int dp, int stacks, int pp) {
  try {
    job->make_groups(tp, dp, stacks, pp);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "no error";
}

TEST(CommPipelineLayout, WrongWorldSizeNamesTheLayoutAndTheFix) {
  if (!pp_job)
    GTEST_SKIP() << "the job is not pipeline-parallel (run with --pp)";
  EXPECT_EQ(layout_error(2, 1, 1, 3),
            "the program runs on tp 2 x dp 1 x pp 3 = 6 ranks, but this job "
            "has 4 processes; start it with `mpirun -np 6 tpc-run ...`");
  EXPECT_EQ(layout_error(3, 1, 1, 1),
            "the program runs on tp 3 x dp 1 = 3 ranks, but this job has 4 "
            "processes; start it with `mpirun -np 3 tpc-run ...`");
  EXPECT_NE(layout_error(1, 1, 2, 2).find("recompile it with --pp=1"),
            std::string::npos);
}

} // namespace

int main(int argc, char **argv) {
  testing::InitGoogleTest(&argc, argv);
  Comm comm(&argc, &argv);
  if (comm.world_size() < 2) {
    std::fprintf(stderr, "run under mpirun with 2 or more ranks\n");
    return 1;
  }
  std::string mode = argc > 1 ? argv[1] : "";
  pp_job = mode == "--pp";
  if (mode == "--stacks")
    comm.make_groups(1, 1, comm.world_size());
  else
    comm.make_groups(comm.world_size(), 1);
  job = &comm;
  return RUN_ALL_TESTS();
}
