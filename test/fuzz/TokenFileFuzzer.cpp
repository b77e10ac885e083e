//===- TokenFileFuzzer.cpp - Fuzz the token-file reader and batcher -------===//
//
// Opens the input as an llm.c token file, reads it whole, then draws a few
// batches (B = 2, T = 4, two data-parallel ranks, vocabulary 300).
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "runtime/io/TokenFile.h"

#include <stdexcept>
#include <vector>

using namespace tpc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz::MemFile memory(data, size);
  try {
    TokenFile file(memory.path());
    std::vector<uint32_t> all = file.read_all();
    if (all.size() != file.num_tokens())
      __builtin_trap();
    TokenBatcher batcher(file, 2, 4, 1, 2, 300);
    std::vector<int> inputs(8), targets(8);
    for (int i = 0; i < 3; ++i)
      batcher.next(inputs.data(), targets.data());
    batcher.seek(batcher.position());
  } catch (const std::exception &) {
  }
  return 0;
}
