//===- NcclCollectives.cpp - The CUDA backend's collectives ---------------===//

#include "runtime/backends/cuda/NcclCollectives.h"
#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/cuda/CudaCheck.h"
#include "runtime/backends/cuda/Libraries.h"

#include <array>
#include <stdexcept>
#include <string>

namespace tpc {
namespace {

ncclDataType_t nccl_type(ElementType t) {
  switch (t) {
  case ElementType::F32:
    return ncclFloat32;
  case ElementType::BF16:
    return ncclBfloat16;
  case ElementType::F16:
    return ncclFloat16;
  case ElementType::I32:
    return ncclInt32;
  }
  throw std::invalid_argument("NCCL: no such element type");
}

ncclRedOp_t nccl_op(ReduceOp op) {
  return op == ReduceOp::Max ? ncclMax : ncclSum;
}

constexpr std::array<Group, 4> kGroups = {Group::World, Group::TP, Group::DP,
                                          Group::Stack};

class NcclCollectives final : public Collectives {
public:
  NcclCollectives(CudaBackend &backend, Comm &comm)
      : device_(backend.cuda_device()), comm_(comm) {
    compute_ = device_.stream(Stream::Compute);
    collective_ = device_.stream(Stream::Collective);
    cudaCheck(cudaEventCreateWithFlags(&issued_, cudaEventDisableTiming));
    cudaCheck(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
  }

  ~NcclCollectives() override {
    cudaStreamSynchronize(collective_);
    for (ncclComm_t c : comms_)
      if (c)
        cuda::nccl().comm_destroy(c);
    cudaEventDestroy(issued_);
    cudaEventDestroy(done_);
  }

  void all_reduce(void *data, size_t n, ElementType dtype, ReduceOp op,
                  Group group) override {
    start_all_reduce(data, n, dtype, op, group);
    wait_started();
  }

  void reduce_scatter(const void *in, void *out, size_t n, ElementType dtype,
                      Group group) override {
    start_reduce_scatter(in, out, n, dtype, group);
    wait_started();
  }

  void start_all_reduce(void *data, size_t n, ElementType dtype, ReduceOp op,
                        Group group) override {
    // One rank's sum or maximum is its own data.
    if (!n || comm_.size(group) == 1)
      return;
    after_compute();
    ncclCheck(cuda::nccl().all_reduce(data, data, n, nccl_type(dtype),
                                      nccl_op(op), comm(group), collective_));
    started_ = true;
  }

  void start_reduce_scatter(const void *in, void *out, size_t n,
                            ElementType dtype, Group group) override {
    if (!n)
      return;
    if (comm_.size(group) == 1)
      return device_.copy_device_to_device(out, in, n * element_size(dtype));
    after_compute();
    ncclCheck(cuda::nccl().reduce_scatter(in, out, n, nccl_type(dtype), ncclSum,
                                          comm(group), collective_));
    started_ = true;
  }

  void progress() override {}

  void wait_started() override {
    if (!started_)
      return;
    cudaCheck(cudaEventRecord(done_, collective_));
    cudaCheck(cudaStreamWaitEvent(compute_, done_, 0));
    started_ = false;
  }

  void all_gather(const void *in, void *out, size_t n, ElementType dtype,
                  Group group) override {
    if (!n)
      return;
    if (comm_.size(group) == 1)
      return device_.copy_device_to_device(out, in, n * element_size(dtype));
    after_compute();
    ncclCheck(cuda::nccl().all_gather(in, out, n, nccl_type(dtype), comm(group),
                                      collective_));
    started_ = true;
    wait_started();
  }

private:
  /// The collective stream starts after the compute work issued so far.
  void after_compute() {
    cudaCheck(cudaEventRecord(issued_, compute_));
    cudaCheck(cudaStreamWaitEvent(collective_, issued_, 0));
  }

  /// The group's communicator, made the first time the group has more than
  /// one rank to combine. Every rank of the group reaches its first
  /// collective on it at the same point of the same program, so the
  /// bootstrap there is as collective as the collective itself.
  ncclComm_t comm(Group g) {
    size_t i = 0;
    while (i < kGroups.size() && kGroups[i] != g)
      ++i;
    if (i == kGroups.size())
      throw std::invalid_argument("NCCL: no communicator for that group");
    if (!comms_[i]) {
      const cuda::NcclApi &api = cuda::nccl();
      ncclUniqueId id{};
      if (comm_.rank(g) == 0)
        ncclCheck(api.get_unique_id(&id));
      comm_.broadcast(&id, sizeof(id), 0, g);
      ncclCheck(
          api.comm_init_rank(&comms_[i], comm_.size(g), id, comm_.rank(g)));
    }
    return comms_[i];
  }

  CudaDevice &device_;
  Comm &comm_;
  cudaStream_t compute_ = nullptr, collective_ = nullptr;
  std::array<ncclComm_t, kGroups.size()> comms_{};
  cudaEvent_t issued_ = nullptr, done_ = nullptr;
  bool started_ = false;
};

} // namespace

std::unique_ptr<Collectives> make_nccl_collectives(CudaBackend &backend,
                                                   Comm &comm) {
  return std::make_unique<NcclCollectives>(backend, comm);
}

} // namespace tpc
