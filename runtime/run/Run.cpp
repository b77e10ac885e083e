//===- Run.cpp - Evaluation and forward passes over token files -----------===//

#include "runtime/run/Run.h"
#include "runtime/io/MlmBatcher.h"
#include "runtime/io/TokenFile.h"
#include "runtime/program/Abi.h"
#include "runtime/program/OpSchema.h"
#include "runtime/program/ProgramFile.h"
#include "runtime/run/PipelineRun.h"
#include "runtime/tokenizer/WordPiece.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace tpc {

namespace {
std::runtime_error entry_error(const std::string &name,
                               const std::string &what) {
  return std::runtime_error(
      "entry point '" + name + "' " + what +
      "; it must be fn(tokens [B,T] i32, targets [B,T] i32[, token types "
      "[B,T] i32][, key lengths [B] i32]) -> (loss sum f32, count i32, logits "
      "[B,T,V] f32)");
}

bool is(const program::Tensor &t, program::DType dtype,
        std::vector<int64_t> shape) {
  return t.dtype() == dtype &&
         std::vector<int64_t>(t.shape().begin(), t.shape().end()) == shape;
}
} // namespace

ModelEntry describe_entry(const Executor &ex, const std::string &name) {
  ModelEntry e;
  // A pipelined program's loss and logits come from its last chunk's eval
  // function (PipelineRun.h), which also takes what it receives.
  const program::Function *last = nullptr;
  if (ex.program().pp() > 1)
    for (const program::Function &fn : ex.program().functions())
      if (fn.has_chunk() && fn.chunk().role() == program::ChunkFunction::EVAL &&
          (!last || fn.chunk().chunk() > last->chunk().chunk()))
        last = &fn;
  e.fn = last ? last : &ex.function(name);
  const program::Function &fn = *e.fn;
  if (fn.has_token_types_input())
    e.token_types = fn.token_types_input();
  if (fn.has_key_lengths_input())
    e.key_lengths = fn.key_lengths_input();
  if (fn.has_sentence_order_input())
    e.sentence_order = fn.sentence_order_input();
  if (fn.has_sentence_order_weight_input())
    e.sentence_order_weight = fn.sentence_order_weight_input();
  if (fn.has_sentence_order_logits_output())
    e.sentence_order_logits = fn.sentence_order_logits_output();
  // train_step of an fp16 program also takes the loss scale (scales_loss).
  int inputs = e.batch_inputs();
  if (last || (name == abi::kTrainStep && fn.inputs_size() == inputs + 1))
    inputs = fn.inputs_size();
  if (fn.inputs_size() != inputs || fn.outputs_size() < 2)
    throw entry_error(name, "has " + std::to_string(fn.inputs_size()) +
                                " inputs and " +
                                std::to_string(fn.outputs_size()) + " outputs");
  const program::Tensor &tokens = ex.tensor(fn.inputs(0));
  if (tokens.shape_size() != 2 || tokens.dtype() != program::I32)
    throw entry_error(name, "takes tokens that are not [B,T] i32");
  e.B = int(tokens.shape(0));
  e.T = int(tokens.shape(1));
  if (!is(ex.tensor(fn.inputs(1)), program::I32, {e.B, e.T}))
    throw entry_error(name, "takes targets that are not [B,T] i32");
  // The extras follow the targets (abi::kInputAttr).
  if (e.token_types >= 0 &&
      (e.token_types < 2 || e.token_types >= e.batch_inputs() ||
       !is(ex.tensor(fn.inputs(e.token_types)), program::I32, {e.B, e.T})))
    throw entry_error(name, "takes token types that are not [B,T] i32 after "
                            "the targets");
  if (e.key_lengths >= 0 &&
      (e.key_lengths < 2 || e.key_lengths >= e.batch_inputs() ||
       e.key_lengths == e.token_types ||
       !is(ex.tensor(fn.inputs(e.key_lengths)), program::I32, {e.B})))
    throw entry_error(name, "takes key lengths that are not [B] i32 after "
                            "the targets");
  if ((e.sentence_order >= 0) != (e.sentence_order_weight >= 0) ||
      (e.sentence_order >= 0 &&
       (!is(ex.tensor(fn.inputs(e.sentence_order)), program::I32, {e.B, 1}) ||
        !is(ex.tensor(fn.inputs(e.sentence_order_weight)), program::F32, {}))))
    throw entry_error(name, "takes sentence-order labels and their loss "
                            "weight that are not [B,1] i32 and an f32 scalar");
  if (e.sentence_order_logits >= 0 &&
      (e.sentence_order_logits >= fn.outputs_size() ||
       !is(ex.tensor(fn.outputs(e.sentence_order_logits)), program::F32,
           {e.B, 1, 2})))
    throw entry_error(name, "returns sentence-order logits that are not "
                            "[B,1,2] f32");
  if (!is(ex.tensor(fn.outputs(0)), program::F32, {}) ||
      !is(ex.tensor(fn.outputs(1)), program::I32, {}))
    throw entry_error(name, "does not return a loss sum and a count first");
  // What tpc-export recorded of the loss (Program.model) and the logits
  // (Function.logits_output).
  const program::Model &model = ex.program().model();
  if (model.vocab() < 1)
    throw entry_error(name, "computes no cross_entropy");
  e.vocab = int(model.vocab());
  e.vocab_parallel = model.vocab_parallel();
  if (fn.has_logits_output()) {
    e.logits = fn.logits_output();
    const program::Tensor &l = ex.tensor(fn.outputs(e.logits));
    if (l.shape_size() != 3 || l.shape(0) != e.B || l.shape(1) != e.T)
      throw entry_error(name, "returns logits that are not [B,T,V]");
    e.logits_width = int(l.shape(2));
    if (e.vocab_parallel ? int64_t(e.logits_width) * ex.program().tp() < e.vocab
                         : e.logits_width != e.vocab)
      throw entry_error(
          name, "returns logits of " + std::to_string(e.logits_width) +
                    " columns for a vocabulary of " + std::to_string(e.vocab));
  }
  return e;
}

