//===- Comm.cpp - MPI communicators and the single-process job ------------===//

#include "runtime/comm/Comm.h"

#include "runtime/comm/Faults.h"
#include "runtime/util/Float16.h"
#include "runtime/util/VectorClones.h"

#include <cblas.h>
#include <mpi.h>
#include <omp.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

/// Reports a failed MPI call with its file and line and ends the job: an MPI
/// error leaves the communicators unusable, so no rank could recover.
#define mpiCheck(call) ::tpc::mpi_check((call), #call, __FILE__, __LINE__)

namespace tpc {

namespace {
void mpi_check(int status, const char *call, const char *file, int line) {
  if (status == MPI_SUCCESS)
    return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(status, text, &length);
  std::fprintf(stderr, "tpc-run: MPI error at %s:%d in %s: %.*s\n", file, line,
               call, length, text);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

int env_int(const char *name, int fallback) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return fallback;
  char *end = nullptr;
  long v = std::strtol(value, &end, 10);
  return (end && *end == '\0' && v > 0) ? int(v) : fallback;
}

MPI_Op mpi_op(ReduceOp op) { return op == ReduceOp::Sum ? MPI_SUM : MPI_MAX; }

MPI_Datatype mpi_type(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return MPI_FLOAT;
  case ElementType::I32:
    return MPI_INT32_T;
  case ElementType::BF16:
  case ElementType::F16:
    return MPI_UINT16_T;
  }
  return MPI_DATATYPE_NULL;
}

/// MPI has no 16-bit floats: a user reduction widens each pair to f32,
/// combines it and rounds the result once. In clones for each vector width:
/// the reductions of tensor parallelism's all-reduces (B*T*C bf16 values,
/// 4 per layer) ran at 0.57 ns a value in baseline x86-64 code, 0.19 with
/// AVX-512.
template <float (*Load)(uint16_t), uint16_t (*Store)(float), ReduceOp Op>
TPC_VECTOR_CLONES_TEMPLATE void reduce_16bit(void *in, void *inout, int *len,
                                             MPI_Datatype *) {
  const auto *a = static_cast<const uint16_t *>(in);
  auto *b = static_cast<uint16_t *>(inout);
  const int n = *len;
#pragma omp simd
  for (int i = 0; i < n; ++i) {
    float x = Load(a[i]), y = Load(b[i]);
    b[i] = Store(Op == ReduceOp::Sum ? x + y : std::max(x, y));
  }
}

template <float (*Load)(uint16_t), uint16_t (*Store)(float), ReduceOp Op>
MPI_Op user_op() {
  // Created once, after MPI_Init (the first collective comes after it);
  // MPI_Finalize releases it.
  static MPI_Op op = [] {
    MPI_Op created;
    mpiCheck(MPI_Op_create(reduce_16bit<Load, Store, Op>, /*commute=*/1,
                           &created));
    return created;
  }();
  return op;
}

MPI_Op mpi_op(ElementType type, ReduceOp op) {
  bool sum = op == ReduceOp::Sum;
  if (type == ElementType::BF16)
    return sum ? user_op<bf16_to_f32, f32_to_bf16, ReduceOp::Sum>()
               : user_op<bf16_to_f32, f32_to_bf16, ReduceOp::Max>();
  if (type == ElementType::F16)
    return sum ? user_op<f16_to_f32, f32_to_f16, ReduceOp::Sum>()
               : user_op<f16_to_f32, f32_to_f16, ReduceOp::Max>();
  return mpi_op(op);
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

namespace {
/// Whether process `pid` of this node has exited: gone, or a zombie that
/// its launcher has not reaped yet.
bool exited(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line))
    return kill(pid, 0) != 0 && errno == ESRCH;
  // pid (command) state ...: the command may hold spaces and parentheses.
  size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size())
    return false;
  char state = line[close + 2];
  return state == 'Z' || state == 'X';
}

/// Whether process `pid` of this node is stopped (SIGSTOP, or a debugger).
bool stopped(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line))
    return false;
  size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size())
    return false;
  char state = line[close + 2];
  return state == 'T' || state == 't';
}

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
} // namespace

Group parse_group(const std::string &name) {
  if (name == "tp")
    return Group::TP;
  if (name == "dp")
    return Group::DP;
  if (name == "stack")
    return Group::Stack;
  if (name == "world")
    return Group::World;
  throw std::runtime_error("unknown communication group '" + name +
                           "' (expected tp, dp, stack or world)");
}

