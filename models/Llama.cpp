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

Value LlamaBlockBuilder::embeddings() {
  b.at("embeddings");
  table = b.param("model.embed_tokens.weight", {config.vocab, config.hidden},
                  b.normal());
  return EmbeddingOp::create(body, b.loc(), table, b.tokens(), UnitAttr());
}

Value LlamaBlockBuilder::rmsNorm(Value x, const std::string &name) {
  Value weight = b.param(name + ".weight", {config.hidden}, b.ones());
  return RmsNormOp::create(body, b.loc(), x, weight,
                           body.getF64FloatAttr(config.normEps));
}

Value LlamaBlockBuilder::linear(Value x, const std::string &name, int64_t in,
                                int64_t out) {
  Value weight = b.param(name + ".weight", {out, in}, b.normal());
  return LinearOp::create(body, b.loc(), x, weight, Value(),
                          body.getUnitAttr());
}

Value LlamaBlockBuilder::layer(Value h, const std::string &prefix,
                               const CrossAttention *cross) {
  int64_t hidden = config.hidden, headDim = hidden / config.heads;
  int64_t kv = config.kvHeads * headDim;
  FloatAttr rope = body.getF64FloatAttr(config.ropeTheta);
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
      IntegerAttr(), rope, body.getI64IntegerAttr(0),
      body.getF64FloatAttr(0.0), body.getI64IntegerAttr(0), UnitAttr());
  h = b.add(h, linear(a, attn + "o_proj", hidden, hidden));

  if (cross) {
    const std::string &xp = cross->prefix;
    b.at(xp + ".cross_attn");
    x = rmsNorm(h, xp + ".cross_attn_layernorm");
    q = linear(x, xp + ".cross_attn.q_proj", hidden, hidden);
    Value kvs = linear(cross->source, xp + ".cross_attn.kv_proj", hidden,
                       2 * hidden);
    b.nextDropoutKey();
    IntegerAttr window = cross->window ? body.getI64IntegerAttr(*cross->window)
                                       : IntegerAttr();
    a = CrossAttentionOp::create(body, b.loc(), q, kvs,
                                 body.getI64IntegerAttr(config.heads), window,
                                 rope, body.getI64IntegerAttr(0),
                                 body.getF64FloatAttr(0.0),
                                 body.getI64IntegerAttr(0), UnitAttr());
    h = b.add(h, linear(a, xp + ".cross_attn.o_proj", hidden, hidden));
  }

  b.at(prefix + ".mlp");
  x = rmsNorm(h, prefix + ".post_attention_layernorm");
  std::string mlp = prefix + ".mlp.";
  Value gate = linear(x, mlp + "gate_proj", hidden, config.intermediate);
  Value up = linear(x, mlp + "up_proj", hidden, config.intermediate);
  Value act = SwiGluOp::create(body, b.loc(), gate, up);
  return b.add(h, linear(act, mlp + "down_proj", config.intermediate, hidden));
}

Value LlamaBlockBuilder::logits(Value h) {
  b.at("model.norm");
  h = rmsNorm(h, "model.norm");
  b.at("lm_head");
  Value weight = config.tied ? table
                             : b.param("lm_head.weight",
                                       {config.vocab, config.hidden},
                                       b.normal());
  return LinearOp::create(body, b.loc(), h, weight, Value(),
                          body.getUnitAttr());
}

OwningOpRef<ModuleOp> LlamaBlockBuilder::finish(Value logits) {
  OwningOpRef<ModuleOp> module = b.finish(logits);
  (*module)->setAttr(kContextAttrName,
                     IntegerAttr::get(IntegerType::get(body.getContext(), 64),
                                      config.positions));
  return module;
}

OwningOpRef<ModuleOp> tpc::models::buildLlama(MLIRContext &context,
                                              const LlamaConfig &config) {
  ModelBuilder b(context, config.input, config.vocab);
  LlamaBlockBuilder llama(b, config);
  Value h = llama.embeddings();
  for (int64_t i = 0; i < config.layers; ++i)
    h = llama.layer(h, "model.layers." + std::to_string(i));
  return llama.finish(llama.logits(h));
}
