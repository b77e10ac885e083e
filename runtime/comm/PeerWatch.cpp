//===- PeerWatch.cpp - Whether the job's peers live -----------------------===//

#include "runtime/comm/PeerWatch.h"

#include <mpi.h>
#include <signal.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <utility>

namespace tpc {

namespace {
/// The state letter of process `pid` in /proc/<pid>/stat ("R", "S", "T",
/// "Z", ...), or '\0' when the file cannot be read or parsed.
char process_state(int pid, bool &readable) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  readable = stat && std::getline(stat, line);
  if (!readable)
    return '\0';
  // pid (command) state ...: the command may hold spaces and parentheses.
  size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 >= line.size())
    return '\0';
  return line[close + 2];
}

/// Whether process `pid` of this node has exited: gone, or a zombie that
/// its launcher has not reaped yet.
bool process_exited(int pid) {
  bool readable = false;
  char state = process_state(pid, readable);
  if (!readable)
    return kill(pid, 0) != 0 && errno == ESRCH;
  return state == 'Z' || state == 'X';
}

/// Whether process `pid` of this node is stopped (SIGSTOP, or a debugger).
bool process_stopped(int pid) {
  bool readable = false;
  char state = process_state(pid, readable);
  return state == 'T' || state == 't';
}

constexpr auto kBeatEvery = std::chrono::milliseconds(250);
} // namespace

/// One receive always posted and at most one send in flight per peer on
/// another node. A peer whose heartbeat could not be sent or received
/// (MPI reports its connection broken) is left alone: it stays silent.
struct PeerWatch::Heartbeats {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<int> remote; // world ranks on other nodes
  std::vector<int> in, out;
  std::vector<MPI_Request> recvs, sends;
  std::vector<bool> broken;
  std::vector<Clock::time_point> heard;
  Clock::time_point sent;
  bool running = false;
};

PeerWatch::PeerWatch(int self, std::vector<int> pids,
                     std::vector<std::string> hosts)
    : self_(self), pids_(std::move(pids)), hosts_(std::move(hosts)) {}

bool PeerWatch::is_local_peer(int rank) const {
  return rank != self_ && size_t(rank) < pids_.size() &&
         hosts_[size_t(rank)] == hosts_[size_t(self_)];
}

bool PeerWatch::spans_nodes() const {
  for (const std::string &host : hosts_)
    if (host != hosts_[size_t(self_)])
      return true;
  return false;
}

std::string PeerWatch::describe(int rank) const {
  std::string text = "world rank " + std::to_string(rank);
  if (size_t(rank) >= pids_.size())
    return text;
  text += " (pid " + std::to_string(pids_[size_t(rank)]);
  if (spans_nodes())
    text += " on " + hosts_[size_t(rank)];
  return text + ")";
}

std::vector<std::string>
PeerWatch::exited(const std::vector<int> &ranks) const {
  std::vector<std::string> gone;
  for (int r : ranks)
    if (is_local_peer(r) && process_exited(pids_[size_t(r)]))
      gone.push_back(describe(r));
  return gone;
}

bool PeerWatch::any_stopped(const std::vector<int> &ranks) const {
  for (int r : ranks)
    if (is_local_peer(r) && process_stopped(pids_[size_t(r)]))
      return true;
  return false;
}

void PeerWatch::start_heartbeats() {
  if (!spans_nodes())
    return;
  auto b = std::make_shared<Heartbeats>();
  if (MPI_Comm_dup(MPI_COMM_WORLD, &b->comm) != MPI_SUCCESS)
    return;
  MPI_Comm_set_errhandler(b->comm, MPI_ERRORS_RETURN);
  for (int r = 0; r < int(hosts_.size()); ++r)
    if (hosts_[size_t(r)] != hosts_[size_t(self_)])
      b->remote.push_back(r);
  size_t n = b->remote.size();
  b->in.assign(n, 0);
  b->out.assign(n, self_);
  b->recvs.assign(n, MPI_REQUEST_NULL);
  b->sends.assign(n, MPI_REQUEST_NULL);
  b->broken.assign(n, false);
  b->heard.assign(n, Clock::time_point());
  for (size_t i = 0; i < n; ++i)
    b->broken[i] = MPI_Irecv(&b->in[i], 1, MPI_INT, b->remote[i], 0, b->comm,
                             &b->recvs[i]) != MPI_SUCCESS;
  b->running = true;
  beats_ = std::move(b);
}

void PeerWatch::beat() const {
  Heartbeats *b = beats_.get();
  if (!b || !b->running)
    return;
  Clock::time_point now = Clock::now();
  for (size_t i = 0; i < b->remote.size(); ++i) {
    int done = 0;
    while (!b->broken[i]) {
      if (MPI_Test(&b->recvs[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        b->broken[i] = true;
        break;
      }
      if (!done)
        break;
      b->heard[i] = now;
      b->broken[i] = MPI_Irecv(&b->in[i], 1, MPI_INT, b->remote[i], 0, b->comm,
                               &b->recvs[i]) != MPI_SUCCESS;
    }
  }
  if (now - b->sent < kBeatEvery)
    return;
  b->sent = now;
  for (size_t i = 0; i < b->remote.size(); ++i) {
    int done = 1;
    if (b->broken[i] ||
        MPI_Test(&b->sends[i], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        !done)
      continue;
    if (MPI_Isend(&b->out[i], 1, MPI_INT, b->remote[i], 0, b->comm,
                  &b->sends[i]) != MPI_SUCCESS)
      b->broken[i] = true;
  }
}

std::vector<std::string>
PeerWatch::silent_since(Clock::time_point since) const {
  std::vector<std::string> quiet;
  if (!beats_)
    return quiet;
  for (size_t i = 0; i < beats_->remote.size(); ++i)
    if (beats_->heard[i] < since)
      quiet.push_back(describe(beats_->remote[i]));
  return quiet;
}

void PeerWatch::stop_heartbeats() {
  Heartbeats *b = beats_.get();
  if (!b || !b->running)
    return;
  b->running = false;
  for (size_t i = 0; i < b->remote.size(); ++i) {
    if (!b->broken[i] && b->recvs[i] != MPI_REQUEST_NULL) {
      MPI_Cancel(&b->recvs[i]);
      MPI_Wait(&b->recvs[i], MPI_STATUS_IGNORE);
    }
    // A heartbeat still in flight goes on without us.
    if (b->sends[i] != MPI_REQUEST_NULL)
      MPI_Request_free(&b->sends[i]);
  }
  MPI_Comm_free(&b->comm);
}

} // namespace tpc
