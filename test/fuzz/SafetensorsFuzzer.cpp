//===- SafetensorsFuzzer.cpp - Fuzz the safetensors reader ----------------===//
//
// Opens the input as a safetensors file and reads every floating-point
// tensor whole and, along its first dimension, in two slices.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "runtime/io/Safetensors.h"

#include <stdexcept>
#include <vector>

using namespace tpc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::MemFile file(data, size);
  try {
    SafetensorsReader reader(file.path());
    for (const std::string &name : reader.names()) {
      const TensorInfo &info = reader.info(name);
      if (info.dtype != DType::F32 && info.dtype != DType::F16 &&
          info.dtype != DType::BF16) {
        std::vector<char> raw(info.end - info.begin);
        reader.read(name, info.dtype, info.shape, raw.data());
        continue;
      }
      std::vector<float> all(info.num_elements());
      try {
        reader.read_f32(name, info.shape, all.data());
      } catch (const std::runtime_error &) {
      }
      if (info.shape.empty() || info.shape[0] % 2 != 0)
        continue;
      SliceSpec half = SliceSpec::split(info.shape, 0, 1, 2);
      std::vector<float> part(info.num_elements() / 2);
      reader.read_f32(name, info.shape, part.data(), half);
    }
  } catch (const std::runtime_error &) {
  }
  return 0;
}
