//===- BpeTokenizer.h - byte-level BPE -------------------------*- C++ -*-===//
//
// The byte-level BPE of GPT-2 and Llama 3: text is split into pieces by a
// pre-tokenizer pattern (Pattern.h), each piece's bytes are spelled with
// GPT-2's byte-to-unicode table, and the spelling is merged by the merges'
// ranks into vocabulary ids. Added tokens (Llama 3's <|begin_of_text|> and
// its 255 other special tokens) are text of their own: their bytes are
// their content, and text in the input that looks like one encodes as plain
// text unless asked otherwise. Bytes that are not well-formed UTF-8 are
// characters of no class (Pattern.h), so any byte string encodes and
// decodes back to itself. Gpt2Tokenizer.h and HfTokenizer.h read the files.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_BPETOKENIZER_H
#define TPC_RUNTIME_TOKENIZER_BPETOKENIZER_H

#include "runtime/tokenizer/Pattern.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <array>
#include <cstdint>
#include <memory>
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

/// How vocabularies write `bytes`: each byte as its gpt2_byte_to_unicode
/// code point, in UTF-8 ("Hello world" is "HelloĠworld").
std::string byte_level_spelling(std::string_view bytes);

/// A token outside the merges: its id and its text.
struct AddedToken {
  int id;
  std::string content;
};

class BpeTokenizer : public Tokenizer {
public:
  struct Options {
    /// The pre-tokenizer's pattern; GPT-2's when null.
    std::shared_ptr<const Pattern> pattern;
    /// A piece that is a token of the vocabulary is that token, without
    /// merging (Hugging Face's ignore_merges; Llama 3 sets it).
    bool ignore_merges = false;
    std::vector<AddedToken> added;
    /// The content of the token that starts a document ("" for none) and of
    /// the one that separates documents.
    std::string begin_of_text;
    std::string end_of_text = "<|endoftext|>";
    /// What error messages add as the fix for a bad vocabulary.
    std::string fix;
  };

  /// `encoder` maps vocabulary strings (UTF-8, in the byte-to-unicode
  /// spelling) to ids; with the added tokens they must number 0..n-1, each
  /// once. `merges` are pairs of vocabulary strings, highest priority first.
  /// `origin` names the source in error messages. Errors are
  /// std::runtime_error.
  BpeTokenizer(const std::unordered_map<std::string, int> &encoder,
               const std::vector<std::pair<std::string, std::string>> &merges,
               const std::string &origin, Options options);

  /// Appends the ids of `text` to `out`. Remembers the pieces it has merged,
  /// so one tokenizer must not encode from two threads at once.
  using Tokenizer::encode;
  void encode(std::string_view text, std::vector<int> &out) override;

  /// The bytes of one token.
  const std::string &token_bytes(int id) const override;

  int vocab_size() const override {
    return static_cast<int>(token_bytes_.size());
  }
  int end_of_text() const override { return end_of_text_; }
  int begin_of_text() const override { return begin_of_text_; }
  void set_encode_special_tokens(bool on) override { special_in_text_ = on; }

private:
  void encode_plain(std::string_view text, std::vector<int> &out);
  void bpe(std::string_view piece, std::vector<int> &out);
  // The added token whose content starts at text[pos], longest first, or
  // null.
  const AddedToken *added_at(std::string_view text, size_t pos) const;

  std::shared_ptr<const Pattern> pattern_;
  bool ignore_merges_ = false;
  bool special_in_text_ = false;
  std::vector<std::string> token_bytes_;
  std::array<int, 256> byte_id_{};
  // (left id << 32 | right id) -> (rank, merged id).
  std::unordered_map<uint64_t, std::pair<int, int>> merges_;
  // The bytes of the vocabulary's tokens (ignore_merges only).
  std::unordered_map<std::string, int> vocab_ids_;
  std::vector<AddedToken> added_;
  std::array<bool, 256> added_first_byte_{};
  std::unordered_map<std::string, std::vector<int>> cache_;
  std::vector<std::string_view> pieces_;
  int end_of_text_ = -1, begin_of_text_ = -1;
};

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_BPETOKENIZER_H
