//===- ModelBuilder.cpp - Shared pieces of the model builders ---*- C++ -*-===//

#include "models/ModelBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

ModelBuilder::ModelBuilder(MLIRContext &context, InputShape input,
                           int64_t vocab)
    : context(context), params(&context), body(&context),
      location(UnknownLoc::get(&context)) {
  context.loadDialect<TpcDialect, func::FuncDialect>();
  module = ModuleOp::create(UnknownLoc::get(&context));
  auto ids = RankedTensorType::get({input.batch, input.seqLen},
                                   IntegerType::get(&context, 32));
  auto logits = RankedTensorType::get({input.batch, input.seqLen, vocab},
                                      Float32Type::get(&context));
  auto type = FunctionType::get(
      &context, {ids, ids},
      {RankedTensorType::get({}, Float32Type::get(&context)),
       RankedTensorType::get({}, IntegerType::get(&context, 32)), logits});
  OpBuilder top = OpBuilder::atBlockEnd(module->getBody());
  forward = func::FuncOp::create(
      top, NameLoc::get(top.getStringAttr("forward")), "forward", type);
  params.setInsertionPoint(forward);
  body.setInsertionPointToStart(forward.addEntryBlock());
}

void ModelBuilder::at(const Twine &name) {
  location = NameLoc::get(StringAttr::get(&context, name));
}

InitAttr ModelBuilder::normal(int64_t residualLayers) {
  return InitAttr::get(&context, InitKind::normal, llvm::APFloat(0.02),
                       residualLayers);
}

InitAttr ModelBuilder::zeros() {
  return InitAttr::get(&context, InitKind::zeros, llvm::APFloat(0.0), 0);
}

InitAttr ModelBuilder::ones() {
  return InitAttr::get(&context, InitKind::ones, llvm::APFloat(0.0), 0);
}

Value ModelBuilder::param(const Twine &name, ArrayRef<int64_t> shape,
                          InitAttr init) {
  std::string key = name.str();
  auto [it, inserted] = reads.try_emplace(key);
  if (!inserted)
    return it->second;
  auto type = RankedTensorType::get(shape, Float32Type::get(&context));
  ParamOp::create(params, location, key, type, init, LayoutAttr(), TypeAttr(),
                  TypeAttr());
  it->second = GetParamOp::create(body, location, type, key);
  return it->second;
}

Value ModelBuilder::dropout(Value x, double p) {
  int64_t key = nextDropoutKey();
  if (p == 0.0)
    return x;
  return DropoutOp::create(body, location, x, body.getF64FloatAttr(p),
                           RngStreamAttr::get(&context, RngStream::replicated),
                           body.getI64IntegerAttr(key), LayoutAttr());
}

Value ModelBuilder::layerNorm(Value x, const Twine &prefix, int64_t size,
                              double eps) {
  Value gamma = param(prefix + ".weight", {size}, ones());
  Value beta = param(prefix + ".bias", {size}, zeros());
  return LayerNormOp::create(body, location, x, gamma, beta,
                             body.getF64FloatAttr(eps));
}

Value ModelBuilder::linear(Value x, const Twine &prefix, int64_t in,
                           int64_t out, int64_t residualLayers) {
  Value weight = param(prefix + ".weight", {in, out}, normal(residualLayers));
  Value bias = param(prefix + ".bias", {out}, zeros());
  return LinearOp::create(body, location, x, weight, bias, UnitAttr());
}

Value ModelBuilder::add(Value a, Value b) {
  return AddOp::create(body, location, a, b);
}

OwningOpRef<ModuleOp> ModelBuilder::finish(Value logits) {
  return finish(
      logits, [](Value lossSum, SmallVectorImpl<Value> &) { return lossSum; });
}

OwningOpRef<ModuleOp> ModelBuilder::finish(
    Value logits,
    function_ref<Value(Value lossSum, SmallVectorImpl<Value> &more)> extend) {
  at("loss");
  auto loss = CrossEntropyOp::create(body, location, logits, targets(),
                                     body.getI64IntegerAttr(-1));
  SmallVector<Value> more;
  Value sum = extend(loss.getLossSum(), more);
  SmallVector<Value> results = {sum, loss.getCount(), logits};
  results.append(more);
  func::ReturnOp::create(body, location, results);
  forward.setType(FunctionType::get(&context, forward.getArgumentTypes(),
                                    ValueRange(results).getTypes()));
  return std::move(module);
}

