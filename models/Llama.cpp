//===- Llama.cpp - Llama decoders -------------------------------*- C++ -*-===//
//
// Hugging Face's LlamaForCausalLM: pre-norm blocks with RMSNorm, grouped-
// query attention with rotary positions, a SwiGLU MLP, no biases. Weights
// keep Hugging Face's names and nn.Linear's [out, in] layout (the linears
// are `transposed`), so its checkpoints load as they are.
//
//===----------------------------------------------------------------------===//

#include "models/ModelBuilder.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

namespace {
class LlamaBuilder {
public:
  LlamaBuilder(ModelBuilder &b, const LlamaConfig &config)
      : b(b), config(config), body(b.builder()) {}

  Value rmsNorm(Value x, const std::string &name) {
    Value weight = b.param(name + ".weight", {config.hidden}, b.ones());
    return RmsNormOp::create(body, b.loc(), x, weight,
                             body.getF64FloatAttr(config.normEps));
  }

  /// x * W^T with W = `name`.weight [out, in], as nn.Linear.
  Value linear(Value x, const std::string &name, int64_t in, int64_t out) {
    Value weight = b.param(name + ".weight", {out, in}, b.normal());
    return LinearOp::create(body, b.loc(), x, weight, Value(),
                            body.getUnitAttr());
  }

  Value layer(Value h, const std::string &prefix) {
    int64_t hidden = config.hidden, headDim = hidden / config.heads;
    int64_t kv = config.kvHeads * headDim;
    b.at(prefix + ".self_attn");
    Value x = rmsNorm(h, prefix + ".input_layernorm");
    std::string attn = prefix + ".self_attn.";
    Value q = linear(x, attn + "q_proj", hidden, hidden);
    Value k = linear(x, attn + "k_proj", hidden, kv);
    Value v = linear(x, attn + "v_proj", hidden, kv);
    b.nextDropoutKey();
    Value a = GroupedAttentionOp::create(
        body, b.loc(), q, k, v, body.getI64IntegerAttr(config.heads),
        body.getI64IntegerAttr(config.kvHeads), body.getUnitAttr(),
        IntegerAttr(), body.getF64FloatAttr(config.ropeTheta),
        body.getI64IntegerAttr(0), body.getF64FloatAttr(0.0),
        body.getI64IntegerAttr(0), UnitAttr());
    h = b.add(h, linear(a, attn + "o_proj", hidden, hidden));

    b.at(prefix + ".mlp");
    x = rmsNorm(h, prefix + ".post_attention_layernorm");
    std::string mlp = prefix + ".mlp.";
    Value gate = linear(x, mlp + "gate_proj", hidden, config.intermediate);
    Value up = linear(x, mlp + "up_proj", hidden, config.intermediate);
    Value act = SwiGluOp::create(body, b.loc(), gate, up);
    return b.add(h,
                 linear(act, mlp + "down_proj", config.intermediate, hidden));
  }

private:
  ModelBuilder &b;
  const LlamaConfig &config;
  OpBuilder &body;
};
} // namespace

OwningOpRef<ModuleOp> tpc::models::buildLlama(MLIRContext &context,
                                              const LlamaConfig &config) {
  ModelBuilder b(context, config.input, config.vocab);
  LlamaBuilder llama(b, config);
  OpBuilder &body = b.builder();

  b.at("embeddings");
  Value table = b.param("model.embed_tokens.weight",
                        {config.vocab, config.hidden}, b.normal());
  Value h = EmbeddingOp::create(body, b.loc(), table, b.tokens(), UnitAttr());
  for (int64_t i = 0; i < config.layers; ++i)
    h = llama.layer(h, "model.layers." + std::to_string(i));

  b.at("model.norm");
  h = llama.rmsNorm(h, "model.norm");
  b.at("lm_head");
  Value weight = config.tied ? table
                             : b.param("lm_head.weight",
                                       {config.vocab, config.hidden},
                                       b.normal());
  Value logits =
      LinearOp::create(body, b.loc(), h, weight, Value(), body.getUnitAttr());
  OwningOpRef<ModuleOp> module = b.finish(logits);
  (*module)->setAttr(kContextAttrName,
                     IntegerAttr::get(IntegerType::get(&context, 64),
                                      config.positions));
  return module;
}
