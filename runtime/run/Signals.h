//===- Signals.h - Stopping a training run by a signal ----------*- C++ -*-===//
//
// SIGINT/SIGTERM/SIGUSR1 to any rank stop training at the next step
// boundary with a checkpoint. Open MPI's mpirun forwards SIGUSR1 to every
// rank, so `kill -USR1 <mpirun>` stops a job cleanly; a SIGTERM/SIGINT to
// mpirun tears the job down instead (SIGTERM to the ranks, SIGKILL a second
// later). The handler only records the signal; the training loop and the
// communicator's watchdog read it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_SIGNALS_H
#define TPC_RUNTIME_RUN_SIGNALS_H

#include "runtime/comm/Comm.h"

#include <csignal>

namespace tpc {

/// The signal that asked the run to stop, 0 while none did.
const volatile std::sig_atomic_t *stop_signal();

/// Installs the stop handler for SIGINT, SIGTERM and SIGUSR1, and ignores
/// SIGPIPE: a closed output pipe (mpirun tearing down its forwarding on
/// SIGTERM) must not kill the run before it saves.
void install_stop_handlers();

/// The communicator's watchdog: `timeout` seconds per collective (0: none),
/// and given up early on a stop signal, noting whether the launcher (the
/// parent: mpirun or its daemon) sent it.
Watchdog stop_watchdog(double timeout);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_SIGNALS_H
