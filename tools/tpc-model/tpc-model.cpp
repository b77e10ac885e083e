//===- tpc-model.cpp - Write model modules ----------------------*- C++ -*-===//
//
// Reads the flags of one model family into its configuration; the builders,
// the presets and the checks live in the TpcModels library.
//
//===----------------------------------------------------------------------===//

#include "models/Models.h"
#include "tools/RepeatedOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace tpc::models;
namespace cl = llvm::cl;

static cl::OptionCategory options("tpc-model options");

static cl::SubCommand
    gpt2Cmd("gpt2",
            "GPT-2 decoder: the OpenAI sizes, the Megatron-LM paper's, or any "
            "size given by flags");
static cl::SubCommand
    stagFormerCmd("stagformer",
                  "StagFormer: p staggered GPT-2 stacks joined by "
                  "cross-attention to the previous stack");
static cl::SubCommand
    bigramCmd("bigram",
              "Bigram baseline: the logits are a learned row per token");

static cl::opt<std::string>
    preset("preset",
           cl::desc("Start from a named size: 124m, 350m, 774m, 1558m (GPT-2), "
                    "megatron-1.2b, megatron-2.5b, megatron-4.2b, "
                    "megatron-8.3b (Megatron-LM Table 1); the size flags "
                    "override its fields (default: 124m)"),
           cl::value_desc("name"), cl::cat(options), cl::sub(gpt2Cmd),
           cl::sub(stagFormerCmd));
static cl::opt<int64_t> layers("layers",
                               cl::desc("Transformer layers (per stack)"),
                               cl::value_desc("L"), cl::cat(options),
                               cl::sub(gpt2Cmd), cl::sub(stagFormerCmd));
static cl::opt<int64_t> hidden("hidden", cl::desc("Hidden size"),
                               cl::value_desc("H"), cl::cat(options),
                               cl::sub(gpt2Cmd), cl::sub(stagFormerCmd));
static cl::opt<int64_t> heads("heads",
                              cl::desc("Attention heads; must divide --hidden"),
                              cl::value_desc("A"), cl::cat(options),
                              cl::sub(gpt2Cmd), cl::sub(stagFormerCmd));
static cl::opt<int64_t>
    vocab("vocab", cl::desc("Vocabulary size (default: GPT-2's 50257)"),
          cl::value_desc("V"), cl::cat(options), cl::sub(gpt2Cmd),
          cl::sub(stagFormerCmd), cl::sub(bigramCmd));
static cl::opt<int64_t>
    seq("seq",
        cl::desc("Positions: rows of the position table wpe (n_ctx), the "
                 "longest sequence the model reads"),
        cl::value_desc("P"), cl::cat(options), cl::sub(gpt2Cmd),
        cl::sub(stagFormerCmd));

static cl::opt<double>
    dropout("dropout",
            cl::desc("Dropout probability of the embeddings, the residual "
                     "branches and the attention probabilities (default: 0)"),
            cl::value_desc("p"), cl::cat(options), cl::sub(gpt2Cmd),
            cl::sub(stagFormerCmd));
static cl::opt<double>
    embdPdrop("embd-pdrop",
              cl::desc("Dropout of the embeddings (overrides --dropout)"),
              cl::value_desc("p"), cl::cat(options), cl::sub(gpt2Cmd),
              cl::sub(stagFormerCmd));
static cl::opt<double> residPdrop(
    "resid-pdrop",
    cl::desc("Dropout of each residual branch (overrides --dropout)"),
    cl::value_desc("p"), cl::cat(options), cl::sub(gpt2Cmd),
    cl::sub(stagFormerCmd));
static cl::opt<double> attnPdrop(
    "attn-pdrop",
    cl::desc("Dropout of the attention probabilities (overrides --dropout)"),
    cl::value_desc("p"), cl::cat(options), cl::sub(gpt2Cmd),
    cl::sub(stagFormerCmd));

static cl::opt<bool>
    tied("tied",
         cl::desc("Output layer reads the embedding table wte (default)"),
         cl::cat(options), cl::sub(gpt2Cmd));
static cl::opt<bool>
    noTied("no-tied",
           cl::desc("Output layer has its own weight lm_head.weight [V, H]"),
           cl::cat(options), cl::sub(gpt2Cmd));
static cl::opt<NormLayout>
    layout("layout", cl::desc("Where the layer norms sit"),
           cl::values(clEnumValN(NormLayout::PreNorm, "pre-norm",
                                 "GPT-2: ln before each sublayer, final ln_f "
                                 "(default)"),
                      clEnumValN(NormLayout::PostNorm, "post-norm",
                                 "Original transformer: ln after each residual "
                                 "add, no ln_f")),
           cl::init(NormLayout::PreNorm), cl::cat(options), cl::sub(gpt2Cmd));

static cl::opt<int64_t> stacks("stacks",
                               cl::desc("Number of stacks p (default: 2)"),
                               cl::value_desc("p"), cl::init(2),
                               cl::cat(options), cl::sub(stagFormerCmd));
