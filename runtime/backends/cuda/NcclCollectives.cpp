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
      : device_(backend.cuda_device()) {
    const cuda::NcclApi &api = cuda::nccl();
    compute_ = device_.stream(Stream::Compute);
    collective_ = device_.stream(Stream::Collective);
    for (size_t i = 0; i < kGroups.size(); ++i) {
      Group g = kGroups[i];
      ncclUniqueId id{};
      if (comm.rank(g) == 0)
        ncclCheck(api.get_unique_id(&id));
      if (comm.size(g) > 1)
        comm.broadcast(&id, sizeof(id), 0, g);
      ncclCheck(api.comm_init_rank(&comms_[i], comm.size(g), id, comm.rank(g)));
    }
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
    if (!n)
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
    after_compute();
    ncclCheck(cuda::nccl().reduce_scatter(in, out, n, nccl_type(dtype),
                                          ncclSum, comm(group), collective_));
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
    after_compute();
    ncclCheck(cuda::nccl().all_gather(in, out, n, nccl_type(dtype),
                                      comm(group), collective_));
    started_ = true;
    wait_started();
  }

private:
  /// The collective stream starts after the compute work issued so far.
  void after_compute() {
    cudaCheck(cudaEventRecord(issued_, compute_));
    cudaCheck(cudaStreamWaitEvent(collective_, issued_, 0));
  }

  ncclComm_t comm(Group g) const {
    for (size_t i = 0; i < kGroups.size(); ++i)
      if (kGroups[i] == g)
        return comms_[i];
    throw std::invalid_argument("NCCL: no communicator for that group");
  }

  CudaDevice &device_;
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