Batch::Batch(const ModelEntry &entry) {
  size_t n = size_t(entry.B) * entry.T;
  inputs.resize(n);
  targets.resize(n);
  if (entry.token_types >= 0)
    token_types.resize(n);
  if (entry.key_lengths >= 0)
    key_lengths.resize(size_t(entry.B));
  if (entry.sentence_order >= 0)
    sentence_order.resize(size_t(entry.B));
}

BatchExtras Batch::extras() {
  BatchExtras e;
  if (!token_types.empty())
    e.token_types = token_types.data();
  if (!key_lengths.empty())
    e.key_lengths = key_lengths.data();
  if (!sentence_order.empty())
    e.sentence_order = sentence_order.data();
  return e;
}

void set_batch(Executor &ex, const ModelEntry &entry, const Batch &batch) {
  const program::Function &fn = *entry.fn;
  auto set = [&](int input, const std::vector<int> &v) {
    ex.set_input(fn, input, v.data(), v.size() * sizeof(int));
  };
  set(0, batch.inputs);
  set(1, batch.targets);
  for_each_batch_extra(fn, batch,
                       [&](int input, const void *data, size_t bytes) {
                         ex.set_input(fn, input, data, bytes);
                       });
}

void add_sentence_order(Executor &ex, const ModelEntry &entry,
                        const Batch &batch, double totals[2]) {
  std::vector<float> logits(size_t(entry.B) * 2);
  ex.read_output(*entry.fn, entry.sentence_order_logits, logits.data(),
                 logits.size() * sizeof(float));
  add_sentence_order(logits, batch, totals);
}

