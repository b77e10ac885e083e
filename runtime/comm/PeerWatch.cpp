//===- PeerWatch.cpp - Whether the job's peers on this node live ----------===//

#include "runtime/comm/PeerWatch.h"

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
} // namespace

PeerWatch::PeerWatch(int self, std::vector<int> pids,
                     std::vector<std::string> hosts)
    : self_(self), pids_(std::move(pids)), hosts_(std::move(hosts)) {}

bool PeerWatch::is_local_peer(int rank) const {
  return rank != self_ && size_t(rank) < pids_.size() &&
         hosts_[size_t(rank)] == hosts_[size_t(self_)];
}

std::vector<std::string>
PeerWatch::exited(const std::vector<int> &ranks) const {
  std::vector<std::string> gone;
  for (int r : ranks)
    if (is_local_peer(r) && process_exited(pids_[size_t(r)]))
      gone.push_back("world rank " + std::to_string(r) + " (pid " +
                     std::to_string(pids_[size_t(r)]) + ")");
  return gone;
}

bool PeerWatch::any_stopped(const std::vector<int> &ranks) const {
  for (int r : ranks)
    if (is_local_peer(r) && process_stopped(pids_[size_t(r)]))
      return true;
  return false;
}

} // namespace tpc
