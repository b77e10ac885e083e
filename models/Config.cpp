//===- Config.cpp - Presets, validation, command lines ----------*- C++ -*-===//

#include "models/Models.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace tpc::models;

namespace {
// GPT-2 (Radford et al., 2019) and Table 1 of the Megatron-LM paper
// (Shoeybi et al., 2019), both with GPT-2's vocabulary and 1024 positions.
const Preset kPresets[] = {
    {"124m", "GPT-2 small: 12 layers, hidden 768, 12 heads", 12, 768, 12, 50257,
     1024},
    {"350m", "GPT-2 medium: 24 layers, hidden 1024, 16 heads", 24, 1024, 16,
     50257, 1024},
    {"774m", "GPT-2 large: 36 layers, hidden 1280, 20 heads", 36, 1280, 20,
     50257, 1024},
    {"1558m", "GPT-2 XL: 48 layers, hidden 1600, 25 heads", 48, 1600, 25, 50257,
     1024},
    {"megatron-1.2b", "Megatron-LM 1.2B: 40 layers, hidden 1536, 16 heads", 40,
     1536, 16, 50257, 1024},
    {"megatron-2.5b", "Megatron-LM 2.5B: 54 layers, hidden 1920, 20 heads", 54,
     1920, 20, 50257, 1024},
    {"megatron-4.2b", "Megatron-LM 4.2B: 64 layers, hidden 2304, 24 heads", 64,
     2304, 24, 50257, 1024},
    {"megatron-8.3b", "Megatron-LM 8.3B: 72 layers, hidden 3072, 32 heads", 72,
     3072, 32, 50257, 1024},
};

// Hugging Face's configurations of TinyLlama 1.1B (v1.0), Llama 2 7B and
// Llama 3 8B.
LlamaConfig llama(int64_t layers, int64_t hidden, int64_t heads,
                  int64_t kvHeads, int64_t intermediate, int64_t vocab,
                  int64_t positions, double ropeTheta) {
  LlamaConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.kvHeads = kvHeads;
  c.intermediate = intermediate;
  c.vocab = vocab;
  c.positions = positions;
  c.ropeTheta = ropeTheta;
  return c;
}

const LlamaPreset kLlamaPresets[] = {
    {"tinyllama-1.1b",
     "TinyLlama 1.1B: 22 layers, hidden 2048, 32 heads, 4 KV heads",
     llama(22, 2048, 32, 4, 5632, 32000, 2048, 10000.0)},
    {"llama-2-7b", "Llama 2 7B: 32 layers, hidden 4096, 32 heads",
     llama(32, 4096, 32, 32, 11008, 32000, 4096, 10000.0)},
    {"llama-3-8b",
     "Llama 3 8B: 32 layers, hidden 4096, 32 heads, 8 KV heads, vocab 128256",
     llama(32, 4096, 32, 8, 14336, 128256, 8192, 500000.0)},
};

// BERT (Devlin et al. 2019; Hugging Face's bert-base-uncased and
// bert-large-uncased, post-norm) and the BERT models of the Megatron-LM
// paper's Table 2 (pre-norm), all with BERT's WordPiece vocabulary and 512
// positions.
BertConfig bert(int64_t layers, int64_t hidden, int64_t heads,
                NormLayout layout) {
  BertConfig c;
  c.layers = layers;
  c.hidden = hidden;
  c.heads = heads;
  c.intermediate = 4 * hidden;
  c.layout = layout;
  return c;
}

const BertPreset kBertPresets[] = {
    {"bert-base", "BERT base: 12 layers, hidden 768, 12 heads, post-norm",
     bert(12, 768, 12, NormLayout::PostNorm)},
    {"bert-large", "BERT large: 24 layers, hidden 1024, 16 heads, post-norm",
     bert(24, 1024, 16, NormLayout::PostNorm)},
    {"megatron-bert-336m",
     "Megatron-LM BERT 336M: 24 layers, hidden 1024, 16 heads, pre-norm",
     bert(24, 1024, 16, NormLayout::PreNorm)},
    {"megatron-bert-1.3b",
     "Megatron-LM BERT 1.3B: 24 layers, hidden 2048, 32 heads, pre-norm",
     bert(24, 2048, 32, NormLayout::PreNorm)},
    {"megatron-bert-3.9b",
     "Megatron-LM BERT 3.9B: 48 layers, hidden 2560, 40 heads, pre-norm",
     bert(48, 2560, 40, NormLayout::PreNorm)},
};

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string number(double value) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%g", value);
  return s;
}

