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
  MPI_Comm tp = MPI_COMM_NULL, dp = MPI_COMM_NULL, pp = MPI_COMM_NULL,
           embedding = MPI_COMM_NULL, stack = MPI_COMM_NULL;
  MPI_Comm world = MPI_COMM_WORLD;

  MPI_Comm &of(Group group) {
    switch (group) {
    case Group::TP:
      return tp;
    case Group::DP:
      return dp;
    case Group::PP:
      return pp;
    case Group::Embedding:
      return embedding;
    case Group::Stack:
      return stack;
    case Group::World:
      break;
    }
    return world;
  }
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

struct Comm::Posted {
  Request request;
  uint64_t id;
  Group group;
};

const char *group_name(Group group) {
  switch (group) {
  case Group::TP:
    return enums::group::kTp;
  case Group::DP:
    return enums::group::kDp;
  case Group::PP:
    return enums::group::kPp;
  case Group::Embedding:
    return enums::group::kEmbedding;
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
  peers_.start_heartbeats();
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
  // A run that ended between posting a receive and waiting for it: its
  // message may never come.
  for (auto &p : posted_) {
    mpiCheck(MPI_Cancel(&p->request.handle));
    wait(p->request, "recv", p->group);
  }
  posted_.clear();
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
  peers_.stop_heartbeats();
  free_groups();
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

void Comm::make_groups(int tp, int dp, int stacks, int pp) {
  if (tp < 1 || dp < 1 || stacks < 1 || pp < 1)
    throw std::runtime_error("tp, dp, pp and stacks must be at least 1");
  if (dp > 1 && stacks > 1)
    throw std::runtime_error(
        "the program places its stacks on ranks of their own and is also "
        "data-parallel; a stack-parallel program decodes with dp 1: "
        "recompile it with --dp=1");
  if (pp > 1 && stacks > 1)
    throw std::runtime_error(
        "the program places its stacks on ranks of their own and is also "
        "pipeline-parallel; a stack-parallel program decodes with pp 1: "
        "recompile it with --pp=1");
  int64_t need = int64_t(tp) * dp * pp * stacks;
  if (need != world_size_) {
    std::ostringstream msg;
    msg << "the program runs on ";
    if (stacks > 1)
      msg << stacks << " stacks x tp " << tp;
    else
      msg << "tp " << tp << " x dp " << dp;
    if (pp > 1)
      msg << " x pp " << pp;
    msg << " = " << need << " ranks, but this job has " << world_size_
        << (world_size_ == 1 ? " process" : " processes")
        << "; start it with `mpirun -np " << need << " tpc-run ...`";
    throw std::runtime_error(msg.str());
  }
  tp_size_ = tp;
  dp_size_ = dp;
  pp_size_ = pp;
  stack_size_ = stacks;
  // Stacks take the place of dp and pp, which are 1 then.
  tp_rank_ = world_rank_ % tp;
  dp_rank_ = world_rank_ / tp % dp;
  pp_rank_ = world_rank_ / (tp * dp) % pp;
  stack_rank_ = world_rank_ / tp % stacks;
  if (!distributed_)
    return;
  free_groups();
  // The groups of one kind partition the world: a group's first world rank
  // names it.
  for (Group g :
       {Group::TP, Group::DP, Group::PP, Group::Embedding, Group::Stack}) {
    MPI_Comm &c = groups_->of(g);
    mpiCheck(
        MPI_Comm_split(MPI_COMM_WORLD, group_ranks(g).front(), rank(g), &c));
    mpiCheck(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  }
}

void Comm::free_groups() {
  for (Group g :
       {Group::TP, Group::DP, Group::PP, Group::Embedding, Group::Stack}) {
    MPI_Comm &c = groups_->of(g);
    if (c != MPI_COMM_NULL)
      MPI_Comm_free(&c);
  }
}

int Comm::rank(Group group) const {
  switch (group) {
  case Group::TP:
    return tp_rank_;
  case Group::DP:
    return dp_rank_;
  case Group::PP:
    return pp_rank_;
  case Group::Embedding:
    return size(group) > 1 && pp_rank_ > 0 ? 1 : 0;
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
  case Group::PP:
    return pp_size_;
  case Group::Embedding:
    return pp_size_ > 1 && in_embedding_group() ? 2 : 1;
  case Group::Stack:
    return stack_size_;
  case Group::World:
    break;
  }
  return world_size_;
}

std::vector<int> Comm::group_ranks(Group group) const {
  // The members differ from this rank in the group's own coordinate only
  // (tp_rank, dp_rank, pp_rank or stack_rank), which world ranks step
  // through by `stride`.
  int stride = 1, along = world_rank_;
  switch (group) {
  case Group::TP:
    along = tp_rank_;
    break;
  case Group::DP:
    stride = tp_size_;
    along = dp_rank_;
    break;
  case Group::PP:
  case Group::Embedding:
    stride = tp_size_ * dp_size_;
    along = pp_rank_;
    break;
  case Group::Stack:
    stride = tp_size_;
    along = stack_rank_;
    break;
  case Group::World:
    break;
  }
  int first = world_rank_ - along * stride;
  if (group == Group::Embedding && size(group) == 1)
    return {world_rank_};
  if (group == Group::Embedding)
    return {first, first + (pp_size_ - 1) * stride};
  std::vector<int> ranks;
  for (int i = 0; i < size(group); ++i)
    ranks.push_back(first + i * stride);
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
                          mpi_op(type, op), groups_->of(group), &r.handle));
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
                                     groups_->of(group), &r.handle));
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
                          groups_->of(group), &r.handle));
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
                          mpi_type(type), groups_->of(group), &r.handle));
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
  for (auto &p : posted_)
    mpiCheck(MPI_Test(&p->request.handle, &done, MPI_STATUS_IGNORE));
  reap_sends(false);
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
                       groups_->of(group), &r.handle));
  wait(r, "gather", group);
}

void Comm::broadcast(void *data, size_t bytes, int root, Group group) {
  if (!distributed_ || size(group) == 1)
    return;
  Request r;
  mpiCheck(MPI_Ibcast(data, int(bytes), MPI_BYTE, root, groups_->of(group),
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
                     groups_->of(group), &s->request.handle));
  sent_.push_back(std::move(s));
}

void Comm::recv(void *data, size_t bytes, int peer, Group group, int tag) {
  wait_recv(start_recv(data, bytes, peer, group, tag));
}

RecvHandle Comm::start_recv(void *data, size_t bytes, int peer, Group group,
                            int tag) {
  check_peer("receive from", peer, group);
  auto p = std::make_unique<Posted>(Posted{{}, next_recv_++, group});
  mpiCheck(MPI_Irecv(data, int(bytes), MPI_BYTE, peer, tag, groups_->of(group),
                     &p->request.handle));
  posted_.push_back(std::move(p));
  return RecvHandle{posted_.back()->id};
}

void Comm::wait_recv(RecvHandle handle) {
  auto it = std::find_if(posted_.begin(), posted_.end(),
                         [&](const auto &p) { return p->id == handle.id; });
  if (it == posted_.end())
    throw std::invalid_argument(
        "wait_recv: no receive is pending as handle " +
        std::to_string(handle.id) +
        " (it was never started, or it was waited for already)");
  std::unique_ptr<Posted> p = std::move(*it);
  posted_.erase(it);
  wait(p->request, "recv", p->group);
}

void Comm::barrier(Group group) {
  if (!distributed_ || size(group) == 1)
    return;
  Request r;
  mpiCheck(MPI_Ibarrier(groups_->of(group), &r.handle));
  wait(r, "barrier", group);
}

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
