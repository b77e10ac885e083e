//===- GPT2.cpp - GPT-2 and the Megatron GPT-2 configurations ---*- C++ -*-===//

#include "models/ModelBuilder.h"

using namespace mlir;
using namespace tpc::models;

OwningOpRef<ModuleOp> tpc::models::buildGPT2(MLIRContext &context,
                                             const GPT2Config &config) {
  ModelBuilder b(context, config.input, config.vocab);
  TransformerBuilder transformer(b, config);
  Value h = transformer.embeddings();
  for (int64_t i = 0; i < config.layers; ++i)
    h = transformer.layer(h, "h." + std::to_string(i));
  return b.finish(transformer.logits(h));
}