void add_sentence_order(const std::vector<float> &logits, const Batch &batch,
                        double totals[2]) {
  if (logits.size() != 2 * batch.sentence_order.size())
    throw std::runtime_error("the sentence-order logits do not hold two "
                             "classes for each of the batch's rows");
  for (size_t row = 0; row < batch.sentence_order.size(); ++row) {
    double a = logits[2 * row], b = logits[2 * row + 1];
    double top = std::max(a, b);
    double lse = top + std::log(std::exp(a - top) + std::exp(b - top));
    int label = batch.sentence_order[row];
    totals[0] += lse - (label ? b : a);
    // Ties go to class 0, as torch.argmax's first maximum.
    totals[1] += (b > a ? 1 : 0) == label;
  }
}

void for_each_batch_extra(const program::Function &fn, const Batch &batch,
                          const std::function<void(int input, const void *data,
                                                   size_t bytes)> &write) {
  auto extra = [&](int input, const std::vector<int> &v) {
    if (v.empty())
      throw std::runtime_error("'" + fn.name() + "' takes input " +
                               std::to_string(input) +
                               " from the batch, which does not hold it");
    write(input, v.data(), v.size() * sizeof(int));
  };
  if (fn.has_token_types_input())
    extra(fn.token_types_input(), batch.token_types);
  if (fn.has_key_lengths_input())
    extra(fn.key_lengths_input(), batch.key_lengths);
  if (fn.has_sentence_order_input())
    extra(fn.sentence_order_input(), batch.sentence_order);
  if (fn.has_sentence_order_weight_input())
    write(fn.sentence_order_weight_input(), &batch.sentence_order_weight,
          sizeof(float));
}

void check_loss_entry(Executor &ex, const ModelEntry &entry) {
  if (ex.program().pp() > 1)
    PipelineRunner pipe(ex); // checks this stage's functions
  else
    ex.check(*entry.fn);
}

namespace {
/// [CLS], [SEP], [PAD] and [MASK] of the vocab.txt in `dir`.
MlmVocabulary mlm_vocabulary(const std::string &dir) {
  const std::string path =
      (dir.empty() ? default_vocab_dir("bert-uncased") : dir) + "/vocab.txt";
  std::unique_ptr<WordPieceTokenizer> vocab =
      WordPieceTokenizer::from_file(path);
  MlmVocabulary v;
  v.size = vocab->vocab_size();
  for (auto [name, id] : {std::pair<const char *, int *>{"[CLS]", &v.cls},
                          {"[SEP]", &v.sep},
                          {"[PAD]", &v.pad},
                          {"[MASK]", &v.mask}}) {
    *id = vocab->token_id(name);
    if (*id < 0)
      throw std::runtime_error(path + ": the vocabulary has no " + name +
                               ", which --mlm batches need; give the "
                               "directory of BERT's vocab.txt (--vocab-dir)");
  }
  return v;
}

/// BERT's pre-training batches: refused for a program without token-type
/// embeddings (not an encoder such as tpc-model bert's).
std::unique_ptr<Batcher> make_mlm_batcher(Executor &ex, const ModelEntry &entry,
                                          const TokenFile &file,
                                          const MaskOptions &masks) {
  if (!masks.path.empty())
    throw std::runtime_error("--mlm draws the masked positions itself; give "
                             "it or --masks, not both");
  // A pipelined program embeds on its first chunk, not in the entry (the
  // last chunk's eval).
  const auto &functions = ex.program().functions();
  if (std::none_of(
          functions.begin(), functions.end(), [](const program::Function &fn) {
            return std::any_of(fn.body().begin(), fn.body().end(),
                               [](const program::Instruction &i) {
                                 return i.op() == op::kTokenTypeEmbedding;
                               });
          }))
    throw std::runtime_error(
        "--mlm makes BERT's pre-training batches ([CLS] A [SEP] B [SEP] "
        "with token types), but entry point '" +
        entry.fn->name() +
        "' embeds no token types: it is not a BERT program; compile one "
        "from tpc-model bert");
  MlmOptions o;
  o.probability = masks.mlm_probability;
  o.sentence_order = masks.sentence_order;
  o.seed = masks.seed;
  o.ignore_index = int(ex.program().model().ignore_index());
  Comm &comm = ex.comm();
  return std::make_unique<MlmBatcher>(file, mlm_vocabulary(masks.vocab_dir), o,
                                      entry.B, entry.T, comm.dp_rank(),
                                      comm.dp_size(), entry.vocab);
}
} // namespace

