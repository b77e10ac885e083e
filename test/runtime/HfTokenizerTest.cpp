//===- HfTokenizerTest.cpp - pre-tokenizer patterns and tokenizer.json ----===//
//
// The pattern matcher against pieces the JavaScript reference's regular
// expressions produce (Llama 3's pattern as llama3-tokenizer-js spells it),
// the constructs it refuses, and the tokenizer.json loader on small files:
// ignore_merges, added tokens as text or as tokens, document markers, and
// each unsupported or broken file's message. Llama 3's own tokenizer.json is
// used where scripts/setup.sh has written it, else those tests are skipped.
//
//===----------------------------------------------------------------------===//

#include "runtime/tokenizer/HfTokenizer.h"
#include "runtime/tokenizer/BpeTokenizer.h"
#include "runtime/tokenizer/Pattern.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <sys/stat.h>

using namespace tpc;

namespace {

using Pieces = std::vector<std::string>;

Pieces split(const Pattern &pattern, std::string_view text) {
  std::vector<std::string_view> views;
  pattern.split(text, views);
  return Pieces(views.begin(), views.end());
}

Pieces llama3(std::string_view text) {
  static const Pattern pattern(kLlama3Pattern);
  return split(pattern, text);
}

TEST(Llama3Pattern, ContractionsInBothCases) {
  EXPECT_EQ(llama3("I'M DON'T we'Ll it's 'S x''s"),
            (Pieces{"I", "'M", " DON", "'T", " we", "'Ll", " it", "'s", " '",
                    "S", " x", "''", "s"}));
}

TEST(Llama3Pattern, DigitsInRunsOfAtMostThree) {
  EXPECT_EQ(llama3("12345 x1234y 3.14159 \u0661\u0662\u0663\u0664"),
            (Pieces{"123", "45", " x", "123", "4", "y", " ", "3", ".", "141",
                    "59", " ", "\u0661\u0662\u0663", "\u0664"}));
}

TEST(Llama3Pattern, WhitespaceAndNewlines) {
  EXPECT_EQ(llama3("a  b\t\tc  \n\n  d   "),
            (Pieces{"a", " ", " b", "\t", "\tc", "  \n\n", " ", " d", "   "}));
  EXPECT_EQ(llama3("Hello,world!!\n\nNext .\r\n"),
            (Pieces{"Hello", ",world", "!!\n\n", "Next", " .\r\n"}));
  EXPECT_EQ(llama3("(x) \"quoted\" $100"),
            (Pieces{"(x", ")", " \"", "quoted", "\"", " $", "100"}));
}

TEST(Llama3Pattern, ScriptsAndEmoji) {
  EXPECT_EQ(
      llama3("\u65e5\u672c\u8a9e \U0001F44D\U0001F3FD \u1F18\u03bd"),
      (Pieces{"\u65e5\u672c\u8a9e", " \U0001F44D\U0001F3FD", " \u1F18\u03bd"}));
}

TEST(Llama3Pattern, InvalidBytesAreCharactersOfNoClass) {
  EXPECT_EQ(llama3("a\xff\xfe"
                   "b"),
            (Pieces{"a", "\xff\xfe", "b"}));
  std::mt19937 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    std::string text(rng() % 48, '\0');
    for (char &c : text)
      c = static_cast<char>(rng() % 4 ? "a1 \n'\r\t!"[rng() % 9] : rng());
    std::string joined;
    for (const std::string &p : llama3(text)) {
      EXPECT_FALSE(p.empty());
      joined += p;
    }
    EXPECT_EQ(joined, text);
  }
}

