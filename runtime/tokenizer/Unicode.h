//===- Unicode.h - code point classes for GPT-2 pre-tokenization -*- C++
//-*-===//
//
// UTF-8 decoding and encoding, and the three character classes the GPT-2
// pattern needs (\p{L}, \p{N}, \s), from tables generated off the
// JavaScript reference encoder's regular expressions (gen_unicode_tables.js).
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_TOKENIZER_UNICODE_H
#define TPC_RUNTIME_TOKENIZER_UNICODE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tpc {

enum class CharClass { Letter, Number, Space, Other };

/// The class of a code point (anything outside the tables is Other).
CharClass classify_code_point(uint32_t cp);

/// One step of UTF-8 decoding at text[pos]: the code point and its length in
/// bytes. A byte that does not start a well-formed sequence (stray
/// continuation, overlong form, surrogate, beyond U+10FFFF, truncated) is
/// returned alone with `valid` false, so every byte of any input belongs to
/// exactly one step.
struct Utf8Step {
  uint32_t cp;
  int length;
  bool valid;
};
Utf8Step decode_utf8(std::string_view text, size_t pos);

/// Appends the UTF-8 bytes of code point `cp` (at most U+10FFFF) to `out`.
void append_utf8(uint32_t cp, std::string &out);

/// The class of the step at text[pos]: invalid bytes are Other.
inline CharClass classify_step(const Utf8Step &step) {
  return step.valid ? classify_code_point(step.cp) : CharClass::Other;
}

} // namespace tpc

#endif // TPC_RUNTIME_TOKENIZER_UNICODE_H
