//===- Parameters.cpp - One rank's slices of the model parameters ---------===//

#include "runtime/exec/Parameters.h"
#include "runtime/program/Abi.h"
#include "runtime/util/Philox.h"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tpc {

namespace {
std::runtime_error param_error(const program::Parameter &param,
                               const std::string &what) {
  return std::runtime_error("parameter '" + param.name() + "': " + what +
                            "; recompile the model with tpc-compile");
}

uint64_t product(const std::vector<int64_t> &shape, size_t begin, size_t end) {
  uint64_t n = 1;
  for (size_t d = begin; d < end; ++d)
    n *= uint64_t(shape[d]);
  return n;
}

/// The padded dimension of a parameter with a valid extent: the split one,
/// or for a replicated parameter the one whose extent differs.
int padded_dim(const program::Parameter &param,
               const std::vector<int64_t> &shape) {
  if (param.valid_extent() <= 0)
    return -1;
  if (param.layout().kind() == program::Layout::SPLIT)
    return int(param.layout().dim());
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != param.valid_extent())
      return int(d);
  return -1;
}

/// Copies `outer` rows of `valid * inner` floats into rows of `length *
/// inner` floats, zeroing the rest of each row.
void spread_rows(const float *src, float *dst, uint64_t outer, uint64_t valid,
                 uint64_t length, uint64_t inner) {
  for (uint64_t o = 0; o < outer; ++o) {
    const float *s = src + o * valid * inner;
    float *d = dst + o * length * inner;
    std::copy(s, s + valid * inner, d);
    std::fill(d + valid * inner, d + length * inner, 0.0f);
  }
}

/// Fills the local slice from `read_valid`, which writes the non-padding
/// part (shape: local_shape with valid_length along pad_dim).
template <typename ReadValid>
void fill_slice(const ParamSlice &s, float *out, ReadValid read_valid) {
  if (s.pad_dim < 0) {
    read_valid(out);
    return;
  }
  uint64_t outer = product(s.local_shape, 0, s.pad_dim);
  uint64_t inner = product(s.local_shape, s.pad_dim + 1, s.local_shape.size());
  uint64_t length = uint64_t(s.local_shape[s.pad_dim]);
  std::vector<float> valid(outer * uint64_t(s.valid_length) * inner);
  if (s.valid_length > 0)
    read_valid(valid.data());
  spread_rows(valid.data(), out, outer, uint64_t(s.valid_length), length,
              inner);
}
} // namespace

uint64_t ParamSlice::local_elements() const {
  return product(local_shape, 0, local_shape.size());
}

ParamSlice param_slice(const program::Parameter &param,
                       const program::Tensor &local, int tp_rank, int tp) {
  ParamSlice s;
  s.global_shape.assign(param.global_shape().begin(),
                        param.global_shape().end());
  const program::Layout &layout = param.layout();
  try {
    switch (layout.kind()) {
    case program::Layout::SPLIT:
      s.slice = SliceSpec::split(s.global_shape, int(layout.dim()), tp_rank, tp,
                                 std::max<int64_t>(1, layout.blocks()));
      break;
    case program::Layout::REPLICATED:
      break;
    default:
      throw param_error(param, "a partial-sum layout has no initial value "
                               "or checkpoint slice");
    }
    s.local_shape = local_shape(s.global_shape, s.slice);
  } catch (const std::invalid_argument &e) {
    throw param_error(param, e.what());
  }
  std::vector<int64_t> expected(local.shape().begin(), local.shape().end());
  if (expected != s.local_shape)
    throw param_error(param,
                      "its layout gives rank " + std::to_string(tp_rank) +
                          " the shape " + shape_string(s.local_shape) +
                          " but the program holds " + shape_string(expected));
  s.unpadded_shape = s.global_shape;
  s.pad_dim = padded_dim(param, s.global_shape);
  if (s.pad_dim < 0) {
    s.valid = s.slice;
    return s;
  }
  int64_t valid = param.valid_extent();
  if (s.pad_dim >= int(s.global_shape.size()) ||
      valid > s.global_shape[s.pad_dim])
    throw param_error(param, "valid extent " + std::to_string(valid) +
                                 " does not fit shape " +
                                 shape_string(s.global_shape));
  if (s.slice.dim >= 0 && s.slice.blocks != 1)
    throw param_error(param, "a padded dimension cannot be split in blocks");
  s.unpadded_shape[s.pad_dim] = valid;
  int64_t offset = s.slice.dim >= 0 ? s.slice.offset : 0;
  int64_t length = s.local_shape[s.pad_dim];
  s.valid_length = std::clamp<int64_t>(valid - offset, 0, length);
  s.valid = SliceSpec{s.pad_dim, offset, s.valid_length, 1};
  return s;
}

