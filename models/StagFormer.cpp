//===- StagFormer.cpp - Staggered transformer stacks ------------*- C++ -*-===//
//
// Stack 1 is an ordinary causal GPT-2 (or Llama) stack. Every later stack
// reads the same embeddings and, in each layer, cross-attends from its own
// residual stream to the previous stack's final activations at strictly
// earlier positions. With p > 2 stacks the output layer reads a learned
// combination of all the stacks' final activations (or, without alpha, the
// last stack's alone).
//
//===----------------------------------------------------------------------===//

#include "models/ModelBuilder.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

namespace {
/// The stacks over `embeddings` and, for p > 2, their learned combination.
/// Layer i of stack s is `<root>s<s>.<layers>.<i>` (`<root><layers>.<i>`
/// with shared weights); its cross-attention is always per stack.
template <typename Blocks>
Value stacks(ModelBuilder &b, Blocks &blocks, Value embeddings,
             const StagFormerConfig &config, int64_t layers,
             const std::string &root, const std::string &layerName) {
  SmallVector<Value> outputs;
  for (int64_t s = 1; s <= config.stacks; ++s) {
    std::string stack = root + "s" + std::to_string(s) + "." + layerName + ".";
    std::string shared = root + layerName + ".";
    Value h = embeddings;
    for (int64_t i = 0; i < layers; ++i) {
      std::string index = std::to_string(i);
      std::string prefix = (config.sharedWeights ? shared : stack) + index;
      if (s == 1) {
        h = blocks.layer(h, prefix);
        continue;
      }
      CrossAttention cross{stack + index, outputs.back(), config.window};
      h = blocks.layer(h, prefix, &cross);
    }
    outputs.push_back(h);
  }
  if (config.stacks == 2 || !config.alpha)
    return outputs.back();
  // alpha starts at ones; the scale by 1/p makes the initial combination
  // the mean of the stacks.
  b.at("alpha");
  Value alpha = b.param("alpha", {config.stacks}, b.ones());
  OpBuilder &body = b.builder();
  Value sum = WeightedSumOp::create(body, b.loc(), alpha, outputs);
  return ScaleOp::create(body, b.loc(), sum,
                         body.getF64FloatAttr(1.0 / config.stacks));
}
} // namespace

OwningOpRef<ModuleOp>
tpc::models::buildStagFormer(MLIRContext &context,
                             const StagFormerConfig &config) {
  if (config.blocks == StagBlocks::Llama) {
    ModelBuilder b(context, config.llama.input, config.llama.vocab);
    LlamaBlockBuilder llama(b, config.llama);
    Value last = stacks(b, llama, llama.embeddings(), config,
                        config.llama.layers, "model.", "layers");
    return llama.finish(llama.logits(last));
  }
  const GPT2Config &base = config.base;
  ModelBuilder b(context, base.input, base.vocab);
  TransformerBuilder transformer(b, base);
  Value last = stacks(b, transformer, transformer.embeddings(), config,
                      base.layers, "", "h");
  return b.finish(transformer.logits(last));
}