llvm::Error checkPositive(llvm::StringRef flag, int64_t value) {
  if (value >= 1)
    return llvm::Error::success();
  return error("--" + flag + " must be >= 1, got " + llvm::Twine(value));
}

llvm::Error checkProbability(llvm::StringRef flag, double p) {
  if (p >= 0.0 && p < 1.0)
    return llvm::Error::success();
  return error("--" + flag + " must be a probability in [0, 1), got " +
               number(p));
}

llvm::Error checkHeads(int64_t hidden, int64_t heads) {
  if (hidden % heads == 0)
    return llvm::Error::success();
  return error("--hidden " + llvm::Twine(hidden) +
               " is not a multiple of --heads " + llvm::Twine(heads) +
               "; every head needs hidden/heads features: choose a head "
               "count that divides the hidden size");
}

llvm::Error checkInput(const InputShape &input) {
  if (input.batch != kOpen && input.batch < 1)
    return error("--batch must be >= 1, got " + llvm::Twine(input.batch) +
                 "; omit it to leave the batch open");
  if (input.seqLen != kOpen && input.seqLen < 1)
    return error("--seq-len must be >= 1, got " + llvm::Twine(input.seqLen) +
                 "; omit it to leave the sequence length open");
  return llvm::Error::success();
}

llvm::Error checkNormEps(double eps) {
  if (eps > 0.0 && std::isfinite(eps))
    return llvm::Error::success();
  return error("--norm-eps must be a finite number > 0, got " + number(eps));
}

/// A fixed sequence length must fit the position table's rows.
llvm::Error checkPositionRows(const InputShape &input, int64_t positions) {
  if (input.seqLen == kOpen || input.seqLen <= positions)
    return llvm::Error::success();
  return error("--seq-len " + llvm::Twine(input.seqLen) + " exceeds the " +
               llvm::Twine(positions) +
               " rows of the position table; raise --seq or shorten "
               "--seq-len");
}

/// Rotary positions: an even head dimension and a base > 0.
llvm::Error checkRotary(int64_t hidden, int64_t heads, double theta) {
  if ((hidden / heads) % 2 != 0)
    return error("the head dimension " + llvm::Twine(hidden / heads) +
                 " (--hidden / --heads) is odd; rotary embeddings rotate "
                 "pairs of dimensions: choose sizes with an even head "
                 "dimension");
  if (!(theta > 0.0) || !std::isfinite(theta))
    return error("--rope-theta must be a finite number > 0, got " +
                 number(theta));
  return llvm::Error::success();
}

/// The flags shared by GPT-2 and StagFormer.
std::string transformerFlags(const GPT2Config &c) {
  std::string s = " --layers " + std::to_string(c.layers) + " --hidden " +
                  std::to_string(c.hidden) + " --heads " +
                  std::to_string(c.heads) + " --vocab " +
                  std::to_string(c.vocab) + " --seq " +
                  std::to_string(c.positions);
  if (c.embdPdrop == c.residPdrop && c.residPdrop == c.attnPdrop) {
    if (c.embdPdrop > 0.0)
      s += " --dropout " + number(c.embdPdrop);
  } else {
    s += " --embd-pdrop " + number(c.embdPdrop) + " --resid-pdrop " +
         number(c.residPdrop) + " --attn-pdrop " + number(c.attnPdrop);
  }
  if (c.ropeTheta != 0.0)
    s += " --rope --rope-theta " + number(c.ropeTheta);
  return s;
}

/// The flags of a Llama configuration but its inputs.
std::string llamaFlags(const LlamaConfig &c) {
  std::string s =
      " --layers " + std::to_string(c.layers) + " --hidden " +
      std::to_string(c.hidden) + " --heads " + std::to_string(c.heads) +
      " --kv-heads " + std::to_string(c.kvHeads) + " --intermediate " +
      std::to_string(c.intermediate) + " --vocab " + std::to_string(c.vocab) +
      " --seq " + std::to_string(c.positions) + " --rope-theta " +
      number(c.ropeTheta) + " --norm-eps " + number(c.normEps);
  if (c.tied)
    s += " --tied";
  return s;
}

