//===- PeerWatch.h - Whether the job's peers live ---------------*- C++ -*-===//
//
// A rank waiting on its peers looks at the ones on its own node through
// /proc: a peer whose process has exited will never join the collective, and
// one that is stopped (SIGSTOP, a debugger) will not until it is continued.
// Peers on other nodes cannot be seen there; while a rank waits it sends them
// heartbeats over MPI (a duplicate of the world communicator, so that they
// never match another message) and takes theirs, so that a rank that gives
// up can name the ones it heard nothing from: stopped, dead, cut off, or
// still at work, which the watchdog's timeout covers. A rank sends no
// heartbeat while it computes, so silence alone ends no wait. A job on one
// node sends none.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_COMM_PEERWATCH_H
#define TPC_RUNTIME_COMM_PEERWATCH_H

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace tpc {

class PeerWatch {
public:
  using Clock = std::chrono::steady_clock;

  /// A job of one: no peers.
  PeerWatch() = default;
  /// `pids` and `hosts`: every world rank's process id and node name;
  /// `self`: this process's world rank.
  PeerWatch(int self, std::vector<int> pids, std::vector<std::string> hosts);

  /// "world rank R (pid P)", with " on HOST" after the pid when the job
  /// spans nodes.
  std::string describe(int rank) const;
  /// The world ranks among `ranks` that share this node and whose process
  /// has exited, as describe() names them.
  std::vector<std::string> exited(const std::vector<int> &ranks) const;
  /// Whether a world rank among `ranks` on this node is stopped.
  bool any_stopped(const std::vector<int> &ranks) const;

  /// Whether some world rank runs on another node.
  bool spans_nodes() const;
  /// Starts the heartbeats when the job spans nodes: a collective over
  /// MPI_COMM_WORLD, called by every rank after MPI_Init.
  void start_heartbeats();
  /// Called while this rank waits, from the thread that uses MPI: sends a
  /// heartbeat to every peer on another node (at most every 0.25 s, and
  /// not while the previous one to that peer is still in flight) and takes
  /// the ones that arrived. Nothing after stop_heartbeats().
  void beat() const;
  /// The world ranks on other nodes that sent no heartbeat since `since`,
  /// as describe() names them.
  std::vector<std::string> silent_since(Clock::time_point since) const;
  /// Cancels the receives of heartbeats and lets the last sends go (the
  /// end of the job: after the exit barrier, before MPI_Finalize).
  void stop_heartbeats();

private:
  /// Whether world rank `rank` is another process of this node.
  bool is_local_peer(int rank) const;

  struct Heartbeats; // MPI state, kept out of this header
  int self_ = 0;
  std::vector<int> pids_;
  std::vector<std::string> hosts_;
  std::shared_ptr<Heartbeats> beats_;
};

} // namespace tpc

#endif // TPC_RUNTIME_COMM_PEERWATCH_H