const char *group_name(Group group) {
  switch (group) {
  case Group::TP:
    return "tp";
  case Group::DP:
    return "dp";
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
  pids_.resize(size_t(world_size_));
  int pid = int(getpid());
  mpiCheck(MPI_Allgather(&pid, 1, MPI_INT, pids_.data(), 1, MPI_INT,
                         MPI_COMM_WORLD));
  mpiCheck(MPI_Allgather(host, kHost, MPI_CHAR, hosts.data(), kHost, MPI_CHAR,
                         MPI_COMM_WORLD));
  for (int r = 0; r < world_size_; ++r)
    hosts_.emplace_back(hosts.data() + size_t(r) * kHost);
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
  // rules and ends this process if it runs out.
  using clock = std::chrono::steady_clock;
  std::mutex mutex;
  std::condition_variable finalized;
  bool done = false;
  std::thread guard([&] {
    std::unique_lock<std::mutex> lock(mutex);
    const clock::time_point start = clock::now();
    clock::time_point signalled;
    bool stopping = false;
    while (!finalized.wait_for(lock, std::chrono::milliseconds(100),
                               [&] { return done; })) {
      clock::time_point now = clock::now();
      if (!stopping && watchdog_.stop && *watchdog_.stop) {
        stopping = true;
        signalled = now;
      }
      // After the barrier no rank has work left, but a slow one may still
      // be on its way into MPI_Finalize: patient, as in the barrier.
      std::string why;
      if (stopping && seconds_between(signalled, now) >= grace() &&
          (stopped_by_launcher() || stopped_peer(Group::World))) {
        why = after_signal();
      } else if (watchdog_.timeout > 0 &&
                 seconds_between(start, now) >= watchdog_.timeout) {
        std::ostringstream text;
        text << "has made no progress for " << watchdog_.timeout
             << " s (--comm-timeout)";
        why = text.str();
      }
      if (!why.empty()) {
        std::string text = give_up_message("MPI_Finalize", Group::World, why);
        std::fputs(text.c_str(), stderr);
        std::fflush(stdout);
        std::fflush(stderr);
        // MPI cannot be used while MPI_Finalize runs in another thread.
        std::_Exit(1);
      }
    }
  });
  MPI_Finalize();
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  finalized.notify_all();
  guard.join();
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

std::vector<std::string> Comm::gone_peers(Group group) const {
  std::vector<std::string> gone;
  for (int r : group_ranks(group))
    if (r != world_rank_ && size_t(r) < pids_.size() &&
        hosts_[size_t(r)] == hosts_[size_t(world_rank_)] &&
        exited(pids_[size_t(r)]))
      gone.push_back("world rank " + std::to_string(r) + " (pid " +
                     std::to_string(pids_[size_t(r)]) + ")");
  return gone;
}

bool Comm::stopped_by_launcher() const {
  return watchdog_.stop_from_launcher && *watchdog_.stop_from_launcher;
}

double Comm::grace() const {
  return stopped_by_launcher() ? watchdog_.launcher_grace : watchdog_.grace;
}

std::string Comm::after_signal() const {
  std::ostringstream why;
  why << "has not completed within " << grace() << " s of signal "
      << int(*watchdog_.stop)
      << (stopped_by_launcher()
              ? " from the launcher (mpirun ends the job when a rank dies)"
              : "");
  return why.str();
}

bool Comm::stopped_peer(Group group) const {
  for (int r : group_ranks(group))
    if (r != world_rank_ && size_t(r) < pids_.size() &&
        hosts_[size_t(r)] == hosts_[size_t(world_rank_)] &&
        stopped(pids_[size_t(r)]))
      return true;
  return false;
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
  msg << "tpc-run: rank " << world_rank_ << " gives up";
  if (step_ > 0)
    msg << " in step " << step_;
  msg << ": " << what << " over the " << group_name(group)
      << " group (world ranks " << ranks.str() << ") " << why
      << "; a peer rank has probably died or stopped responding. "
      << (checkpoint_.empty()
              ? std::string("No checkpoint was written by this run")
              : "The last good checkpoint is " + checkpoint_ +
                    " (resume with --load " + checkpoint_ + ")")
      << ". Ending the job.\n";
  return msg.str();
}

void Comm::wait(Request &request, const char *collective, Group group) {
  using clock = std::chrono::steady_clock;
  int done = 0;
  mpiCheck(MPI_Test(&request.handle, &done, MPI_STATUS_IGNORE));
  if (done)
    return;
  const clock::time_point start = clock::now();
  clock::time_point signalled, checked = start;
  bool stopping = false;
  for (;;) {
    mpiCheck(MPI_Test(&request.handle, &done, MPI_STATUS_IGNORE));
    if (done)
      return;
    clock::time_point now = clock::now();
    double waited = seconds_between(start, now);
    if (!stopping && watchdog_.stop && *watchdog_.stop) {
      stopping = true;
      signalled = now;
      checked = clock::time_point(); // look at the peers at once
    }
    // Peers on this node: every second, or every 0.1 s once stopping.
    if (seconds_between(checked, now) >= (stopping ? 0.1 : 1.0)) {
      checked = now;
      std::vector<std::string> gone = gone_peers(group);
      if (!gone.empty()) {
        std::string who;
        for (const std::string &g : gone)
          who += (who.empty() ? "" : ", ") + g;
        give_up(collective, group,
                "cannot complete: " + who +
                    (gone.size() == 1 ? " has" : " have") + " exited");
      }
    }
    // Patience is for a peer at work, not for one that is stopped, nor
    // when the launcher is killing the job anyway.
    if (stopping && seconds_between(signalled, now) >= grace() &&
        (patient_ == 0 || stopped_by_launcher() || stopped_peer(group)))
      give_up(collective, group, after_signal());
    if (watchdog_.timeout > 0 && waited >= watchdog_.timeout) {
      std::ostringstream why;
      why << "has made no progress for " << watchdog_.timeout
          << " s (--comm-timeout)";
      give_up(collective, group, why.str());
    }
    // A long wait (a peer writing a checkpoint, or gone) need not spin.
    if (waited >= 1.0)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool Comm::issue_all_reduce(void *data, size_t n, ElementType type,
                            ReduceOp op, Group group, Request &r) {
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

void Comm::start_all_reduce(void *data, size_t n, ElementType type,
                            ReduceOp op, Group group) {
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
    throw std::invalid_argument(std::string(what) + " rank " +
                                std::to_string(peer) + " of the " +
                                group_name(group) + " group, which has " +
                                std::to_string(size(group)) +
                                " ranks (this one is " +
                                std::to_string(rank(group)) + ")");
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
  mpiCheck(MPI_Irecv(data, int(bytes), MPI_BYTE, peer, tag,
                     TPC_COMM_OF(group), &r.handle));
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

int default_threads(int ranks_on_node) {
  int cores = int(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, ranks_on_node));
}

void set_threads(int threads) {
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
}

} // namespace tpc