TEST(Pattern, Constructs) {
  auto match = [](const char *pattern, std::string_view text) {
    size_t n = Pattern(pattern).match(text, 0);
    return n == std::string_view::npos ? std::string("<none>")
                                       : std::string(text.substr(0, n));
  };
  EXPECT_EQ(match("(?i:[a-c]x)", "BXy"), "BX");
  EXPECT_EQ(match("(?i:k)", "\u212a"), "<none>"); // ASCII folding only
  EXPECT_EQ(match("a+?", "aaa"), "a");
  EXPECT_EQ(match("a{2,3}", "aaaa"), "aaa");
  EXPECT_EQ(match("a{2,}", "aaaa"), "aaaa");
  EXPECT_EQ(match("a{2}", "a"), "<none>");
  EXPECT_EQ(match("a(?=b)", "ab"), "a");
  EXPECT_EQ(match("a(?=b)", "ac"), "<none>");
  EXPECT_EQ(match("(ab|a)c", "ac"), "ac");
  EXPECT_EQ(match("ab|abc", "abc"), "ab"); // leftmost-first, not longest
  EXPECT_EQ(match("[\\p{N}\\-x]+", "1-x2y"), "1-x2");
  EXPECT_EQ(match("\\P{L}+", "12 ab"), "12 ");
  EXPECT_EQ(match("[^\\S\\n]+", " \t\nx"), " \t");
  EXPECT_EQ(match("\\x41\\u00e9", "A\u00e9"), "A\u00e9");
  EXPECT_EQ(match("a?", "b"), "<none>"); // empty matches do not count
  // Text between matches is a piece of its own.
  EXPECT_EQ(split(Pattern("\\p{N}+"), "ab12cd"), (Pieces{"ab", "12", "cd"}));
}

TEST(Pattern, RefusesWhatItDoesNotImplement) {
  auto error = [](const char *pattern) {
    try {
      Pattern p(pattern);
    } catch (const std::runtime_error &e) {
      return std::string(e.what());
    }
    return std::string("<accepted>");
  };
  EXPECT_NE(error("\\d+").find("the escape \\d at offset 0"),
            std::string::npos);
  EXPECT_NE(error("a.b").find("'.' at offset 1"), std::string::npos);
  EXPECT_NE(error("^a").find("'^' at offset 0"), std::string::npos);
  EXPECT_NE(error("\\p{Lu}").find("a Unicode property other than"),
            std::string::npos);
  EXPECT_NE(error("(?<x>a)").find("a group of this kind"), std::string::npos);
  EXPECT_NE(error("[ab").find("a '[' without its ']' at offset 0"),
            std::string::npos);
  EXPECT_NE(error("(ab").find("a '(' without its ')'"), std::string::npos);
  EXPECT_NE(error("ab)").find("an unmatched ')' at offset 2"),
            std::string::npos);
  EXPECT_NE(error("*a").find("nothing to repeat"), std::string::npos);
  EXPECT_NE(error("a++").find("a quantifier of a quantifier"),
            std::string::npos);
  EXPECT_NE(error("(a*)*").find("can match the empty string"),
            std::string::npos);
  EXPECT_NE(error("[z-a]").find("end is below its start"), std::string::npos);
  EXPECT_EQ(error(kGpt2Pattern), "<accepted>");
}

// A small tokenizer.json in Llama 3's structure: the 256 bytes, merges
// "h e", "l l", "he ll", the token "xyz" that no merge makes, and two
// special tokens, <|begin_of_text|> (262) and <|end_of_text|> (263).
std::string small_json(const std::string &model_extra = "",
                       const std::string &pre = "") {
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string s = byte_level_spelling(std::string(1, static_cast<char>(b)));
    std::string escaped;
    for (char c : s)
      escaped +=
          c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    vocab += "\"" + escaped + "\": " + std::to_string(b) + ", ";
  }
  vocab += "\"he\": 256, \"ll\": 257, \"hell\": 258, \"xyz\": 259, "
           "\"Ġw\": 260, \"wo\": 261";
  std::string pre_tokenizer = pre.empty()
                                  ? R"({"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
         "behavior": "Isolated", "invert": false},
        {"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}]})"
                                  : pre;
  return R"({"version": "1.0", "normalizer": null,
    "added_tokens": [
      {"id": 262, "content": "<|begin_of_text|>", "special": true},
      {"id": 263, "content": "<|end_of_text|>", "special": true}],
    "pre_tokenizer": )" +
         pre_tokenizer + R"(,
    "post_processor": {"type": "TemplateProcessing", "single": [
      {"SpecialToken": {"id": "<|begin_of_text|>", "type_id": 0}},
      {"Sequence": {"id": "A", "type_id": 0}}]},
    "model": {"type": "BPE", "dropout": null, "ignore_merges": true,
      "byte_fallback": false)" +
         model_extra + R"(, "vocab": {)" + vocab +
         R"(}, "merges": ["h e", "l l", ["he", "ll"], "Ġ w", "w o"]}})";
}

