//===- VocabFuzzer.cpp - Fuzz the GPT-2 vocabulary loader -----------------===//
//
// The input is encoder.json and vocab.bpe separated by the first NUL byte. A
// vocabulary the loader accepts must encode and decode a short text.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Gpt2Tokenizer.h"

#include <stdexcept>
#include <string>

using namespace tpc;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string input(reinterpret_cast<const char *>(data), size);
  size_t nul = input.find('\0');
  std::string encoder = input.substr(0, nul);
  std::string merges = nul == std::string::npos ? "" : input.substr(nul + 1);
  try {
    Gpt2Tokenizer tokenizer = Gpt2Tokenizer::parse(encoder, merges, "fuzz");
    std::vector<int> ids = tokenizer.encode("Hello, world! caf\xc3\xa9 \xff");
    tokenizer.decode(ids);
  } catch (const std::runtime_error &) {
  }
  return 0;
}
