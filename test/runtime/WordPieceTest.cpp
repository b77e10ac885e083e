//===- WordPieceTest.cpp - BERT's WordPiece tokenizer ---------------------===//
//
// The basic tokenizer's rules (cleaning, white space, CJK, lower case and
// accents, punctuation), greedy longest-match-first WordPiece with "##"
// continuations and [UNK], special tokens, decoding and vocab.txt errors, on
// small vocabularies. Tests of bert-base-uncased's own vocabulary use the
// vocab.txt scripts/setup.sh writes and are skipped without it.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/WordPiece.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

using namespace tpc;

namespace {

using Words = std::vector<std::string>;
using Ids = std::vector<int>;

// The vocabulary of Hugging Face's BertTokenizer tests, plus what these
// tests need.
std::unique_ptr<WordPieceTokenizer> small() {
  return std::make_unique<WordPieceTokenizer>(
      std::vector<std::string>{
          "[UNK]",      "[CLS]",  "[SEP]", "want",  "##want", "##ed",
          "wa",         "un",     "runn",  "##ing", ",",      "low",
          "lowest",     "a",      "##a",   "e",     "##e",    "\xce\xbb",
          "##\xce\xbb", "[MASK]", "cafe",  "##s",   "!"},
      "small");
}

std::string repeat(const std::string &s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

TEST(WordPiece, LowerCaseAndAccents) {
  EXPECT_EQ(bert_basic_tokenize(" \tHeLLo!how  \n Are yoU?  "),
            (Words{"hello", "!", "how", "are", "you", "?"}));
  // Precomposed and decomposed accents both go; so does a mark alone.
  EXPECT_EQ(bert_basic_tokenize("H\xc3\xa4LLo caf\xc3\xa9 cafe\xcc\x81 "
                                "\xc3\x85ngstr\xc3\xb6m \xcc\x81"),
            (Words{"hallo", "cafe", "cafe", "angstrom"}));
  // Python lowers each character alone: U+0130 is i + U+0307, which goes
  // with the accents; a capital sigma is always σ, never the final ς.
  EXPECT_EQ(bert_basic_tokenize("\xc4\xb0stanbul \xce\x9f\xce\x94\xce\x9f"
                                "\xce\xa3"),
            (Words{"istanbul", "\xce\xbf\xce\xb4\xce\xbf\xcf\x83"}));
  // Hangul syllables decompose into jamo, which are not marks.
  EXPECT_EQ(bert_basic_tokenize("\xea\xb0\x81"),
            (Words{"\xe1\x84\x80\xe1\x85\xa1\xe1\x86\xa8"}));
}

TEST(WordPiece, Cjk) {
  EXPECT_EQ(bert_basic_tokenize("ah\xe5\x8d\x9a\xe6\x8e\xa8zz"),
            (Words{"ah", "\xe5\x8d\x9a", "\xe6\x8e\xa8", "zz"}));
  // Kana are not among BERT's CJK ranges and stay together; a compatibility
  // ideograph is one, and decomposes to its unified form.
  EXPECT_EQ(bert_basic_tokenize("\xe3\x81\xa7\xe3\x81\x99\xef\xa4\x80x"),
            (Words{"\xe3\x81\xa6\xe3\x81\x99", "\xe8\xb1\x88", "x"}));
}

TEST(WordPiece, Punctuation) {
  // ASCII symbols count as punctuation, as do Unicode's P* characters.
  EXPECT_EQ(bert_basic_tokenize("a$b+c<d=e>f^g`h|i~j"),
            (Words{"a", "$", "b", "+", "c", "<", "d", "=", "e", ">", "f", "^",
                   "g", "`", "h", "|", "i", "~", "j"}));
  EXPECT_EQ(bert_basic_tokenize("\xc2\xabq\xc2\xbb\xe2\x80\x94\xc2\xbfx?"),
            (Words{"\xc2\xab", "q", "\xc2\xbb", "\xe2\x80\x94", "\xc2\xbf", "x",
                   "?"}));
  EXPECT_EQ(bert_basic_tokenize("don't...!"),
            (Words{"don", "'", "t", ".", ".", ".", "!"}));
  // Symbols that are not punctuation stay in the word.
  EXPECT_EQ(bert_basic_tokenize("a\xc2\xa9"
                                "b 5\xe2\x82\xac"),
            (Words{"a\xc2\xa9"
                   "b",
                   "5\xe2\x82\xac"}));
}

TEST(WordPiece, Cleaning) {
  // Control characters (C*, but \t \n \r), U+0000, U+FFFD, format
  // characters and bytes that are not UTF-8 are dropped, joining what is
  // around them.
  EXPECT_EQ(bert_basic_tokenize(std::string("a\0b", 3) +
                                " c\xef\xbf\xbd"
                                "d e\x07"
                                "f g\xe2\x80\x8bh i\xc2\xad"
                                "j k\x0bl m\xff"
                                "n"),
            (Words{"ab", "cd", "ef", "gh", "ij", "kl", "mn"}));
  // White space: \t \n \r, Zs (no-break, em, ideographic space) and the
  // line and paragraph separators split words.
  EXPECT_EQ(bert_basic_tokenize("a\tb\r\nc\xc2\xa0"
                                "d\xe2\x80\x83"
                                "e\xe3\x80\x80"
                                "f\xe2\x80\xa8g\xe2\x80\xa9h"),
            (Words{"a", "b", "c", "d", "e", "f", "g", "h"}));
  EXPECT_EQ(bert_basic_tokenize(" \t\n "), Words{});
}

TEST(WordPiece, LongestMatchFirst) {
  auto tok = small();
  // Hugging Face's own test: "UNwant\u00E9d,running".
  EXPECT_EQ(tok->encode("UNwant\xc3\xa9"
                        "d,running"),
            (Ids{7, 4, 5, 10, 8, 9}));
  EXPECT_EQ(tok->encode("lowest low"), (Ids{12, 11}));
  // A position no piece matches makes the whole word [UNK], not its rest.
  EXPECT_EQ(tok->encode("unwantedX running"), (Ids{0, 8, 9}));
  EXPECT_EQ(tok->encode("wantwa"), (Ids{0}));
  EXPECT_EQ(tok->encode(""), Ids{});
}

TEST(WordPiece, UnknownOver100Characters) {
  auto tok = small();
  EXPECT_EQ(tok->encode(repeat("a", 100)).size(), 100u);
  EXPECT_EQ(tok->encode(repeat("a", 101) + " a"), (Ids{0, 13}));
  // Code points count, not bytes: 100 λ are 200 bytes; 100 é lose their
  // accents before counting.
  EXPECT_EQ(tok->encode(repeat("\xce\xbb", 100)).size(), 100u);
  EXPECT_EQ(tok->encode(repeat("\xce\xbb", 101)), Ids{0});
  EXPECT_EQ(tok->encode(repeat("e\xcc\x81", 100)).size(), 100u);
}

TEST(WordPiece, UnknownCharacters) {
  auto tok = small();
  EXPECT_EQ(tok->encode("a\xe2\x98\x83 \xe2\x98\x83 a"), (Ids{0, 0, 13}));
  EXPECT_EQ(tok->encode("\xf0\x9f\x98\x80"), Ids{0});
}

TEST(WordPiece, SpecialTokens) {
  auto tok = small();
  // Plain text by default: brackets are punctuation.
  EXPECT_EQ(tok->encode("[MASK]"), (Ids{0, 0, 0}));
  tok->set_encode_special_tokens(true);
  EXPECT_EQ(tok->encode("[CLS]want[MASK] a[SEP][SEP]"),
            (Ids{1, 3, 19, 13, 2, 2}));
  // Only the exact spelling, and only tokens the vocabulary has.
  EXPECT_EQ(tok->encode("[mask] [PAD]"), (Ids{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(tok->end_of_text(), 2);
  EXPECT_EQ(tok->token_id("[MASK]"), 19);
  EXPECT_EQ(tok->token_id("##ed"), 5);
  EXPECT_EQ(tok->token_id("ed"), -1);
}

TEST(WordPiece, DecodeAndRoundTrip) {
  auto tok = small();
  Ids ids = tok->encode("Unwanted, RUNNING cafés!");
  EXPECT_EQ(ids, (Ids{7, 4, 5, 10, 8, 9, 20, 21, 22}));
  EXPECT_EQ(tok->decode(ids), "unwanted , running cafes !");
  EXPECT_EQ(tok->encode(tok->decode(ids)), ids);
  // Streamed, a word starts with a space and a continuation has no "##".
  EXPECT_EQ(tok->token_bytes(7), " un");
  EXPECT_EQ(tok->token_bytes(4), "want");
  EXPECT_EQ(tok->token(4), "##want");
  // A first token that continues keeps its "##", as Hugging Face's
  // convert_tokens_to_string leaves it.
  EXPECT_EQ(tok->decode({4, 5, 13}), "##wanted a");
  EXPECT_EQ(tok->decode({}), "");
  EXPECT_THROW(tok->decode({23}), std::runtime_error);
  EXPECT_THROW(tok->token_bytes(-1), std::runtime_error);
}

TEST(WordPiece, VocabFile) {
  auto tok = WordPieceTokenizer::parse("[UNK]\r\n[SEP]\r\nhi\r\n##s\r\n", "v");
  EXPECT_EQ(tok->vocab_size(), 4);
  EXPECT_EQ(tok->encode("His"), (Ids{2, 3}));
  // A missing final newline is no token of its own.
  EXPECT_EQ(WordPieceTokenizer::parse("[UNK]\n[SEP]", "v")->vocab_size(), 2);

  auto error = [](std::string_view text) {
    try {
      WordPieceTokenizer::parse(text, "vocab.txt");
    } catch (const std::runtime_error &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("[UNK]\n\n[SEP]\n"),
            "vocab.txt: line 2 is empty; a vocab.txt has one token per line");
  EXPECT_EQ(error("[UNK]\n[SEP]\nhi\nhi\n"),
            "vocab.txt: the token 'hi' is on line 3 and line 4; each token is "
            "on one line");
  EXPECT_EQ(error(""), "vocab.txt: the vocabulary is empty; give BERT's "
                       "vocab.txt, one token per line");
  EXPECT_NE(error("[SEP]\nhi\n")
                .find("vocab.txt: the vocabulary has no "
                      "[UNK] token; give BERT's vocab.txt"),
            std::string::npos);
  EXPECT_NE(error("[UNK]\nhi\n").find("has no [SEP] token"), std::string::npos);
  EXPECT_THROW(WordPieceTokenizer::from_file("/nonexistent/vocab.txt"),
               std::runtime_error);
}

bool have_file(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(WordPiece, BertBaseUncased) {
  std::string dir = default_vocab_dir("bert-uncased");
  if (!have_file(dir + "/vocab.txt"))
    GTEST_SKIP() << "bert-base-uncased's vocab.txt not in " << dir
                 << " (scripts/setup.sh writes it)";
  auto made = make_tokenizer("bert-uncased", dir);
  auto *tok = dynamic_cast<WordPieceTokenizer *>(made.get());
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->vocab_size(), 30522);
  EXPECT_EQ(tok->token_id("[PAD]"), 0);
  EXPECT_EQ(tok->unk_id(), 100);
  EXPECT_EQ(tok->token_id("[CLS]"), 101);
  EXPECT_EQ(tok->end_of_text(), 102);
  EXPECT_EQ(tok->token_id("[MASK]"), 103);
  EXPECT_EQ(tok->token_id("the"), 1996);
  // The ids of Hugging Face's documentation examples, without [CLS] and
  // [SEP].
  EXPECT_EQ(tok->encode("Hello, my dog is cute"),
            (Ids{7592, 1010, 2026, 3899, 2003, 10140}));
  // Greedy: "una" is the longest piece that starts the word, so it is
  // "una ##ffa ##ble", not the "un ##aff ##able" of BERT's README.
  EXPECT_EQ(tok->encode("unaffable"), (Ids{14477, 20961, 3468}));
  EXPECT_EQ(tok->token(20961), "##ffa");
  EXPECT_EQ(tok->decode(tok->encode("Hello, my dog is cute")),
            "hello , my dog is cute");
}

} // namespace