TEST(HfTokenizer, ReadsByteLevelBpe) {
  std::unique_ptr<BpeTokenizer> tok = parse_tokenizer_json(small_json(), "t");
  EXPECT_EQ(tok->vocab_size(), 264);
  EXPECT_EQ(tok->begin_of_text(), 262);
  EXPECT_EQ(tok->end_of_text(), 263);
  EXPECT_EQ(tok->encode("hello"), (std::vector<int>{258, 'o'}));
  // ignore_merges: a piece that is a token is that token.
  EXPECT_EQ(tok->encode("xyz xyz"),
            (std::vector<int>{259, ' ', 'x', 'y', 'z'}));
  EXPECT_EQ(tok->encode(" wow"), (std::vector<int>{260, 'o', 'w'}));
  // Equal ranks merge left to right: "lll" is "ll" "l".
  EXPECT_EQ(tok->encode("lll"), (std::vector<int>{257, 'l'}));
  // Special-token text is plain text unless asked otherwise.
  std::string text = "he<|end_of_text|>";
  std::vector<int> plain = tok->encode(text);
  // "he", "<", "|", "e", "n", "d", "_", "o", "f", "_", "t", "e", "x", "t",
  // "|", ">".
  EXPECT_EQ(plain.size(), 16u);
  EXPECT_EQ(tok->decode(plain), text);
  tok->set_encode_special_tokens(true);
  EXPECT_EQ(tok->encode(text), (std::vector<int>{256, 263}));
  EXPECT_EQ(tok->encode("<|begin_of_text|><|end_of_text|>x"),
            (std::vector<int>{262, 263, 'x'}));
  EXPECT_EQ(tok->decode({262, 258, 'o', 263}),
            "<|begin_of_text|>hello<|end_of_text|>");
  EXPECT_THROW(tok->decode({264}), std::runtime_error);
}

TEST(HfTokenizer, RoundTripsArbitraryBytes) {
  std::unique_ptr<BpeTokenizer> tok = parse_tokenizer_json(small_json(), "t");
  std::mt19937 rng(13);
  static const char *parts[] = {
      "hello",          " w",    "xyz",    "'S",         "  ",
      "\r\n",           "12345", "\u00e9", "\U0001F600", "\xff",
      "<|end_of_text|>"};
  for (int on = 0; on < 2; ++on) {
    tok->set_encode_special_tokens(on);
    for (int trial = 0; trial < 200; ++trial) {
      std::string text;
      for (int i = rng() % 20; i > 0; --i)
        text += rng() % 6 ? parts[rng() % 11]
                          : std::string(1, static_cast<char>(rng()));
      EXPECT_EQ(tok->decode(tok->encode(text)), text);
    }
  }
}

