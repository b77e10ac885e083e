//===- Checkpoints.cpp - Training checkpoints in --save-dir ---------------===//

#include "runtime/run/Checkpoints.h"
#include "runtime/io/FileUtil.h"
#include "runtime/io/Safetensors.h"
#include "runtime/program/Abi.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace tpc {

namespace {
uint64_t parse_count(const std::map<std::string, std::string> &metadata,
                     const std::string &key, const std::string &path) {
  return metadata_count(metadata, key, path);
}

std::string step_file(const TrainConfig &c, int64_t step) {
  return c.save_dir + "/step_" + std::to_string(step) + ".safetensors";
}

/// The step number of a file name "step_<n><suffix>", if it is one.
std::optional<uint64_t> step_of(const std::string &f,
                                const std::string &suffix) {
  const std::string prefix = "step_";
  if (f.size() <= prefix.size() + suffix.size() ||
      f.compare(0, prefix.size(), prefix) != 0 ||
      f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::string n =
      f.substr(prefix.size(), f.size() - prefix.size() - suffix.size());
  if (n.size() > 19 || n.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(n);
}

/// Removes the temporary files of checkpoint writes that did not finish (a
/// run killed while saving): checkpoint-sized files nothing reads.
void remove_unfinished_writes(const TrainConfig &c) {
  namespace fs = std::filesystem;
  for (const fs::directory_entry &e : fs::directory_iterator(c.save_dir)) {
    std::string f = e.path().filename().string();
    if (!step_of(f, ".safetensors.tmp") && f != "latest.safetensors.tmp")
      continue;
    std::error_code error;
    fs::remove(e.path(), error);
    std::fprintf(stderr,
                 "tpc-run: %s %s, left by a checkpoint write that "
                 "did not finish%s\n",
                 error ? "cannot remove" : "removed", e.path().c_str(),
                 error ? (": " + error.message()).c_str() : "");
  }
}

/// Points save_dir/latest.safetensors at step `step`'s file (a relative
/// symlink, replaced atomically), then removes all but the newest `keep`
/// step files up to `step`. Files of later steps are not this run's to
/// judge: they come from the run a resume rewound, and are replaced as this
/// run reaches their steps. So the file just written, and the one `latest`
/// names, are never removed.
void rotate(const TrainConfig &c, int64_t step) {
  namespace fs = std::filesystem;
  fs::path dir(c.save_dir);
  fs::path tmp = dir / "latest.safetensors.tmp";
  fs::remove(tmp);
  fs::create_symlink("step_" + std::to_string(step) + ".safetensors", tmp);
  fs::rename(tmp, dir / "latest.safetensors");
  if (c.keep <= 0)
    return;
  std::vector<std::pair<uint64_t, fs::path>> steps;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    if (std::optional<uint64_t> n =
            step_of(e.path().filename().string(), ".safetensors"))
      if (*n <= uint64_t(step))
        steps.emplace_back(*n, e.path());
  std::sort(steps.begin(), steps.end());
  for (size_t i = 0; i + size_t(c.keep) < steps.size(); ++i)
    fs::remove(steps[i].second);
}

/// Refuses a save_dir that is not a directory, and one that holds the
/// checkpoints of another run unless this run resumes from one of them:
/// a new run there would mix its checkpoints with the old run's, and
/// rotation by step number would remove the wrong ones.
void check_save_dir(const TrainConfig &c) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::file_status status = fs::status(c.save_dir, error);
  if (fs::exists(status) && !fs::is_directory(status))
    throw std::runtime_error("--save-dir " + c.save_dir +
                             " exists and is not a directory; name a "
                             "directory (it is created if missing)");
  if (!fs::exists(status))
    return;
  std::optional<uint64_t> newest;
  for (const fs::directory_entry &e : fs::directory_iterator(c.save_dir))
    if (std::optional<uint64_t> n =
            step_of(e.path().filename().string(), ".safetensors"))
      newest = std::max(newest.value_or(0), *n);
  if (!newest)
    return;
  if (!c.resume_from.empty()) {
    fs::path from = fs::weakly_canonical(c.resume_from, error).parent_path();
    if (!error && from == fs::weakly_canonical(c.save_dir, error) && !error)
      return;
  }
  std::string dir = c.save_dir;
  throw std::runtime_error(
      "--save-dir " + dir + " holds the checkpoints of another run (newest: " +
      dir + "/step_" + std::to_string(*newest) +
      ".safetensors); resume that run with --load " + dir +
      "/latest.safetensors, or start a new one in another --save-dir (or "
      "move those checkpoints away first)");
}

} // namespace

std::optional<TrainState>
train_state_of(const std::map<std::string, std::string> &metadata,
               const std::string &path) {
  if (!metadata.count(abi::kTrainerStepKey)) {
    // The other trainer keys without the step would restart the schedule
    // at step 0 while restoring the rest: refuse rather than guess.
    for (const char *key :
         {abi::kOptimizerKey, abi::kDataPositionKey, abi::kSeedKey,
          abi::kStepsKey, abi::kGradAccumKey, abi::kWindowsKey,
          abi::kOptimizerStepKey, abi::kLossScaleKey})
      if (metadata.count(key))
        throw std::runtime_error(
            path + ": the metadata holds " + key + " but no " +
            abi::kTrainerStepKey +
            ", so the step to resume at is unknown; the file is corrupt: "
            "load an earlier checkpoint");
    return std::nullopt;
  }
  TrainState s;
  s.step = int64_t(parse_count(metadata, abi::kTrainerStepKey, path));
  s.data_position = parse_count(metadata, abi::kDataPositionKey, path);
  s.seed = parse_count(metadata, abi::kSeedKey, path);
  if (metadata.count(abi::kGradAccumKey))
    metadata_count(metadata, abi::kGradAccumKey, path, 1, INT32_MAX);
  if (metadata.count(abi::kStepsKey))
    metadata_count(metadata, abi::kStepsKey, path, uint64_t(s.step), INT64_MAX);
  if (metadata.count(abi::kWindowsKey) &&
      metadata.at(abi::kWindowsKey) != "random" &&
      metadata.at(abi::kWindowsKey) != "sequential")
    throw std::runtime_error(path + ": metadata " + abi::kWindowsKey + " = '" +
                             metadata.at(abi::kWindowsKey) +
                             "' is neither 'random' nor 'sequential'; the "
                             "file is corrupt: load an earlier checkpoint");
  s.updates = metadata.count(abi::kOptimizerStepKey)
                  ? int64_t(parse_count(metadata, abi::kOptimizerStepKey, path))
                  : s.step;
  if (s.updates > s.step)
    throw std::runtime_error(path + ": " + abi::kOptimizerStepKey + " " +
                             std::to_string(s.updates) + " exceeds " +
                             abi::kTrainerStepKey + " " +
                             std::to_string(s.step) + "; the file is corrupt");
  if (metadata.count(abi::kLossScaleKey)) {
    const std::string &text = metadata.at(abi::kLossScaleKey);
    char *end = nullptr;
    s.loss_scale = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(s.loss_scale) ||
        s.loss_scale <= 0.0)
      throw std::runtime_error(path + ": " + abi::kLossScaleKey + " '" + text +
                               "' is not a positive number; the file is "
                               "corrupt");
    s.good_steps = int64_t(parse_count(metadata, abi::kGoodStepsKey, path));
  }
  return s;
}

