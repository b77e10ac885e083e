//===- Models.h - Builders of tpc model modules -----------------*- C++ -*-===//
//
// The configurations of the model families that tpc ships (GPT-2 and the
// Megatron paper's GPT-2 variants, Llama, BERT, the bigram baseline,
// StagFormer), their validation, and the builders that write each one as a
// `tpc` module at its global size with the batch and sequence length left
// open.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_MODELS_MODELS_H
#define TPC_MODELS_MODELS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace tpc::models {

/// Marks the batch or sequence dimension of the inputs as left open.
inline constexpr int64_t kOpen = mlir::ShapedType::kDynamic;

/// Where the layer norms sit. Pre-norm is GPT-2's: each sublayer reads
/// ln(h) and a final ln_f precedes the output layer. Post-norm is the
/// original transformer's: h = ln(h + sublayer(h)), with no ln_f.
enum class NormLayout { PreNorm, PostNorm };

/// The input shapes a module is written for. Either dimension may stay open
/// (kOpen); tpc-compile fixes open ones later.
struct InputShape {
  int64_t batch = kOpen;
  int64_t seqLen = kOpen;
};

/// A GPT-2 style decoder. Defaults are GPT-2 124M.
struct GPT2Config {
  int64_t layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t vocab = 50257;
  /// Rows of the position table wpe (n_ctx): the longest sequence.
  int64_t positions = 1024;
  double embdPdrop = 0.0;
  double residPdrop = 0.0;
  double attnPdrop = 0.0;
  /// Tied: the output layer reads wte transposed; untied: lm_head.weight.
  bool tied = true;
  /// Rotary positions in every attention on top of wpe (the StagFormer
  /// paper's setting); 0: none.
  double ropeTheta = 0.0;
  NormLayout layout = NormLayout::PreNorm;
  InputShape input;
};

/// What a StagFormer's stacks are made of.
enum class StagBlocks {
  /// Pre-norm GPT-2 layers over learned positions (optionally with RoPE),
  /// tied output layer: `base` describes them.
  GPT2,
  /// Llama layers (RMSNorm, grouped-query attention with RoPE, SwiGLU) and a
  /// rotary cross-attention: `llama` describes them.
  Llama,
};

/// A Llama decoder (Touvron et al. 2023; Hugging Face LlamaForCausalLM):
/// RMSNorm before each sublayer and at the end, rotary positions, grouped-
/// query attention, a SwiGLU MLP, no biases, an untied output layer unless
/// `tied`. Parameter names and [out, in] weights are Hugging Face's. The
/// defaults are TinyLlama 1.1B's.
struct LlamaConfig {
  int64_t layers = 22;
  int64_t hidden = 2048;
  int64_t heads = 32;
  int64_t kvHeads = 4;
  int64_t intermediate = 5632;
  int64_t vocab = 32000;
  /// The longest sequence (max_position_embeddings): sizes the KV caches.
  int64_t positions = 2048;
  double ropeTheta = 10000.0;
  double normEps = 1e-5;
  bool tied = false;
  InputShape input;
};

/// StagFormer (DESIGN.md section 7): `stacks` stacks of GPT-2 or Llama
/// layers, `base.layers` or `llama.layers` each.
struct StagFormerConfig {
  StagBlocks blocks = StagBlocks::GPT2;
  GPT2Config base;
  LlamaConfig llama;
  int64_t stacks = 2;
  bool sharedWeights = false;
  /// Cross-attention sees only the last `window` strictly earlier positions.
  std::optional<int64_t> window;
  /// With p > 2 stacks, the output layer reads the learned combination
  /// alpha of all stacks' final activations; without it, the last stack's
  /// (the paper's ablation).
  bool alpha = true;
};

/// Which heads sit on a BERT encoder: the masked-LM head alone (Hugging
/// Face BertForMaskedLM), or also the pooler and the 2-way sentence-order
/// head (BertForPreTraining).
enum class BertHeads { MaskedLM, PreTraining };

