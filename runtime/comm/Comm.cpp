//===- Comm.cpp - MPI communicators and the single-process job ------------===//

#include "runtime/comm/Comm.h"

#include "runtime/comm/Faults.h"
#include "runtime/comm/MpiTypes.h"
#include "runtime/program/OpSchema.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tpc {

namespace {
int env_int(const char *name, int fallback) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return fallback;
  char *end = nullptr;
  long v = std::strtol(value, &end, 10);
  return (end && *end == '\0' && v > 0) ? int(v) : fallback;
}
} // namespace

struct Comm::Groups {
  MPI_Comm tp = MPI_COMM_NULL, dp = MPI_COMM_NULL, stack = MPI_COMM_NULL;
};

struct Comm::Request {
  MPI_Request handle = MPI_REQUEST_NULL;
};

struct Comm::Started {
  Request request;
  const char *collective;
  Group group;
};

struct Comm::Sent {
  Request request;
  std::vector<char> bytes;
  Group group;
};

const char *group_name(Group group) {
  switch (group) {
  case Group::TP:
    return enums::group::kTp;
  case Group::DP:
    return enums::group::kDp;
  case Group::Stack:
    return "stack";
  case Group::World:
    break;
  }
  return "world";
}

bool launched_by_mpi() {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(name))
      return true;
  return false;
}

Comm::Comm(int *argc, char ***argv) : groups_(std::make_unique<Groups>()) {
  distributed_ = launched_by_mpi();
  if (!distributed_)
    return;
  // Collectives are non-blocking (wait() watches the peers while one runs).
  // Open MPI's non-blocking all-reduce takes a binomial tree for fewer than
  // 4 ranks or in place, which all of ours are: a reduction to one rank and
  // a broadcast back, twice the time of the blocking all-reduce. Its
  // reduce-scatter and all-gather (Rabenseifner's) matches the blocking one:
  // 0.27 against 0.57 ms for a tp=2 all-reduce of GPT-2 124M's (B*T, C)
  // bf16 activations. Every rank still gets the same bits. A setting of the
  // user's own comes first; other MPIs ignore the variable.
  setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", /*overwrite=*/0);
  mpiCheck(MPI_Init(argc, argv));
  // Errors come back as codes so that mpiCheck can say where they happened.
  mpiCheck(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  mpiCheck(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_));
  mpiCheck(MPI_Comm_size(MPI_COMM_WORLD, &world_size_));
  local_size_ = env_int("OMPI_COMM_WORLD_LOCAL_SIZE",
                        env_int("MPI_LOCALNRANKS", world_size_));
  // Each rank's pid and node: a waiting rank checks on its peers.
  constexpr int kHost = 256;
  char host[kHost] = {};
  gethostname(host, kHost - 1);
  std::vector<char> hosts(size_t(world_size_) * kHost);
  std::vector<int> pids(static_cast<size_t>(world_size_));
  int pid = int(getpid());
  mpiCheck(
      MPI_Allgather(&pid, 1, MPI_INT, pids.data(), 1, MPI_INT, MPI_COMM_WORLD));
  mpiCheck(MPI_Allgather(host, kHost, MPI_CHAR, hosts.data(), kHost, MPI_CHAR,
                         MPI_COMM_WORLD));
  std::vector<std::string> names;
  for (int r = 0; r < world_size_; ++r)
    names.emplace_back(hosts.data() + size_t(r) * kHost);
  peers_ = PeerWatch(world_rank_, std::move(pids), std::move(names));
}

Comm::~Comm() { finish(); }

