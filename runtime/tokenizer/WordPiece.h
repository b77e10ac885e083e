//===- WordPiece.h - BERT's WordPiece tokenizer -----------------*- C++ -*-===//
//
// BERT's uncased tokenizer, as Hugging Face's BertTokenizer runs it for
// bert-base-uncased, read from a vocab.txt (one token per line, the id is the
// line number from 0; "##" marks a piece that continues a word).
//
// The basic tokenizer lower-cases each character (Python's str.lower() of
// the character alone), drops U+0000, U+FFFD and control characters
// (categories C*, but \t \n \r), turns white space (those three, space and
// Zs) into spaces, makes each CJK ideograph a word of its own and splits on
// white space; each word is decomposed (NFD), loses its nonspacing marks
// (Mn) and is split into runs of non-punctuation and single punctuation
// characters (ASCII 33-47, 58-64, 91-96, 123-126 and categories P*). The
// character properties come from Python's unicodedata
// (gen_wordpiece_tables.py). Bytes that are not well-formed UTF-8 are
// dropped, as U+FFFD would be.
//
// WordPiece then takes each word greedily, longest match first from the left,
// the pieces after the first looked up with "##" in front; a word of more
// than 100 code points, or one with a position no piece matches, is [UNK].
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_WORDPIECE_H
#define TPC_RUNTIME_TOKENIZER_WORDPIECE_H

#include "runtime/tokenizer/Tokenizer.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tpc {

/// The words BERT's uncased basic tokenizer makes of `text`, in order
/// (lower-cased, accents stripped, split on white space and punctuation).
std::vector<std::string> bert_basic_tokenize(std::string_view text);

class WordPieceTokenizer final : public Tokenizer {
public:
  /// A word of more code points than this is [UNK].
  static constexpr int kMaxWordChars = 100;

  /// `vocab` lists the tokens by id; it must hold [UNK] and [SEP], once
  /// each, and no token twice or empty. `origin` names the source in error
  /// messages. Errors are std::runtime_error.
  WordPieceTokenizer(std::vector<std::string> vocab, const std::string &origin);

  /// Reads the vocab.txt at `path`.
  static std::unique_ptr<WordPieceTokenizer> from_file(const std::string &path);
  /// The same from the file's contents; errors name `origin`.
  static std::unique_ptr<WordPieceTokenizer> parse(std::string_view vocab_txt,
                                                   const std::string &origin);

  using Tokenizer::encode;
  void encode(std::string_view text, std::vector<int> &out) override;
  /// A token that starts a word has a space in front ("the" is " the"); a
  /// continuation loses its "##" ("##s" is "s"). Streamed one token after
  /// another this is the text with a leading space.
  const std::string &token_bytes(int id) const override;
  /// The tokens joined by spaces, each "##" piece glued to the one before:
  /// Hugging Face's convert_tokens_to_string.
  std::string decode(const std::vector<int> &ids) const override;
  int vocab_size() const override { return static_cast<int>(tokens_.size()); }
  /// [SEP] separates documents.
  int end_of_text() const override { return sep_; }
  /// Whether the text of [PAD], [UNK], [CLS], [SEP] and [MASK] in the input
  /// encodes as those tokens.
  void set_encode_special_tokens(bool on) override { special_tokens_ = on; }

  /// The vocabulary's spelling of `id` ("##s"); an id outside the vocabulary
  /// is a std::runtime_error.
  const std::string &token(int id) const;
  /// The id of vocabulary entry `token` ("[MASK]", "##s"), or -1.
  int token_id(const std::string &token) const;
  int unk_id() const { return unk_; }

private:
  void encode_text(std::string_view text, std::vector<int> &out);
  /// The pieces of one word of `chars` code points whose UTF-8 starts at
  /// `offsets[i]` for code point i (offsets[chars] is its end).
  void encode_word(std::string_view word, const std::vector<size_t> &offsets,
                   std::vector<int> &out);

  std::vector<std::string> tokens_, bytes_;
  // Pieces that start a word, and continuations without their "##".
  std::unordered_map<std::string, int> starts_, continuations_;
  size_t longest_start_ = 0, longest_continuation_ = 0;
  std::vector<std::pair<std::string, int>> specials_;
  std::string key_; // the piece being looked up, reused
  int unk_ = -1, sep_ = -1;
  bool special_tokens_ = false;
};

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_WORDPIECE_H
