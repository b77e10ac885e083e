//===- MlmBatcher.cpp - BERT's masked-LM pre-training batches -------------===//

#include "runtime/io/MlmBatcher.h"
#include "runtime/util/Philox.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace tpc {

namespace {
/// The Philox stream of a row in a pass: every draw of the row is a block
/// of it. The first pass keeps the stream of the row alone.
uint64_t row_stream(uint64_t row, uint64_t pass) {
  static const uint64_t key = fnv1a64("mlm");
  uint64_t stream = mix64(key ^ mix64(row));
  return pass == 0 ? stream : mix64(stream ^ mix64(pass));
}

/// The block of a row's split and sentence-order draws; positions use the
/// blocks [0, T).
constexpr uint64_t kRowBlock = ~uint64_t(0);

/// x uniform in [0, n) from 32 random bits.
uint32_t below(uint32_t bits, uint32_t n) {
  return uint32_t((uint64_t(bits) * n) >> 32);
}

std::string marked_fix() {
  return "encode the text, one sentence per line and a blank line between "
         "documents, with `tpc-data encode --tokenizer bert-uncased "
         "--sentences`";
}
} // namespace

MlmBatcher::MlmBatcher(const TokenFile &file, const MlmVocabulary &vocab,
                       const MlmOptions &options, int B, int T, int dp_rank,
                       int dp_size, int vocab_size)
    : Batcher(file, B, T, dp_rank, dp_size), vocab_(vocab), options_(options),
      tokens_(size_t(T)) {
  if (T < 5)
    throw std::runtime_error(
        "masked-LM rows of T = " + std::to_string(T) +
        " tokens cannot hold [CLS] A [SEP] B [SEP]; compile with --seq 5 or "
        "more");
  if (!(options.probability > 0.0 && options.probability <= 1.0))
    throw std::runtime_error("--mlm-probability " +
                             std::to_string(options.probability) +
                             " is not a share of the tokens in (0, 1]");
  const int limit = vocab_size > 0 ? vocab_size : INT_MAX;
  if (vocab.size <= 0 || vocab.size > limit)
    throw std::runtime_error(
        "the tokenizer's vocabulary of " + std::to_string(vocab.size) +
        " tokens does not fit the model's vocabulary of " +
        std::to_string(vocab_size) +
        "; give the vocab.txt the model was made for (--vocab-dir)");
  for (auto [name, id] : {std::pair<const char *, int>{"[CLS]", vocab.cls},
                          {"[SEP]", vocab.sep},
                          {"[PAD]", vocab.pad},
                          {"[MASK]", vocab.mask}})
    if (id < 0 || id >= vocab.size)
      throw std::runtime_error(std::string("the id of ") + name + " (" +
                               std::to_string(id) +
                               ") is not in the vocabulary of " +
                               std::to_string(vocab.size) + " tokens");
  uint32_t last = 0;
  if (file.num_tokens() > 0)
    file.read(file.num_tokens() - 1, 1, &last);
  if (file.num_tokens() == 0 || last != uint32_t(vocab.sep))
    throw std::runtime_error(
        file.path() + ": does not end with [SEP] (id " +
        std::to_string(vocab.sep) +
        "), so its sentences are not marked, and masked-LM rows ([CLS] A "
        "[SEP] B [SEP]) are packed from sentences that each end in [SEP]; " +
        marked_fix());
  pack_rows();
  if (batches_per_epoch() == 0)
    throw std::runtime_error(file.path() + ": its sentences pack into " +
                             std::to_string(rows_.size()) +
                             " rows, fewer than one global batch needs (dp " +
                             std::to_string(dp_size) + " x B " +
                             std::to_string(B) + " = " +
                             std::to_string(uint64_t(dp_size) * B) +
                             " rows of T = " + std::to_string(T) +
                             "); use a larger file or a smaller batch");
}

void MlmBatcher::pack_rows() {
  // Ids of the tokenizer's vocabulary, which the model's holds (checked).
  const uint32_t limit = uint32_t(vocab_.size);
  const uint64_t room = uint64_t(T_) - 3; // tokens of A and B
  const uint32_t sep = uint32_t(vocab_.sep);
  bool open = false;
  uint64_t held = 0; // tokens of the open row, without its [SEP]s
  auto add_piece = [&](uint64_t begin, uint64_t length, uint64_t end) {
    if (open && held + length <= room) {
      rows_.back().end = end;
      held += length;
      return;
    }
    rows_.push_back({begin, end});
    open = true;
    held = length;
  };
  const uint64_t n = file_.num_tokens(), piece = uint64_t(1) << 18;
  std::vector<uint32_t> buffer(std::min(piece, n));
  uint64_t sentence = 0; // where the current sentence starts
  for (uint64_t pos = 0; pos < n; pos += piece) {
    uint64_t m = std::min(piece, n - pos);
    file_.read(pos, m, buffer.data());
    for (uint64_t i = 0; i < m; ++i) {
      uint32_t t = buffer[i];
      if (t >= limit)
        throw std::runtime_error(
            file_.path() + ": token " + std::to_string(t) + " at position " +
            std::to_string(pos + i) + " is not an id of the vocabulary of " +
            std::to_string(vocab_.size) +
            " tokens whose [CLS], [SEP], [PAD] and [MASK] the batches use; " +
            marked_fix() + " and that vocabulary");
      if (t != sep)
        continue;
      const uint64_t end = pos + i; // the [SEP]
      if (end == sentence)
        open = false; // an empty sentence: the document ends
      for (uint64_t at = sentence; at < end; at += room) {
        uint64_t length = std::min(room, end - at);
        add_piece(at, length, at + length == end ? end + 1 : at + length);
      }
      sentence = end + 1;
    }
  }
}