std::unique_ptr<Batcher> make_batcher(Executor &ex, const ModelEntry &entry,
                                      const TokenFile &file,
                                      const MaskOptions &masks) {
  Comm &comm = ex.comm();
  if (masks.sentence_order && entry.sentence_order < 0)
    throw std::runtime_error(
        "--sop swaps sentences for a sentence-order head, but entry point '" +
        entry.fn->name() +
        "' has none: build the model with tpc-model bert --head pretraining, "
        "or drop --sop");
  if (masks.mlm)
    return make_mlm_batcher(ex, entry, file, masks);
  if (masks.path.empty())
    return std::make_unique<TokenBatcher>(
        file, entry.B, entry.T, comm.dp_rank(), comm.dp_size(), entry.vocab);
  return std::make_unique<MaskedBatcher>(
      file, masks.path, masks.mask_id, int(ex.program().model().ignore_index()),
      entry.B, entry.T, comm.dp_rank(), comm.dp_size(), entry.vocab);
}

namespace {
/// The positions of the batch just run whose target is not `ignore` and is
/// the argmax of their logits over the real vocabulary (ties to the smaller
/// id, as torch.argmax). Every rank of a tensor-parallel group returns the
/// same count.
int64_t count_correct(Executor &ex, const ModelEntry &entry, const int *targets,
                      int ignore) {
  Comm &comm = ex.comm();
  size_t n = size_t(entry.B) * entry.T, width = size_t(entry.logits_width);
  std::vector<float> logits(n * width);
  ex.read_output(*entry.fn, entry.logits, logits.data(),
                 logits.size() * sizeof(float));
  // Rank r holds columns [r*width, (r+1)*width) of the padded vocabulary.
  size_t start = entry.vocab_parallel ? size_t(comm.tp_rank()) * width : 0;
  std::vector<float> best(n, -INFINITY);
  // Minus the id: a maximum over ranks then picks the smallest id.
  std::vector<int32_t> arg(n, INT32_MIN);
  for (size_t row = 0; row < n; ++row)
    for (size_t j = 0; j < width && start + j < size_t(entry.vocab); ++j)
      if (logits[row * width + j] > best[row]) {
        best[row] = logits[row * width + j];
        arg[row] = -int32_t(start + j);
      }
  if (entry.vocab_parallel && comm.tp_size() > 1) {
    std::vector<float> top = best;
    comm.all_reduce(top.data(), n, ReduceOp::Max, Group::TP);
    for (size_t row = 0; row < n; ++row)
      if (best[row] != top[row])
        arg[row] = INT32_MIN;
    comm.all_reduce(arg.data(), n, ReduceOp::Max, Group::TP);
  }
  int64_t correct = 0;
  for (size_t row = 0; row < n; ++row)
    correct += targets[row] != ignore && arg[row] == -targets[row];
  return correct;
}

/// Appends `batch` to `out` (evaluate's save_batches).
void save_batch(std::FILE *out, const ModelEntry &entry, const Batch &batch,
                bool sentence_order, const std::string &path) {
  size_t n = size_t(entry.B) * entry.T;
  std::vector<int> types = batch.token_types, lengths = batch.key_lengths;
  if (types.empty())
    types.assign(n, 0);
  if (lengths.empty())
    lengths.assign(size_t(entry.B), entry.T);
  const std::vector<int> none;
  for (const std::vector<int> *v :
       std::initializer_list<const std::vector<int> *>{
           &batch.inputs, &batch.targets, &types, &lengths,
           sentence_order ? &batch.sentence_order : &none})
    if (std::fwrite(v->data(), sizeof(int), v->size(), out) != v->size())
      throw std::runtime_error("cannot write " + path);
}
} // namespace

