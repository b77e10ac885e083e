//===- tpc-model.cpp - Write model modules ----------------------*- C++ -*-===//
//
// Reads the flags of one model family into its configuration; the builders,
// the presets and the checks live in the TpcModels library.
//
//===----------------------------------------------------------------------===//

#include "models/Models.h"
#include "tools/common/Cli.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace tpc::models;

namespace {
// The flags; a flag a model does not take is not added to its subcommand.
std::optional<std::string> preset;
std::optional<int64_t> layers, hidden, heads, vocab, seq;
std::optional<double> dropout, embdPdrop, residPdrop, attnPdrop;
bool tied = false, noTied = false;
std::string layoutName = "pre-norm";
int64_t stacks = 2;
bool sharedWeights = false, rope = false, noAlpha = false;
std::string blocks = "gpt2";
std::optional<int64_t> window, batch, seqLen;
std::optional<int64_t> kvHeads, intermediate;
std::optional<double> ropeTheta, normEps;
std::optional<std::string> output;
bool summary = false;
// BERT
std::optional<std::string> bertLayout, gelu, bertHead;
std::optional<int64_t> types;

template <typename T> void override(T &field, const std::optional<T> &flag) {
  if (flag)
    field = *flag;
}
} // namespace

/// The error for a --preset that `presets` does not name.
template <typename PresetT>
static llvm::Error unknownPreset(llvm::ArrayRef<PresetT> presets) {
  std::string names;
  llvm::raw_string_ostream os(names);
  llvm::interleaveComma(presets, os, [&](const PresetT &p) { os << p.name; });
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown preset '" + *preset +
                                     "'; choose one of " + names);
}

static InputShape inputShape() {
  InputShape input;
  override(input.batch, batch);
  override(input.seqLen, seqLen);
  return input;
}

/// The fields GPT-2 and StagFormer share: preset, sizes, dropout, inputs.
static llvm::Expected<GPT2Config> transformerConfig() {
  GPT2Config config;
  if (preset) {
    const Preset *p = findPreset(*preset);
    if (!p)
      return unknownPreset(gpt2Presets());
    config = configOf(*p);
  }
  override(config.layers, layers);
  override(config.hidden, hidden);
  override(config.heads, heads);
  override(config.vocab, vocab);
  override(config.positions, seq);
  if (dropout)
    config.embdPdrop = config.residPdrop = config.attnPdrop = *dropout;
  override(config.embdPdrop, embdPdrop);
  override(config.residPdrop, residPdrop);
  override(config.attnPdrop, attnPdrop);
  if (rope)
    config.ropeTheta = ropeTheta.value_or(10000.0);
  else if (ropeTheta)
    return llvm::createStringError(
        "--rope-theta needs --rope, which turns rotary positions on");
  config.input = inputShape();
  return config;
}

/// A Llama preset (default TinyLlama's sizes) with the flags applied.
static llvm::Expected<LlamaConfig> llamaConfig() {
  LlamaConfig config;
  if (preset) {
    const LlamaPreset *p = findLlamaPreset(*preset);
    if (!p)
      return unknownPreset(llamaPresets());
    config = p->config;
  }
  override(config.layers, layers);
  override(config.hidden, hidden);
  override(config.heads, heads);
  override(config.kvHeads, kvHeads);
  override(config.intermediate, intermediate);
  override(config.vocab, vocab);
  override(config.positions, seq);
  override(config.ropeTheta, ropeTheta);
  override(config.normEps, normEps);
  config.input = inputShape();
  return config;
}

/// A BERT preset (default bert-base) with the flags applied.
static llvm::Expected<BertConfig> bertConfig() {
  BertConfig config;
  if (preset) {
    const BertPreset *p = findBertPreset(*preset);
    if (!p)
      return unknownPreset(bertPresets());
    config = p->config;
  }
  override(config.layers, layers);
  override(config.hidden, hidden);
  override(config.heads, heads);
  // The MLP stays 4 * hidden unless --intermediate says otherwise.
  if (hidden)
    config.intermediate = 4 * *hidden;
  override(config.intermediate, intermediate);
  override(config.vocab, vocab);
  override(config.positions, seq);
  override(config.types, types);
  override(config.normEps, normEps);
  override(config.dropout, dropout);
  if (bertLayout)
    config.layout =
        *bertLayout == "pre" ? NormLayout::PreNorm : NormLayout::PostNorm;
  if (gelu)
    config.exactGelu = *gelu == "exact";
  if (bertHead)
    config.head =
        *bertHead == "mlm" ? BertHeads::MaskedLM : BertHeads::PreTraining;
  config.input = inputShape();
  return config;
}

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tpc-model") << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  return fail(llvm::toString(std::move(error)));
}

