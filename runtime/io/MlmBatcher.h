//===- MlmBatcher.h - BERT's masked-LM pre-training batches -----*- C++ -*-===//
//
// The batches BERT pre-trains on (Devlin et al.; Megatron-LM's BertDataset;
// ALBERT's sentence order), read from a token file whose sentences are
// marked: every sentence is followed by [SEP], an empty sentence (a [SEP]
// right after a [SEP]) ends a document, and the file ends with [SEP]
// (`tpc-data encode --tokenizer bert-uncased --sentences` writes it).
//
// Rows. One pass over the file packs its sentences greedily, in order and
// never across a document's end: a row takes the next sentence while the
// row's tokens plus [CLS] and two [SEP] fit in T. A sentence longer than
// T-3 tokens is cut into pieces of T-3, each filling a row, and a last
// shorter piece. A row of k >= 2 sentences splits into A (the first a, a
// drawn from 1..k-1) and B (the rest); a row of one sentence splits it in
// the middle. The row is then [CLS] A [SEP] B [SEP] with token types 0 up
// to the first [SEP] and 1 after it, then [PAD] with type 0; its key length
// is the count of positions before the padding.
//
// Masking. Each position of A and B (never [CLS], [SEP] or [PAD]) is chosen
// for prediction with probability p (0.15); a chosen input becomes [MASK]
// with probability 0.8, a token drawn uniformly from the vocabulary with
// 0.1, and stays itself with 0.1. Targets are the original token at chosen
// positions and the ignore index elsewhere. With sentence order (--sop), A
// and B swap with probability 0.5 and the row's label is 1 when they did.
//
// Every draw is Philox keyed by (seed, pass, row, position), where row
// counts the rows of a pass: global batch s of the pass covers rows
// [s*dp*B, (s+1)*dp*B) and data-parallel rank r reads B of them from
// s*dp*B + r*B. Ranks are therefore disjoint and together read what one
// rank with dp*B rows reads, tensor-parallel ranks read the same rows, and
// a batch depends on nothing but the seed and its place in the training
// run. Training tells the batcher its global batch count
// (set_global_batch), whose quotient by the batches of a pass is the pass:
// every pass over the file splits, swaps and masks its rows anew (dynamic
// masking, as Megatron-LM's samples of later epochs and RoBERTa), while
// evaluation, which never sets it, reads the first pass's.
// position() is the global batch's index times dp*B*T (the tokens of a
// global batch), so that Batcher::seek resumes at the same batch.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_IO_MLMBATCHER_H
#define TPC_RUNTIME_IO_MLMBATCHER_H

#include "runtime/io/TokenFile.h"

#include <cstdint>
#include <vector>

namespace tpc {

/// The ids of a BERT vocabulary that batches are made of, taken from its
/// vocab.txt, never assumed.
struct MlmVocabulary {
  int cls = -1, sep = -1, pad = -1, mask = -1;
  /// Random replacements are drawn from [0, size).
  int size = 0;
};

struct MlmOptions {
  /// The share of A's and B's tokens chosen for prediction.
  double probability = 0.15;
  /// Swap A and B with probability 0.5 (sentence-order prediction).
  bool sentence_order = false;
  uint64_t seed = 0;
  /// The target of every position not chosen.
  int ignore_index = -100;
};

class MlmBatcher : public Batcher {
public:
  /// Reads the file once, here: every token an id of `vocab`, whose size
  /// is at most vocab_size (the model's, when > 0), the file ending with
  /// [SEP], enough rows for one global batch. Errors are
  /// std::runtime_error naming the file, the problem and the fix.
  MlmBatcher(const TokenFile &file, const MlmVocabulary &vocab,
             const MlmOptions &options, int B, int T, int dp_rank = 0,
             int dp_size = 1, int vocab_size = 0);

  void next(int *inputs, int *targets) override;
  void next(int *inputs, int *targets, const BatchExtras &extras) override;
  uint64_t batches_per_epoch() const override;
  void set_global_batch(uint64_t index) override;
  /// Rows in one pass over the file.
  uint64_t rows() const { return rows_.size(); }

private:
  /// Tokens [begin, end) of the file: whole sentences with their [SEP],
  /// but for a cut sentence's pieces.
  struct Row {
    uint64_t begin, end;
  };

  void pack_rows();
  /// Row `row` of the pass into T inputs, targets and token types; returns
  /// its key length and sets `swapped`.
  int fill_row(uint64_t row, int *inputs, int *targets, int *types,
               bool &swapped);

  MlmVocabulary vocab_;
  MlmOptions options_;
  std::vector<Row> rows_;
  std::vector<uint32_t> tokens_, a_, b_;
  std::vector<size_t> ends_;
  /// The pass over the file the next batch belongs to (set_global_batch).
  uint64_t pass_ = 0;
};

} // namespace tpc

#endif // TPC_RUNTIME_IO_MLMBATCHER_H
