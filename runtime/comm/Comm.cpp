//===- Comm.cpp - MPI communicators and the single-process job ------------===//

#include "runtime/comm/Comm.h"

#include <cblas.h>
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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
} // namespace

struct Comm::Groups {
  MPI_Comm tp = MPI_COMM_NULL, dp = MPI_COMM_NULL;
};

Group parse_group(const std::string &name) {
  if (name == "tp")
    return Group::TP;
  if (name == "dp")
    return Group::DP;
  if (name == "world")
    return Group::World;
  throw std::runtime_error("unknown communication group '" + name +
                           "' (expected tp, dp or world)");
}

const char *group_name(Group group) {
  switch (group) {
  case Group::TP:
    return "tp";
  case Group::DP:
    return "dp";
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
  mpiCheck(MPI_Init(argc, argv));
  // Errors come back as codes so that mpiCheck can say where they happened.
  mpiCheck(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  mpiCheck(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank_));
  mpiCheck(MPI_Comm_size(MPI_COMM_WORLD, &world_size_));
  local_size_ = env_int("OMPI_COMM_WORLD_LOCAL_SIZE",
                        env_int("MPI_LOCALNRANKS", world_size_));
}

Comm::~Comm() {
  if (!distributed_)
    return;
  if (groups_->tp != MPI_COMM_NULL)
    MPI_Comm_free(&groups_->tp);
  if (groups_->dp != MPI_COMM_NULL)
    MPI_Comm_free(&groups_->dp);
  MPI_Finalize();
}

void Comm::make_groups(int tp, int dp) {
  if (tp < 1 || dp < 1)
    throw std::runtime_error("tp and dp must be at least 1");
  if (int64_t(tp) * dp != world_size_) {
    std::ostringstream msg;
    msg << "the program runs on tp " << tp << " x dp " << dp << " = " << tp * dp
        << " ranks, but this job has " << world_size_
        << (world_size_ == 1 ? " process" : " processes")
        << "; start it with `mpirun -np " << tp * dp << " tpc-run ...`";
    throw std::runtime_error(msg.str());
  }
  tp_size_ = tp;
  dp_size_ = dp;
  tp_rank_ = world_rank_ % tp;
  dp_rank_ = world_rank_ / tp;
  if (!distributed_)
    return;
  // Colour by the group's index, key by the rank inside it.
  mpiCheck(MPI_Comm_split(MPI_COMM_WORLD, dp_rank_, tp_rank_, &groups_->tp));
  mpiCheck(MPI_Comm_split(MPI_COMM_WORLD, tp_rank_, dp_rank_, &groups_->dp));
  mpiCheck(MPI_Comm_set_errhandler(groups_->tp, MPI_ERRORS_RETURN));
  mpiCheck(MPI_Comm_set_errhandler(groups_->dp, MPI_ERRORS_RETURN));
}

int Comm::rank(Group group) const {
  switch (group) {
  case Group::TP:
    return tp_rank_;
  case Group::DP:
    return dp_rank_;
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
  case Group::World:
    break;
  }
  return world_size_;
}

namespace {
MPI_Comm mpi_comm(Group group, MPI_Comm tp, MPI_Comm dp) {
  switch (group) {
  case Group::TP:
    return tp;
  case Group::DP:
    return dp;
  case Group::World:
    break;
  }
  return MPI_COMM_WORLD;
}
} // namespace

#define TPC_COMM_OF(group) mpi_comm(group, groups_->tp, groups_->dp)

void Comm::all_reduce(float *data, size_t n, ReduceOp op, Group group) {
  if (!distributed_ || size(group) == 1 || n == 0)
    return;
  mpiCheck(MPI_Allreduce(MPI_IN_PLACE, data, int(n), MPI_FLOAT, mpi_op(op),
                         TPC_COMM_OF(group)));
}

void Comm::all_reduce(int32_t *data, size_t n, ReduceOp op, Group group) {
  if (!distributed_ || size(group) == 1 || n == 0)
    return;
  mpiCheck(MPI_Allreduce(MPI_IN_PLACE, data, int(n), MPI_INT32_T, mpi_op(op),
                         TPC_COMM_OF(group)));
}

void Comm::all_reduce(double *data, size_t n, ReduceOp op, Group group) {
  if (!distributed_ || size(group) == 1 || n == 0)
    return;
  mpiCheck(MPI_Allreduce(MPI_IN_PLACE, data, int(n), MPI_DOUBLE, mpi_op(op),
                         TPC_COMM_OF(group)));
}

void Comm::all_gather(const float *in, float *out, size_t n, Group group) {
  if (!distributed_ || size(group) == 1) {
    std::copy(in, in + n, out);
    return;
  }
  mpiCheck(MPI_Allgather(in, int(n), MPI_FLOAT, out, int(n), MPI_FLOAT,
                         TPC_COMM_OF(group)));
}

void Comm::gather(const float *in, float *out, size_t n, Group group) {
  if (!distributed_ || size(group) == 1) {
    std::copy(in, in + n, out);
    return;
  }
  mpiCheck(MPI_Gather(in, int(n), MPI_FLOAT, out, int(n), MPI_FLOAT, 0,
                      TPC_COMM_OF(group)));
}

void Comm::broadcast(void *data, size_t bytes, int root, Group group) {
  if (!distributed_ || size(group) == 1)
    return;
  mpiCheck(MPI_Bcast(data, int(bytes), MPI_BYTE, root, TPC_COMM_OF(group)));
}

void Comm::barrier(Group group) {
  if (!distributed_ || size(group) == 1)
    return;
  mpiCheck(MPI_Barrier(TPC_COMM_OF(group)));
}

#undef TPC_COMM_OF

bool Comm::all_ok(bool ok) {
  if (!distributed_)
    return ok;
  int flag = ok ? 1 : 0;
  mpiCheck(
      MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
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
