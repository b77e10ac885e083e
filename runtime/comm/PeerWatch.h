//===- PeerWatch.h - Whether the job's peers on this node live --*- C++ -*-===//
//
// A rank waiting on its peers looks at the ones on its own node through
// /proc: a peer whose process has exited will never join the collective, and
// one that is stopped (SIGSTOP, a debugger) will not until it is continued.
// Peers on other nodes are not visible; the watchdog's timeout covers them.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_COMM_PEERWATCH_H
#define TPC_RUNTIME_COMM_PEERWATCH_H

#include <string>
#include <vector>

namespace tpc {

class PeerWatch {
public:
  /// A job of one: no peers.
  PeerWatch() = default;
  /// `pids` and `hosts`: every world rank's process id and node name;
  /// `self`: this process's world rank.
  PeerWatch(int self, std::vector<int> pids, std::vector<std::string> hosts);

  /// The world ranks among `ranks` that share this node and whose process
  /// has exited, as "world rank R (pid P)".
  std::vector<std::string> exited(const std::vector<int> &ranks) const;
  /// Whether a world rank among `ranks` on this node is stopped.
  bool any_stopped(const std::vector<int> &ranks) const;

private:
  /// Whether world rank `rank` is another process of this node.
  bool is_local_peer(int rank) const;

  int self_ = 0;
  std::vector<int> pids_;
  std::vector<std::string> hosts_;
};

} // namespace tpc

#endif // TPC_RUNTIME_COMM_PEERWATCH_H
