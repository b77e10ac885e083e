//===- Checkpoint.cpp - Weights and optimizer state in safetensors -------===//
//
// Each rank reads its slices of the global tensors; world rank 0 gathers
// and writes them. A training checkpoint also holds the optimizer state
// (AdamW m and v, SGD momentum) as global tensors and the optimizer step.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/State.h"
#include "runtime/io/Safetensors.h"
#include "runtime/program/Abi.h"
#include "runtime/program/ProgramFile.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>

namespace tpc {

namespace {
std::string state_name(const std::string &kind, const std::string &param) {
  return abi::kOptimizerStatePrefix + kind + "." + checkpoint_name(param);
}

/// Refuses optimizer state that no finite gradient gives: AdamW's second
/// moment below zero, or a moment so large that the update overflows
/// (|m| and SGD's momentum up to 1e18, v up to 1e36, its square).
void check_state(const std::string &path, const std::string &name,
                 const std::string &kind, const std::vector<float> &values) {
  const bool second = kind == abi::kAdamWSecondMoment;
  const double bound = second ? 1e36 : 1e18;
  for (size_t i = 0; i < values.size(); ++i) {
    double x = values[i];
    if ((second && x < 0.0) || !(std::fabs(x) <= bound)) {
      char value[32];
      std::snprintf(value, sizeof(value), "%g", x);
      throw std::runtime_error(
          path + ": optimizer state '" + name + "' holds " + value +
          " at local index " + std::to_string(i) + ", which " +
          (second ? "no second moment (0 <= v <= 1e36)"
                  : "no first moment or momentum (|m| <= 1e18)") +
          " of finite gradients can hold; the state is damaged: load an "
          "earlier checkpoint");
    }
  }
}

/// Opens a checkpoint; an error about a symlink (a run directory's
/// latest.safetensors) also names the file it points to.
SafetensorsReader open_checkpoint(const std::string &path) {
  try {
    return SafetensorsReader(path);
  } catch (const std::runtime_error &e) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec))
      throw;
    std::string target = std::filesystem::read_symlink(path, ec).string();
    throw std::runtime_error(std::string(e.what()) + " (" + path +
                             " links to " + target +
                             "; an older step_<n>.safetensors next to it "
                             "may be intact)");
  }
}
} // namespace

CheckpointContents Executor::load_checkpoint(const std::string &path,
                                             bool optimizer_state) {
  SafetensorsReader file = open_checkpoint(path);
  CheckpointContents contents;
  contents.metadata = file.metadata();
  for (int i = 0; i < program_.parameters_size(); ++i) {
    if (!state_->held[size_t(i)])
      continue; // another stack's
    std::vector<float> host(state_->slices[i].local_elements());
    load_parameter(file, program_.parameters(i), state_->slices[i],
                   host.data());
    store_parameter(i, host.data());
  }
  // After the parameters, whose missing or misshapen tensors say more.
  check_checkpoint_tensors(file, program_);
  // The job that wrote it: any sizes load, but they are sizes.
  for (const char *key : {abi::kTpKey, abi::kDpKey})
    if (contents.metadata.count(key))
      metadata_count(contents.metadata, key, path, 1, INT32_MAX);
  auto saved = contents.metadata.find(abi::kOptimizerKey);
  if (!optimizer_state)
    return contents;
  if (saved == contents.metadata.end()) {
    // State tensors whose optimizer is not named would be dropped unread.
    for (const std::string &name : file.names())
      if (name.rfind(abi::kOptimizerStatePrefix, 0) == 0)
        throw std::runtime_error(
            path + ": holds optimizer state ('" + name + "') but no " +
            abi::kOptimizerKey +
            " in its metadata to say whose; the file is corrupt: load an "
            "earlier checkpoint");
    return contents;
  }
  if (saved->second != abi::kAdamW && saved->second != abi::kSgd)
    throw std::runtime_error(path + ": metadata " + abi::kOptimizerKey +
                             " = '" + saved->second + "' is neither " +
                             abi::kAdamW + " nor " + abi::kSgd +
                             "; the file is corrupt: load an earlier "
                             "checkpoint");
  std::string kind = optimizer();
  if (saved->second != kind)
    throw std::runtime_error(path + ": the checkpoint holds " + saved->second +
                             " state but the optimizer is " + kind +
                             "; resume with --optimizer " + saved->second);
  auto step = contents.metadata.find(abi::kOptimizerStepKey);
  if (step == contents.metadata.end())
    throw std::runtime_error(path + ": a training checkpoint without " +
                             abi::kOptimizerStepKey +
                             " in its metadata; the file is corrupt");
  for (auto &[key, buffer] : state_->optimizer.buffers(kind, false)) {
    std::string first = state_name(key, program_.parameters(0).name());
    if (!file.contains(first)) {
      if (key == abi::kSgdMomentum)
        continue; // SGD without momentum keeps no state
      throw std::runtime_error(path +
                               ": a training checkpoint without the "
                               "AdamW state tensor '" +
                               first + "'; the file is corrupt");
    }
    float *base = state_->optimizer.allocated(*buffer);
    for (int i = 0; i < program_.parameters_size(); ++i) {
      std::vector<float> host(state_->slices[i].local_elements());
      std::string name = state_name(key, program_.parameters(i).name());
      load_slice(file, name, state_->slices[i], host.data());
      check_state(path, name, key, host);
      auto [begin, end] = state_->owned(i);
      backend_.copy_host_to_device(base + state_->state_offsets[i],
                                   host.data() + begin,
                                   (end - begin) * sizeof(float));
    }
  }
  state_->optimizer.step = int64_t(metadata_count(
      contents.metadata, abi::kOptimizerStepKey, path, 0, INT64_MAX));
  contents.optimizer_state = true;
  return contents;
}