std::string inputFlags(const InputShape &input) {
  std::string s;
  if (input.batch != kOpen)
    s += " --batch " + std::to_string(input.batch);
  if (input.seqLen != kOpen)
    s += " --seq-len " + std::to_string(input.seqLen);
  return s;
}
} // namespace

llvm::ArrayRef<Preset> tpc::models::gpt2Presets() { return kPresets; }

const Preset *tpc::models::findPreset(llvm::StringRef name) {
  const Preset *it =
      llvm::find_if(kPresets, [&](const Preset &p) { return p.name == name; });
  return it == std::end(kPresets) ? nullptr : it;
}

llvm::ArrayRef<BertPreset> tpc::models::bertPresets() { return kBertPresets; }

const BertPreset *tpc::models::findBertPreset(llvm::StringRef name) {
  const BertPreset *it = llvm::find_if(
      kBertPresets, [&](const BertPreset &p) { return p.name == name; });
  return it == std::end(kBertPresets) ? nullptr : it;
}

llvm::ArrayRef<LlamaPreset> tpc::models::llamaPresets() {
  return kLlamaPresets;
}

const LlamaPreset *tpc::models::findLlamaPreset(llvm::StringRef name) {
  const LlamaPreset *it = llvm::find_if(
      kLlamaPresets, [&](const LlamaPreset &p) { return p.name == name; });
  return it == std::end(kLlamaPresets) ? nullptr : it;
}

GPT2Config tpc::models::configOf(const Preset &preset) {
  GPT2Config config;
  config.layers = preset.layers;
  config.hidden = preset.hidden;
  config.heads = preset.heads;
  config.vocab = preset.vocab;
  config.positions = preset.positions;
  return config;
}

llvm::Error tpc::models::validate(const GPT2Config &c) {
  if (llvm::Error e = checkPositive("layers", c.layers))
    return e;
  if (llvm::Error e = checkPositive("hidden", c.hidden))
    return e;
  if (llvm::Error e = checkPositive("heads", c.heads))
    return e;
  if (llvm::Error e = checkPositive("vocab", c.vocab))
    return e;
  if (llvm::Error e = checkPositive("seq", c.positions))
    return e;
  if (llvm::Error e = checkHeads(c.hidden, c.heads))
    return e;
  if (llvm::Error e = checkProbability("embd-pdrop", c.embdPdrop))
    return e;
  if (llvm::Error e = checkProbability("resid-pdrop", c.residPdrop))
    return e;
  if (llvm::Error e = checkProbability("attn-pdrop", c.attnPdrop))
    return e;
  if (c.ropeTheta != 0.0) {
    if (llvm::Error e = checkRotary(c.hidden, c.heads, c.ropeTheta))
      return e;
  }
  if (llvm::Error e = checkInput(c.input))
    return e;
  if (llvm::Error e = checkPositionRows(c.input, c.positions))
    return e;
  return llvm::Error::success();
}

llvm::Error tpc::models::validate(const StagFormerConfig &c) {
  if (c.blocks == StagBlocks::Llama) {
    if (llvm::Error e = validate(c.llama))
      return e;
  } else if (llvm::Error e = validate(c.base)) {
    return e;
  }
  if (c.stacks < 2)
    return error("--stacks must be >= 2, got " + llvm::Twine(c.stacks) +
                 "; a single stack is GPT-2: use `tpc-model gpt2`");
  if (c.window && *c.window < 1)
    return error("--window must be >= 1, got " + llvm::Twine(*c.window) +
                 "; omit it to cross-attend to all earlier positions");
  if (!c.alpha && c.stacks == 2)
    return error("--no-alpha needs --stacks > 2: with 2 stacks the output "
                 "layer always reads the second stack");
  if (c.blocks == StagBlocks::GPT2 &&
      (c.base.layout != NormLayout::PreNorm || !c.base.tied))
    return error("StagFormer is built pre-norm with a tied output layer");
  return llvm::Error::success();
}

llvm::Error tpc::models::validate(const BigramConfig &c) {
  if (llvm::Error e = checkPositive("vocab", c.vocab))
    return e;
  return checkInput(c.input);
}