/// Verifies the module, then writes it and/or its summary.
static int emit(mlir::ModuleOp module, const std::string &command,
                const std::string &title) {
  if (mlir::failed(mlir::verify(module)))
    return fail("the built module does not verify (see above)");
  if (summary)
    printSummary(module, title, llvm::outs());
  if (summary && !output)
    return 0;
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file =
      mlir::openOutputFile(output.value_or("-"), &message);
  if (!file)
    return fail(message);
  file->os() << "// " << command << "\n";
  module.print(file->os());
  file->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  CLI::App app{"tpc-model: write a transformer language model as a tpc module"};
  tpc::cli::configure(app);
  app.require_subcommand(0, 1);
  app.footer(
      "Examples:\n"
      "  tpc-model gpt2 --preset 124m -o gpt2.mlir\n"
      "  tpc-model gpt2 --preset megatron-8.3b --summary\n"
      "  tpc-model stagformer --stacks 2 --layers 12 --shared-weights\n"
      "  tpc-model stagformer --blocks llama --preset tinyllama-1.1b "
      "--stacks 2 --layers 11\n"
      "  tpc-model llama --preset llama-3-8b --summary\n"
      "  tpc-model bert --preset bert-base --summary\n"
      "  tpc-model bigram --vocab 50257\n\n"
      "Parameters are declared at their global shapes; the batch and the\n"
      "sequence length of the inputs stay open unless --batch/--seq-len fix\n"
      "them. `tpc-model <model> --help` lists the flags of one model.");
  CLI::App *gpt2Cmd = app.add_subcommand(
      "gpt2", "GPT-2 decoder: the OpenAI sizes, the Megatron-LM paper's, or "
              "any size given by flags");
  CLI::App *stagFormerCmd = app.add_subcommand(
      "stagformer", "StagFormer: p staggered GPT-2 stacks joined by "
                    "cross-attention to the previous stack");
  CLI::App *llamaCmd = app.add_subcommand(
      "llama", "Llama decoder (Hugging Face names and layout): RMSNorm, "
               "rotary positions, grouped-query attention, SwiGLU");
  CLI::App *bertCmd = app.add_subcommand(
      "bert", "BERT encoder with the masked-LM head (Hugging Face names and "
              "layout): post-norm as BERT or pre-norm as Megatron-LM");
  CLI::App *bigramCmd = app.add_subcommand(
      "bigram", "Bigram baseline: the logits are a learned row per token");
  for (CLI::App *sub : {gpt2Cmd, stagFormerCmd}) {
    sub->add_option("--preset", preset,
                    "Start from a named size: 124m, 350m, 774m, 1558m "
                    "(GPT-2), megatron-1.2b, megatron-2.5b, megatron-4.2b, "
                    "megatron-8.3b (Megatron-LM Table 1); the size flags "
                    "override its fields (default: 124m)");
    sub->add_option("--layers", layers, "Transformer layers (per stack)");
    sub->add_option("--hidden", hidden, "Hidden size");
    sub->add_option("--heads", heads, "Attention heads; must divide --hidden");
  }
  for (CLI::App *sub : {gpt2Cmd, stagFormerCmd, bigramCmd})
    sub->add_option("--vocab", vocab,
                    "Vocabulary size (default: GPT-2's 50257)");
  llamaCmd->add_option("--preset", preset,
                       "Start from a named size: tinyllama-1.1b (default), "
                       "llama-2-7b, llama-3-8b; the size flags override its "
                       "fields");
  llamaCmd->add_option("--layers", layers, "Transformer layers");
  llamaCmd->add_option("--hidden", hidden, "Hidden size");
  llamaCmd->add_option("--heads", heads, "Query heads; must divide --hidden");
  llamaCmd->add_option("--vocab", vocab, "Vocabulary size");
  llamaCmd->add_option("--seq", seq,
                       "Context length (max_position_embeddings): the longest "
                       "sequence, which sizes the KV caches");
  llamaCmd->add_option("--rope-theta", ropeTheta,
                       "Base of the rotary frequencies (10000; Llama 3: "
                       "500000)");
  // What Llama blocks add to the sizes, for Llama and StagFormer alike.
  for (CLI::App *sub : {llamaCmd, stagFormerCmd}) {
    std::string only = sub == stagFormerCmd ? " (--blocks llama)" : "";
    sub->add_option("--kv-heads", kvHeads,
                    "Key/value heads (grouped-query attention); must divide "
                    "--heads; equal to --heads is multi-head attention, 1 "
                    "multi-query" +
                        only);
    sub->add_option("--intermediate", intermediate,
                    "Width of the SwiGLU MLP (intermediate_size)" + only);
    sub->add_option("--norm-eps", normEps, "RMSNorm epsilon (1e-5)" + only);
  }
  llamaCmd->add_flag("--tied", tied,
                     "Output layer reads model.embed_tokens.weight (default: "
                     "its own lm_head.weight)");
  for (CLI::App *sub : {gpt2Cmd, stagFormerCmd}) {
    sub->add_option("--seq", seq,
                    "Positions: rows of the position table wpe (n_ctx), the "
                    "longest sequence the model reads");
    sub->add_option("--dropout", dropout,
                    "Dropout probability of the embeddings, the residual "
                    "branches and the attention probabilities (default: 0)");
    sub->add_option("--embd-pdrop", embdPdrop,
                    "Dropout of the embeddings (overrides --dropout)");
    sub->add_option("--resid-pdrop", residPdrop,
                    "Dropout of each residual branch (overrides --dropout)");
    sub->add_option("--attn-pdrop", attnPdrop,
                    "Dropout of the attention probabilities (overrides "
                    "--dropout)");
    sub->add_flag("--rope", rope,
                  "Rotary positions (RoPE, Hugging Face's rotate-half) in "
                  "every self- and cross-attention, on top of the learned "
                  "position table, as the StagFormer paper does");
    sub->add_option("--rope-theta", ropeTheta,
                    "Base of the rotary frequencies with --rope (10000)");
  }
  gpt2Cmd->add_flag("--tied", tied,
                    "Output layer reads the embedding table wte (default)");
  gpt2Cmd->add_flag("--no-tied", noTied,
                    "Output layer has its own weight lm_head.weight [V, H]");
  gpt2Cmd
      ->add_option("--layout", layoutName,
                   "Where the layer norms sit: pre-norm (GPT-2: ln before "
                   "each sublayer, final ln_f) or post-norm (original "
                   "transformer: ln after each residual add, no ln_f)")
      ->check(CLI::IsMember({"pre-norm", "post-norm"}))
      ->capture_default_str();
  stagFormerCmd->add_option("--stacks", stacks, "Number of stacks p")
      ->capture_default_str();
  stagFormerCmd->add_flag("--shared-weights", sharedWeights,
                          "Every stack reuses the self-attention and MLP "
                          "weights h.<i>.*; only the cross-attention weights "
                          "are per stack");
  stagFormerCmd->add_flag("--no-alpha", noAlpha,
                          "With more than 2 stacks, the output layer reads "
                          "the last stack's final activations instead of the "
                          "learned combination alpha of all stacks (the "
                          "paper's ablation)");
  stagFormerCmd->add_option("--window", window,
                            "Cross-attention sees only the last w strictly "
                            "earlier positions (default: all of them)");
  stagFormerCmd
      ->add_option("--blocks", blocks,
                   "What the stacks are made of: gpt2 (layer norms, learned "
                   "positions, GELU MLP, tied output layer) or llama "
                   "(RMSNorm, rotary positions, grouped-query attention, "
                   "SwiGLU, Hugging Face names; with --blocks llama, "
                   "--preset names a Llama size and --kv-heads, "
                   "--intermediate, --norm-eps, --rope-theta and --tied "
                   "apply)")
      ->check(CLI::IsMember({"gpt2", "llama"}))
      ->capture_default_str();
  stagFormerCmd->add_flag("--tied", tied,
                          "Output layer reads the embedding table (always, "
                          "with GPT-2 blocks; Llama blocks default to their "
                          "own lm_head.weight)");
  bertCmd->add_option("--preset", preset,
                      "Start from a named size: bert-base (default), "
                      "bert-large, megatron-bert-336m, megatron-bert-1.3b, "
                      "megatron-bert-3.9b (Megatron-LM, pre-norm); the other "
                      "flags override its fields");
  bertCmd->add_option("--layers", layers, "Encoder layers");
  bertCmd->add_option("--hidden", hidden, "Hidden size");
  bertCmd->add_option("--heads", heads,
                      "Attention heads; must divide --hidden");
  bertCmd->add_option("--intermediate", intermediate,
                      "Width of the MLP (intermediate_size; default 4 x "
                      "--hidden)");
  bertCmd->add_option("--vocab", vocab,
                      "Vocabulary size (default: BERT's WordPiece 30522)");
  bertCmd->add_option("--seq", seq,
                      "Positions: rows of the position table "
                      "(max_position_embeddings, 512)");
  bertCmd->add_option("--types", types,
                      "Token types: rows of the token-type table "
                      "(type_vocab_size, 2)");
  bertCmd
      ->add_option("--layout", bertLayout,
                   "post: LayerNorm after each residual add and after the "
                   "embeddings (BERT, Hugging Face; bert-* presets); pre: "
                   "LayerNorm before each sublayer and a final one "
                   "(Megatron-LM; megatron-bert-* presets)")
      ->check(CLI::IsMember({"post", "pre"}));
  bertCmd
      ->add_option("--gelu", gelu,
                   "exact (erf, Hugging Face BERT; default) or tanh (the "
                   "approximation of GPT-2 and Megatron-LM)")
      ->check(CLI::IsMember({"exact", "tanh"}));
  bertCmd->add_option("--norm-eps", normEps, "LayerNorm epsilon (1e-12)");
  bertCmd->add_option("--dropout", dropout,
                      "Dropout of the embeddings, each sublayer's output and "
                      "the attention probabilities (default: 0)");
  bertCmd
      ->add_option("--head", bertHead,
                   "pretraining: the masked-LM head, the pooler "
                   "(tanh(dense(h[:, 0]))) and the 2-way sentence-order head, "
                   "whose loss tpc-run adds on --mlm --sop batches "
                   "(BertForPreTraining; default); mlm: the masked-LM head "
                   "alone (BertForMaskedLM)")
      ->check(CLI::IsMember({"pretraining", "mlm"}));
  for (CLI::App *sub : {gpt2Cmd, stagFormerCmd, llamaCmd, bertCmd, bigramCmd}) {
    sub->add_option("--batch", batch,
                    "Fix the micro-batch size B of the inputs (default: "
                    "left open, `?`, for tpc-compile to choose)");
    sub->add_option("--seq-len", seqLen,
                    "Fix the sequence length T of the inputs (default: left "
                    "open, `?`, for tpc-compile to choose)");
    sub->add_option("-o", output,
                    "Write the module to this file (default: stdout)");
    sub->add_flag("--summary", summary,
                  "Print the parameter count per block instead of the "
                  "module; with -o, write the module as well");
  }
  if (int status = tpc::cli::parse(app, argc, argv); status >= 0)
    return status;

  mlir::MLIRContext context;
  std::string title = gpt2Cmd->parsed()         ? "gpt2"
                      : stagFormerCmd->parsed() ? "stagformer"
                      : llamaCmd->parsed()      ? "llama"
                      : bertCmd->parsed()       ? "bert"
                                                : "bigram";
  if (preset)
    title += " " + *preset;

  if (gpt2Cmd->parsed()) {
    llvm::Expected<GPT2Config> config = transformerConfig();
    if (!config)
      return fail(config.takeError());
    if (tied && noTied)
      return fail("--tied and --no-tied contradict each other; pass one");
    config->tied = !noTied;
    config->layout =
        layoutName == "post-norm" ? NormLayout::PostNorm : NormLayout::PreNorm;
    if (llvm::Error error = validate(*config))
      return fail(std::move(error));
    return emit(*buildGPT2(context, *config), commandLine(*config), title);
  }
  if (stagFormerCmd->parsed()) {
    StagFormerConfig config;
    if (blocks == "llama") {
      if (dropout || embdPdrop || residPdrop || attnPdrop)
        return fail("Llama blocks have no dropout; drop the dropout flags "
                    "or use --blocks gpt2");
      llvm::Expected<LlamaConfig> llama = llamaConfig();
      if (!llama)
        return fail(llama.takeError());
      config.blocks = StagBlocks::Llama;
      config.llama = *llama;
      config.llama.tied = tied;
    } else {
      if (kvHeads || intermediate || normEps)
        return fail("--kv-heads, --intermediate and --norm-eps describe "
                    "Llama blocks; add --blocks llama");
      llvm::Expected<GPT2Config> base = transformerConfig();
      if (!base)
        return fail(base.takeError());
      config.base = *base;
    }
    config.stacks = stacks;
    config.sharedWeights = sharedWeights;
    config.alpha = !noAlpha;
    if (window)
      config.window = *window;
    if (llvm::Error error = validate(config))
      return fail(std::move(error));
    return emit(*buildStagFormer(context, config), commandLine(config), title);
  }
  if (llamaCmd->parsed()) {
    llvm::Expected<LlamaConfig> config = llamaConfig();
    if (!config)
      return fail(config.takeError());
    config->tied = config->tied || tied;
    if (llvm::Error error = validate(*config))
      return fail(std::move(error));
    return emit(*buildLlama(context, *config), commandLine(*config), title);
  }
  if (bertCmd->parsed()) {
    llvm::Expected<BertConfig> config = bertConfig();
    if (!config)
      return fail(config.takeError());
    if (llvm::Error error = validate(*config))
      return fail(std::move(error));
    return emit(*buildBert(context, *config), commandLine(*config), title);
  }
  if (bigramCmd->parsed()) {
    BigramConfig config;
    override(config.vocab, vocab);
    config.input = inputShape();
    if (llvm::Error error = validate(config))
      return fail(std::move(error));
    return emit(*buildBigram(context, config), commandLine(config), title);
  }
  return fail("choose a model: tpc-model gpt2|stagformer|llama|bert|bigram "
              "[flags]; "
              "see tpc-model --help");
}