void Executor::save_checkpoint(
    const std::string &path, const std::map<std::string, std::string> &metadata,
    bool optimizer_state) {
  // The ranks of DP group 0 hold every slice; world rank 0 is its TP rank 0.
  // Under the distributed optimizer's partition every rank holds a part of
  // the optimizer state, and all take part in gathering it over dp.
  bool gathers = comm_.dp_rank() == 0;
  bool all_ranks = state_->partitioned();
  bool writes = comm_.world_rank() == 0;
  std::vector<std::pair<std::string, float **>> buffers;
  if (optimizer_state)
    buffers = state_->optimizer.buffers(optimizer(), true);
  std::vector<std::vector<float>> globals;
  std::string non_finite; // the first tensor holding inf or nan
  SafetensorsWriter writer;
  // Gathers parameter i's slices (`local` on this rank) and adds the global
  // tensor under `name`.
  // A pipeline stage that holds the parameter first (its owner) gathers it
  // and sends it to world rank 0, on the first stage.
  auto add = [&](int i, const std::string &name,
                 const std::vector<float> &local) {
    if (!gathers)
      return;
    const program::Parameter &p = program_.parameters(i);
    const int owner = state_->owner_stage[size_t(i)];
    const bool assembles = comm_.tp_rank() == 0 && comm_.pp_rank() == owner;
    std::vector<float> global;
    if (comm_.pp_rank() == owner) {
      std::vector<float> all(assembles ? local.size() * comm_.tp_size() : 0);
      comm_.gather(local.data(), assembles ? all.data() : nullptr, local.size(),
                   Group::TP);
      if (assembles)
        global = assemble_parameter(p, program_.tensors(p.tensor()),
                                    comm_.tp_size(), all.data());
      if (assembles && !writes) {
        comm_.send(global.data(), global.size() * sizeof(float), 0, Group::PP);
        return;
      }
    } else if (writes) {
      size_t n = 1;
      for (int64_t d : state_->slices[i].unpadded_shape)
        n *= size_t(d);
      global.resize(n);
      comm_.recv(global.data(), n * sizeof(float), owner, Group::PP);
    }
    if (!writes)
      return;
    globals.push_back(std::move(global));
    // A training checkpoint must be one to resume from.
    if (optimizer_state && non_finite.empty() &&
        !std::all_of(globals.back().begin(), globals.back().end(),
                     [](float x) { return std::isfinite(x); }))
      non_finite = name;
    writer.add_f32(name, state_->slices[i].unpadded_shape,
                   globals.back().data());
  };
  for (int i = 0; i < program_.parameters_size() && (gathers || all_ranks);
       ++i) {
    const program::Parameter &p = program_.parameters(i);
    // Another stage's parameter: this rank only receives it, on rank 0.
    const bool held = state_->held[size_t(i)] &&
                      comm_.pp_rank() == state_->owner_stage[size_t(i)];
    add(i, checkpoint_name(p.name()),
        held ? read_parameter(p.name()) : std::vector<float>());
    for (auto &[key, buffer] : buffers)
      if (*buffer)
        add(i, state_name(key, p.name()),
            held ? gather_owned(i, *buffer + state_->state_offsets[i])
                 : std::vector<float>());
  }
  std::string error;
  if (writes) {
    writer.set_metadata(abi::kFormatKey, abi::kFormatPyTorch);
    writer.set_metadata(abi::kSourceKey, program_.source());
    writer.set_metadata(abi::kTpKey, std::to_string(comm_.tp_size()));
    writer.set_metadata(abi::kDpKey, std::to_string(comm_.dp_size()));
    if (optimizer_state) {
      writer.set_metadata(abi::kOptimizerKey, optimizer());
      writer.set_metadata(abi::kOptimizerStepKey,
                          std::to_string(state_->optimizer.step));
    }
    for (const auto &[key, value] : metadata)
      writer.set_metadata(key, value);
    try {
      if (!non_finite.empty())
        throw std::runtime_error(
            path + ": not written: '" + non_finite +
            "' holds values that are not finite (training diverged; lower "
            "--lr or --clip)");
      writer.write(path);
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  if (!comm_.all_ok(error.empty()))
    throw std::runtime_error(error.empty() ? "rank 0 could not write " + path
                                           : error);
}

} // namespace tpc