void Comm::finish() {
  if (finished_)
    return;
  finished_ = true;
  if (!distributed_)
    return;
  auto fault = [&](const char *point) {
    try {
      fault_point(point, world_rank_, 0);
    } catch (const std::exception &) {
      // Reported where the job started.
    }
  };
  // A run that ended between starting its gradient reductions and waiting
  // for them (every rank started the same ones).
  wait_started();
  reap_sends(true);
  fault("before-exit-barrier");
  // Every rank is done with its collectives once all reach this barrier; a
  // peer that never does (stopped, or gone) is given up on as in any
  // collective, instead of inside MPI_Finalize, which cannot be bounded.
  // Patiently: after a stop signal a peer may still be at work (rank 0
  // drawing the loss curve), so the grace applies to a stopped peer only.
  {
    Patient everyone(*this, -1);
    Request r;
    mpiCheck(MPI_Ibarrier(MPI_COMM_WORLD, &r.handle));
    wait(r, "exit barrier", Group::World);
  }
  if (groups_->tp != MPI_COMM_NULL)
    MPI_Comm_free(&groups_->tp);
  if (groups_->dp != MPI_COMM_NULL)
    MPI_Comm_free(&groups_->dp);
  if (groups_->stack != MPI_COMM_NULL)
    MPI_Comm_free(&groups_->stack);
  fault("before-finalize");
  // A peer can still stop between the barrier and its own MPI_Finalize,
  // which then waits on it: a guard thread bounds the wait by the same
  // rules and ends this process if it runs out. After the barrier no rank
  // has work left, but a slow one may still be on its way into
  // MPI_Finalize: patient, as in the barrier.
  run_guarded(
      BoundedWait(watchdog_, peers_, group_ranks(Group::World),
                  /*patient=*/true, /*watch_exits=*/false),
      [] { MPI_Finalize(); },
      [&](const std::string &why) {
        std::string text = give_up_message("MPI_Finalize", Group::World, why);
        std::fputs(text.c_str(), stderr);
        std::fflush(stdout);
        std::fflush(stderr);
        // MPI cannot be used while MPI_Finalize runs in another thread.
        std::_Exit(1);
      });
}

