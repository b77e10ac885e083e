//===- Unicode.cpp - code point classes for GPT-2 pre-tokenization --------===//

#include "runtime/tokenizer/Unicode.h"

#include <algorithm>
#include <array>

namespace tpc {
namespace {

struct CodePointRange {
  uint32_t first, last;
};

#include "runtime/tokenizer/UnicodeTables.inc"

template <size_t N>
bool in_ranges(const CodePointRange (&ranges)[N], uint32_t cp) {
  const CodePointRange *it = std::upper_bound(
      std::begin(ranges), std::end(ranges), cp,
      [](uint32_t c, const CodePointRange &r) { return c < r.first; });
  return it != std::begin(ranges) && cp <= (it - 1)->last;
}

CharClass classify_uncached(uint32_t cp) {
  if (in_ranges(kSpaceRanges, cp))
    return CharClass::Space;
  if (in_ranges(kLetterRanges, cp))
    return CharClass::Letter;
  if (in_ranges(kNumberRanges, cp))
    return CharClass::Number;
  return CharClass::Other;
}

// Most text is Latin: the first 0x800 code points (one and two byte UTF-8)
// come from a table.
const std::array<CharClass, 0x800> &low_classes() {
  static const std::array<CharClass, 0x800> table = [] {
    std::array<CharClass, 0x800> t{};
    for (uint32_t cp = 0; cp < t.size(); ++cp)
      t[cp] = classify_uncached(cp);
    return t;
  }();
  return table;
}

} // namespace

CharClass classify_code_point(uint32_t cp) {
  if (cp < 0x800)
    return low_classes()[cp];
  return classify_uncached(cp);
}

Utf8Step decode_utf8(std::string_view text, size_t pos) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  uint8_t b0 = byte(pos);
  if (b0 < 0x80)
    return {b0, 1, true};
  int length;
  uint32_t cp, min;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return {b0, 1, false};
  }
  if (pos + length > text.size())
    return {b0, 1, false};
  for (int i = 1; i < length; ++i) {
    uint8_t b = byte(pos + i);
    if ((b & 0xC0) != 0x80)
      return {b0, 1, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return {b0, 1, false};
  return {cp, length, true};
}

void append_utf8(uint32_t cp, std::string &out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

} // namespace tpc
