//===- StagFormer.cpp - Staggered transformer stacks ------------*- C++ -*-===//
//
// Stack 1 is an ordinary causal GPT-2 stack. Every later stack reads the same
// embeddings and, in each layer, cross-attends from its own residual stream
// to the previous stack's final activations at strictly earlier positions.
// With p > 2 stacks the output layer reads a learned combination of all the
// stacks' final activations.
//
//===----------------------------------------------------------------------===//

#include "models/ModelBuilder.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

OwningOpRef<ModuleOp>
tpc::models::buildStagFormer(MLIRContext &context,
                             const StagFormerConfig &config) {
  const GPT2Config &base = config.base;
  ModelBuilder b(context, base.input, base.vocab);
  TransformerBuilder transformer(b, base);
  Value embeddings = transformer.embeddings();

  SmallVector<Value> outputs;
  for (int64_t s = 1; s <= config.stacks; ++s) {
    std::string stack = "s" + std::to_string(s) + ".h.";
    Value h = embeddings;
    for (int64_t i = 0; i < base.layers; ++i) {
      std::string index = std::to_string(i);
      std::string prefix = (config.sharedWeights ? "h." : stack) + index;
      if (s == 1) {
        h = transformer.layer(h, prefix);
        continue;
      }
      TransformerBuilder::CrossAttention cross{stack + index, outputs.back(),
                                               config.window};
      h = transformer.layer(h, prefix, &cross);
    }
    outputs.push_back(h);
  }

  Value last = outputs.back();
  if (config.stacks > 2) {
    // alpha starts at ones; the scale by 1/p makes the initial combination
    // the mean of the stacks.
    b.at("alpha");
    Value alpha = b.param("alpha", {config.stacks}, b.ones());
    OpBuilder &body = b.builder();
    Value sum = WeightedSumOp::create(body, b.loc(), alpha, outputs);
    last = ScaleOp::create(body, b.loc(), sum,
                           body.getF64FloatAttr(1.0 / config.stacks));
  }
  return b.finish(transformer.logits(last));
}
