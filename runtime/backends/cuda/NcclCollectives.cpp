//===- NcclCollectives.cpp - The CUDA backend's collectives ---------------===//

#include "runtime/backends/cuda/NcclCollectives.h"
#include "runtime/backends/cuda/CollectiveWatchdog.h"
#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/cuda/CudaCheck.h"
#include "runtime/backends/cuda/Libraries.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

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

constexpr std::array<Group, 6> kGroups = {Group::World, Group::TP,
                                          Group::DP,    Group::Stack,
                                          Group::PP,    Group::Embedding};

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
    // Before anything it watches goes.
    watchdog_.reset();
    cudaStreamSynchronize(collective_);
    // A receive that was never waited for (a run that ended on an error)
    // may never get its message: its stream, its communicator and the
    // buffers are left to the end of the process, which cannot be far.
    if (!receiving_.empty())
      return;
    if (p2p_) {
      cudaStreamSynchronize(p2p_);
      cudaStreamDestroy(p2p_);
    }
    for (const Staged &s : staged_) {
      device_.free(s.buffer);
      cudaEventDestroy(s.sent);
    }
    for (cudaEvent_t e : received_)
      cudaEventDestroy(e);
    for (auto &[id, w] : watched_)
      w.destroy();
    for (Watched &w : spare_)
      w.destroy();
    for (const std::atomic<ncclComm_t> &c : comms_)
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
    ncclComm_t c = comm(group);
    watched("all_reduce", group, collective_, [&] {
      ncclCheck(cuda::nccl().all_reduce(data, data, n, nccl_type(dtype),
                                        nccl_op(op), c, collective_));
    });
    started_ = true;
  }

  void start_reduce_scatter(const void *in, void *out, size_t n,
                            ElementType dtype, Group group) override {
    if (!n)
      return;
    if (comm_.size(group) == 1)
      return device_.copy_device_to_device(out, in, n * element_size(dtype));
    after_compute();
    ncclComm_t c = comm(group);
    watched("reduce_scatter", group, collective_, [&] {
      ncclCheck(cuda::nccl().reduce_scatter(in, out, n, nccl_type(dtype),
                                            ncclSum, c, collective_));
    });
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
    ncclComm_t c = comm(group);
    watched("all_gather", group, collective_, [&] {
      ncclCheck(cuda::nccl().all_gather(in, out, n, nccl_type(dtype), c,
                                        collective_));
    });
    started_ = true;
    wait_started();
  }

  void send(const void *data, size_t bytes, int peer, Group group,
            int tag) override {
    (void)tag; // NCCL has no tags: messages match in the order issued
    comm_.check_peer("send to", peer, group);
    ncclComm_t c = comm(group);
    // The copy, on the compute stream, frees `data` for the kernels
    // issued next while the message waits for its receiver.
    Staged &s = staging(bytes);
    cudaCheck(cudaMemcpyAsync(s.buffer, data, bytes, cudaMemcpyDeviceToDevice,
                              compute_));
    cudaStream_t stream = p2p_stream();
    after_compute(stream);
    watched("send", group, stream, [&] {
      ncclCheck(cuda::nccl().send(s.buffer, bytes, ncclUint8, peer, c, stream));
    });
    cudaCheck(cudaEventRecord(s.sent, stream));
  }

  RecvHandle start_recv(void *data, size_t bytes, int peer, Group group,
                        int tag) override {
    (void)tag;
    comm_.check_peer("receive from", peer, group);
    ncclComm_t c = comm(group);
    cudaStream_t stream = p2p_stream();
    after_compute(stream);
    // Watched from wait_recv on, as the MPI path bounds the wait, not the
    // time a receive posted early spends before its message is due.
    uint64_t op = record_around(stream, [&] {
      ncclCheck(cuda::nccl().recv(data, bytes, ncclUint8, peer, c, stream));
    });
    cudaEvent_t done = nullptr;
    if (received_.empty()) {
      cudaCheck(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    } else {
      done = received_.back();
      received_.pop_back();
    }
    cudaCheck(cudaEventRecord(done, stream));
    receiving_.push_back({next_recv_, done, op, group});
    return RecvHandle{next_recv_++};
  }

  void wait_recv(RecvHandle handle) override {
    auto it =
        std::find_if(receiving_.begin(), receiving_.end(),
                     [&](const Receiving &r) { return r.id == handle.id; });
    if (it == receiving_.end())
      throw std::invalid_argument(
          "wait_recv: no receive is pending as handle " +
          std::to_string(handle.id) +
          " (it was never started, or it was waited for already)");
    cudaCheck(cudaStreamWaitEvent(compute_, it->done, 0));
    watchdog().watch(it->op, "recv", it->group);
    received_.push_back(it->done);
    receiving_.erase(it);
  }

private:
  /// A send's copy of its bytes; free for another once `sent` completed.
  struct Staged {
    void *buffer;
    size_t bytes;
    cudaEvent_t sent;
  };
  struct Receiving {
    uint64_t id;
    cudaEvent_t done; // recorded after the receive
    uint64_t op;      // its watched operation
    Group group;
  };
  /// The events around one watched operation.
  struct Watched {
    cudaEvent_t start = nullptr, done = nullptr;
    void destroy() {
      cudaEventDestroy(start);
      cudaEventDestroy(done);
    }
  };

  /// Records a watched operation's events on `stream` around `issue` (its
  /// NCCL call); returns its id for CollectiveWatchdog::watch.
  template <class Issue>
  uint64_t record_around(cudaStream_t stream, Issue issue) {
    Watched w;
    uint64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(watched_mutex_);
      if (!spare_.empty()) {
        w = spare_.back();
        spare_.pop_back();
      }
      id = next_op_++;
    }
    if (!w.start) {
      cudaCheck(cudaEventCreateWithFlags(&w.start, cudaEventDisableTiming));
      cudaCheck(cudaEventCreateWithFlags(&w.done, cudaEventDisableTiming));
    }
    cudaCheck(cudaEventRecord(w.start, stream));
    issue();
    cudaCheck(cudaEventRecord(w.done, stream));
    std::lock_guard<std::mutex> lock(watched_mutex_);
    watched_[id] = w;
    return id;
  }
  /// `issue` (a NCCL call on `stream`) as an operation the watchdog bounds.
  template <class Issue>
  void watched(const char *what, Group group, cudaStream_t stream,
               Issue issue) {
    watchdog().watch(record_around(stream, issue), what, group);
  }

  /// Made with the first operation, when the job's --comm-timeout is set.
  cuda::CollectiveWatchdog &watchdog() {
    if (!watchdog_)
      watchdog_ = std::make_unique<cuda::CollectiveWatchdog>(
          comm_.watchdog().timeout, watchdog_hooks());
    return *watchdog_;
  }

  /// The watchdog's view of the device and of NCCL, from its own thread.
  cuda::CollectiveWatchdog::Hooks watchdog_hooks() {
    using State = cuda::CollectiveWatchdog::State;
    cuda::CollectiveWatchdog::Hooks h;
    const int ordinal = device_.ordinal();
    h.state = [this, ordinal](uint64_t id) {
      // Events are the device's: its thread has to be on it.
      static thread_local int current = -1;
      if (current != ordinal && cudaSetDevice(ordinal) == cudaSuccess)
        current = ordinal;
      Watched w;
      {
        std::lock_guard<std::mutex> lock(watched_mutex_);
        auto it = watched_.find(id);
        if (it == watched_.end())
          return State::Done;
        w = it->second;
      }
      // An error other than "not ready" is the host thread's to report.
      if (cudaEventQuery(w.done) != cudaErrorNotReady)
        return State::Done;
      return cudaEventQuery(w.start) == cudaErrorNotReady ? State::Queued
                                                          : State::Running;
    };
    h.finished = [this](uint64_t id) {
      std::lock_guard<std::mutex> lock(watched_mutex_);
      auto it = watched_.find(id);
      if (it == watched_.end())
        return;
      spare_.push_back(it->second);
      watched_.erase(it);
    };
    h.async_error = [this](Group g) -> std::string {
      ncclComm_t c = comms_[group_index(g)];
      ncclResult_t state = ncclSuccess;
      if (!c || cuda::nccl().comm_get_async_error(c, &state) != ncclSuccess ||
          state == ncclSuccess || state == ncclInProgress)
        return "";
      return cuda::nccl().get_error_string(state);
    };
    h.abort = [this] {
      for (const std::atomic<ncclComm_t> &c : comms_)
        if (ncclComm_t comm = c)
          cuda::nccl().comm_abort(comm);
    };
    h.give_up = [this](const char *what, Group g, const std::string &why) {
      comm_.give_up(what, g, why);
    };
    return h;
  }

  /// `stream` starts after the compute work issued so far.
  void after_compute(cudaStream_t stream) {
    cudaCheck(cudaEventRecord(issued_, compute_));
    cudaCheck(cudaStreamWaitEvent(stream, issued_, 0));
  }
  void after_compute() { after_compute(collective_); }

  /// Messages have a stream of their own: a receive waiting for its
  /// message holds back neither the compute stream nor the collectives.
  cudaStream_t p2p_stream() {
    if (!p2p_)
      cudaCheck(cudaStreamCreateWithFlags(&p2p_, cudaStreamNonBlocking));
    return p2p_;
  }

  /// The smallest free staging buffer of at least `bytes`, or a new one.
  /// A pipeline sends the same few sizes every step, so they are reused.
  Staged &staging(size_t bytes) {
    Staged *best = nullptr;
    for (Staged &s : staged_) {
      if (s.bytes < bytes || (best && best->bytes <= s.bytes))
        continue;
      cudaError_t state = cudaEventQuery(s.sent);
      if (state == cudaErrorNotReady)
        continue;
      cudaCheck(state);
      best = &s;
    }
    if (best)
      return *best;
    Staged s{device_.alloc(bytes), bytes, nullptr};
    cudaCheck(cudaEventCreateWithFlags(&s.sent, cudaEventDisableTiming));
    staged_.push_back(s);
    return staged_.back();
  }

  /// The group's communicator, made the first time the group has more than
  /// one rank to combine. Every rank of the group reaches its first
  /// collective on it at the same point of the same program, so the
  /// bootstrap there is as collective as the collective itself.
  ncclComm_t comm(Group g) {
    const size_t i = group_index(g);
    if (!comms_[i]) {
      const cuda::NcclApi &api = cuda::nccl();
      ncclUniqueId id{};
      if (comm_.rank(g) == 0)
        ncclCheck(api.get_unique_id(&id));
      comm_.broadcast(&id, sizeof(id), 0, g);
      ncclComm_t made = nullptr;
      ncclCheck(api.comm_init_rank(&made, comm_.size(g), id, comm_.rank(g)));
      comms_[i] = made;
    }
    return comms_[i];
  }

  static size_t group_index(Group g) {
    size_t i = 0;
    while (i < kGroups.size() && kGroups[i] != g)
      ++i;
    if (i == kGroups.size())
      throw std::invalid_argument("NCCL: no communicator for that group");
    return i;
  }

  CudaDevice &device_;
  Comm &comm_;
  cudaStream_t compute_ = nullptr, collective_ = nullptr;
  // Read by the watchdog's thread too.
  std::array<std::atomic<ncclComm_t>, kGroups.size()> comms_{};
  cudaEvent_t issued_ = nullptr, done_ = nullptr;
  bool started_ = false;
  cudaStream_t p2p_ = nullptr;
  std::vector<Staged> staged_;
  std::vector<Receiving> receiving_;
  std::vector<cudaEvent_t> received_; // events of waited receives, to reuse
  uint64_t next_recv_ = 1;
  // The watched operations' events, by id, and the free ones: shared with
  // the watchdog's thread.
  std::mutex watched_mutex_;
  std::unordered_map<uint64_t, Watched> watched_;
  std::vector<Watched> spare_;
  uint64_t next_op_ = 1;
  std::unique_ptr<cuda::CollectiveWatchdog> watchdog_;
};

} // namespace

std::unique_ptr<Collectives> make_nccl_collectives(CudaBackend &backend,
                                                   Comm &comm) {
  return std::make_unique<NcclCollectives>(backend, comm);
}

} // namespace tpc