void init_parameter(float *out, const program::Parameter &param,
                    const ParamSlice &slice, uint64_t seed) {
  switch (param.init().kind()) {
  case program::Init::ZEROS:
    init_constant(out, slice.local_elements(), 0.0f);
    return;
  case program::Init::ONES:
    // Padding stays zero even for a constant.
    fill_slice(slice, out, [&](float *valid) {
      init_constant(
          valid, local_num_elements(slice.unpadded_shape, slice.valid), 1.0f);
    });
    return;
  case program::Init::NORMAL:
    fill_slice(slice, out, [&](float *valid) {
      init_normal(valid, slice.unpadded_shape, slice.valid, seed, param.name(),
                  0.0f, float(param.init().std()));
    });
    return;
  default:
    throw param_error(param, "unknown initializer kind " +
                                 std::to_string(int(param.init().kind())));
  }
}

std::string checkpoint_name(const std::string &param) {
  if (param == "wte" || param == "wpe")
    return param + ".weight";
  return param;
}

void load_parameter(const SafetensorsReader &file,
                    const program::Parameter &param, const ParamSlice &slice,
                    float *out) {
  std::string name = checkpoint_name(param.name());
  std::vector<std::string> candidates = {name, "transformer." + name};
  if (name != param.name()) {
    candidates.push_back(param.name());
    candidates.push_back("transformer." + param.name());
  }
  auto found =
      std::find_if(candidates.begin(), candidates.end(),
                   [&](const std::string &c) { return file.contains(c); });
  if (found == candidates.end())
    throw std::runtime_error(file.path() + ": has no tensor '" + name +
                             "' (nor 'transformer." + name + "') of shape " +
                             shape_string(slice.unpadded_shape) +
                             " for parameter '" + param.name() +
                             "'; the checkpoint belongs to another model");
  const std::vector<int64_t> &stored = file.info(*found).shape;
  if (stored != slice.unpadded_shape)
    throw std::runtime_error(
        file.path() + ": tensor '" + *found + "' has shape " +
        shape_string(stored) + " but parameter '" + param.name() +
        "' of this model is " + shape_string(slice.unpadded_shape) +
        "; the checkpoint is of another model configuration: generate the "
        "model with the checkpoint's sizes (tpc-model --vocab, --layers, "
        "--hidden, --seq; for Llama also --heads, --kv-heads, "
        "--intermediate) and compile it again");
  fill_slice(slice, out, [&](float *valid) {
    file.read_f32(*found, slice.unpadded_shape, valid, slice.valid);
  });
}