EvalResult evaluate(Executor &ex, const ModelEntry &entry,
                    const std::string &data, int64_t max_batches,
                    const MaskOptions &masks) {
  Comm &comm = ex.comm();
  std::unique_ptr<TokenFile> file;
  std::unique_ptr<Batcher> batcher;
  const bool masked = masks.masked();
  together(comm, [&] {
    file = std::make_unique<TokenFile>(data);
    batcher = make_batcher(ex, entry, *file, masks);
    if (masked && entry.logits < 0)
      throw std::runtime_error("entry point '" + entry.fn->name() +
                               "' does not return its logits, which the "
                               "accuracy of --masks needs");
  });
  const int ignore = int(ex.program().model().ignore_index());
  int64_t batches = int64_t(batcher->batches_per_epoch());
  if (max_batches > 0)
    batches = std::min(batches, max_batches);
  Batch batch(entry);
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> saved(nullptr, std::fclose);
  if (!masks.save_batches.empty() && comm.world_rank() == 0) {
    saved.reset(std::fopen(masks.save_batches.c_str(), "wb"));
    if (!saved)
      throw std::runtime_error("cannot write " + masks.save_batches);
  }
  // loss sum, count, correct; sentence-order loss sum and correct rows
  double totals[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
  // A sentence-order head is evaluated on --sop batches, which label it.
  const bool sop = entry.sentence_order >= 0 && masks.sentence_order;
  // The batch's sentence-order weight stays 0: evaluation reports the
  // masked-LM loss alone and the sentence-order metrics beside it.
  std::unique_ptr<PipelineRunner> pipe;
  if (ex.program().pp() > 1)
    pipe = std::make_unique<PipelineRunner>(ex);
  for (int64_t b = 0; b < batches; ++b) {
    together(comm, [&] {
      batcher->next(batch.inputs.data(), batch.targets.data(), batch.extras());
    });
    if (saved)
      save_batch(saved.get(), entry, batch, sop, masks.save_batches);
    if (pipe)
      pipe->eval(batch, totals);
    else
      run_loss_entry(ex, entry, batch, RunOptions{}, totals);
    if (masked && (!pipe || pipe->holds_last()))
      totals[2] +=
          double(count_correct(ex, entry, batch.targets.data(), ignore));
    if (sop && (!pipe || pipe->holds_last()))
      add_sentence_order(ex, entry, batch, totals + 3);
  }
  // Every rank of a TP group holds the same loss; DP ranks hold disjoint
  // windows; only the last pipeline stage computes it and the logits.
  if (pipe)
    comm.all_reduce(totals, 5, ReduceOp::Sum, Group::PP);
  comm.all_reduce(totals, 5, ReduceOp::Sum, Group::DP);
  EvalResult r;
  r.tokens = int64_t(totals[1]);
  r.batches = batches;
  r.loss = totals[1] > 0 ? totals[0] / totals[1] : 0.0;
  if (masked)
    r.accuracy = totals[1] > 0 ? totals[2] / totals[1] : 0.0;
  if (sop) {
    double rows = double(batches) * entry.B * comm.dp_size();
    r.sop_loss = totals[3] / rows;
    r.sop_accuracy = totals[4] / rows;
  }
  return r;
}

void run_loss_entry(Executor &ex, const ModelEntry &entry, const Batch &batch,
                    const RunOptions &options, double totals[2]) {
  set_batch(ex, entry, batch);
  ex.run(*entry.fn, options);
  float sum = 0.0f;
  int32_t count = 0;
  ex.read_output(*entry.fn, 0, &sum, sizeof(sum));
  ex.read_output(*entry.fn, 1, &count, sizeof(count));
  totals[0] += sum;
  totals[1] += count;
}

AgreedFailure weights_overflow(const std::string &what,
                               const std::string &loaded) {
  return AgreedFailure(
      what + " not finite although every token is valid: " +
      (loaded.empty()
           ? std::string("the weights initialized from --seed overflow the "
                         "model's arithmetic; initialize with another --seed "
                         "or load a checkpoint")
           : "the weights loaded from " + loaded +
                 " overflow the model's arithmetic (values too large for "
                 "float32 sums); load an earlier checkpoint, one written "
                 "before training diverged"));
}

std::vector<float> forward_logits(Executor &ex, const ModelEntry &entry,
                                  const std::string &data,
                                  const std::string &loaded) {
  Comm &comm = ex.comm();
  if (entry.logits < 0)
    throw std::runtime_error("entry point '" + entry.fn->name() +
                             "' does not return its logits");
  if (!entry.vocab_parallel && comm.tp_size() > 1 &&
      entry.logits_width != entry.vocab)
    throw std::runtime_error("the logits of '" + entry.fn->name() +
                             "' are neither whole nor vocabulary-parallel");
  size_t n = size_t(entry.B) * entry.T;
  Batch batch(entry);
  std::unique_ptr<TokenFile> file;
  together(comm, [&] {
    file = std::make_unique<TokenFile>(data);
    TokenBatcher batcher(*file, entry.B, entry.T, comm.dp_rank(),
                         comm.dp_size(), entry.vocab);
    batcher.next(batch.inputs.data(), batch.targets.data(), batch.extras());
  });
  // A pipeline's last stage holds the logits; it hands them to world rank
  // 0 on the first.
  const bool pipelined = ex.program().pp() > 1;
  const bool holds = !pipelined || comm.pp_rank() == comm.pp_size() - 1;
  if (pipelined) {
    double totals[2] = {0.0, 0.0};
    PipelineRunner(ex).eval(batch, totals);
  } else {
    set_batch(ex, entry, batch);
    ex.run(*entry.fn);
  }
  size_t width = size_t(entry.logits_width);
  std::vector<float> local(holds ? n * width : 0);
  if (holds)
    ex.read_output(*entry.fn, entry.logits, local.data(),
                   local.size() * sizeof(float));
  if (!comm.all_ok(std::all_of(local.begin(), local.end(),
                               [](float x) { return std::isfinite(x); })))
    throw weights_overflow("the logits are", loaded);
  size_t V = size_t(entry.vocab);
  if (pipelined && comm.dp_rank() == 0 && comm.tp_rank() == 0 &&
      comm.pp_rank() == 0) {
    std::vector<float> out(n * V);
    comm.recv(out.data(), out.size() * sizeof(float), comm.pp_size() - 1,
              Group::PP);
    return out;
  }
  if (comm.dp_rank() != 0 || !holds)
    return {};
  int parts = entry.vocab_parallel ? comm.tp_size() : 1;
  std::vector<float> all(comm.tp_rank() == 0 ? local.size() * parts : 0);
  if (parts > 1)
    comm.gather(local.data(), all.empty() ? nullptr : all.data(), local.size(),
                Group::TP);
  else if (comm.tp_rank() == 0)
    all = local;
  if (comm.tp_rank() != 0)
    return {};
  // Rank r holds columns [r*width, (r+1)*width) of the padded vocabulary.
  std::vector<float> out(n * V);
  for (int r = 0; r < parts; ++r)
    for (size_t row = 0; row < n; ++row)
      for (size_t j = 0; j < width; ++j) {
        size_t col = size_t(r) * width + j;
        if (col < V)
          out[row * V + col] = all[(size_t(r) * n + row) * width + j];
      }
  if (pipelined) {
    comm.send(out.data(), out.size() * sizeof(float), 0, Group::PP);
    return {};
  }
  return out;
}

} // namespace tpc