//===----------------------------------------------------------------------===//
// TransformerBuilder
//===----------------------------------------------------------------------===//

Value TransformerBuilder::embeddings() {
  b.at("embeddings");
  OpBuilder &body = b.builder();
  Value wte = b.param("wte", {config.vocab, config.hidden}, b.normal());
  Value tokens =
      EmbeddingOp::create(body, b.loc(), wte, b.tokens(), UnitAttr());
  Value wpe = b.param("wpe", {config.positions, config.hidden}, b.normal());
  Value positions = PositionEmbeddingOp::create(body, b.loc(), wpe, b.tokens(),
                                                /*offset=*/Value());
  return b.dropout(b.add(tokens, positions), config.embdPdrop);
}

Value TransformerBuilder::residual(Value h, const std::string &norm,
                                   function_ref<Value(Value)> sublayer) {
  int64_t hidden = config.hidden;
  if (config.layout == NormLayout::PreNorm) {
    Value out = sublayer(b.layerNorm(h, norm, hidden));
    return b.add(h, b.dropout(out, config.residPdrop));
  }
  Value out = b.dropout(sublayer(h), config.residPdrop);
  return b.layerNorm(b.add(h, out), norm, hidden);
}

Value TransformerBuilder::layer(Value h, const std::string &prefix,
                                const CrossAttention *cross) {
  OpBuilder &body = b.builder();
  int64_t hidden = config.hidden, layers = config.layers;
  MLIRContext *ctx = body.getContext();
  FloatAttr ropeTheta = body.getF64FloatAttr(config.ropeTheta);
  IntegerAttr ropeDims = body.getI64IntegerAttr(0);
  auto attentionDropout = [&](int64_t key) {
    return std::make_pair(
        body.getF64FloatAttr(config.attnPdrop),
        body.getI64IntegerAttr(config.attnPdrop > 0.0 ? key : 0));
  };

  b.at(prefix + ".attn");
  h = residual(h, prefix + ".ln_1", [&](Value x) {
    Value qkv = b.linear(x, prefix + ".attn.c_attn", hidden, 3 * hidden);
    auto [p, key] = attentionDropout(b.nextDropoutKey());
    Value attn = SelfAttentionOp::create(
        body, b.loc(), qkv, body.getI64IntegerAttr(config.heads),
        UnitAttr::get(ctx), IntegerAttr(), ropeTheta, ropeDims, p, key,
        UnitAttr());
    return b.linear(attn, prefix + ".attn.c_proj", hidden, hidden, layers);
  });

  if (cross) {
    const std::string &xp = cross->prefix;
    b.at(xp + ".xattn");
    h = residual(h, xp + ".ln_x", [&](Value x) {
      Value q = b.linear(x, xp + ".xattn.c_q", hidden, hidden);
      Value kv =
          b.linear(cross->source, xp + ".xattn.c_kv", hidden, 2 * hidden);
      auto [p, key] = attentionDropout(b.nextDropoutKey());
      IntegerAttr window = cross->window
                               ? body.getI64IntegerAttr(*cross->window)
                               : IntegerAttr();
      Value attn = CrossAttentionOp::create(
          body, b.loc(), q, kv, body.getI64IntegerAttr(config.heads), window,
          ropeTheta, ropeDims, p, key, UnitAttr());
      return b.linear(attn, xp + ".xattn.c_proj", hidden, hidden, layers);
    });
  }

  b.at(prefix + ".mlp");
  return residual(h, prefix + ".ln_2", [&](Value x) {
    Value up = b.linear(x, prefix + ".mlp.c_fc", hidden, 4 * hidden);
    Value act = GeluOp::create(body, b.loc(), up);
    return b.linear(act, prefix + ".mlp.c_proj", 4 * hidden, hidden, layers);
  });
}

Value TransformerBuilder::logits(Value h) {
  OpBuilder &body = b.builder();
  if (config.layout == NormLayout::PreNorm) {
    b.at("ln_f");
    h = b.layerNorm(h, "ln_f", config.hidden);
  }
  b.at("lm_head");
  Value weight = config.tied
                     ? b.param("wte", {config.vocab, config.hidden}, b.normal())
                     : b.param("lm_head.weight", {config.vocab, config.hidden},
                               b.normal());
  return LinearOp::create(body, b.loc(), h, weight, Value(),
                          UnitAttr::get(body.getContext()));
}
