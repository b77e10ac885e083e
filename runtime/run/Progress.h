//===- Progress.h - The training progress line ------------------*- C++ -*-===//
//
// On a terminal, the progress of a run is one line rewritten in place, and
// a step that carries a validation loss stays on the screen; elsewhere (a
// log file, a pipe, CI) every step is a plain line of its own.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_PROGRESS_H
#define TPC_RUNTIME_RUN_PROGRESS_H

#include <cstdio>
#include <string>

namespace tpc {

/// Whether `file` is shown on a terminal. Open MPI gives every rank a
/// pseudo-terminal even when mpirun's own output goes to a file, so under a
/// launcher the answer is the launcher's: whether the parent process's
/// output is a terminal.
bool output_is_terminal(std::FILE *file);

class ProgressLine {
public:
  /// `in_place`: rewrite one line (a terminal); else print plain lines.
  ProgressLine(std::FILE *out, bool in_place)
      : out_(out), in_place_(in_place) {}
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  /// Shows `text`; with `keep` it stays on the screen as a line of its own.
  void show(const std::string &text, bool keep);
  /// Ends a line left open, before other output.
  void finish();

private:
  std::FILE *out_;
  bool in_place_;
  bool open_ = false;
};

} // namespace tpc

#endif // TPC_RUNTIME_RUN_PROGRESS_H
