//===- Signals.cpp - Stopping a training run by a signal ------------------===//

#include "runtime/run/Signals.h"

#include <signal.h>
#include <unistd.h>

namespace tpc {

namespace {
/// Whether the stop came from the launcher tearing the job down: its
/// SIGTERM, which a SIGKILL follows soon.
volatile std::sig_atomic_t stop = 0;
volatile std::sig_atomic_t stop_from_launcher = 0;

void on_stop_signal(int signal, siginfo_t *info, void *) {
  stop_from_launcher = signal == SIGTERM && info && info->si_pid != 0 &&
                       info->si_pid == getppid();
  stop = signal;
}
} // namespace

const volatile std::sig_atomic_t *stop_signal() { return &stop; }

void install_stop_handlers() {
  struct sigaction action = {};
  action.sa_sigaction = on_stop_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGUSR1, &action, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
}

Watchdog stop_watchdog(double timeout) {
  Watchdog watchdog;
  watchdog.timeout = timeout;
  watchdog.stop = &stop;
  watchdog.stop_from_launcher = &stop_from_launcher;
  return watchdog;
}

} // namespace tpc