llvm::Error tpc::models::validate(const LlamaConfig &c) {
  for (auto [flag, value] :
       {std::pair<llvm::StringRef, int64_t>{"layers", c.layers},
        {"hidden", c.hidden},
        {"heads", c.heads},
        {"kv-heads", c.kvHeads},
        {"intermediate", c.intermediate},
        {"vocab", c.vocab},
        {"seq", c.positions}})
    if (llvm::Error e = checkPositive(flag, value))
      return e;
  if (llvm::Error e = checkHeads(c.hidden, c.heads))
    return e;
  if (c.heads % c.kvHeads != 0)
    return error("--heads " + llvm::Twine(c.heads) +
                 " is not a multiple of --kv-heads " + llvm::Twine(c.kvHeads) +
                 "; each key/value head serves a whole group of query heads");
  if (llvm::Error e = checkRotary(c.hidden, c.heads, c.ropeTheta))
    return e;
  if (llvm::Error e = checkNormEps(c.normEps))
    return e;
  if (llvm::Error e = checkInput(c.input))
    return e;
  if (c.input.seqLen != kOpen && c.input.seqLen > c.positions)
    return error("--seq-len " + llvm::Twine(c.input.seqLen) +
                 " exceeds the context length " + llvm::Twine(c.positions) +
                 "; raise --seq or shorten --seq-len");
  return llvm::Error::success();
}

llvm::Error tpc::models::validate(const BertConfig &c) {
  for (auto [flag, value] :
       {std::pair<llvm::StringRef, int64_t>{"layers", c.layers},
        {"hidden", c.hidden},
        {"heads", c.heads},
        {"intermediate", c.intermediate},
        {"vocab", c.vocab},
        {"seq", c.positions},
        {"types", c.types}})
    if (llvm::Error e = checkPositive(flag, value))
      return e;
  if (llvm::Error e = checkHeads(c.hidden, c.heads))
    return e;
  if (llvm::Error e = checkNormEps(c.normEps))
    return e;
  if (llvm::Error e = checkProbability("dropout", c.dropout))
    return e;
  if (llvm::Error e = checkInput(c.input))
    return e;
  if (llvm::Error e = checkPositionRows(c.input, c.positions))
    return e;
  return llvm::Error::success();
}

std::string tpc::models::commandLine(const BertConfig &c) {
  std::string s =
      "tpc-model bert --layout " +
      std::string(c.layout == NormLayout::PreNorm ? "pre" : "post") +
      " --layers " + std::to_string(c.layers) + " --hidden " +
      std::to_string(c.hidden) + " --heads " + std::to_string(c.heads) +
      " --intermediate " + std::to_string(c.intermediate) + " --vocab " +
      std::to_string(c.vocab) + " --seq " + std::to_string(c.positions) +
      " --types " + std::to_string(c.types) + " --gelu " +
      (c.exactGelu ? "exact" : "tanh") + " --norm-eps " + number(c.normEps) +
      " --head " + (c.head == BertHeads::PreTraining ? "pretraining" : "mlm");
  if (c.dropout > 0.0)
    s += " --dropout " + number(c.dropout);
  return s + inputFlags(c.input);
}

std::string tpc::models::commandLine(const LlamaConfig &c) {
  return "tpc-model llama" + llamaFlags(c) + inputFlags(c.input);
}

std::string tpc::models::commandLine(const GPT2Config &c) {
  std::string s = "tpc-model gpt2" + transformerFlags(c);
  if (c.layout == NormLayout::PostNorm)
    s += " --layout post-norm";
  if (!c.tied)
    s += " --no-tied";
  return s + inputFlags(c.input);
}

std::string tpc::models::commandLine(const StagFormerConfig &c) {
  bool llama = c.blocks == StagBlocks::Llama;
  std::string s = "tpc-model stagformer";
  if (llama)
    s += " --blocks llama";
  s += " --stacks " + std::to_string(c.stacks) +
       (llama ? llamaFlags(c.llama) : transformerFlags(c.base));
  if (c.sharedWeights)
    s += " --shared-weights";
  if (c.window)
    s += " --window " + std::to_string(*c.window);
  if (!c.alpha)
    s += " --no-alpha";
  return s + inputFlags(llama ? c.llama.input : c.base.input);
}

std::string tpc::models::commandLine(const BigramConfig &c) {
  return "tpc-model bigram --vocab " + std::to_string(c.vocab) +
         inputFlags(c.input);
}
