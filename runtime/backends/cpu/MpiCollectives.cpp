//===- MpiCollectives.cpp - The CPU backend's collectives over MPI --------===//
//
// The CPU's kernels have finished when they return, so a collective issued
// after them sees their results and runs at once, on host memory, through
// the job's communicators (runtime/comm).
//
//===----------------------------------------------------------------------===//

#include "runtime/backends/cpu/MpiCollectives.h"

namespace tpc {
namespace {

class MpiCollectives final : public Collectives {
public:
  explicit MpiCollectives(Comm &comm) : comm_(comm) {}

  void all_reduce(void *data, size_t n, ElementType dtype, ReduceOp op,
                  Group group) override {
    comm_.all_reduce(data, n, dtype, op, group);
  }

  void reduce_scatter(const void *in, void *out, size_t n, ElementType dtype,
                      Group group) override {
    comm_.reduce_scatter(in, out, n, dtype, group);
  }

  void start_all_reduce(void *data, size_t n, ElementType dtype, ReduceOp op,
                        Group group) override {
    comm_.start_all_reduce(data, n, dtype, op, group);
  }

  void start_reduce_scatter(const void *in, void *out, size_t n,
                            ElementType dtype, Group group) override {
    comm_.start_reduce_scatter(in, out, n, dtype, group);
  }

  void progress() override { comm_.progress(); }

  void wait_started() override { comm_.wait_started(); }

  void all_gather(const void *in, void *out, size_t n, ElementType dtype,
                  Group group) override {
    comm_.all_gather(in, out, n, dtype, group);
  }

  void send(const void *data, size_t bytes, int peer, Group group,
            int tag) override {
    comm_.send(data, bytes, peer, group, tag);
  }

  RecvHandle start_recv(void *data, size_t bytes, int peer, Group group,
                        int tag) override {
    return comm_.start_recv(data, bytes, peer, group, tag);
  }

  void wait_recv(RecvHandle handle) override { comm_.wait_recv(handle); }

private:
  Comm &comm_;
};

} // namespace

std::unique_ptr<Collectives> make_mpi_collectives(Comm &comm) {
  return std::make_unique<MpiCollectives>(comm);
}

} // namespace tpc
