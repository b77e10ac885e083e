//===- ModelBuilder.h - Shared pieces of the model builders -----*- C++ -*-===//
//
// A ModelBuilder owns the module under construction and its `forward`
// function. It declares parameters on first use, numbers the dropout sites
// and builds the GPT-2 blocks that every family shares.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_MODELS_MODELBUILDER_H
#define TPC_MODELS_MODELBUILDER_H

#include "models/Models.h"

#include "dialects/tpc/TpcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

namespace tpc::models {

class ModelBuilder {
public:
  /// Starts a module whose `forward` takes tokens and targets of `input`'s
  /// shape and returns logits over `vocab` entries.
  ModelBuilder(mlir::MLIRContext &context, InputShape input, int64_t vocab);

  mlir::Value tokens() { return forward.getArgument(0); }
  mlir::Value targets() { return forward.getArgument(1); }
  mlir::OpBuilder &builder() { return body; }

  /// Subsequent ops carry the location `loc("name")`.
  void at(const llvm::Twine &name);
  mlir::Location loc() const { return location; }

  InitAttr normal(int64_t residualLayers = 0);
  InitAttr zeros();
  InitAttr ones();

  /// Declares the parameter on first use (in order of use) and returns the
  /// function's single read of it.
  mlir::Value param(const llvm::Twine &name, llvm::ArrayRef<int64_t> shape,
                    InitAttr init);

  /// The key of the next dropout site. Every site takes one whether or not
  /// its probability is zero, so a site's key depends only on its place in
  /// the program.
  int64_t nextDropoutKey() { return dropoutKey++; }

  /// Inverted dropout with a replicated stream; no op when p is 0.
  mlir::Value dropout(mlir::Value x, double p);

  /// `prefix.weight` (ones) and `prefix.bias` (zeros) of size `size`.
  mlir::Value layerNorm(mlir::Value x, const llvm::Twine &prefix, int64_t size,
                        double eps = 1.0e-5);
  /// `prefix.weight` [in, out] ~ N(0, 0.02), scaled for `residualLayers`
  /// when it feeds the residual stream, and `prefix.bias` [out] of zeros.
  mlir::Value linear(mlir::Value x, const llvm::Twine &prefix, int64_t in,
                     int64_t out, int64_t residualLayers = 0);
  mlir::Value add(mlir::Value a, mlir::Value b);

  /// Loss sum, target count and logits; completes the module.
  mlir::OwningOpRef<mlir::ModuleOp> finish(mlir::Value logits);
  /// The same with a loss of the model's own added: `extend` takes the
  /// language-model loss sum, returns the loss sum forward returns and
  /// appends what forward returns after the logits.
  mlir::OwningOpRef<mlir::ModuleOp> finish(
      mlir::Value logits,
      llvm::function_ref<mlir::Value(mlir::Value lossSum,
                                     llvm::SmallVectorImpl<mlir::Value> &more)>
          extend);

private:
  mlir::MLIRContext &context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp forward;
  mlir::OpBuilder params;
  mlir::OpBuilder body;
  mlir::Location location;
  llvm::StringMap<mlir::Value> reads;
  int64_t dropoutKey = 1;
};

/// Cross-attention of one StagFormer layer: its parameters' prefix, the
/// previous stack's final activations and the optional window.
struct CrossAttention {
  std::string prefix;
  mlir::Value source;
  std::optional<int64_t> window;
};

/// GPT-2 blocks over a ModelBuilder, shared by GPT-2 and StagFormer.
class TransformerBuilder {
public:
  TransformerBuilder(ModelBuilder &b, const GPT2Config &config)
      : b(b), config(config) {}

  /// wte[tokens] + wpe[positions], then embedding dropout.
  mlir::Value embeddings();

  /// One layer: self-attention, the optional cross-attention, then the MLP,
  /// each with its residual connection. Parameters are `prefix.ln_1.*`,
  /// `prefix.attn.*`, `prefix.ln_2.*` and `prefix.mlp.*`.
  mlir::Value layer(mlir::Value h, const std::string &prefix,
                    const CrossAttention *cross = nullptr);

  /// ln_f (pre-norm only) and the output layer: wte transposed when tied,
  /// lm_head.weight [V, H] transposed otherwise.
  mlir::Value logits(mlir::Value h);

private:
  /// Applies one sublayer with its residual connection and the layer norm
  /// `norm` before it (pre-norm) or after the sum (post-norm).
  mlir::Value residual(mlir::Value h, const std::string &norm,
                       llvm::function_ref<mlir::Value(mlir::Value)> sublayer);

  ModelBuilder &b;
  const GPT2Config &config;
};

/// Llama blocks over a ModelBuilder, shared by Llama and StagFormer. Weights
/// keep Hugging Face's names and nn.Linear's [out, in] layout.
class LlamaBlockBuilder {
public:
  LlamaBlockBuilder(ModelBuilder &b, const LlamaConfig &config)
      : b(b), config(config), body(b.builder()) {}

  /// model.embed_tokens[tokens]: no position table, positions come from
  /// the rotary embeddings.
  mlir::Value embeddings();

  /// One layer: input_layernorm and grouped-query self-attention, the
  /// optional cross-attention (`cross.prefix`.cross_attn_layernorm and
  /// .cross_attn.{q_proj, kv_proj, o_proj}, multi-head, rotary), then
  /// post_attention_layernorm and the SwiGLU MLP, each added to `h`.
  mlir::Value layer(mlir::Value h, const std::string &prefix,
                    const CrossAttention *cross = nullptr);

  /// model.norm and the output layer (lm_head.weight, or the embedding
  /// table when tied).
  mlir::Value logits(mlir::Value h);

  /// Completes the module; records the context length as `tpc.context`,
  /// which sizes the KV caches of decoding.
  mlir::OwningOpRef<mlir::ModuleOp> finish(mlir::Value logits);

private:
  mlir::Value rmsNorm(mlir::Value x, const std::string &name);
  /// x * W^T with W = `name`.weight [out, in], as nn.Linear.
  mlir::Value linear(mlir::Value x, const std::string &name, int64_t in,
                     int64_t out);

  ModelBuilder &b;
  const LlamaConfig &config;
  mlir::OpBuilder &body;
  mlir::Value table;
};

} // namespace tpc::models

#endif // TPC_MODELS_MODELBUILDER_H
