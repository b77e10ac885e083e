//===- Comm.h - The communicators of a parallel job -------------*- C++ -*-===//
//
// The job's ranks as Megatron-LM arranges them: tensor parallelism fastest,
// then data parallelism, then pipeline stages, so rank r has
// tp_rank = r % tp, dp_rank = (r / tp) % dp and pp_rank = r / (tp * dp); the
// ranks of one tensor-parallel group are neighbours and pipeline groups span
// nodes. The embedding group joins the first and the last stage's ranks of
// one (tp_rank, dp_rank), which hold the tied word embeddings. A
// stack-parallel decoding job has stacks in place of data parallelism: rank r
// holds stack r / tp, and the stack group joins the ranks of one tp_rank
// across the stacks, for point-to-point messages between them. Collectives
// and messages work in place on backend memory that the host can address
// (the cpu backend's).
//
// A process that mpirun did not start runs alone without touching MPI, so a
// tp = dp = pp = 1 job needs no launcher.
//
// Collectives and receives start non-blocking and are polled, so that a
// rank waiting on a peer that died or hangs gives up instead of waiting
// forever, by the rules of runtime/comm/Watchdog.h: it prints one line naming
// itself, the collective, its group and where the job stands (the trainer's
// step and last good checkpoint, set_give_up_note), and ends the job (a
// non-zero exit under Open MPI, whose launcher then ends the other ranks;
// MPI_Abort under other launchers). The end of a job is bounded by the same
// rules (finish()).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_COMM_COMM_H
#define TPC_RUNTIME_COMM_COMM_H

#include "runtime/backend/ElementType.h"
#include "runtime/comm/PeerWatch.h"
#include "runtime/comm/Watchdog.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tpc {

enum class Group { World, TP, DP, Stack, PP, Embedding };
enum class ReduceOp { Sum, Max };

/// "tp", "dp", "pp", "embedding" (as programs spell them), "stack",
/// "world": for messages.
const char *group_name(Group group);

/// A receive started by start_recv, ended by one wait_recv.
struct RecvHandle {
  uint64_t id = 0;
};

/// True when this process was started by an MPI launcher.
bool launched_by_mpi();

class Comm {
public:
  /// Joins the job: MPI_Init under an MPI launcher, otherwise a job of one.
  Comm(int *argc, char ***argv);
  /// finish(), unless it ran.
  ~Comm();
  Comm(const Comm &) = delete;
  Comm &operator=(const Comm &) = delete;

  bool distributed() const { return distributed_; }
  int world_rank() const { return world_rank_; }
  int world_size() const { return world_size_; }
  /// Ranks of this job on this node (OMPI_COMM_WORLD_LOCAL_SIZE).
  int local_size() const { return local_size_; }

  /// Forms the TP, DP, PP, embedding and stack groups (again, in place of
  /// the earlier ones, when called again on every rank). Throws
  /// std::runtime_error naming the sizes and the fix when the world does
  /// not have tp * dp * pp * stacks ranks, or when stacks exceed 1 together
  /// with dp or pp; every rank throws the same error, so no rank is left
  /// waiting.
  void make_groups(int tp, int dp, int stacks = 1, int pp = 1);
  int tp_rank() const { return tp_rank_; }
  int tp_size() const { return tp_size_; }
  int dp_rank() const { return dp_rank_; }
  int dp_size() const { return dp_size_; }
  int pp_rank() const { return pp_rank_; }
  int pp_size() const { return pp_size_; }
  /// Whether this rank is on the first or the last pipeline stage (every
  /// rank when pp is 1). Its embedding group then joins both stages' ranks
  /// of its tp_rank and dp_rank (this rank alone when pp is 1); on a middle
  /// stage it is this rank alone.
  bool in_embedding_group() const {
    return pp_rank_ == 0 || pp_rank_ == pp_size_ - 1;
  }
  int stack_rank() const { return stack_rank_; }
  int stack_size() const { return stack_size_; }
  int rank(Group group) const;
  int size(Group group) const;

