//===- Bert.cpp - BERT encoders with the masked-LM head ---------*- C++ -*-===//
//
// Hugging Face's BertForPreTraining / BertForMaskedLM, in the original
// post-norm layout or in Megatron-LM's pre-norm one. Weights keep Hugging
// Face's names and nn.Linear's [out, in] layout (the linears are
// `transposed`), so its checkpoints load as they are. The pre-norm layout
// reuses the post-norm names for its norms: attention.output.LayerNorm
// normalizes the attention sublayer's input, output.LayerNorm the MLP's,
// and bert.encoder.final_layernorm follows the last layer
// (bench/reference_bert.py reads them the same way).
//
// Besides tokens and targets, forward takes each token's type (segment)
// [B, T] and each sequence's key length [B]: padding ends a row, and the
// attention masks the keys past its length (Hugging Face's attention_mask).
//
//===----------------------------------------------------------------------===//

#include "models/ModelBuilder.h"
#include "runtime/program/Abi.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

namespace {
class BertBuilder {
public:
  BertBuilder(ModelBuilder &b, const BertConfig &config)
      : b(b), config(config), body(b.builder()) {
    auto ids = cast<RankedTensorType>(b.tokens().getType());
    types = input(ids, abi::kTokenTypesInput);
    keyLengths =
        input(RankedTensorType::get({ids.getDimSize(0)}, ids.getElementType()),
              abi::kKeyLengthsInput);
    if (config.head == BertHeads::PreTraining) {
      sentenceOrder = input(
          RankedTensorType::get({ids.getDimSize(0), 1}, ids.getElementType()),
          abi::kSentenceOrderInput);
      sentenceOrderWeight = input(RankedTensorType::get({}, body.getF32Type()),
                                  abi::kSentenceOrderWeightInput);
    }
  }

  /// Word, position and token-type embeddings summed; the embedding
  /// LayerNorm (post-norm only), then dropout.
  Value embeddings() {
    int64_t hidden = config.hidden;
    b.at("bert.embeddings");
    word = b.param("bert.embeddings.word_embeddings.weight",
                   {config.vocab, hidden}, b.normal());
    Value x = EmbeddingOp::create(body, b.loc(), word, b.tokens(), UnitAttr());
    Value positions = b.param("bert.embeddings.position_embeddings.weight",
                              {config.positions, hidden}, b.normal());
    x = b.add(x, PositionEmbeddingOp::create(body, b.loc(), positions,
                                             b.tokens(), Value()));
    Value table = b.param("bert.embeddings.token_type_embeddings.weight",
                          {config.types, hidden}, b.normal());
    x = b.add(x, TokenTypeEmbeddingOp::create(body, b.loc(), table, types));
    if (config.layout == NormLayout::PostNorm)
      x = norm(x, "bert.embeddings.LayerNorm");
    return b.dropout(x, config.dropout);
  }

  Value layer(Value h, const std::string &prefix) {
    b.at(prefix + ".attention");
    h = residual(h, prefix + ".attention.output.LayerNorm",
                 [&](Value x) { return attention(x, prefix); });
    b.at(prefix + ".mlp");
    return residual(h, prefix + ".output.LayerNorm", [&](Value x) {
      Value up = linear(x, prefix + ".intermediate.dense", config.hidden,
                        config.intermediate);
      return linear(gelu(up), prefix + ".output.dense", config.intermediate,
                    config.hidden);
    });
  }

  /// The final norm (pre-norm only), then the masked-LM head's transform
  /// and the logits against the word embeddings plus cls.predictions.bias.
  /// BertForPreTraining adds the pooler and the sentence-order head
  /// (sentenceOrderLogits).
  Value logits(Value h) {
    int64_t hidden = config.hidden;
    if (config.layout == NormLayout::PreNorm) {
      b.at("bert.encoder.final_layernorm");
      h = norm(h, "bert.encoder.final_layernorm");
    }
    Value pooled;
    if (config.head == BertHeads::PreTraining) {
      b.at("bert.pooler");
      Value first =
          SelectPositionOp::create(body, b.loc(), h, body.getI64IntegerAttr(0));
      pooled = TanhOp::create(
          body, b.loc(), linear(first, "bert.pooler.dense", hidden, hidden));
    }
    b.at("cls.predictions");
    Value t = linear(h, "cls.predictions.transform.dense", hidden, hidden);
    t = norm(gelu(t), "cls.predictions.transform.LayerNorm");
    Value bias = b.param("cls.predictions.bias", {config.vocab}, b.zeros());
    Value logits =
        LinearOp::create(body, b.loc(), t, word, bias, body.getUnitAttr());
    // After the masked-LM head, in BertForPreTraining's parameter order.
    if (pooled) {
      b.at("cls.seq_relationship");
      sopLogits = linear(pooled, "cls.seq_relationship", hidden, 2);
    }
    return logits;
  }

