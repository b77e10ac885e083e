//===- CudaCollectivesTest.cpp - NCCL collectives in one process ----------===//
//
// One process is a world of one: every group's NCCL communicator has a
// single rank, so a sum is the identity and a gather a copy. What this
// checks on a GPU is the bootstrap (one communicator per group), the types,
// and the order with the compute stream: a collective sees the kernels
// issued before it and the kernels after it see its result, with no
// synchronize() in between. Multi-rank sums are CommMpiTest's, on the CPU.
// A world of one needs no communicator, so the process never loads libnccl.
//
//===----------------------------------------------------------------------===//

#include "runtime/backend/Backend.h"
#include "runtime/backend/Collectives.h"
#include "runtime/comm/Comm.h"

#include <gtest/gtest.h>

#include <link.h>

#include <cstring>
#include <memory>
#include <vector>

using namespace tpc;

namespace {

/// Whether any object loaded in this process is a libnccl.
bool nccl_loaded() {
  bool found = false;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name && std::strstr(info->dlpi_name, "libnccl"))
          *static_cast<bool *>(data) = true;
        return 0;
      },
      &found);
  return found;
}

} // namespace

TEST(CudaCollectives, OneRankOrderedWithComputeWithoutNccl) {
  std::unique_ptr<Backend> be;
  try {
    be = make_backend("cuda");
  } catch (const BackendUnavailable &e) {
    GTEST_SKIP() << e.what();
  }
  Comm comm(nullptr, nullptr);
  comm.make_groups(1, 1);
  std::unique_ptr<Collectives> coll = make_collectives(*be, comm);
  const Kernels &k = *be->kernels(ElementType::F32);
  const size_t n = 1 << 20;
  auto *x = static_cast<float *>(be->alloc(n * 4));
  auto *y = static_cast<float *>(be->alloc(n * 4));
  for (Group g : {Group::World, Group::TP, Group::DP}) {
    k.fill(x, 3.0f, n); // before: seen by the sum
    coll->all_reduce(x, n, ElementType::F32, ReduceOp::Sum, g);
    k.scale_forward(y, x, 2.0f, n); // after: sees the sum
    coll->all_gather(y, x, n, ElementType::F32, g);
    coll->start_all_reduce(x, n, ElementType::F32, ReduceOp::Max, g);
    coll->wait_started();
    std::vector<float> h(n);
    be->copy_device_to_host(h.data(), x, n * 4);
    EXPECT_EQ(h.front(), 6.0f);
    EXPECT_EQ(h.back(), 6.0f);
  }
  auto *z = static_cast<uint16_t *>(be->alloc(n * 2));
  be->kernels(ElementType::BF16)->fill(z, 1.5f, n);
  coll->reduce_scatter(z, y, n, ElementType::BF16, Group::TP);
  std::vector<uint16_t> h(n);
  be->copy_device_to_host(h.data(), y, n * 2);
  EXPECT_EQ(h[n / 2], 0x3FC0); // 1.5 in bf16
  be->free(x);
  be->free(y);
  be->free(z);
  coll.reset();
  EXPECT_FALSE(nccl_loaded()) << "a world of one rank loaded NCCL";
}
