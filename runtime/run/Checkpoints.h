//===- Checkpoints.h - Training checkpoints in --save-dir -------*- C++ -*-===//
//
// A training run writes save_dir/step_<n>.safetensors (weights, optimizer
// state and the trainer state in the metadata), points
// save_dir/latest.safetensors at the newest, and keeps only the newest
// `keep` step files. A --save-dir holds one run: another run's directory is
// refused unless this run resumes from it, and rotation never removes the
// file just written or the one latest.safetensors names.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_RUN_CHECKPOINTS_H
#define TPC_RUNTIME_RUN_CHECKPOINTS_H

#include "runtime/exec/Executor.h"
#include "runtime/run/Train.h"

#include <map>
#include <optional>
#include <string>

namespace tpc {

/// The trainer state in a checkpoint's metadata; nullopt for a checkpoint
/// without one (weights only). Throws naming `path` for malformed values.
std::optional<TrainState>
train_state_of(const std::map<std::string, std::string> &metadata,
               const std::string &path);

/// The metadata that records `state` (and the config it runs under).
std::map<std::string, std::string> train_metadata(const TrainConfig &config,
                                                  const TrainState &state);

/// On world rank 0 before a run: refuses a save_dir that is not a
/// directory or that holds another run's checkpoints (unless
/// config.resume_from is one of them), creates it, and removes the
/// temporary files of writes a killed run left behind.
void prepare_save_dir(const TrainConfig &config);

/// Writes the training checkpoint of `state` into save_dir, then updates
/// latest.safetensors and rotates; returns the new file's path. A
/// collective over the world; an error names `last`, the last good
/// checkpoint ("" when this run wrote none).
std::string save_step(Executor &ex, const TrainConfig &config,
                      const TrainState &state, const std::string &last);

} // namespace tpc

#endif // TPC_RUNTIME_RUN_CHECKPOINTS_H