  /// In place: n elements of `type`. bf16 and f16 elements are combined in
  /// f32 and rounded once per combination, as NCCL reduces them.
  void all_reduce(void *data, size_t n, ElementType type, ReduceOp op,
                  Group group);
  void all_reduce(float *data, size_t n, ReduceOp op, Group group) {
    all_reduce(data, n, ElementType::F32, op, group);
  }
  void all_reduce(int32_t *data, size_t n, ReduceOp op, Group group) {
    all_reduce(data, n, ElementType::I32, op, group);
  }
  /// Host-side totals (losses and counts summed in double).
  void all_reduce(double *data, size_t n, ReduceOp op, Group group);
  /// out holds size(group) * n elements of `type`: rank i's `in` at
  /// out + i * n.
  void all_gather(const void *in, void *out, size_t n, ElementType type,
                  Group group);
  void all_gather(const float *in, float *out, size_t n, Group group) {
    all_gather(in, out, n, ElementType::F32, group);
  }
  /// `in` holds size(group) * n elements of `type`; `out` receives n: the
  /// sum over the group of everyone's elements [rank * n, (rank + 1) * n)
  /// (16-bit floats combined as all_reduce does).
  void reduce_scatter(const void *in, void *out, size_t n, ElementType type,
                      Group group);
  /// Start an all-reduce or a reduce-scatter (as the calls above) and
  /// return at once, so that computing can go on while it travels; its
  /// buffers must not change until wait_started(). Every rank of the group
  /// starts its collectives in the same order, with the blocking ones.
  void start_all_reduce(void *data, size_t n, ElementType type, ReduceOp op,
                        Group group);
  void start_reduce_scatter(const void *in, void *out, size_t n,
                            ElementType type, Group group);
  /// Lets the started collectives, sends and receives move on: MPI
  /// advances non-blocking operations only inside MPI calls.
  void progress();
  /// Ends every started collective, in the order they started, bounded as
  /// a blocking collective is.
  void wait_started();
  /// As all_gather, but only the group's rank 0 receives (out may be null
  /// elsewhere).
  void gather(const float *in, float *out, size_t n, Group group);
  void broadcast(void *data, size_t bytes, int root, Group group);
  /// Point to point: sends `bytes` to rank `peer` of `group` with `tag`
  /// and returns at once (the bytes are copied; the message completes in
  /// the background, and at the latest in finish(), so every message sent
  /// must be received). Messages of one tag between two ranks arrive in
  /// the order they were sent.
  void send(const void *data, size_t bytes, int peer, Group group, int tag = 0);
  /// Receives the next message of `bytes` with `tag` from rank `peer` of
  /// `group`, bounded as a blocking collective is.
  void recv(void *data, size_t bytes, int peer, Group group, int tag = 0);
  /// As recv, but returns at once: the message lands in `data`, which must
  /// stay put until wait_recv(handle) returns. Receives of one tag from one
  /// peer take its messages in the order they were posted; a receive may
  /// be posted before its message is sent. Every receive started is
  /// waited for; finish() cancels the ones that were not.
  RecvHandle start_recv(void *data, size_t bytes, int peer, Group group,
                        int tag = 0);
  /// Ends a receive started by start_recv, bounded as recv is. Throws
  /// std::invalid_argument for a handle that is not a pending receive.
  void wait_recv(RecvHandle handle);
  void barrier(Group group = Group::World);

  void set_watchdog(const Watchdog &watchdog) { watchdog_ = watchdog; }
  const Watchdog &watchdog() const { return watchdog_; }
  /// What a rank that gives up says about where the job stands, in its
  /// line "tpc-run: rank R gives up<during>: ... responding. <resume>.
  /// Ending the job.": `during` as " in step 9", `resume` as "The last good
  /// checkpoint is ..."; an empty `resume` says that no checkpoint was
  /// written.
  struct GiveUpNote {
    std::string during;
    std::string resume;
  };
  /// Asked for the note as a rank gives up (on any thread): the trainer,
  /// which alone knows its step and checkpoints, sets it.
  void set_give_up_note(std::function<GiveUpNote()> note) {
    give_up_note_ = std::move(note);
  }

