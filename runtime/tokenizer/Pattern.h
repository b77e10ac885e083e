//===- Pattern.h - pre-tokenizer regular expressions -----------*- C++ -*-===//
//
// The regular expressions of byte-level BPE pre-tokenizers (GPT-2's, Llama
// 3's, any tokenizer.json "Split" pattern built of the same parts), compiled
// into a small backtracking matcher with leftmost-first alternation, as in
// the JavaScript and Oniguruma engines the references run on. Supported:
// literals, escapes (\r \n \t \f \v and escaped punctuation), classes
// [...] and [^...] with ranges, \s \S \p{L} \p{N} \P{L} \P{N} (also spelled
// \p{Letter}, \p{Number}), groups (...) (?:...) and (?i:...) (ASCII case
// folding, as the JavaScript reference spells Llama 3's contractions),
// lookahead (?=...) (?!...), alternation, and the quantifiers ? * + {n}
// {n,} {n,m}, greedy or lazy. Anything else is refused with its offset.
//
// Text is UTF-8. A byte that does not start a well-formed sequence is one
// character of no class: only negated classes (\S, [^...]) match it, so
// any byte string splits into pieces that concatenate back to it.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_PATTERN_H
#define TPC_RUNTIME_TOKENIZER_PATTERN_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpc {

/// GPT-2's pre-tokenizer pattern (Hugging Face's ByteLevel with use_regex).
extern const char *const kGpt2Pattern;
/// Llama 3's pre-tokenizer pattern, as its tokenizer.json spells it.
extern const char *const kLlama3Pattern;

class Pattern {
public:
  /// Compiles `source`. Errors are std::runtime_error naming the construct
  /// and its byte offset.
  explicit Pattern(std::string_view source);

  const std::string &source() const { return source_; }

  /// The length of the leftmost-first match that starts at text[pos], or
  /// std::string_view::npos when none does (or only an empty one).
  size_t match(std::string_view text, size_t pos) const;

  /// Hugging Face's Split with behavior "Isolated": the matches and the text
  /// between them, in order; the pieces concatenate back to `text`.
  void split(std::string_view text, std::vector<std::string_view> &out) const;

  /// A set of code points: a 4-bit mask over the classes of Unicode.h
  /// (letter, number, space, other), explicit ranges, and a negation.
  struct CharSet {
    uint8_t classes = 0;
    bool negated = false;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    // Membership of code points below 0x800, computed once.
    std::vector<uint64_t> low;
  };

  /// One instruction of the backtracking program.
  struct Inst {
    enum Op : uint8_t { Set, Split, Jump, Look, Match } op;
    // Set: the set's index. Split: the preferred branch in x, the other in
    // y. Jump: x. Look: the sub-program starts at x and ends in Match;
    // `negative` for (?!...).
    int x = 0, y = 0;
    bool negative = false;
  };

private:
  bool in_set(const CharSet &set, std::string_view text, size_t pos,
              int &length) const;
  size_t run(int pc, std::string_view text, size_t pos) const;

  std::string source_;
  std::vector<CharSet> sets_;
  std::vector<Inst> program_;
};

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_PATTERN_H