static cl::opt<bool> sharedWeights(
    "shared-weights",
    cl::desc("Every stack reuses the self-attention and MLP weights h.<i>.*; "
             "only the cross-attention weights are per stack"),
    cl::cat(options), cl::sub(stagFormerCmd));
static cl::opt<int64_t>
    window("window",
           cl::desc("Cross-attention sees only the last w strictly earlier "
                    "positions (default: all of them)"),
           cl::value_desc("w"), cl::cat(options), cl::sub(stagFormerCmd));

static cl::opt<int64_t>
    batch("batch",
          cl::desc("Fix the micro-batch size B of the inputs (default: left "
                   "open, `?`, for tpc-compile to choose)"),
          cl::value_desc("B"), cl::cat(options), cl::sub(gpt2Cmd),
          cl::sub(stagFormerCmd), cl::sub(bigramCmd));
static cl::opt<int64_t>
    seqLen("seq-len",
           cl::desc("Fix the sequence length T of the inputs (default: left "
                    "open, `?`, for tpc-compile to choose)"),
           cl::value_desc("T"), cl::cat(options), cl::sub(gpt2Cmd),
           cl::sub(stagFormerCmd), cl::sub(bigramCmd));

static cl::opt<std::string>
    output("o", cl::desc("Write the module to this file (default: stdout)"),
           cl::value_desc("file"), cl::init("-"), cl::cat(options),
           cl::sub(gpt2Cmd), cl::sub(stagFormerCmd), cl::sub(bigramCmd));
static cl::opt<bool> summary(
    "summary",
    cl::desc("Print the parameter count per block instead of the module; "
             "with -o, write the module as well"),
    cl::cat(options), cl::sub(gpt2Cmd), cl::sub(stagFormerCmd),
    cl::sub(bigramCmd));

template <typename T> static void override(T &field, const cl::opt<T> &flag) {
  if (flag.getNumOccurrences())
    field = flag;
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
  if (preset.getNumOccurrences()) {
    const Preset *p = findPreset(preset);
    if (!p) {
      std::string names;
      llvm::raw_string_ostream os(names);
      llvm::interleaveComma(gpt2Presets(), os,
                            [&](const Preset &p) { os << p.name; });
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "unknown preset '" + preset +
                                         "'; choose one of " + names);
    }
    config = configOf(*p);
  }
  override(config.layers, layers);
  override(config.hidden, hidden);
  override(config.heads, heads);
  override(config.vocab, vocab);
  override(config.positions, seq);
  if (dropout.getNumOccurrences())
    config.embdPdrop = config.residPdrop = config.attnPdrop = dropout;
  override(config.embdPdrop, embdPdrop);
  override(config.residPdrop, residPdrop);
  override(config.attnPdrop, attnPdrop);
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
  if (summary && !output.getNumOccurrences())
    return 0;
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file =
      mlir::openOutputFile(output, &message);
  if (!file)
    return fail(message);
  file->os() << "// " << command << "\n";
  module.print(file->os());
  file->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(options);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tpc-model: write a transformer language model as a tpc module\n\n"
      "  tpc-model gpt2 --preset 124m -o gpt2.mlir\n"
      "  tpc-model gpt2 --preset megatron-8.3b --summary\n"
      "  tpc-model stagformer --stacks 2 --layers 12 --shared-weights\n"
      "  tpc-model bigram --vocab 50257\n\n"
      "Parameters are declared at their global shapes; the batch and the\n"
      "sequence length of the inputs stay open unless --batch/--seq-len fix\n"
      "them. `tpc-model <model> --help` lists the flags of one model.\n");
  if (!tpc::checkRepeatedOptions("tpc-model"))
    return 1;

  mlir::MLIRContext context;
  std::string title = gpt2Cmd         ? "gpt2"
                      : stagFormerCmd ? "stagformer"
                                      : "bigram";
  if (preset.getNumOccurrences())
    title += " " + preset;

  if (gpt2Cmd) {
    llvm::Expected<GPT2Config> config = transformerConfig();
    if (!config)
      return fail(config.takeError());
    if (tied.getNumOccurrences() && noTied.getNumOccurrences())
      return fail("--tied and --no-tied contradict each other; pass one");
    config->tied = !noTied;
    config->layout = layout;
    if (llvm::Error error = validate(*config))
      return fail(std::move(error));
    return emit(*buildGPT2(context, *config), commandLine(*config), title);
  }
  if (stagFormerCmd) {
    llvm::Expected<GPT2Config> base = transformerConfig();
    if (!base)
      return fail(base.takeError());
    StagFormerConfig config;
    config.base = *base;
    config.stacks = stacks;
    config.sharedWeights = sharedWeights;
    if (window.getNumOccurrences())
      config.window = window;
    if (llvm::Error error = validate(config))
      return fail(std::move(error));
    return emit(*buildStagFormer(context, config), commandLine(config), title);
  }
  if (bigramCmd) {
    BigramConfig config;
    override(config.vocab, vocab);
    config.input = inputShape();
    if (llvm::Error error = validate(config))
      return fail(std::move(error));
    return emit(*buildBigram(context, config), commandLine(config), title);
  }
  return fail("choose a model: tpc-model gpt2|stagformer|bigram [flags]; "
              "see tpc-model --help");
}