void Comm::make_groups(int tp, int dp, int stacks) {
  if (tp < 1 || dp < 1 || stacks < 1)
    throw std::runtime_error("tp, dp and stacks must be at least 1");
  if (dp > 1 && stacks > 1)
    throw std::runtime_error(
        "the program places its stacks on ranks of their own and is also "
        "data-parallel; a stack-parallel program decodes with dp 1: "
        "recompile it with --dp=1");
  if (int64_t(tp) * dp * stacks != world_size_) {
    std::ostringstream msg;
    msg << "the program runs on ";
    if (stacks > 1)
      msg << stacks << " stacks x tp " << tp;
    else
      msg << "tp " << tp << " x dp " << dp;
    int64_t need = int64_t(tp) * dp * stacks;
    msg << " = " << need << " ranks, but this job has " << world_size_
        << (world_size_ == 1 ? " process" : " processes")
        << "; start it with `mpirun -np " << need << " tpc-run ...`";
    throw std::runtime_error(msg.str());
  }
  tp_size_ = tp;
  dp_size_ = dp;
  stack_size_ = stacks;
  tp_rank_ = world_rank_ % tp;
  dp_rank_ = stacks > 1 ? 0 : world_rank_ / tp;
  stack_rank_ = stacks > 1 ? world_rank_ / tp : 0;
  if (!distributed_)
    return;
  // Colour by the group's index, key by the rank inside it. The ranks of
  // one tp_rank form the DP group of a data-parallel job and the stack
  // group of a stack-parallel one; the other of the two is this rank alone.
  int across = world_rank_ / tp;
  mpiCheck(MPI_Comm_split(MPI_COMM_WORLD, across, tp_rank_, &groups_->tp));
  mpiCheck(MPI_Comm_split(MPI_COMM_WORLD, stacks > 1 ? world_rank_ : tp_rank_,
                          dp_rank_, &groups_->dp));
  mpiCheck(MPI_Comm_split(MPI_COMM_WORLD, dp > 1 ? world_rank_ : tp_rank_,
                          stack_rank_, &groups_->stack));
  for (MPI_Comm c : {groups_->tp, groups_->dp, groups_->stack})
    mpiCheck(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
}

int Comm::rank(Group group) const {
  switch (group) {
  case Group::TP:
    return tp_rank_;
  case Group::DP:
    return dp_rank_;
  case Group::Stack:
    return stack_rank_;
  case Group::World:
    break;
  }
  return world_rank_;
}

int Comm::size(Group group) const {
  switch (group) {
  case Group::TP:
    return tp_size_;
  case Group::DP:
    return dp_size_;
  case Group::Stack:
    return stack_size_;
  case Group::World:
    break;
  }
  return world_size_;
}

namespace {
MPI_Comm mpi_comm(Group group, MPI_Comm tp, MPI_Comm dp, MPI_Comm stack) {
  switch (group) {
  case Group::TP:
    return tp;
  case Group::DP:
    return dp;
  case Group::Stack:
    return stack;
  case Group::World:
    break;
  }
  return MPI_COMM_WORLD;
}
} // namespace

#define TPC_COMM_OF(group)                                                     \
  mpi_comm(group, groups_->tp, groups_->dp, groups_->stack)

std::vector<int> Comm::group_ranks(Group group) const {
  std::vector<int> ranks;
  for (int r = 0; r < world_size_; ++r)
    if (group == Group::World ||
        (group == Group::TP && r / tp_size_ == world_rank_ / tp_size_) ||
        (group == Group::DP &&
         (stack_size_ > 1 ? r == world_rank_ : r % tp_size_ == tp_rank_)) ||
        (group == Group::Stack &&
         (dp_size_ > 1 ? r == world_rank_ : r % tp_size_ == tp_rank_)))
      ranks.push_back(r);
  return ranks;
}

void Comm::give_up(const char *collective, Group group,
                   const std::string &why) {
  std::string text = give_up_message(collective, group, why);
  std::fputs(text.c_str(), stderr);
  std::fflush(stdout);
  std::fflush(stderr);
  // Open MPI's mpirun ends the whole job when a rank exits non-zero, as
  // MPI_Abort would. MPI_Abort also sends mpirun a help message, and when
  // mpirun kills the ranks while such messages are in flight it reports
  // them, cut short, as an error of its own ("ORTE_ERROR_LOG: Data unpack
  // would read past end of buffer"), which reads like a second failure.
  if (std::getenv("OMPI_COMM_WORLD_SIZE"))
    std::_Exit(1);
  abort(1);
}

std::string Comm::give_up_message(const std::string &what, Group group,
                                  const std::string &why) const {
  std::ostringstream ranks;
  std::vector<int> members = group_ranks(group);
  for (size_t i = 0; i < members.size(); ++i)
    ranks << (i ? "," : "") << members[i];
  std::ostringstream msg;
  GiveUpNote note = give_up_note_ ? give_up_note_() : GiveUpNote();
  msg << "tpc-run: rank " << world_rank_ << " gives up" << note.during << ": "
      << what << " over the " << group_name(group) << " group (world ranks "
      << ranks.str() << ") " << why
      << "; a peer rank has probably died or stopped responding. "
      << (note.resume.empty() ? "No checkpoint was written by this run"
                              : note.resume)
      << ". Ending the job.\n";
  return msg.str();
}

void Comm::wait(Request &request, const char *collective, Group group) {
  int done = 0;
  mpiCheck(MPI_Test(&request.handle, &done, MPI_STATUS_IGNORE));
  if (done)
    return;
  BoundedWait bound(watchdog_, peers_, group_ranks(group), patient_ > 0,
                    /*watch_exits=*/true);
  for (;;) {
    mpiCheck(MPI_Test(&request.handle, &done, MPI_STATUS_IGNORE));
    if (done)
      return;
    std::string why = bound.why_give_up();
    if (!why.empty())
      give_up(collective, group, why);
    // A long wait (a peer writing a checkpoint, or gone) need not spin.
    if (bound.waited() >= 1.0)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool Comm::issue_all_reduce(void *data, size_t n, ElementType type, ReduceOp op,
                            Group group, Request &r) {
  if (!distributed_ || size(group) == 1 || n == 0)
    return false;
  mpiCheck(MPI_Iallreduce(MPI_IN_PLACE, data, int(n), mpi_type(type),
                          mpi_op(type, op), TPC_COMM_OF(group), &r.handle));
  return true;
}

bool Comm::issue_reduce_scatter(const void *in, void *out, size_t n,
                                ElementType type, Group group, Request &r) {
  if (!distributed_ || size(group) == 1) {
    std::memcpy(out, in, n * element_size(type));
    return false;
  }
  mpiCheck(MPI_Ireduce_scatter_block(in, out, int(n), mpi_type(type),
                                     mpi_op(type, ReduceOp::Sum),
                                     TPC_COMM_OF(group), &r.handle));
  return true;
}

void Comm::all_reduce(void *data, size_t n, ElementType type, ReduceOp op,
                      Group group) {
  Request r;
  if (issue_all_reduce(data, n, type, op, group, r))
    wait(r, "all_reduce", group);
}

void Comm::all_reduce(double *data, size_t n, ReduceOp op, Group group) {
  if (!distributed_ || size(group) == 1 || n == 0)
    return;
  Request r;
  mpiCheck(MPI_Iallreduce(MPI_IN_PLACE, data, int(n), MPI_DOUBLE, mpi_op(op),
                          TPC_COMM_OF(group), &r.handle));
  wait(r, "all_reduce", group);
}

void Comm::all_gather(const void *in, void *out, size_t n, ElementType type,
                      Group group) {
  if (!distributed_ || size(group) == 1) {
    std::memcpy(out, in, n * element_size(type));
    return;
  }
  Request r;
  mpiCheck(MPI_Iallgather(in, int(n), mpi_type(type), out, int(n),
                          mpi_type(type), TPC_COMM_OF(group), &r.handle));
  wait(r, "all_gather", group);
}

void Comm::reduce_scatter(const void *in, void *out, size_t n, ElementType type,
                          Group group) {
  Request r;
  if (issue_reduce_scatter(in, out, n, type, group, r))
    wait(r, "reduce_scatter", group);
}

void Comm::start_all_reduce(void *data, size_t n, ElementType type, ReduceOp op,
                            Group group) {
  auto s = std::make_unique<Started>(Started{{}, "all_reduce", group});
  if (issue_all_reduce(data, n, type, op, group, s->request))
    started_.push_back(std::move(s));
}

void Comm::start_reduce_scatter(const void *in, void *out, size_t n,
                                ElementType type, Group group) {
  auto s = std::make_unique<Started>(Started{{}, "reduce_scatter", group});
  if (issue_reduce_scatter(in, out, n, type, group, s->request))
    started_.push_back(std::move(s));
}

void Comm::progress() {
  int done = 0;
  for (auto &s : started_)
    mpiCheck(MPI_Test(&s->request.handle, &done, MPI_STATUS_IGNORE));
}

void Comm::wait_started() {
  for (auto &s : started_)
    wait(s->request, s->collective, s->group);
  started_.clear();
}

void Comm::gather(const float *in, float *out, size_t n, Group group) {
  if (!distributed_ || size(group) == 1) {
    std::copy(in, in + n, out);
    return;
  }
  Request r;
  mpiCheck(MPI_Igather(in, int(n), MPI_FLOAT, out, int(n), MPI_FLOAT, 0,
                       TPC_COMM_OF(group), &r.handle));
  wait(r, "gather", group);
}

void Comm::broadcast(void *data, size_t bytes, int root, Group group) {
  if (!distributed_ || size(group) == 1)
    return;
  Request r;
  mpiCheck(MPI_Ibcast(data, int(bytes), MPI_BYTE, root, TPC_COMM_OF(group),
                      &r.handle));
  wait(r, "broadcast", group);
}

void Comm::check_peer(const char *what, int peer, Group group) const {
  if (peer < 0 || peer >= size(group) || peer == rank(group))
    throw std::invalid_argument(
        std::string(what) + " rank " + std::to_string(peer) + " of the " +
        group_name(group) + " group, which has " + std::to_string(size(group)) +
        " ranks (this one is " + std::to_string(rank(group)) + ")");
}

void Comm::reap_sends(bool all) {
  std::vector<std::unique_ptr<Sent>> pending;
  for (auto &s : sent_) {
    if (all) {
      wait(s->request, "send", s->group);
      continue;
    }
    int done = 0;
    mpiCheck(MPI_Test(&s->request.handle, &done, MPI_STATUS_IGNORE));
    if (!done)
      pending.push_back(std::move(s));
  }
  sent_ = std::move(pending);
}

void Comm::send(const void *data, size_t bytes, int peer, Group group,
                int tag) {
  check_peer("send to", peer, group);
  reap_sends(false);
  auto s = std::make_unique<Sent>();
  s->group = group;
  s->bytes.assign(static_cast<const char *>(data),
                  static_cast<const char *>(data) + bytes);
  mpiCheck(MPI_Isend(s->bytes.data(), int(bytes), MPI_BYTE, peer, tag,
                     TPC_COMM_OF(group), &s->request.handle));
  sent_.push_back(std::move(s));
}

void Comm::recv(void *data, size_t bytes, int peer, Group group, int tag) {
  check_peer("receive from", peer, group);
  Request r;
  mpiCheck(MPI_Irecv(data, int(bytes), MPI_BYTE, peer, tag, TPC_COMM_OF(group),
                     &r.handle));
  wait(r, "recv", group);
}

void Comm::barrier(Group group) {
  if (!distributed_ || size(group) == 1)
    return;
  Request r;
  mpiCheck(MPI_Ibarrier(TPC_COMM_OF(group), &r.handle));
  wait(r, "barrier", group);
}

#undef TPC_COMM_OF

bool Comm::all_ok(bool ok) {
  if (!distributed_)
    return ok;
  int flag = ok ? 1 : 0;
  Request r;
  mpiCheck(MPI_Iallreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MIN,
                          MPI_COMM_WORLD, &r.handle));
  wait(r, "all_reduce", Group::World);
  return flag == 1;
}

void Comm::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (distributed_)
    MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

} // namespace tpc
