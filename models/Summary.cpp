//===- Summary.cpp - Parameter counts of a model module ---------*- C++ -*-===//
//
// Counts are read from the module's tpc.param declarations, so they describe
// exactly what was built. Parameters named `h.<i>.*`, `s<j>.h.<i>.*`,
// `model.layers.<i>.*`, `model.s<j>.layers.<i>.*` or
// `bert.encoder.layer.<i>.*` are layers, grouped by stack; a group whose
// layers agree prints once, "per layer x L". A BERT module also prints the
// count of its `bert.*` parameters (Hugging Face's BertModel: the encoder
// with its embeddings and the pooler, without the pretraining heads).
//
//===----------------------------------------------------------------------===//

#include "models/Models.h"

#include "dialects/tpc/TpcOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace tpc;
using namespace tpc::models;

namespace {
/// A weight and its bias, or a single tensor, under one name.
struct Component {
  std::string name;
  int64_t count = 0;
  SmallVector<std::string> shapes;

  bool isCrossAttention() const {
    return StringRef(name).starts_with("ln_x") ||
           StringRef(name).starts_with("xattn.") ||
           StringRef(name).starts_with("cross_attn");
  }
};

struct Layer {
  int64_t index;
  SmallVector<Component> components;
  int64_t total() const {
    int64_t n = 0;
    for (const Component &c : components)
      n += c.count;
    return n;
  }
};

/// Either a top-level component or the layers of one stack.
struct Entry {
  std::string prefix; // "h", "s2.h"; empty for a component
  Component component;
  SmallVector<Layer> layers;
};

std::string shapeOf(RankedTensorType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(type.getShape(), os, "x");
  return s;
}

void addTo(SmallVectorImpl<Component> &components, StringRef name,
           RankedTensorType type) {
  auto *it = llvm::find_if(components,
                           [&](const Component &c) { return c.name == name; });
  if (it == components.end()) {
    components.push_back({name.str(), 0, {}});
    it = std::prev(components.end());
  }
  it->count += type.getNumElements();
  it->shapes.push_back(shapeOf(type));
}

/// Where a parameter belongs: `s2.h.3.attn.c_attn.weight` is component
/// "attn.c_attn" of layer 3 of stack "s2.h"; `wte` is the top-level
/// component "wte" (empty stack).
struct Place {
  std::string stack;
  int64_t layer = -1;
  std::string component;
};

Place placeOf(StringRef name) {
  StringRef component = name;
  if (!component.consume_back(".weight"))
    component.consume_back(".bias");
  SmallVector<StringRef> parts;
  component.split(parts, '.');
  size_t h = parts.size();
  if (parts.size() >= 3 && parts[0] == "h")
    h = 0;
  else if (parts.size() >= 4 && parts[0].starts_with("s") && parts[1] == "h")
    h = 1;
  else if (parts.size() >= 4 && parts[0] == "model" && parts[1] == "layers")
    h = 1; // Llama: model.layers.<i>.*
  else if (parts.size() >= 5 && parts[0] == "bert" && parts[1] == "encoder" &&
           parts[2] == "layer")
    h = 2; // BERT: bert.encoder.layer.<i>.*
  else if (parts.size() >= 5 && parts[0] == "model" &&
           parts[1].starts_with("s") && parts[2] == "layers")
    h = 2; // StagFormer of Llama blocks: model.s<j>.layers.<i>.*
  int64_t layer;
  if (h == parts.size() || parts[h + 1].getAsInteger(10, layer))
    return {"", -1, component.str()};
  return {llvm::join(ArrayRef(parts).take_front(h + 1), "."), layer,
          llvm::join(ArrayRef(parts).drop_front(h + 2), ".")};
}

void line(raw_ostream &os, int indent, StringRef name, int64_t count,
          StringRef detail) {
  os << llvm::format("%*s%-*s%15s", indent, "", 30 - indent, name.str().c_str(),
                     withThousands(count).c_str());
  if (!detail.empty())
    os << "  " << detail;
  os << "\n";
}

void printComponents(raw_ostream &os, int indent,
                     ArrayRef<Component> components) {
  int64_t cross = 0;
  for (const Component &c : components) {
    if (c.isCrossAttention()) {
      cross += c.count;
      continue;
    }
    line(os, indent, c.name, c.count, llvm::join(c.shapes, ", "));
  }
  if (cross == 0)
    return;
  line(os, indent, "cross-attention", cross, "");
  for (const Component &c : components)
    if (c.isCrossAttention())
      line(os, indent + 2, c.name, c.count, llvm::join(c.shapes, ", "));
}

bool sameLayers(ArrayRef<Layer> layers) {
  return llvm::all_of(layers, [&](const Layer &l) {
    return l.components.size() == layers.front().components.size() &&
           llvm::all_of(llvm::zip(l.components, layers.front().components),
                        [](auto pair) {
                          auto &[a, b] = pair;
                          return a.name == b.name && a.count == b.count;
                        });
  });
}
} // namespace

std::string tpc::models::withThousands(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

void tpc::models::printSummary(ModuleOp module, StringRef title,
                               raw_ostream &os) {
  SmallVector<Entry> blocks;
  int64_t total = 0;
  for (auto param : module.getOps<ParamOp>()) {
    RankedTensorType type = param.getTensorType();
    total += type.getNumElements();
    Place place = placeOf(param.getSymName());
    if (place.stack.empty()) {
      auto *it = llvm::find_if(blocks, [&](const Entry &b) {
        return b.prefix.empty() && b.component.name == place.component;
      });
      if (it == blocks.end()) {
        blocks.push_back({"", {place.component, 0, {}}, {}});
        it = std::prev(blocks.end());
      }
      it->component.count += type.getNumElements();
      it->component.shapes.push_back(shapeOf(type));
      continue;
    }
    auto *block = llvm::find_if(
        blocks, [&](const Entry &b) { return b.prefix == place.stack; });
    if (block == blocks.end()) {
      blocks.push_back({place.stack, {}, {}});
      block = std::prev(blocks.end());
    }
    auto *layer = llvm::find_if(
        block->layers, [&](const Layer &l) { return l.index == place.layer; });
    if (layer == block->layers.end()) {
      block->layers.push_back({place.layer, {}});
      layer = std::prev(block->layers.end());
    }
    addTo(layer->components, place.component, type);
  }

  os << title << ": " << withThousands(total) << " parameters\n";
  int64_t encoder = 0;
  for (auto param : module.getOps<ParamOp>())
    if (param.getSymName().starts_with("bert."))
      encoder += param.getTensorType().getNumElements();
  if (encoder > 0 && encoder < total)
    os << "  of which the encoder (bert.*, BertModel): "
       << withThousands(encoder) << "\n";
  for (const Entry &block : blocks) {
    if (block.prefix.empty()) {
      line(os, 2, block.component.name, block.component.count,
           llvm::join(block.component.shapes, ", "));
      continue;
    }
    ArrayRef<Layer> layers = block.layers;
    if (sameLayers(layers)) {
      int64_t perLayer = layers.front().total();
      std::string name = block.prefix + ".{" +
                         std::to_string(layers.front().index) + ".." +
                         std::to_string(layers.back().index) + "}";
      line(os, 2, name, perLayer * layers.size(),
           "per layer " + withThousands(perLayer) + " x " +
               std::to_string(layers.size()));
      printComponents(os, 4, layers.front().components);
      continue;
    }
    for (const Layer &layer : layers) {
      line(os, 2, block.prefix + "." + std::to_string(layer.index),
           layer.total(), "");
      printComponents(os, 4, layer.components);
    }
  }
  line(os, 0, "total", total, "");
}