std::map<std::string, std::string> train_metadata(const TrainConfig &c,
                                                  const TrainState &s) {
  std::map<std::string, std::string> metadata = {
      {abi::kTrainerStepKey, std::to_string(s.step)},
      {abi::kDataPositionKey, std::to_string(s.data_position)},
      {abi::kSeedKey, std::to_string(s.seed)},
      {abi::kStepsKey, std::to_string(c.steps)},
      {abi::kGradAccumKey, std::to_string(c.grad_accum)},
      {abi::kWindowsKey, c.random_windows ? "random" : "sequential"}};
  if (s.loss_scale > 0.0) {
    char scale[32];
    std::snprintf(scale, sizeof(scale), "%.17g", s.loss_scale);
    metadata[abi::kLossScaleKey] = scale;
    metadata[abi::kGoodStepsKey] = std::to_string(s.good_steps);
  }
  return metadata;
}

void prepare_save_dir(const TrainConfig &c) {
  check_save_dir(c);
  ensure_directory(c.save_dir, "--save-dir");
  remove_unfinished_writes(c);
}

std::string save_step(Executor &ex, const TrainConfig &c,
                      const TrainState &state, const std::string &last) {
  std::string path = step_file(c, state.step);
  // The ranks wait on rank 0's writing, however long it takes.
  Comm::Patient patient(ex.comm());
  try {
    ex.save_checkpoint(path, train_metadata(c, state), true);
  } catch (const std::runtime_error &e) {
    throw std::runtime_error(std::string(e.what()) + "; " +
                             (last.empty()
                                  ? "no checkpoint was written by this run"
                                  : "the last good checkpoint is " + last));
  }
  std::string error;
  if (ex.comm().world_rank() == 0) {
    try {
      rotate(c, state.step);
    } catch (const std::exception &e) {
      error = c.save_dir +
              ": cannot update latest.safetensors or remove "
              "old checkpoints: " +
              e.what();
    }
  }
  if (!ex.comm().all_ok(error.empty()))
    throw std::runtime_error(
        error.empty() ? "rank 0 could not update " + c.save_dir : error);
  return path;
}

} // namespace tpc