/// A BERT encoder (Devlin et al. 2019; Hugging Face BertForPreTraining):
/// word, position and token-type embeddings, bidirectional self-attention,
/// a GELU MLP, post-norm (original BERT, with an embedding LayerNorm) or
/// pre-norm (Megatron-LM, with a final LayerNorm) layers, and the masked-LM
/// head tied to the word embeddings with an output bias. Parameter names and
/// nn.Linear's [out, in] weights are Hugging Face's. Defaults: bert-base.
struct BertConfig {
  int64_t layers = 12;
  int64_t hidden = 768;
  int64_t heads = 12;
  int64_t intermediate = 3072;
  int64_t vocab = 30522;
  /// Rows of the position table (max_position_embeddings).
  int64_t positions = 512;
  /// Rows of the token-type table (type_vocab_size).
  int64_t types = 2;
  NormLayout layout = NormLayout::PostNorm;
  /// Exact (erf) GELU as Hugging Face BERT; false: the tanh approximation.
  bool exactGelu = true;
  double normEps = 1e-12;
  /// Hidden dropout (embeddings, each sublayer's output) and dropout of the
  /// attention probabilities.
  double dropout = 0.0;
  BertHeads head = BertHeads::PreTraining;
  InputShape input;
};

/// A named BERT size.
struct BertPreset {
  llvm::StringRef name;
  llvm::StringRef description;
  BertConfig config;
};

llvm::ArrayRef<BertPreset> bertPresets();
/// The BERT preset called `name`, or nullptr.
const BertPreset *findBertPreset(llvm::StringRef name);

/// A named Llama size.
struct LlamaPreset {
  llvm::StringRef name;
  llvm::StringRef description;
  LlamaConfig config;
};

llvm::ArrayRef<LlamaPreset> llamaPresets();
/// The Llama preset called `name`, or nullptr.
const LlamaPreset *findLlamaPreset(llvm::StringRef name);

/// Logits are a row of a learned [V, V] table indexed by the current token.
struct BigramConfig {
  int64_t vocab = 50257;
  InputShape input;
};

/// A named size of GPT-2: the four OpenAI models and the four GPT-2
/// configurations of the Megatron-LM paper's Table 1.
struct Preset {
  llvm::StringRef name;
  llvm::StringRef description;
  int64_t layers, hidden, heads, vocab, positions;
};

llvm::ArrayRef<Preset> gpt2Presets();
/// The preset called `name`, or nullptr.
const Preset *findPreset(llvm::StringRef name);
/// The configuration of a preset, with every other field at its default.
GPT2Config configOf(const Preset &preset);

/// Checks a configuration; the error names the offending flag and the fix.
llvm::Error validate(const GPT2Config &config);
llvm::Error validate(const StagFormerConfig &config);
llvm::Error validate(const BigramConfig &config);
llvm::Error validate(const LlamaConfig &config);
llvm::Error validate(const BertConfig &config);

/// The tpc-model command line that writes the same module.
std::string commandLine(const GPT2Config &config);
std::string commandLine(const StagFormerConfig &config);
std::string commandLine(const BigramConfig &config);
std::string commandLine(const LlamaConfig &config);
std::string commandLine(const BertConfig &config);

/// Builders. The configuration must have passed validate(); the module
/// holds the parameters at their global shapes and `func.func @forward(
/// %tokens, %targets) -> (loss sum, target count, logits)`.
mlir::OwningOpRef<mlir::ModuleOp> buildGPT2(mlir::MLIRContext &context,
                                            const GPT2Config &config);
mlir::OwningOpRef<mlir::ModuleOp>
buildStagFormer(mlir::MLIRContext &context, const StagFormerConfig &config);
mlir::OwningOpRef<mlir::ModuleOp> buildBigram(mlir::MLIRContext &context,
                                              const BigramConfig &config);
mlir::OwningOpRef<mlir::ModuleOp> buildLlama(mlir::MLIRContext &context,
                                             const LlamaConfig &config);
/// BERT's `forward` returns the masked-LM loss sum over the targets that are
/// not the ignore index, their count and the logits; the pooler and the
/// sentence-order head (BertHeads::PreTraining) are declared as parameters
/// but not read until a sentence-order loss exists.
mlir::OwningOpRef<mlir::ModuleOp> buildBert(mlir::MLIRContext &context,
                                            const BertConfig &config);

/// Prints the parameter count of a module: the total with thousands
/// separators, then one line per block (embeddings, layers grouped by stack
/// with their components, final layer norm, output layer, alpha).
void printSummary(mlir::ModuleOp module, llvm::StringRef title,
                  llvm::raw_ostream &os);

/// 124439808 -> "124,439,808".
std::string withThousands(int64_t value);

} // namespace tpc::models

#endif // TPC_MODELS_MODELS_H
