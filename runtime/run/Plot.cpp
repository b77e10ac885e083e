//===- Plot.cpp - The loss-curve plot of a training run -------------------===//

#include "runtime/run/Plot.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

extern char **environ;

namespace tpc {

namespace {
bool executable(const std::filesystem::path &path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) &&
         access(path.c_str(), X_OK) == 0;
}
} // namespace

std::string plot_path(const std::string &log, const std::string &plot) {
  if (plot == "none")
    return "";
  if (!plot.empty() || log.empty())
    return plot;
  return std::filesystem::path(log).replace_extension(".png").string();
}

std::string find_tool(const std::string &name) {
  std::error_code ec;
  std::filesystem::path self =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && executable(self.parent_path() / name))
    return (self.parent_path() / name).string();
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos)
      end = dirs.size();
    std::string dir = dirs.substr(begin, end - begin);
    std::filesystem::path candidate =
        std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (executable(candidate))
      return candidate.string();
    begin = end + 1;
  }
  return "";
}

std::string plot_loss_curve(const std::string &log, const std::string &png) {
  std::string tool = find_tool("tpc-plot");
  if (tool.empty())
    return "tpc-plot is neither next to tpc-run nor on PATH";
  std::vector<std::string> args = {tool, log, "-o", png};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int error =
      posix_spawn(&pid, tool.c_str(), nullptr, nullptr, argv.data(), environ);
  if (error != 0)
    return "cannot run " + tool + ": " + std::strerror(error);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return "cannot wait for " + tool + ": " + std::strerror(errno);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "";
  if (WIFSIGNALED(status))
    return tool + " was killed by signal " + std::to_string(WTERMSIG(status));
  return tool + " exited with status " + std::to_string(WEXITSTATUS(status));
}

} // namespace tpc
