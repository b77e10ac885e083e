//===- ProgramTypes.cpp - Sizes and names of program tensors ----*- C++ -*-===//

#include "runtime/program/ProgramTypes.h"

namespace tpc {

int64_t dtype_bytes(program::DType dtype) {
  switch (dtype) {
  case program::F32:
  case program::I32:
    return 4;
  case program::BF16:
  case program::F16:
    return 2;
  default:
    return 0;
  }
}

const char *dtype_text(program::DType dtype) {
  switch (dtype) {
  case program::F32:
    return "f32";
  case program::BF16:
    return "bf16";
  case program::F16:
    return "f16";
  case program::I32:
    return "i32";
  default:
    return "unspecified";
  }
}

std::vector<std::string> split_name_list(const std::string &list) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos)
      end = list.size();
    names.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

int64_t num_elements(const google::protobuf::RepeatedField<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return -1;
  return n;
}

int64_t tensor_bytes(const google::protobuf::RepeatedField<int64_t> &shape,
                     program::DType dtype) {
  int64_t n = num_elements(shape), bytes = 0;
  if (n < 0 || dtype_bytes(dtype) == 0 ||
      __builtin_mul_overflow(n, dtype_bytes(dtype), &bytes) ||
      bytes > (int64_t(1) << 62))
    return -1;
  return bytes;
}

int64_t tensor_bytes(const program::Tensor &t) {
  return tensor_bytes(t.shape(), t.dtype());
}

} // namespace tpc