  /// Leaves the job: a barrier over the world, then MPI_Finalize, each
  /// bounded like a patient collective. MPI_Finalize waits on every rank,
  /// so a rank that finished while a peer is stopped would otherwise wait
  /// forever; instead it gives up (one line, non-zero exit) after the
  /// signal grace when a peer on this node is stopped, at once when the
  /// launcher is ending the job, or after --comm-timeout. Only the first
  /// call does anything.
  void finish();

  /// While one exists, a stop signal does not cut short a collective of a
  /// rank other than `worker` (-1: of any rank) unless a peer on this node
  /// is stopped or the launcher sent the signal (the timeout and the check
  /// of exited peers still apply): the ranks wait on world rank `worker`
  /// while it writes a checkpoint, which may take long. The worker itself
  /// waits on its peers as always, so a peer that stopped during a save
  /// cannot hold it.
  class Patient {
  public:
    explicit Patient(Comm &comm, int worker = 0)
        : comm_(comm), counts_(comm.world_rank() != worker) {
      if (counts_)
        ++comm_.patient_;
    }
    ~Patient() {
      if (counts_)
        --comm_.patient_;
    }
    Patient(const Patient &) = delete;
    Patient &operator=(const Patient &) = delete;

  private:
    Comm &comm_;
    bool counts_;
  };

  /// True on every rank when `ok` is true on every rank. A collective over
  /// the world: the way ranks agree to stop together after an error.
  bool all_ok(bool ok);
  /// Ends the whole job (MPI_Abort) or, alone, this process.
  [[noreturn]] void abort(int code);
  /// Throws std::invalid_argument unless `peer` is another rank of `group`:
  /// `what` as "send to" names the call.
  void check_peer(const char *what, int peer, Group group) const;
  /// Prints the line of a rank that gives up on `collective` over `group`
  /// because it `why` ("has made no progress for ..."), as a wait here
  /// does, and ends the job. Also for collectives that run elsewhere (the
  /// NCCL watchdog's thread, runtime/backends/cuda/CollectiveWatchdog.h).
  [[noreturn]] void give_up(const char *collective, Group group,
                            const std::string &why);

private:
  struct Groups; // the MPI communicators, kept out of this header
  struct Request;
  struct Sent;   // a send in flight and its copy of the bytes
  struct Posted; // a receive started and not yet waited for

  /// Issue the non-blocking MPI call behind all_reduce or reduce_scatter
  /// into `r`; false when there is nothing to wait for (a group of one,
  /// where a reduce-scatter is a copy).
  bool issue_all_reduce(void *data, size_t n, ElementType type, ReduceOp op,
                        Group group, Request &r);
  bool issue_reduce_scatter(const void *in, void *out, size_t n,
                            ElementType type, Group group, Request &r);
  /// Polls `request` until it completes; gives up as the watchdog says.
  void wait(Request &request, const char *collective, Group group);
  /// The line a rank prints when it gives up on `what` over `group`.
  std::string give_up_message(const std::string &what, Group group,
                              const std::string &why) const;
  /// The world ranks of `group`, this one among them, in the order of
  /// their rank in the group.
  std::vector<int> group_ranks(Group group) const;
  /// Frees the groups' MPI communicators.
  void free_groups();

  bool distributed_ = false;
  int world_rank_ = 0, world_size_ = 1, local_size_ = 1;
  int tp_rank_ = 0, tp_size_ = 1, dp_rank_ = 0, dp_size_ = 1;
  int pp_rank_ = 0, pp_size_ = 1;
  int stack_rank_ = 0, stack_size_ = 1;
  std::unique_ptr<Groups> groups_;
  Watchdog watchdog_;
  std::function<GiveUpNote()> give_up_note_;
  int patient_ = 0;
  bool finished_ = false;
  /// The peers on this node, which a waiting rank checks on.
  PeerWatch peers_;
  struct Started;
  std::vector<std::unique_ptr<Started>> started_;
  std::vector<std::unique_ptr<Sent>> sent_;
  std::vector<std::unique_ptr<Posted>> posted_;
  uint64_t next_recv_ = 1;
  /// Ends the sends that have completed; with `all`, waits for the rest.
  void reap_sends(bool all);
};

} // namespace tpc

#endif // TPC_RUNTIME_COMM_COMM_H