  /// With the sentence-order head: the loss sum is the masked-LM loss sum
  /// plus the sentence-order loss sum times its weight (an input the
  /// trainer sets to the step's predicted positions over its rows, so
  /// that the mean loss is the sum of both means, as BertForPreTraining's
  /// total loss), and forward also returns the head's [B, 1, 2] logits.
  OwningOpRef<ModuleOp> finish(Value logits) {
    if (!sopLogits)
      return b.finish(logits);
    return b.finish(logits, [&](Value lossSum, SmallVectorImpl<Value> &more) {
      b.at("cls.seq_relationship");
      auto sop = CrossEntropyOp::create(body, b.loc(), sopLogits, sentenceOrder,
                                        body.getI64IntegerAttr(-1),
                                        body.getUnitAttr());
      Value weighted = ScaleByOp::create(body, b.loc(), sop.getLossSum(),
                                         sentenceOrderWeight);
      more.push_back(sopLogits);
      return b.add(lossSum, weighted);
    });
  }

private:
  /// A new last argument of forward that the batch fills with `what`
  /// (abi::kInputAttr).
  Value input(RankedTensorType type, StringRef what) {
    auto forward = cast<func::FuncOp>(
        cast<BlockArgument>(b.tokens()).getOwner()->getParentOp());
    unsigned index = forward.getNumArguments();
    NamedAttribute name(body.getStringAttr(abi::kInputAttr),
                        body.getStringAttr(what));
    (void)forward.insertArgument(index, type, body.getDictionaryAttr(name),
                                 forward.getLoc());
    return forward.getArgument(index);
  }

  Value norm(Value x, const std::string &name) {
    return b.layerNorm(x, name, config.hidden, config.normEps);
  }

  Value gelu(Value x) {
    return GeluOp::create(body, b.loc(), x,
                          config.exactGelu ? body.getUnitAttr() : UnitAttr());
  }

  /// x * W^T + b with W = `name`.weight [out, in], as nn.Linear.
  Value linear(Value x, const std::string &name, int64_t in, int64_t out) {
    Value weight = b.param(name + ".weight", {out, in}, b.normal());
    Value bias = b.param(name + ".bias", {out}, b.zeros());
    return LinearOp::create(body, b.loc(), x, weight, bias, body.getUnitAttr());
  }

  /// Bidirectional multi-head attention over separate q, k and v (grouped
  /// attention with as many key/value heads as heads), then the output
  /// dense.
  Value attention(Value x, const std::string &prefix) {
    int64_t hidden = config.hidden;
    std::string self = prefix + ".attention.self.";
    Value q = linear(x, self + "query", hidden, hidden);
    Value k = linear(x, self + "key", hidden, hidden);
    Value v = linear(x, self + "value", hidden, hidden);
    int64_t key = b.nextDropoutKey();
    double p = config.dropout;
    IntegerAttr heads = body.getI64IntegerAttr(config.heads);
    Value a = GroupedAttentionOp::create(
        body, b.loc(), q, k, v, keyLengths, heads, heads,
        /*causal=*/UnitAttr(),
        /*window=*/IntegerAttr(), body.getF64FloatAttr(0.0),
        body.getI64IntegerAttr(0), body.getF64FloatAttr(p),
        body.getI64IntegerAttr(p > 0.0 ? key : 0), UnitAttr(), UnitAttr());
    return linear(a, prefix + ".attention.output.dense", hidden, hidden);
  }

  /// One sublayer with its residual connection: x = LN(x + drop(f(x)))
  /// (post-norm) or x = x + drop(f(LN(x))) (pre-norm).
  Value residual(Value h, const std::string &norm,
                 function_ref<Value(Value)> sublayer) {
    if (config.layout == NormLayout::PreNorm)
      return b.add(h, b.dropout(sublayer(this->norm(h, norm)), config.dropout));
    Value out = b.dropout(sublayer(h), config.dropout);
    return this->norm(b.add(h, out), norm);
  }

  ModelBuilder &b;
  const BertConfig &config;
  OpBuilder &body;
  Value types, keyLengths;
  Value sentenceOrder, sentenceOrderWeight, sopLogits;
  Value word;
};
} // namespace

OwningOpRef<ModuleOp> tpc::models::buildBert(MLIRContext &context,
                                             const BertConfig &config) {
  ModelBuilder b(context, config.input, config.vocab);
  BertBuilder bert(b, config);
  Value h = bert.embeddings();
  for (int64_t i = 0; i < config.layers; ++i)
    h = bert.layer(h, "bert.encoder.layer." + std::to_string(i));
  return bert.finish(bert.logits(h));
}
