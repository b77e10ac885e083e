//===- OptimizerState.cpp - Optimizer buffers, step and overrides ---------===//

#include "runtime/exec/OptimizerState.h"
#include "runtime/program/Abi.h"

#include <algorithm>

namespace tpc {

OptimizerState::~OptimizerState() {
  for (float *p : {m_, v_, momentum_})
    if (p)
      device_.free(p);
  if (device_step_)
    device_.free(device_step_);
}

float *OptimizerState::allocated(float *&buffer) {
  if (!buffer) {
    size_t bytes = std::max<size_t>(elements_, 1) * sizeof(float);
    buffer = static_cast<float *>(device_.alloc(bytes));
    device_.zero(buffer, bytes);
  }
  return buffer;
}

const int64_t *OptimizerState::device_step() {
  if (!device_step_) {
    device_step_ = static_cast<int64_t *>(device_.alloc(sizeof(int64_t)));
    write_step();
  }
  return device_step_;
}

void OptimizerState::write_step() {
  if (device_step_)
    device_.copy_host_to_device(device_step_, &step, sizeof(step));
}

std::vector<std::pair<std::string, float **>>
OptimizerState::buffers(const std::string &kind, bool allocate) {
  if (kind == abi::kAdamW) {
    if (allocate) {
      allocated(m_);
      allocated(v_);
    }
    return {{abi::kAdamWFirstMoment, &m_}, {abi::kAdamWSecondMoment, &v_}};
  }
  if (kind == abi::kSgd)
    return {{abi::kSgdMomentum, &momentum_}};
  return {};
}

} // namespace tpc