void check_checkpoint_tensors(const SafetensorsReader &file,
                              const program::Program &program) {
  std::set<std::string> params;
  for (const program::Parameter &p : program.parameters()) {
    params.insert(p.name());
    params.insert(checkpoint_name(p.name()));
  }
  const std::string prefix = "transformer.";
  auto bare = [&](const std::string &name) {
    return name.compare(0, prefix.size(), prefix) == 0
               ? name.substr(prefix.size())
               : name;
  };
  // Hugging Face GPT-2's causal mask and its masked value, older Llama
  // checkpoints' rotary frequencies and BERT's position and token-type ids
  // are buffers, not parameters.
  static const std::regex buffer(
      R"(h\.[0-9]+\.attn\.(bias|masked_bias)|)"
      R"(model\.layers\.[0-9]+\.self_attn\.rotary_emb\.inv_freq|)"
      R"((bert\.)?embeddings\.(position_ids|token_type_ids))");
  // Copies that Hugging Face saves of tied parameters: each must equal its
  // twin. GPT2LMHeadModel saves its tied output layer, BertForPreTraining
  // its decoder (tied to the word embeddings) and the decoder's bias.
  struct Copy {
    const char *name, *twin;
    const char *own, *what, *whom, *fix;
  };
  static const Copy copies[] = {
      {"lm_head.weight", "wte.weight", "an output layer", "output layer",
       "the embedding", "generate the model with tpc-model gpt2 --no-tied"},
      {"cls.predictions.decoder.weight",
       "bert.embeddings.word_embeddings.weight", "a decoder", "decoder",
       "the word embeddings",
       "tpc's BERT ties its masked-LM decoder to the word embeddings, as "
       "Hugging Face's does"},
      {"cls.predictions.decoder.bias", "cls.predictions.bias", "a decoder bias",
       "decoder bias", "cls.predictions.bias",
       "tpc's BERT adds cls.predictions.bias, as Hugging Face's does"},
  };
  bool tied = params.count("wte") && !params.count("lm_head.weight");
  for (const std::string &name : file.names()) {
    std::string n = bare(name);
    if (params.count(n))
      continue;
    const size_t state = sizeof(abi::kOptimizerStatePrefix) - 1;
    if (n.compare(0, state, abi::kOptimizerStatePrefix) == 0) {
      size_t dot = n.find('.', state);
      if (dot != std::string::npos && params.count(n.substr(dot + 1)))
        continue;
    }
    if (std::regex_match(n, buffer))
      continue;
    const Copy *copy =
        std::find_if(std::begin(copies), std::end(copies), [&](const Copy &c) {
          return n == c.name && (n != "lm_head.weight" || tied) &&
                 params.count(c.twin);
        });
    if (copy != std::end(copies)) {
      std::string twin = file.contains(copy->twin)
                             ? std::string(copy->twin)
                             : prefix + std::string(copy->twin);
      const TensorInfo &head = file.info(name);
      if (!file.contains(twin) || head.shape != file.info(twin).shape)
        throw std::runtime_error(
            file.path() + ": tensor '" + name + "' of shape " +
            shape_string(head.shape) + " is " + copy->own +
            " of its own, not tied to " + copy->twin + "; " + copy->fix);
      std::vector<float> a(head.num_elements()), b(head.num_elements());
      file.read_f32(name, head.shape, a.data());
      file.read_f32(twin, head.shape, b.data());
      if (a != b)
        throw std::runtime_error(
            file.path() + ": tensor '" + name + "' differs from " + copy->twin +
            ": the checkpoint's " + copy->what + " is not tied to " +
            copy->whom + " but this model's is; " + copy->fix);
      continue;
    }
    throw std::runtime_error(
        file.path() + ": tensor '" + name + "' (" +
        dtype_name(file.info(name).dtype) + " " +
        shape_string(file.info(name).shape) +
        ") is not a parameter of this model; the checkpoint is of another "
        "model configuration: generate the model with the checkpoint's "
        "sizes (tpc-model --layers, --vocab, --hidden, --seq) and compile it "
        "again");
  }
}

void load_slice(const SafetensorsReader &file, const std::string &name,
                const ParamSlice &slice, float *out) {
  fill_slice(slice, out, [&](float *valid) {
    file.read_f32(name, slice.unpadded_shape, valid, slice.valid);
  });
}

std::vector<float> assemble_parameter(const program::Parameter &param,
                                      const program::Tensor &local, int tp,
                                      const float *slices) {
  ParamSlice first = param_slice(param, local, 0, tp);
  uint64_t n = first.local_elements();
  std::vector<float> padded(
      product(first.global_shape, 0, first.global_shape.size()));
  int ranks = first.slice.dim < 0 ? 1 : tp;
  for (int r = 0; r < ranks; ++r) {
    ParamSlice s = param_slice(param, local, r, tp);
    GlobalIndexMap map(s.global_shape, s.slice);
    const float *src = slices + uint64_t(r) * n;
    for (uint64_t i = 0; i < n; ++i)
      padded[map(i)] = src[i];
  }
  if (first.pad_dim < 0)
    return padded;
  int d = first.pad_dim;
  uint64_t outer = product(first.global_shape, 0, d);
  uint64_t inner =
      product(first.global_shape, d + 1, first.global_shape.size());
  uint64_t valid = uint64_t(first.unpadded_shape[d]);
  uint64_t length = uint64_t(first.global_shape[d]);
  std::vector<float> out(outer * valid * inner);
  for (uint64_t o = 0; o < outer; ++o)
    std::copy(padded.begin() + o * length * inner,
              padded.begin() + (o * length + valid) * inner,
              out.begin() + o * valid * inner);
  return out;
}

} // namespace tpc