std::string load_error(const std::string &json) {
  try {
    parse_tokenizer_json(json, "/x/tokenizer.json");
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(HfTokenizer, NamesWhatItDoesNotSupport) {
  EXPECT_EQ(load_error(R"({"model": {"type": "Unigram", "vocab": []}})"),
            "/x/tokenizer.json: unsupported tokenizer.json: the model is of "
            "type 'Unigram'; tpc reads byte-level BPE tokenizers (model BPE; "
            "pre-tokenizer ByteLevel, or a Sequence of Split and ByteLevel; "
            "no normalizer), such as GPT-2's and Llama 3's");
  auto has = [](const std::string &error, const std::string &what) {
    return error.find("/x/tokenizer.json: unsupported tokenizer.json: " + what +
                      ";") == 0;
  };
  EXPECT_TRUE(has(load_error(small_json("", R"({"type": "Whitespace"})")),
                  "the pre-tokenizer is 'Whitespace'"));
  EXPECT_TRUE(
      has(load_error(small_json(
              "", R"({"type": "ByteLevel", "add_prefix_space": true})")),
          "the ByteLevel pre-tokenizer adds a prefix space"));
  EXPECT_TRUE(has(load_error(small_json(
                      "", R"({"type": "ByteLevel", "use_regex": false})")),
                  "nothing splits the text (ByteLevel has use_regex false and "
                  "no Split precedes it)"));
  EXPECT_TRUE(
      has(load_error(small_json(
              "", R"({"type": "Sequence", "pretokenizers": [{"type": "Split",
              "pattern": {"Regex": "\\d+"}, "behavior": "Isolated"},
              {"type": "ByteLevel", "use_regex": false}]})")),
          "pre-tokenizer pattern: the escape \\d at offset 0 of '\\d+' is not "
          "supported (supported: literals, classes, \\s \\S \\p{L} \\p{N}, "
          "groups, (?i:), lookahead, | and quantifiers)"));
  EXPECT_TRUE(has(load_error(small_json(
                      "", R"({"type": "Sequence", "pretokenizers": [{"type":
                      "Split", "pattern": {"Regex": "a"}, "behavior":
                      "Removed"}, {"type": "ByteLevel"}]})")),
                  "the Split pre-tokenizer's behavior is 'Removed', not "
                  "Isolated"));
  EXPECT_TRUE(has(load_error(small_json(R"(, "byte_fallback": true)")),
                  "the BPE model has byte_fallback (a SentencePiece-style "
                  "vocabulary)"));
  EXPECT_TRUE(
      has(load_error(small_json(R"(, "continuing_subword_prefix": "##")")),
          "the BPE model has a continuing_subword_prefix (\"##\")"));
  std::string with_normalizer = small_json();
  with_normalizer.replace(with_normalizer.find("\"normalizer\": null"), 18,
                          "\"normalizer\": {\"type\": \"NFC\"}");
  EXPECT_TRUE(has(load_error(with_normalizer), "it has a normalizer ('NFC')"));
}

TEST(HfTokenizer, BrokenFilesNameTheFileAndTheFix) {
  EXPECT_EQ(load_error("{\"model\": 1").rfind("/x/tokenizer.json: not JSON", 0),
            0u);
  EXPECT_NE(load_error("[]").find("no 'model'; give a Hugging Face "
                                  "tokenizer.json"),
            std::string::npos);
  std::string gap = small_json();
  gap.replace(gap.find("\"id\": 263"), 9, "\"id\": 264");
  EXPECT_EQ(load_error(gap),
            "/x/tokenizer.json: token '<|end_of_text|>' has id 264, but the "
            "ids of the 264 tokens must be 0..263, each once; the "
            "tokenizer.json is inconsistent");
  std::string bad_merge = small_json();
  bad_merge.replace(bad_merge.find("\"w o\""), 5, "\"o w\"");
  EXPECT_EQ(load_error(bad_merge),
            "/x/tokenizer.json: merge 5 'o w' names a token missing from the "
            "vocabulary; the merges and the vocabulary must come from the "
            "same tokenizer; the tokenizer.json is inconsistent");
  try {
    load_tokenizer_json("/nonexistent/tokenizer.json");
    ADD_FAILURE() << "a missing file loaded";
  } catch (const std::runtime_error &e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("/nonexistent/tokenizer.json: cannot read", 0), 0u);
    EXPECT_NE(what.find("scripts/setup.sh writes Llama 3's tokenizer.json"),
              std::string::npos);
  }
}

bool have_file(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(HfTokenizer, Llama3) {
  std::string path = default_vocab_dir("llama3") + "/tokenizer.json";
  if (!have_file(path))
    GTEST_SKIP() << "Llama 3's tokenizer.json not at " << path
                 << " (scripts/setup.sh writes it)";
  std::unique_ptr<Tokenizer> tok =
      make_tokenizer("llama3", default_vocab_dir("llama3"));
  EXPECT_EQ(tok->vocab_size(), 128256);
  EXPECT_EQ(tok->begin_of_text(), 128000);
  EXPECT_EQ(tok->end_of_text(), 128001);
  // The ids of llama3-tokenizer-js's own tests.
  EXPECT_EQ(tok->encode("This is a test sentence."),
            (std::vector<int>{2028, 374, 264, 1296, 11914, 13}));
  EXPECT_EQ(tok->encode("\t"
                        "tabs\t\t\t\t"
                        "out here"),
            (std::vector<int>{3324, 3518, 573, 14294, 1618}));
  EXPECT_EQ(tok->encode("\U0001F999\uA64A"),
            (std::vector<int>{9468, 99, 247, 166, 247, 232}));
  EXPECT_EQ(tok->decode({128006}), "<|start_header_id|>");
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    for (int i = rng() % 30; i > 0; --i)
      text += static_cast<char>(rng() % 3 ? "ab '1\n\r\t"[rng() % 8] : rng());
    EXPECT_EQ(tok->decode(tok->encode(text)), text);
  }
}

} // namespace
