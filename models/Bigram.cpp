//===- Bigram.cpp - The bigram baseline -------------------------*- C++ -*-===//

#include "models/ModelBuilder.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

OwningOpRef<ModuleOp> tpc::models::buildBigram(MLIRContext &context,
                                               const BigramConfig &config) {
  ModelBuilder b(context, config.input, config.vocab);
  b.at("bigram");
  Value table = b.param("table", {config.vocab, config.vocab}, b.zeros());
  Value logits =
      EmbeddingOp::create(b.builder(), b.loc(), table, b.tokens(), UnitAttr());
  return b.finish(logits);
}