uint64_t MlmBatcher::batches_per_epoch() const {
  return rows_.size() / (uint64_t(dp_size_) * B_);
}

void MlmBatcher::set_global_batch(uint64_t index) {
  pass_ = index / batches_per_epoch();
}

int MlmBatcher::fill_row(uint64_t row, int *inputs, int *targets, int *types,
                         bool &swapped) {
  const Row &r = rows_[row];
  const size_t n = size_t(r.end - r.begin);
  tokens_.resize(n);
  file_.read(r.begin, n, tokens_.data());
  const uint32_t sep = uint32_t(vocab_.sep);
  const uint64_t stream = row_stream(row, pass_);
  Philox4 draw = philox_block(options_.seed, stream, kRowBlock);
  // The sentence ends (their [SEP]s, or n after a cut piece).
  std::vector<size_t> &ends = ends_;
  ends.clear();
  for (size_t i = 0; i < n; ++i)
    if (tokens_[i] == sep)
      ends.push_back(i);
  if (ends.empty() || ends.back() != n - 1)
    ends.push_back(n);
  // A ends before the [SEP] of sentence `a`, or in a lone sentence's middle.
  size_t a_end;
  if (ends.size() >= 2) {
    size_t a = 1 + below(draw.v[0], uint32_t(ends.size() - 1));
    a_end = ends[a - 1];
  } else {
    a_end = ends[0] - ends[0] / 2;
  }
  a_.clear();
  b_.clear();
  for (size_t i = 0; i < n; ++i)
    if (tokens_[i] != sep)
      (i < a_end ? a_ : b_).push_back(tokens_[i]);
  swapped = options_.sentence_order && !b_.empty() &&
            uint32_to_uniform(draw.v[1]) < 0.5f;
  if (swapped)
    a_.swap(b_);

  // [CLS] A [SEP] B [SEP] [PAD]...
  int length = 0;
  auto put = [&](uint32_t token, int type) {
    inputs[length] = int(token);
    types[length] = type;
    ++length;
  };
  put(uint32_t(vocab_.cls), 0);
  for (uint32_t t : a_)
    put(t, 0);
  put(sep, 0);
  for (uint32_t t : b_)
    put(t, 1);
  put(sep, 1);
  for (int i = length; i < T_; ++i) {
    inputs[i] = vocab_.pad;
    types[i] = 0;
  }

  const float p = float(options_.probability);
  for (int i = 0; i < T_; ++i) {
    const int t = inputs[i];
    targets[i] = options_.ignore_index;
    if (i >= length || t == vocab_.cls || t == vocab_.sep || t == vocab_.pad)
      continue;
    Philox4 u = philox_block(options_.seed, stream, uint64_t(i));
    if (uint32_to_uniform(u.v[0]) >= p)
      continue;
    targets[i] = t;
    float kind = uint32_to_uniform(u.v[1]);
    if (kind < 0.8f)
      inputs[i] = vocab_.mask;
    else if (kind < 0.9f)
      inputs[i] = int(below(u.v[2], uint32_t(vocab_.size)));
  }
  return length;
}

void MlmBatcher::next(int *inputs, int *targets) {
  next(inputs, targets, BatchExtras{});
}

void MlmBatcher::next(int *inputs, int *targets, const BatchExtras &extras) {
  if (position_ / global() >= batches_per_epoch())
    position_ = 0;
  const uint64_t first =
      position_ / global() * dp_size_ * B_ + uint64_t(dp_rank_) * B_;
  std::vector<int> types(static_cast<size_t>(T_));
  for (int b = 0; b < B_; ++b) {
    const size_t at = size_t(b) * T_;
    int *row_types =
        extras.token_types ? extras.token_types + at : types.data();
    bool swapped = false;
    int length =
        fill_row(first + b, inputs + at, targets + at, row_types, swapped);
    if (extras.key_lengths)
      extras.key_lengths[b] = length;
    if (extras.sentence_order)
      extras.sentence_order[b] = swapped ? 1 : 0;
  }
  position_ += global();
}

} // namespace tpc
