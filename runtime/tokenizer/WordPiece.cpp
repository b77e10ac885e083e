//===- WordPiece.cpp - BERT's WordPiece tokenizer -------------------------===//

#include "runtime/tokenizer/WordPiece.h"

#include "runtime/tokenizer/Unicode.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tpc {
namespace {

// The flags of kCharFlags, in gen_wordpiece_tables.py's bit order.
enum : uint8_t {
  kWhitespace = 1,
  kControl = 2,
  kPunctuation = 4,
  kMark = 8,
  kSeparator = 16,
};

// A range of code points with one value: kCharFlags' flags or
// kCombiningClass' canonical combining class.
struct FlagRange {
  uint32_t first, last;
  uint8_t value;
};
struct Lowercase {
  uint32_t cp, first, second; // second is 0 when the lower case is one
};
struct Decomposition {
  uint32_t cp;
  uint16_t offset; // into kDecompositionPool
  uint8_t length;
};

#include "runtime/tokenizer/WordPieceTables.inc"

constexpr uint32_t kHangulFirst = 0xAC00, kHangulLast = 0xD7A3;

template <size_t N>
uint8_t value_at(const FlagRange (&ranges)[N], uint32_t cp) {
  const FlagRange *it = std::upper_bound(
      std::begin(ranges), std::end(ranges), cp,
      [](uint32_t c, const FlagRange &r) { return c < r.first; });
  if (it == std::begin(ranges) || cp > (it - 1)->last)
    return 0;
  return (it - 1)->value;
}

uint8_t char_flags(uint32_t cp) {
  // Most text is Latin: the first 0x800 code points come from a table.
  static const std::array<uint8_t, 0x800> low = [] {
    std::array<uint8_t, 0x800> t{};
    for (uint32_t c = 0; c < t.size(); ++c)
      t[c] = value_at(kCharFlags, c);
    return t;
  }();
  return cp < low.size() ? low[cp] : value_at(kCharFlags, cp);
}

uint8_t combining_class(uint32_t cp) {
  return cp < kCombiningClass[0].first ? 0 : value_at(kCombiningClass, cp);
}

// Python's str.lower() of the code point alone: one or two code points.
int lowercase(uint32_t cp, uint32_t out[2]) {
  if (cp < 0x80) {
    out[0] = cp >= 'A' && cp <= 'Z' ? cp + ('a' - 'A') : cp;
    return 1;
  }
  const Lowercase *it =
      std::lower_bound(std::begin(kLowercase), std::end(kLowercase), cp,
                       [](const Lowercase &l, uint32_t c) { return l.cp < c; });
  if (it == std::end(kLowercase) || it->cp != cp) {
    out[0] = cp;
    return 1;
  }
  out[0] = it->first;
  out[1] = it->second;
  return it->second ? 2 : 1;
}

// Appends the canonical decomposition of `cp` (unordered).
void decompose(uint32_t cp, std::vector<uint32_t> &out) {
  if (cp < kDecomposition[0].cp) {
    out.push_back(cp);
    return;
  }
  if (cp >= kHangulFirst && cp <= kHangulLast) {
    // Unicode 3.12: a syllable is a leading consonant, a vowel and maybe a
    // trailing consonant.
    uint32_t s = cp - kHangulFirst;
    out.push_back(0x1100 + s / 588);
    out.push_back(0x1161 + (s % 588) / 28);
    if (s % 28)
      out.push_back(0x11A7 + s % 28);
    return;
  }
  const Decomposition *it = std::lower_bound(
      std::begin(kDecomposition), std::end(kDecomposition), cp,
      [](const Decomposition &d, uint32_t c) { return d.cp < c; });
  if (it == std::end(kDecomposition) || it->cp != cp) {
    out.push_back(cp);
    return;
  }
  out.insert(out.end(), kDecompositionPool + it->offset,
             kDecompositionPool + it->offset + it->length);
}

// NFD's canonical ordering: each run of marks sorted, stably, by class.
void reorder_marks(std::vector<uint32_t> &cps) {
  auto by_class = [](uint32_t a, uint32_t b) {
    return combining_class(a) < combining_class(b);
  };
  for (size_t i = 0; i < cps.size();) {
    if (combining_class(cps[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < cps.size() && combining_class(cps[j]) != 0)
      ++j;
    if (j - i > 1)
      std::stable_sort(cps.begin() + i, cps.begin() + j, by_class);
    i = j;
  }
}

bool is_cjk(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

/// The basic tokenizer: calls emit(word, offsets) for each word, its UTF-8
/// and the offset of each code point in it, then of its end.
class BasicTokenizer {
public:
  template <typename Emit> void run(std::string_view text, Emit &&emit) {
    word_.clear();
    for (size_t pos = 0; pos < text.size();) {
      Utf8Step step = decode_utf8(text, pos);
      pos += step.length;
      if (!step.valid)
        continue; // U+FFFD, which cleaning drops
      uint32_t lower[2];
      int n = lowercase(step.cp, lower);
      for (int i = 0; i < n; ++i)
        add(lower[i], emit);
    }
    finish_word(emit);
  }

private:
  template <typename Emit> void add(uint32_t cp, Emit &emit) {
    uint8_t flags = char_flags(cp);
    if (cp == 0 || cp == 0xFFFD || (flags & kControl))
      return;
    if (flags & (kWhitespace | kSeparator)) {
      finish_word(emit);
    } else if (is_cjk(cp)) {
      finish_word(emit);
      word_.push_back(cp);
      finish_word(emit);
    } else {
      word_.push_back(cp);
    }
  }

  // NFD, marks dropped, split on punctuation.
  template <typename Emit> void finish_word(Emit &emit) {
    if (word_.empty())
      return;
    decomposed_.clear();
    for (uint32_t cp : word_)
      decompose(cp, decomposed_);
    word_.clear();
    reorder_marks(decomposed_);
    auto flush = [&] {
      if (offsets_.empty())
        return;
      offsets_.push_back(piece_.size());
      emit(std::string_view(piece_), offsets_);
      piece_.clear();
      offsets_.clear();
    };
    for (uint32_t cp : decomposed_) {
      uint8_t flags = char_flags(cp);
      if (flags & kMark)
        continue;
      if (flags & kPunctuation)
        flush();
      offsets_.push_back(piece_.size());
      append_utf8(cp, piece_);
      if (flags & kPunctuation)
        flush();
    }
    flush();
  }

  std::vector<uint32_t> word_, decomposed_;
  std::string piece_;
  std::vector<size_t> offsets_;
};

constexpr const char *kSpecialTokens[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]",
                                          "[MASK]"};

bool is_continuation(const std::string &token) {
  return token.size() >= 2 && token[0] == '#' && token[1] == '#';
}

} // namespace

std::vector<std::string> bert_basic_tokenize(std::string_view text) {
  std::vector<std::string> words;
  BasicTokenizer().run(text,
                       [&](std::string_view word, const std::vector<size_t> &) {
                         words.emplace_back(word);
                       });
  return words;
}

WordPieceTokenizer::WordPieceTokenizer(std::vector<std::string> vocab,
                                       const std::string &origin)
    : tokens_(std::move(vocab)) {
  if (tokens_.empty())
    throw std::runtime_error(origin + ": the vocabulary is empty; give BERT's "
                                      "vocab.txt, one token per line");
  if (tokens_.size() > size_t(INT32_MAX))
    throw std::runtime_error(origin + ": too many tokens");
  std::unordered_map<std::string, int> ids;
  for (size_t id = 0; id < tokens_.size(); ++id) {
    const std::string &token = tokens_[id];
    const std::string line = "line " + std::to_string(id + 1);
    if (token.empty())
      throw std::runtime_error(origin + ": " + line +
                               " is empty; a vocab.txt has one token per line");
    auto [it, fresh] = ids.emplace(token, int(id));
    if (!fresh)
      throw std::runtime_error(origin + ": the token '" + token +
                               "' is on line " +
                               std::to_string(it->second + 1) + " and " + line +
                               "; each token is on one line");
    if (is_continuation(token)) {
      std::string piece = token.substr(2);
      longest_continuation_ = std::max(longest_continuation_, piece.size());
      bytes_.push_back(piece);
      continuations_.emplace(std::move(piece), int(id));
    } else {
      longest_start_ = std::max(longest_start_, token.size());
      bytes_.push_back(" " + token);
      starts_.emplace(token, int(id));
    }
  }
  for (const char *special : kSpecialTokens)
    if (auto it = ids.find(special); it != ids.end())
      specials_.emplace_back(special, it->second);
  unk_ = token_id("[UNK]");
  sep_ = token_id("[SEP]");
  if (unk_ < 0 || sep_ < 0)
    throw std::runtime_error(
        origin + ": the vocabulary has no " + (unk_ < 0 ? "[UNK]" : "[SEP]") +
        " token; give BERT's vocab.txt (scripts/setup.sh writes "
        "bert-base-uncased's into " +
        default_vocab_dir("bert-uncased") + ")");
}

std::unique_ptr<WordPieceTokenizer>
WordPieceTokenizer::parse(std::string_view vocab_txt,
                          const std::string &origin) {
  std::vector<std::string> vocab;
  for (size_t pos = 0; pos < vocab_txt.size();) {
    size_t end = std::min(vocab_txt.find('\n', pos), vocab_txt.size());
    std::string_view line = vocab_txt.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    vocab.emplace_back(line);
    pos = end + 1;
  }
  return std::make_unique<WordPieceTokenizer>(std::move(vocab), origin);
}

std::unique_ptr<WordPieceTokenizer>
WordPieceTokenizer::from_file(const std::string &path) {
  return parse(
      read_tokenizer_file(path, "point --vocab-dir at a directory with BERT's "
                                "vocab.txt (scripts/setup.sh writes "
                                "bert-base-uncased's into " +
                                    default_vocab_dir("bert-uncased") + ")"),
      path);
}

void WordPieceTokenizer::encode(std::string_view text, std::vector<int> &out) {
  if (!special_tokens_) {
    encode_text(text, out);
    return;
  }
  // The leftmost special token next; where each occurs next is kept until
  // the text before it is passed.
  std::vector<size_t> next(specials_.size(), 0);
  for (size_t i = 0; i < specials_.size(); ++i)
    next[i] = text.find(specials_[i].first);
  size_t pos = 0;
  for (;;) {
    size_t at = std::string_view::npos, hit = 0;
    for (size_t i = 0; i < specials_.size(); ++i) {
      if (next[i] != std::string_view::npos && next[i] < pos)
        next[i] = text.find(specials_[i].first, pos);
      if (next[i] < at)
        at = next[i], hit = i;
    }
    if (at == std::string_view::npos)
      break;
    encode_text(text.substr(pos, at - pos), out);
    out.push_back(specials_[hit].second);
    pos = at + specials_[hit].first.size();
  }
  encode_text(text.substr(pos), out);
}

void WordPieceTokenizer::encode_text(std::string_view text,
                                     std::vector<int> &out) {
  BasicTokenizer().run(
      text, [&](std::string_view word, const std::vector<size_t> &offsets) {
        encode_word(word, offsets, out);
      });
}

void WordPieceTokenizer::encode_word(std::string_view word,
                                     const std::vector<size_t> &offsets,
                                     std::vector<int> &out) {
  const size_t chars = offsets.size() - 1;
  if (chars > size_t(kMaxWordChars)) {
    out.push_back(unk_);
    return;
  }
  const size_t first = out.size();
  for (size_t start = 0; start < chars;) {
    const auto &pieces = start == 0 ? starts_ : continuations_;
    const size_t longest = start == 0 ? longest_start_ : longest_continuation_;
    int id = -1;
    size_t end = chars;
    for (; end > start; --end) {
      size_t length = offsets[end] - offsets[start];
      if (length > longest)
        continue; // no piece is that long
      key_.assign(word.data() + offsets[start], length);
      if (auto it = pieces.find(key_); it != pieces.end()) {
        id = it->second;
        break;
      }
    }
    if (id < 0) {
      out.resize(first);
      out.push_back(unk_);
      return;
    }
    out.push_back(id);
    start = end;
  }
}

const std::string &WordPieceTokenizer::token_bytes(int id) const {
  check_id(id);
  return bytes_[id];
}

const std::string &WordPieceTokenizer::token(int id) const {
  check_id(id);
  return tokens_[id];
}

int WordPieceTokenizer::token_id(const std::string &token) const {
  const auto &pieces = is_continuation(token) ? continuations_ : starts_;
  auto it = pieces.find(is_continuation(token) ? token.substr(2) : token);
  return it == pieces.end() ? -1 : it->second;
}

std::string WordPieceTokenizer::decode(const std::vector<int> &ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i)
    // The first token has no space to glue a "##" piece to, and keeps it.
    text += i == 0 ? token(ids[i]) : token_bytes(ids[i]);
  return text;
}

} // namespace tpc
