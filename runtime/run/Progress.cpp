//===- Progress.cpp - The training progress line --------------------------===//

#include "runtime/run/Progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tpc {

namespace {
bool under_launcher() {
  for (const char *var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(var))
      return true;
  return false;
}

/// Whether the parent's file descriptor `fd` is a terminal, from the target
/// of its /proc link ("/dev/pts/3", "pipe:[...]", a file name).
bool parent_fd_is_terminal(int fd) {
  std::string link =
      "/proc/" + std::to_string(getppid()) + "/fd/" + std::to_string(fd);
  char target[256];
  ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0)
    return false;
  std::string path(target, size_t(n));
  return path.rfind("/dev/pts/", 0) == 0 || path.rfind("/dev/tty", 0) == 0;
}

/// The terminal's width in columns, 0 when unknown.
size_t columns(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) == 0)
    return size.ws_col;
  return 0;
}
} // namespace

bool output_is_terminal(std::FILE *file) {
  int fd = fileno(file);
  if (fd < 0 || !isatty(fd))
    return false;
  return !under_launcher() || parent_fd_is_terminal(fd);
}

void ProgressLine::show(const std::string &text, bool keep) {
  if (!in_place_) {
    std::fprintf(out_, "%s\n", text.c_str());
    std::fflush(out_);
    return;
  }
  // A line longer than the terminal wraps, and a carriage return would then
  // rewrite only its last row.
  std::string shown = text;
  size_t width = columns(fileno(out_));
  if (!keep && width > 1 && shown.size() >= width)
    shown.resize(width - 1);
  std::fprintf(out_, "\r\033[K%s%s", shown.c_str(), keep ? "\n" : "");
  open_ = !keep;
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (!open_)
    return;
  std::fputc('\n', out_);
  std::fflush(out_);
  open_ = false;
}

} // namespace tpc
